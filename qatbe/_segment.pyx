# cython: language_level=3
"""Compiled ``Segment`` constructors: the same frozen dataclass instance as ``Segment(...)``, about 6x cheaper.

Why: every unit of every document becomes a ``Segment`` in the builder, and every chosen or pending segment of an
extraction gets a copy with its cost, score and matched flag. The dataclass's generated ``__init__`` sets its 15
slots through ``object.__setattr__`` one Python call at a time (frozen dataclasses must go around their own
``__setattr__``), about 2.1 us per record, which was a tenth of the emit stage and most of building the result.
Here the instance is allocated by ``Segment``'s own ``tp_new`` (``object.__new__``) and each slot is filled
as its ``__slots__`` member descriptor fills it, at the offset the descriptor names (``_put``).

This is exactly ``Segment(...)`` because the dataclass's ``__init__`` does nothing but set the fields: there is
no ``__post_init__``, no default factory and no custom ``__new__``. Import checks that this still holds (and
that the fields are the 15 below, in this order) and refuses to load otherwise, so ``qatbe.records`` falls back
to the pure-Python twin, ``qatbe/_segment_py.py``. tests/test_records.py compares the two.
"""

from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from dataclasses import MISSING, fields
from types import MemberDescriptorType

from .types import Segment

FIELDS = ("kind", "text", "markdown", "position", "index", "level", "heading_path", "language", "group", "part",
          "header", "tokens", "score", "matched", "end")

cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
        int flags
    int T_OBJECT_EX
    int READONLY

cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member


def _check() -> None:
    found = fields(Segment)
    if tuple(f.name for f in found) != FIELDS:
        raise ImportError("qatbe._segment: Segment's fields changed; rebuild with the new field list")
    if any(f.default_factory is not MISSING for f in found):
        raise ImportError("qatbe._segment: a Segment field has a default factory; the compiled constructor skips it")
    if hasattr(Segment, "__post_init__") or Segment.__new__ is not object.__new__:
        raise ImportError("qatbe._segment: Segment's construction does more than set its fields")


_check()

cdef object _SEGMENT = Segment
cdef PyTypeObject* _TYPE = <PyTypeObject*>Segment
cdef tuple _NO_ARGS = ()
# Where each field's slot lies in a Segment: the offset its member descriptor (``__slots__``) reads and writes.
cdef Py_ssize_t _AT[15]


def _slot_offsets() -> None:
    """``_AT`` from Segment's member descriptors, checked to be plain object slots (what ``__slots__`` makes);
    refuses to load otherwise, and ``qatbe.records`` falls back to the pure-Python twin."""
    cdef PyMemberDef* member
    for k, name in enumerate(FIELDS):
        descr = Segment.__dict__.get(name)
        if type(descr) is not MemberDescriptorType:
            raise ImportError(f"qatbe._segment: Segment.{name} is not a __slots__ member")
        member = (<PyMemberDescrObject*> descr).d_member
        if member.type != T_OBJECT_EX or member.flags & READONLY or member.offset <= 0:
            raise ImportError(f"qatbe._segment: Segment.{name} is not a writable object slot")
        _AT[k] = member.offset


_slot_offsets()


cdef inline object _alloc():
    return _TYPE.tp_new(_SEGMENT, <PyObject*>_NO_ARGS, NULL)


cdef inline void _put(object record, int k, object value) noexcept:
    """Field ``k`` of a record fresh from ``_alloc`` (slot empty) set to ``value``: what the member descriptor's
    ``__set__`` does (a new reference in the slot, the old one released), without finding the descriptor.

    Why: ``PyObject_GenericSetAttr`` looks the name up on the type and calls the descriptor, about 20 ns a field
    and 15 fields a record; every segment of a page and every record of a result is built here."""
    cdef PyObject** slot = <PyObject**> ((<char*> <PyObject*> record) + _AT[k])
    cdef PyObject* old = slot[0]
    Py_INCREF(value)
    slot[0] = <PyObject*> value
    Py_XDECREF(old)


cdef inline object _get(object record, int k):
    """Field ``k`` of a Segment, read from its slot (an unset slot raises as the descriptor would)."""
    cdef PyObject* value = (<PyObject**> ((<char*> <PyObject*> record) + _AT[k]))[0]
    if value == NULL:
        raise AttributeError(FIELDS[k])
    return <object> value


def new_segment(kind, text, markdown, position, index, level, heading_path, language, group, part, header,
                tokens=0, score=0.0, matched=False, end=0):
    """``Segment(kind, text, ..., matched)``, positional in field order (see the module docstring)."""
    cdef object seg = _alloc()
    _put(seg, 0, kind)
    _put(seg, 1, text)
    _put(seg, 2, markdown)
    _put(seg, 3, position)
    _put(seg, 4, index)
    _put(seg, 5, level)
    _put(seg, 6, heading_path)
    _put(seg, 7, language)
    _put(seg, 8, group)
    _put(seg, 9, part)
    _put(seg, 10, header)
    _put(seg, 11, tokens)
    _put(seg, 12, score)
    _put(seg, 13, matched)
    _put(seg, 14, end)
    return seg


cdef inline object _outcome(seg, tokens, score, matched):
    cdef object out = _alloc()
    cdef int k
    if type(seg) is _SEGMENT:  # its slots are where _AT says
        for k in range(11):
            _put(out, k, _get(seg, k))
        _put(out, 14, _get(seg, 14))
    else:  # a subclass may move or shadow a field: read it as Python does
        for k in range(11):
            _put(out, k, getattr(seg, FIELDS[k]))
        _put(out, 14, seg.end)
    _put(out, 11, tokens)
    _put(out, 12, score)
    _put(out, 13, matched)
    return out


def with_outcome(seg, tokens, score, matched):
    """``dataclasses.replace(seg, tokens=tokens, score=score, matched=matched)``, as a plain ``Segment``."""
    return _outcome(seg, tokens, score, matched)


def outcomes(segments, slots, costs, scores, matched):
    """``tuple(with_outcome(segments[i], costs[i], scores[i], i in matched) for i in slots)`` in one call."""
    cdef list out = []
    for i in slots:
        out.append(_outcome(segments[i], costs[i], scores[i], True if i in matched else False))
    return tuple(out)
