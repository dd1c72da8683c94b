# cython: language_level=3
"""Compiled ``Segment`` constructors: the same frozen dataclass instance as ``Segment(...)``, about 6x cheaper.

Why: every unit of every document becomes a ``Segment`` in the builder, and every chosen or pending segment of an
extraction gets a copy with its cost, score and matched flag. The dataclass's generated ``__init__`` sets its 14
slots through ``object.__setattr__`` one Python call at a time (frozen dataclasses must go around their own
``__setattr__``), about 2.1 us per record, which was a tenth of the emit stage and most of building the result.
Here the instance is allocated by ``Segment``'s own ``tp_new`` (``object.__new__``) and each slot is set with
``PyObject_GenericSetAttr``, which is what ``object.__setattr__`` does once its arguments are unpacked.

This is exactly ``Segment(...)`` because the dataclass's ``__init__`` does nothing but set the fields: there is
no ``__post_init__``, no default factory and no custom ``__new__``. Import checks that this still holds (and
that the fields are the 14 below, in this order) and refuses to load otherwise, so ``qatbe.records`` falls back
to the pure-Python twin, ``qatbe/_segment_py.py``. tests/test_records.py compares the two.
"""

from cpython.object cimport PyObject, PyObject_GenericSetAttr, PyTypeObject
from dataclasses import MISSING, fields

from .types import Segment

FIELDS = ("kind", "text", "markdown", "position", "index", "level", "heading_path", "language", "group", "part",
          "header", "tokens", "score", "matched")


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


cdef inline object _alloc():
    return _TYPE.tp_new(_SEGMENT, <PyObject*>_NO_ARGS, NULL)


def new_segment(kind, text, markdown, position, index, level, heading_path, language, group, part, header,
                tokens=0, score=0.0, matched=False):
    """``Segment(kind, text, ..., matched)``, positional in field order (see the module docstring)."""
    cdef object seg = _alloc()
    PyObject_GenericSetAttr(seg, "kind", kind)
    PyObject_GenericSetAttr(seg, "text", text)
    PyObject_GenericSetAttr(seg, "markdown", markdown)
    PyObject_GenericSetAttr(seg, "position", position)
    PyObject_GenericSetAttr(seg, "index", index)
    PyObject_GenericSetAttr(seg, "level", level)
    PyObject_GenericSetAttr(seg, "heading_path", heading_path)
    PyObject_GenericSetAttr(seg, "language", language)
    PyObject_GenericSetAttr(seg, "group", group)
    PyObject_GenericSetAttr(seg, "part", part)
    PyObject_GenericSetAttr(seg, "header", header)
    PyObject_GenericSetAttr(seg, "tokens", tokens)
    PyObject_GenericSetAttr(seg, "score", score)
    PyObject_GenericSetAttr(seg, "matched", matched)
    return seg


cdef inline object _outcome(seg, tokens, score, matched):
    cdef object out = _alloc()
    PyObject_GenericSetAttr(out, "kind", seg.kind)
    PyObject_GenericSetAttr(out, "text", seg.text)
    PyObject_GenericSetAttr(out, "markdown", seg.markdown)
    PyObject_GenericSetAttr(out, "position", seg.position)
    PyObject_GenericSetAttr(out, "index", seg.index)
    PyObject_GenericSetAttr(out, "level", seg.level)
    PyObject_GenericSetAttr(out, "heading_path", seg.heading_path)
    PyObject_GenericSetAttr(out, "language", seg.language)
    PyObject_GenericSetAttr(out, "group", seg.group)
    PyObject_GenericSetAttr(out, "part", seg.part)
    PyObject_GenericSetAttr(out, "header", seg.header)
    PyObject_GenericSetAttr(out, "tokens", tokens)
    PyObject_GenericSetAttr(out, "score", score)
    PyObject_GenericSetAttr(out, "matched", matched)
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
