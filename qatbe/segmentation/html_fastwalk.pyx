# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The HTML walk of ``html_walk``, over Lexbor's nodes in C (``lexbor_nodes``): the same blocks, contexts and boxes.

Why a second walk: the pure-Python walk (``html_walk.Walker``, also compiled) reads the tree through
selectolax's Python objects, one or more per node, and that cost twice the parse on a typical page. Here a node
costs a few C calls; Python objects are made only for what the later stages read: blocks, evidence contexts and
container boxes. The rules are ``html_walk``'s, step for step (its docstrings say why each one exists); the tag
sets are imported from there, so the two cannot drift apart in what they mean, and the tests run both walks on
the same pages and compare every block. ``segment_html`` uses this walk whenever ``lexbor_nodes`` can read the
tree, and ``html_walk.Walker`` otherwise.

Differences in mechanics, not in output:

* Nothing is stripped from the tree first: script-like elements (``html_walk.SCRIPT_LIKE``) are skipped
  wherever the Python walk's ``strip_tags`` would have removed them (the walk, subtree texts, table reading and
  the searches for ``<table>``, ``<code>`` and main-like elements).
* Text is collected as UTF-8 bytes and decoded once per block. Lexbor holds valid UTF-8 (selectolax encodes
  ``str`` input with errors ignored), so this decodes to what joining per-node decodes gives.
* Evidence (``html_boilerplate.evidence``) and hiding (``is_hidden``, ``hidden_by_class``) depend only on the tag
  and a few attributes. C reads their facts from the attribute bytes and looks the answer up in
  ``html_boilerplate.RULE_TABLES``; values it cannot read (non-ASCII) get the Python function's answer, memoised
  for the process, keyed by exactly those attribute values.

The module is one extension in parts: this file (tag classification, frame kinds, test hooks) includes
``html_fastwalk_text.pxi`` (UTF-8, buffers, whitespace collapsing), ``html_fastwalk_attrs.pxi`` (attributes,
evidence, hiding), ``html_fastwalk_walk.pxi`` (``FastWalker``) with ``html_fastwalk_tables.pxi`` (its table
reader), ``html_fastwalk_anchors.pxi`` (where each block's element starts in the source) and
``html_fastwalk_spans.pxi`` (source spans); the C they call is in ``html_fastwalk_swar.h`` and
``html_fastwalk_find.h``.
"""

cimport cython
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint16_t, uint32_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memset

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

from qatbe.segmentation.ascii_bytes cimport ascii_lower, contains_ci, equals_ci, is_ascii, strip_ascii
from qatbe.segmentation.lexbor_nodes cimport (
    first_child,
    next_sibling,
    node_type,
    parent_of,
    tag_id,
    NODE_ELEMENT,
    NODE_TEXT,
    STATIC_TAG_IDS,
    LexborApi,
    lexbor_api,
    text_data,
    uchar,
)

from unicodedata import is_normalized, normalize

from . import html_boilerplate
from .html_boilerplate import NONE, STRONG, WEAK, evidence, hidden_by_names, is_hidden, tag_facts
from .html_tables import (
    CHEAP_INLINE,
    SKIP_TAGS,
    SPACED,
    _LONG_CELL,
    _MAX_COLSPAN,
    _MAX_ROWSPAN,
    _STRUCTURE,
    int_value,
    table_data,
)
from qatbe.segmentation.html_walk cimport Block, Box, Ctx

from .html_walk import (
    _BLOCKS,
    _BOX_TAGS,
    _HEADINGS,
    _LISTS,
    _PLAIN,
    _WALK_SKIP,
    SCRIPT_LIKE,
    code_language,
    list_start,
)

# -- what a tag is to the walk ------------------------------------------------------------------------------

cdef enum:
    F_SCRIPT = 1 << 0     # removed before the Python walk (SCRIPT_LIKE): invisible everywhere
    F_WSKIP = 1 << 1      # the walk skips it (_WALK_SKIP)
    F_FSKIP = 1 << 2      # subtree text skips it (SKIP_TAGS)
    F_CHEAP = 1 << 3      # CHEAP_INLINE
    F_PLAIN = 1 << 4      # _PLAIN: evidence from the list or table
    F_BLOCK = 1 << 5      # _BLOCKS, or a custom element
    F_BOX = 1 << 6        # _BOX_TAGS
    F_LIST = 1 << 7       # _LISTS
    F_SPACED = 1 << 8     # SPACED
    F_STRUCTURE = 1 << 9  # _STRUCTURE
    F_MAINLIKE = 1 << 10  # html_walk._MAIN_LIKE's tag selectors
    F_FOOTNOTE = 1 << 11  # html_boilerplate.FOOTNOTE_TAGS

# Tags the walk names one by one.
cdef enum:
    T_OTHER = 0
    T_A
    T_BR
    T_HR
    T_LI
    T_DT
    T_DD
    T_OL
    T_TABLE
    T_PRE
    T_BLOCKQUOTE
    T_CAPTION      # figcaption or caption
    T_SUMMARY
    T_NOSCRIPT
    T_FORM
    T_HEADER
    T_MAIN
    T_TR
    T_TD
    T_TH
    T_THEAD        # thead
    T_TBODY        # tbody or tfoot
    T_CAPTION_EL   # caption (a table's own)
    T_CODE

_CODES = {"a": T_A, "br": T_BR, "hr": T_HR, "li": T_LI, "dt": T_DT, "dd": T_DD, "ol": T_OL, "table": T_TABLE,
          "pre": T_PRE, "blockquote": T_BLOCKQUOTE, "figcaption": T_CAPTION, "caption": T_CAPTION_EL,
          "summary": T_SUMMARY, "noscript": T_NOSCRIPT, "form": T_FORM, "header": T_HEADER, "main": T_MAIN,
          "tr": T_TR, "td": T_TD, "th": T_TH, "thead": T_THEAD, "tbody": T_TBODY, "tfoot": T_TBODY,
          "code": T_CODE}
_MAIN_TAGS = frozenset({"main", "article", "p", "h1", "h2", "table", "pre", "blockquote"})

ctypedef struct TagInfo:
    unsigned int flags
    int code
    int level   # heading level, 0 for other tags
    bint known
    int neg     # evidence(tag, {}): the answer for elements with none of the attributes it reads
    bint pos
    bint hidden
    bint byline
    int facts   # tag_facts(tag), as neg | pos << 2 | byline << 3 (a footnote marker: F_FOOTNOTE)


cdef TagInfo _static[STATIC_TAG_IDS]
_static_names = [None] * STATIC_TAG_IDS


cdef TagInfo _classify(str name):
    cdef TagInfo info
    cdef unsigned int flags = 0
    if name in SCRIPT_LIKE:
        flags |= F_SCRIPT
    if name in _WALK_SKIP:
        flags |= F_WSKIP
    if name in SKIP_TAGS:
        flags |= F_FSKIP
    if name in CHEAP_INLINE:
        flags |= F_CHEAP
    if name in _PLAIN:
        flags |= F_PLAIN
    if name in _BLOCKS or "-" in name:
        flags |= F_BLOCK
    if name in _BOX_TAGS:
        flags |= F_BOX
    if name in _LISTS:
        flags |= F_LIST
    if name in SPACED:
        flags |= F_SPACED
    if name in _STRUCTURE:
        flags |= F_STRUCTURE
    if name in _MAIN_TAGS:
        flags |= F_MAINLIKE
    facts = tag_facts(name)
    if facts.footnote:
        flags |= F_FOOTNOTE
    info.flags = flags
    info.code = _CODES.get(name, T_OTHER)
    info.level = _HEADINGS.get(name, 0)
    info.known = True
    info.neg, info.pos, info.hidden, info.byline = evidence(name, {})
    info.facts = facts.neg | facts.pos << 2 | facts.byline << 3
    return info


cdef class _DynamicTag:
    """A tag Lexbor has no static id for (a custom element): its classification and name, kept per walker."""
    cdef TagInfo info
    cdef str name


include "html_fastwalk_text.pxi"

include "html_fastwalk_attrs.pxi"


def memo_sizes():
    """The entries each process-wide memo holds now (``qatbe.caches.sizes`` reports them)."""
    return {"evidence": len(_evidence_memo), "hidden": len(_hidden_memo)}


# -- the walk -----------------------------------------------------------------------------------------------

# Frame kinds and modes: html_walk's values.
cdef enum:
    K_INLINE = 0
    K_LINK = 1
    K_BLOCK = 2
    K_SPACE = 3
    K_HEADING = 4
    K_LIST = 5
    K_ITEM = 6
    K_QUOTE = 7
    K_CAPTION = 8
    K_SUMMARY = 9
    K_BUTTON = 10

cdef enum:
    M_PARA = 0
    M_HEADING = 1
    M_ITEM = 2
    M_QUOTE = 3
    M_CAPTION = 4
    M_SUMMARY = 5

_KINDS = ("p", "h", "p", "quote", "caption", "summary")

ctypedef struct Frame:
    void* next
    int kind
    bint outer   # a context to restore (on ctx_stack)
    bint box     # a box to restore (on box_stack)

ctypedef struct Mode:
    int mode
    int level

ctypedef struct ListState:
    bint ordered
    long long counter



cdef inline bint _leaf(int mode) noexcept nogil:
    return mode == M_HEADING or mode == M_ITEM or mode == M_CAPTION or mode == M_SUMMARY


include "html_fastwalk_walk.pxi"
include "html_fastwalk_tables.pxi"


def hidden_in_c(dict attrs, bint by_class, bint footnote):
    """For tests: the walk's C hiding test (``is_hidden``, with ``by_class`` also ``hidden_by_names`` of a tag
    in ``FOOTNOTE_TAGS`` when ``footnote``), or None where it asks Python."""
    cdef Attrs a
    keep = _fill(&a, attrs)
    answer = _hidden_c(&a, by_class, footnote)
    return None if answer < 0 else answer == 1


cdef list _fill(Attrs* a, dict attrs):
    cdef int slot
    keep = []
    for slot in range(A_COUNT):
        value = attrs.get(_ATTR_NAMES[slot], _MISSING)
        a.present[slot] = value is not _MISSING
        a.value[slot] = NULL
        a.length[slot] = 0
        if a.present[slot] and value is not None:
            data = value.encode("utf-8")
            keep.append(data)
            a.value[slot] = <const uchar*> (<const char*> data)
            a.length[slot] = len(data)
    return keep



include "html_fastwalk_anchors.pxi"
include "html_fastwalk_spans.pxi"


def collapse_in_c(bytes raw):
    """For tests: ``_collapse`` of UTF-8 bytes, as ``(collapsed bytes, all ASCII)``."""
    cdef Buffer out
    cdef bint ascii
    out.data = NULL
    out.length = 0
    out.capacity = 0
    try:
        _collapse(raw, len(raw), &out, &ascii)
        return out.data[:out.length], ascii
    finally:
        free(out.data)


def evidence_in_c(str tag, dict attrs):
    """For tests: what the walk's C evidence says of ``tag`` with these attributes (names as in
    ``_ATTR_NAMES``), or None where it asks ``html_boilerplate.evidence`` instead."""
    cdef Attrs a
    cdef TagInfo info = _classify(tag)
    cdef int neg
    cdef bint pos, hidden, byline
    keep = _fill(&a, attrs)
    if _evidence_c(&a, &info, &neg, &pos, &hidden, &byline) != 0:
        return None
    return (neg, pos, hidden, byline)


_MISSING = object()


def fast_walk(body_id):
    """A ``FastWalker`` that has walked the body at ``body_id`` (``LexborNode.mem_id``)."""
    walker = FastWalker()
    walker.walk(body_id)
    return walker
