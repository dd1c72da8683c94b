# html_fastwalk, part 3: the walk itself (FastWalker). Included by html_fastwalk.pyx.

cdef class FastWalker:
    """``html_walk.Walker``'s state and output (``blocks``, ``ctxs``, ``root``, ``boxes``), filled from C."""

    cdef public Ctx root
    cdef public list ctxs
    cdef public Ctx ctx
    cdef public list blocks
    cdef public Box box
    cdef public list boxes
    cdef public Py_ssize_t page_chars
    cdef Block list_block
    cdef Py_ssize_t link
    cdef Py_ssize_t in_link
    cdef Py_ssize_t br_mark  # html_walk.Walker.br_mark: the buffer's length after the last <br>, or -1
    cdef Py_ssize_t in_article
    cdef const LexborApi* api
    cdef void* body
    cdef PointerSet holders
    cdef dict dynamic  # tag id -> _DynamicTag for tags Lexbor does not know
    cdef Buffer buf      # the current block's text
    cdef void* buf_node  # the text node the current block's text starts in (Block.node)
    cdef Buffer scratch  # a subtree's or a cell's text
    cdef Buffer keys     # memo keys
    cdef Frame* frames
    cdef Py_ssize_t n_frames, cap_frames
    cdef Mode* modes
    cdef Py_ssize_t n_modes, cap_modes
    cdef ListState* lists
    cdef Py_ssize_t n_lists, cap_lists

    def __cinit__(self):
        self.api = lexbor_api()
        self.root = Ctx(None, "body", NONE, False, False, False, 0)
        self.ctxs = [self.root]
        self.ctx = self.root
        self.blocks = []
        self.box = Box(None)
        self.boxes = [self.box]
        self.page_chars = 1
        self.list_block = None
        self.br_mark = -1
        self.dynamic = {}
        self.modes = <Mode*> malloc(16 * sizeof(Mode))
        self.lists = <ListState*> malloc(16 * sizeof(ListState))
        self.frames = <Frame*> malloc(64 * sizeof(Frame))
        if self.modes == NULL or self.lists == NULL or self.frames == NULL:
            raise MemoryError()
        self.cap_modes = 16
        self.cap_lists = 16
        self.cap_frames = 64
        self.modes[0].mode = M_PARA
        self.modes[0].level = 0
        self.n_modes = 1

    def __dealloc__(self):
        free(self.buf.data)
        free(self.scratch.data)
        free(self.keys.data)
        free(self.holders.slots)
        free(self.frames)
        free(self.modes)
        free(self.lists)

    # -- tags -----------------------------------------------------------------------------------------------

    cdef TagInfo info(self, void* node) except *:
        cdef uintptr_t tag = tag_id(self.api, node)
        cdef _DynamicTag kept
        if tag < STATIC_TAG_IDS:
            if not _static[tag].known:
                name = self._read_name(node)
                _static[tag] = _classify(name)
                _static_names[tag] = name
            return _static[tag]
        entry = self.dynamic.get(tag)
        if entry is None:
            kept = _DynamicTag()
            kept.name = self._read_name(node)
            kept.info = _classify(kept.name)
            self.dynamic[tag] = kept
            return kept.info
        return (<_DynamicTag> entry).info

    cdef str _read_name(self, void* node):
        cdef size_t length = 0
        cdef const uchar* name = self.api.element_name(node, &length)
        return PyUnicode_DecodeUTF8(<const char*> name, length, "replace") if name != NULL else ""

    cdef str name(self, void* node):
        cdef uintptr_t tag = tag_id(self.api, node)
        if tag < STATIC_TAG_IDS:
            return _static_names[tag]
        return (<_DynamicTag> self.dynamic[tag]).name

    # -- stacks ---------------------------------------------------------------------------------------------

    cdef int push_mode(self, int mode, int level) except -1:
        if self.n_modes == self.cap_modes:
            self.modes = <Mode*> _doubled(self.modes, &self.cap_modes, sizeof(Mode))
        self.modes[self.n_modes].mode = mode
        self.modes[self.n_modes].level = level
        self.n_modes += 1
        return 0

    cdef int push_list(self, bint ordered, long long counter) except -1:
        if self.n_lists == self.cap_lists:
            self.lists = <ListState*> _doubled(self.lists, &self.cap_lists, sizeof(ListState))
        self.lists[self.n_lists].ordered = ordered
        self.lists[self.n_lists].counter = counter
        self.n_lists += 1
        return 0

    cdef int push_frame(self, void* next, int kind, bint outer, bint box) except -1:
        if self.n_frames == self.cap_frames:
            self.frames = <Frame*> _doubled(self.frames, &self.cap_frames, sizeof(Frame))
        self.frames[self.n_frames].next = next
        self.frames[self.n_frames].kind = kind
        self.frames[self.n_frames].outer = outer
        self.frames[self.n_frames].box = box
        self.n_frames += 1
        return 0

    # -- emitting (html_walk.Walker.flush and friends) -------------------------------------------------------

    cdef int flush(self) except -1:
        cdef Py_ssize_t link, depth
        cdef int mode, level
        cdef Block block
        cdef Ctx ctx
        cdef void* node = self.buf_node
        self.br_mark = -1
        self.buf_node = NULL
        if self.buf.length == 0:
            return 0
        text = _visible(&self.buf, &self.keys)
        link = self.link
        self.link = 0
        if not text:
            return 0
        mode = self.modes[self.n_modes - 1].mode
        level = self.modes[self.n_modes - 1].level
        ctx = self.ctx
        if mode == M_ITEM:
            block = self.list_block
            if block is None:
                block = self.open_list_block(node)
            if self.n_lists:
                ordered = self.lists[self.n_lists - 1].ordered
                counter = self.lists[self.n_lists - 1].counter
            else:
                ordered = False
                counter = 1
            depth = max(self.n_lists - 1, 0) + level
            block.items.append((text, depth, ordered, counter, ctx))
            block.chars += len(text)
            block.link += link
            return 0
        block = Block(_KINDS[mode], text, ctx, len(text), link, level)
        block.box = self.box
        block.node = <size_t> node
        self.blocks.append(block)
        return 0

    cdef Block open_list_block(self, void* node):
        cdef Block block = Block("list", "", self.ctx, 0, 0)
        block.box = self.box
        block.node = <size_t> node
        self.blocks.append(block)
        self.list_block = block
        return block

    cdef inline void break_list(self):
        if self.n_lists:
            self.list_block = None

    # -- subtree readers -------------------------------------------------------------------------------------

    cdef int subtree_text(self, void* node, Buffer* out) except -1:
        """The text of every text node under ``node`` (script-like subtrees left out, as stripped), in
        document order, a space after each fragment: ``node.text(deep=True, separator=" ")``, for texts that
        are then collapsed."""
        cdef const LexborApi* api = self.api
        cdef void* child = first_child(api, node)
        cdef void* up
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        while child != NULL:
            kind = node_type(api, child)
            if kind == NODE_TEXT:
                data = text_data(api, child, &length)
                if data != NULL and length:
                    _put(out, data, length)
                    _space(out)
            elif kind == NODE_ELEMENT and not (self.info(child).flags & F_SCRIPT):
                up = first_child(api, child)
                if up != NULL:
                    child = up
                    continue
            child = self.after(child, node, NULL)
        return 0

    cdef int pre_text(self, void* node, Buffer* out) except -1:
        """The text of a ``<pre>`` as a browser lays it out: ``html_walk.pre_text`` (which says why).

        ``pending``: a block-level element started or ended since the last content, so the next content starts
        a line of its own."""
        cdef const LexborApi* api = self.api
        cdef void* child = first_child(api, node)
        cdef void* up
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        cdef Py_ssize_t start = out.length
        cdef bint pending = False
        cdef TagInfo info
        while child != NULL:
            kind = node_type(api, child)
            if kind == NODE_TEXT:
                data = text_data(api, child, &length)
                if data != NULL and length:
                    if pending and data[0] != 10:
                        _line_break(out, start)
                    pending = False
                    _put(out, data, length)
            elif kind == NODE_ELEMENT:
                info = self.info(child)
                if not (info.flags & F_SCRIPT):
                    if info.code == T_BR:
                        if pending:
                            _line_break(out, start)
                            pending = False
                        _put(out, b"\n", 1)
                    elif info.flags & F_BLOCK:
                        pending = True
                    up = first_child(api, child)
                    if up != NULL:
                        child = up
                        continue
            child = self.after(child, node, &pending)  # a block element left ends the line
        return 0

    cdef void* after(self, void* child, void* node, bint* left_block) except? NULL:
        """The node after ``child``'s subtree in document order, not leaving ``node`` (NULL when there is none):
        ``child`` is left, and so is each ancestor whose last child it was. With ``left_block``, set it when one
        of the elements left is block-level (``pre_text``'s line breaks)."""
        cdef const LexborApi* api = self.api
        cdef void* up
        while child != NULL:
            if left_block != NULL and node_type(api, child) == NODE_ELEMENT and (self.info(child).flags & F_BLOCK):
                left_block[0] = True
            up = next_sibling(api, child)
            if up != NULL:
                return up
            child = parent_of(api, child)
            if child == node:
                return NULL
        return NULL

    cdef void* find(self, void* node, int code, bint self_too) except? NULL:
        """The first element under ``node`` (``self_too``: or ``node`` itself) with tag ``code``: selectolax's
        ``css_first(tag)``, script-like subtrees left out."""
        cdef const LexborApi* api = self.api
        cdef void* child
        cdef void* up
        cdef TagInfo info
        if self_too and self.info(node).code == code:
            return node
        child = first_child(api, node)
        while child != NULL:
            if node_type(api, child) == NODE_ELEMENT:
                info = self.info(child)
                if not (info.flags & F_SCRIPT):
                    if info.code == code:
                        return child
                    up = first_child(api, child)
                    if up != NULL:
                        child = up
                        continue
            child = self.after(child, node, NULL)
        return NULL

    cdef bint main_like(self, void* node, TagInfo* info) except -1:
        """``node`` matches html_walk._MAIN_LIKE: a main-like tag, or role exactly "main"."""
        cdef bint present = False
        cdef size_t length = 0
        cdef const uchar* value
        cdef const uchar* name
        cdef void* attr
        if info.flags & F_MAINLIKE:
            return True
        attr = self.api.first_attr(node)
        while attr != NULL:
            name = self.api.attr_name(attr, &length)
            if _named(name, length, b"role", 4):
                value = self.api.attr_value(attr, &length)
                return value != NULL and _named(value, length, b"main", 4)
            attr = self.api.next_attr(attr)
        return False

    cdef int prepass(self, void* body) except -1:
        """One pass over the body before the walk: ``page_chars`` (``len(body.text(deep=True))``) and the
        elements that are or contain a main-like element (``html_walk.Walker._holds_main``'s set, the CSS query
        matches and their ancestors), which the furniture test asks about."""
        cdef const LexborApi* api = self.api
        cdef void* node = body
        cdef void* up
        cdef void* match
        cdef TagInfo info
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind
        cdef Py_ssize_t total = 0
        while node != NULL:
            kind = node_type(api, node)
            if kind == NODE_TEXT:
                data = text_data(api, node, &length)
                if data != NULL:
                    total += _code_points(data, length)
            elif kind == NODE_ELEMENT:
                info = self.info(node)
                if not (info.flags & F_SCRIPT):
                    if self.main_like(node, &info):
                        match = node
                        while match != NULL and not _contains(&self.holders, <uintptr_t> match):
                            _add(&self.holders, <uintptr_t> match)
                            match = parent_of(api, match)
                    up = first_child(api, node)
                    if up != NULL:
                        node = up
                        continue
            if node == body:
                break
            while node != NULL:  # the next node in document order, not leaving the body
                up = next_sibling(api, node)
                if up != NULL:
                    node = up
                    break
                node = parent_of(api, node)
                if node == body:
                    node = NULL
        self.page_chars = max(total, 1)
        return 0

    # -- evidence and hiding ---------------------------------------------------------------------------------

    cdef int evidence(self, void* node, TagInfo* info, str name, int* neg, bint* pos, bint* hidden,
                      bint* byline) except -1:
        """``html_boilerplate.evidence(tag, node.attributes)`` into the four outputs: in C for ASCII values,
        else by the Python rules, memoised by the attributes they read."""
        global _evidence_memo
        cdef Attrs attrs
        cdef int slot
        cdef uintptr_t tag
        _read_attrs(self.api, node, &attrs)
        for slot in range(A_COUNT):
            if attrs.present[slot]:
                break
        else:  # none of the attributes evidence reads: what the tag alone says
            neg[0] = info.neg
            pos[0] = info.pos
            hidden[0] = info.hidden
            byline[0] = info.byline
            return 0
        if _evidence_c(&attrs, info, neg, pos, hidden, byline) == 0:
            return 0
        # Tags Lexbor does not know are never one of the tags evidence names: one key prefix for all of them.
        tag = tag_id(self.api, node)
        key = _attrs_key(&attrs, tag if tag < STATIC_TAG_IDS else STATIC_TAG_IDS, &self.keys)
        found = _evidence_memo.get(key)
        if found is None:
            if len(_evidence_memo) >= _MEMO_MAX:
                _evidence_memo = {}
            found = _evidence_memo[key] = evidence(name, _attrs_dict(&attrs))
        neg[0] = found[0]
        pos[0] = found[1]
        hidden[0] = found[2]
        byline[0] = found[3]
        return 0

    cdef bint hidden(self, void* node, unsigned int flags, bint by_class) except -1:
        """``is_hidden(node.attributes)`` (a table cell) or, with ``by_class``, also ``hidden_by_class``
        (subtree text) of a tag with these ``flags``, memoised by the attributes they read."""
        global _hidden_memo
        cdef Attrs attrs
        cdef int answer
        cdef bint footnote = (flags & F_FOOTNOTE) != 0
        _read_attrs(self.api, node, &attrs)
        answer = _hidden_c(&attrs, by_class, footnote)
        if answer >= 0:
            return answer == 1
        key = _attrs_key(&attrs, (2 + footnote) if by_class else 1, &self.keys)
        found = _hidden_memo.get(key)
        if found is None:
            if len(_hidden_memo) >= _MEMO_MAX:
                _hidden_memo = {}
            values = _attrs_dict(&attrs)
            found = is_hidden(values) or (by_class and hidden_by_names(footnote, values))
            _hidden_memo[key] = found
        return found

    # -- the walk (html_walk.Walker.walk) --------------------------------------------------------------------

    def walk(self, uintptr_t body_id):
        """Walk the body whose node address (``LexborNode.mem_id``) is ``body_id``."""
        cdef const LexborApi* api = self.api
        cdef void* body = <void*> body_id
        cdef void* node
        cdef Frame frame
        cdef TagInfo info
        cdef size_t length = 0
        cdef const uchar* data
        cdef int kind, neg, ntype, mode
        cdef Py_ssize_t count
        cdef bint pos, hidden, byline, has_outer, has_box
        cdef Ctx ctx, saved
        cdef list ctx_stack = []
        cdef list box_stack = []
        self.body = body
        self.prepass(body)
        node = first_child(api, body)
        while True:
            if node == NULL:
                if self.n_frames == 0:
                    break
                self.n_frames -= 1
                frame = self.frames[self.n_frames]
                node = frame.next
                if frame.kind == K_LINK:
                    self.in_link -= 1
                elif frame.kind == K_BUTTON:
                    self.in_link -= 1
                    count = len(self.blocks)
                    self.flush()
                    if len(self.blocks) > count:
                        (<Block> self.blocks[count]).button = True
                elif frame.kind != K_INLINE:
                    self.leave(frame.kind)
                if frame.outer:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = ctx_stack.pop()
                if frame.box:
                    self.box = box_stack.pop()
                continue
            ntype = node_type(api, node)
            if ntype == NODE_TEXT:
                data = text_data(api, node, &length)
                if data != NULL and length and (self.buf.length or not _all_space(data, length)):
                    if self.buf_node == NULL:
                        self.buf_node = node
                    _put(&self.buf, data, length)
                    if self.in_link:
                        self.link += _stripped_length(data, length)
                node = next_sibling(api, node)
                continue
            if ntype != NODE_ELEMENT:
                node = next_sibling(api, node)
                continue
            info = self.info(node)
            if info.flags & (F_SCRIPT | F_WSKIP):
                node = next_sibling(api, node)
                continue
            if info.code == T_BR:
                # html_walk: <br><br> with only blanks between ends a paragraph or quote block.
                mode = self.modes[self.n_modes - 1].mode
                if (self.br_mark >= 0 and (mode == M_PARA or mode == M_QUOTE)
                        and _all_space(<const uchar*> self.buf.data + self.br_mark, self.buf.length - self.br_mark)):
                    self.flush()
                else:
                    _space(&self.buf)
                    self.br_mark = self.buf.length
                node = next_sibling(api, node)
                continue
            if info.flags & F_CHEAP:
                if info.code == T_A and self.modes[self.n_modes - 1].mode == M_HEADING and self.same_page(node):
                    self.push_frame(next_sibling(api, node), K_INLINE, False, False)
                elif info.code == T_A:
                    self.in_link += 1
                    if self.modes[self.n_modes - 1].mode == M_PARA and _is_button(api, node):
                        self.flush()
                        self.push_frame(next_sibling(api, node), K_BUTTON, False, False)
                    else:
                        self.push_frame(next_sibling(api, node), K_LINK, False, False)
                else:
                    self.push_frame(next_sibling(api, node), K_INLINE, False, False)
                node = first_child(api, node)
                continue
            if info.code == T_HR:
                self.flush()
                node = next_sibling(api, node)
                continue
            name = self.name(node)
            if info.flags & F_PLAIN:
                neg = info.neg
                pos = info.pos
                hidden = info.hidden
                byline = info.byline
            else:
                self.evidence(node, &info, name, &neg, &pos, &hidden, &byline)
            if info.code == T_NOSCRIPT:
                hidden = True
            elif hidden and not (info.flags & F_BLOCK):
                node = next_sibling(api, node)
                continue
            if info.code == T_FORM and neg < WEAK:
                neg = WEAK
            if neg and info.code == T_HEADER and self.in_article:
                neg = NONE
            if pos and neg and (info.code == T_MAIN or neg == WEAK):
                neg = NONE
            if byline and info.level:
                byline = False
            has_outer = False
            if neg or pos or hidden or byline:
                saved = self.ctx
                ctx = self.ctx = Ctx(saved, name, neg, pos, hidden, byline, len(self.ctxs))
                ident = _attr_or_none(api, node, b"id", 2)
                cls = _attr_or_none(api, node, b"class", 5)
                ctx.name = f"{ident or ''}.{cls or ''}"[:80]
                self.ctxs.append(ctx)
                if pos:
                    self.in_article += 1
                elif (neg == STRONG or hidden) and self.furniture(node, saved):
                    self.ctx = saved
                    node = next_sibling(api, node)
                    continue
                has_outer = True
            kind = self.enter(node, &info)
            if kind < 0:  # consumed whole (table, pre)
                if has_outer:
                    if self.ctx.pos:
                        self.in_article -= 1
                    self.ctx = saved
                node = next_sibling(api, node)
                continue
            has_box = kind == K_BLOCK and (info.flags & F_BOX)
            if has_box:
                box_stack.append(self.box)
                self.box = Box(self.box)
                self.boxes.append(self.box)
            if has_outer:
                ctx_stack.append(saved)
            self.push_frame(next_sibling(api, node), kind, has_outer, has_box)
            node = first_child(api, node)
        self.flush()

    cdef bint same_page(self, void* node) except -1:
        """``href`` starts with "#": a heading's permalink."""
        cdef size_t length = 0
        cdef const uchar* name
        cdef const uchar* value
        cdef void* attr = self.api.first_attr(node)
        while attr != NULL:
            name = self.api.attr_name(attr, &length)
            if _named(name, length, b"href", 4):
                value = self.api.attr_value(attr, &length)
                return value != NULL and length > 0 and value[0] == b"#"
            attr = self.api.next_attr(attr)
        return False

    cdef bint furniture(self, void* node, Ctx outer) except -1:
        """``html_walk.Walker._furniture``."""
        cdef Ctx furniture_ctx
        cdef Block block
        # Holding a main-like element is a set lookup; asked first, it spares collecting the text of the wrappers
        # around the whole page (the Python walk asks the two in the other order; either rules it out).
        if _contains(&self.holders, <uintptr_t> node):
            return False
        self.scratch.length = 0
        self.subtree_text(node, &self.scratch)
        text = _collapsed(&self.scratch, &self.keys)
        if len(text) * 5 >= self.page_chars:
            return False
        furniture_ctx = self.ctx
        self.ctx = outer
        self.flush()
        self.ctx = furniture_ctx
        if not text:
            return True
        self.break_list()
        block = Block("p", text, self.ctx, len(text), len(text))
        block.box = self.box
        block.node = <size_t> node
        block.furniture = True
        self.blocks.append(block)
        return True

    cdef int enter(self, void* node, TagInfo* info) except -9:
        """``html_walk.Walker._enter``."""
        cdef int mode = self.modes[self.n_modes - 1].mode
        cdef int code = info.code
        cdef bint present = False
        if info.level:
            self.flush()
            self.break_list()
            self.push_mode(M_HEADING, info.level)
            return K_HEADING
        if info.flags & F_LIST:
            self.flush()
            if self.list_block is None:
                self.open_list_block(node)
            first = list_start(_attr(self.api, node, b"start", 5, &present))
            self.push_list(code == T_OL, first - 1)
            self.push_mode(M_PARA, 0)
            return K_LIST
        if code == T_LI or code == T_DT or code == T_DD:
            self.flush()
            if self.list_block is None:
                self.open_list_block(node)
            if self.n_lists and code == T_LI:
                self.lists[self.n_lists - 1].counter += 1
            self.push_mode(M_ITEM, 1 if code == T_DD else 0)
            return K_ITEM
        if code == T_TABLE:
            self.flush()
            self.break_list()
            data = _read_table(self, node)
            if data is None:
                return K_SPACE if _leaf(mode) else K_BLOCK
            block = Block("table", "", self.ctx, data.chars, data.link_chars)
            block.box = self.box
            block.node = <size_t> node
            block.table = data
            self.blocks.append(block)
            return -1
        if code == T_PRE:
            self.flush()
            self.break_list()
            self.scratch.length = 0
            self.pre_text(node, &self.scratch)
            text = _take(&self.scratch)
            block = Block("code", text, self.ctx, len(text), 0)
            block.box = self.box
            block.node = <size_t> node
            block.lang = self.pre_language(node)
            self.blocks.append(block)
            return -1
        if code == T_BLOCKQUOTE and not _leaf(mode):
            self.flush()
            self.push_mode(M_QUOTE, 0)
            return K_QUOTE
        if code == T_CAPTION or code == T_CAPTION_EL:
            self.flush()
            self.push_mode(M_CAPTION, 0)
            return K_CAPTION
        if code == T_SUMMARY and not _leaf(mode):
            self.flush()
            self.push_mode(M_SUMMARY, 0)
            return K_SUMMARY
        if info.flags & F_BLOCK:
            if _leaf(mode):
                _space(&self.buf)
                return K_SPACE
            self.flush()
            return K_BLOCK
        return K_INLINE

    cdef int leave(self, int kind) except -1:
        """``html_walk.Walker._leave``."""
        if kind == K_SPACE:
            _space(&self.buf)
            return 0
        self.flush()
        if kind == K_BLOCK:
            return 0
        self.n_modes -= 1
        if kind == K_LIST:
            self.n_lists -= 1
            if not self.n_lists:
                self.list_block = None
        return 0

    cdef object pre_language(self, void* node):
        """``html_walk.code_language`` for a ``<pre>``: its class/data-lang/data-language, else its first
        ``<code>``'s class."""
        cdef const LexborApi* api = self.api
        cdef bint present = False
        attrs = {}
        for key, want, size in (("class", b"class", 5), ("data-lang", b"data-lang", 9),
                                ("data-language", b"data-language", 13)):
            value = _attr(api, node, want, size, &present)
            if present:
                attrs[key] = value
        cdef void* child = self.find(node, T_CODE, False)
        child_class = _attr_or_none(api, child, b"class", 5) if child != NULL else None
        return code_language(attrs, child_class)
