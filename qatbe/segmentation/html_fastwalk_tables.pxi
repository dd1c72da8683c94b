# html_fastwalk, part 3b: tables (html_tables.read_table) over Lexbor's nodes, for FastWalker.enter. Included by
# html_fastwalk.pyx after html_fastwalk_walk.pxi; module-level functions of the walker, which keep its file short.


cdef object _read_table(FastWalker self, void* table):
    """``html_tables.read_table`` over Lexbor's nodes: a data table's grid, or None for a layout table."""
    cdef const LexborApi* api = self.api
    cdef void* child
    cdef void* row
    cdef void* cell
    cdef void* caption = NULL
    cdef TagInfo info
    cdef list rows = []  # (row address, in <thead>)
    cdef bint any_head = False, own_th = False, has_th, is_th, nested
    cdef Py_ssize_t structure = 0, long_cells = 0, chars = 0, link = 0
    role = _attr_or_none(api, table, b"role", 4)
    if (role or "").strip().lower() in ("presentation", "none"):
        return None
    child = first_child(api, table)
    while child != NULL:
        if node_type(api, child) == NODE_ELEMENT:
            info = self.info(child)
            if info.flags & F_SCRIPT:
                pass
            elif info.code == T_TR:
                rows.append((<uintptr_t> child, False))
            elif info.code == T_THEAD or info.code == T_TBODY:
                row = first_child(api, child)
                while row != NULL:
                    if node_type(api, row) == NODE_ELEMENT and self.info(row).code == T_TR:
                        rows.append((<uintptr_t> row, info.code == T_THEAD))
                        any_head = any_head or info.code == T_THEAD
                    row = next_sibling(api, row)
            elif info.code == T_CAPTION_EL and caption == NULL:
                caption = child
        child = next_sibling(api, child)
    if caption == NULL and not any_head:
        for address, _ in rows:
            cell = first_child(api, <void*> <uintptr_t> address)
            while cell != NULL and not own_th:
                own_th = node_type(api, cell) == NODE_ELEMENT and self.info(cell).code == T_TH
                cell = next_sibling(api, cell)
            if own_th:
                break
        if not own_th:
            nested = False
            child = first_child(api, table)
            while child != NULL and not nested:
                if node_type(api, child) == NODE_ELEMENT and not (self.info(child).flags & F_SCRIPT):
                    nested = self.find(child, T_TABLE, True) != NULL
                child = next_sibling(api, child)
            if nested:
                return None
    raw_rows = []
    has_th = caption != NULL
    for address, in_head in rows:
        cells = []
        cell = first_child(api, <void*> <uintptr_t> address)
        while cell != NULL:
            if node_type(api, cell) == NODE_ELEMENT:
                info = self.info(cell)
                if (info.code == T_TD or info.code == T_TH) and not self.hidden(cell, info.flags, False):
                    text, cell_link, cell_structure = _flat_text(self, cell)
                    structure += cell_structure
                    chars += len(text)
                    link += cell_link
                    if len(text) > _LONG_CELL:
                        long_cells += 1
                    is_th = info.code == T_TH
                    has_th = has_th or is_th or in_head
                    cells.append((text, is_th,
                                  int_value(_attr_or_none(api, cell, b"colspan", 7), _MAX_COLSPAN),
                                  int_value(_attr_or_none(api, cell, b"rowspan", 7), _MAX_ROWSPAN)))
            cell = next_sibling(api, cell)
        raw_rows.append((cells, in_head))
    caption_text = _flat_text(self, caption)[0] if caption != NULL else None
    return table_data(raw_rows, has_th, structure, long_cells, caption_text, chars, link)

cdef tuple _flat_text(FastWalker self, void* node):
    """``html_tables.flat_text``: (text, link chars, structure count) of a cell or caption."""
    cdef const LexborApi* api = self.api
    cdef void* child = first_child(api, node)
    cdef void* up
    cdef size_t length = 0
    cdef const uchar* data
    cdef TagInfo info
    cdef int kind
    cdef Py_ssize_t in_link = 0, link = 0, structure = 0
    cdef Buffer* out = &self.scratch
    out.length = 0
    while child != NULL:
        kind = node_type(api, child)
        if kind == NODE_TEXT:
            data = text_data(api, child, &length)
            if data != NULL and length:
                _put(out, data, length)
                if in_link:
                    link += _stripped_length(data, length)
        elif kind == NODE_ELEMENT:
            info = self.info(child)
            if info.flags & (F_SCRIPT | F_FSKIP):
                pass
            elif info.code == T_BR or info.code == T_HR:
                _space(out)
            elif (info.flags & F_CHEAP) or not self.hidden(child, info.flags, True):
                if info.flags & F_STRUCTURE:
                    structure += 1
                if info.flags & F_SPACED:
                    _space(out)
                if info.code == T_A:
                    in_link += 1
                up = first_child(api, child)
                if up != NULL:
                    child = up
                    continue
                # an empty element is entered and left at once
                if info.code == T_A:
                    in_link -= 1
                elif info.flags & F_SPACED:
                    _space(out)
        # next in document order; leaving an element closes it
        while child != NULL:
            up = next_sibling(api, child)
            if up != NULL:
                child = up
                break
            child = parent_of(api, child)
            if child == node:
                child = NULL
                break
            info = self.info(child)
            if info.code == T_A:
                in_link -= 1
            elif info.flags & F_SPACED:
                _space(out)
    return _visible(out, &self.keys), link, structure
