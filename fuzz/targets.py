"""What the fuzz harnesses run, without atheris: one function per target, taking the fuzzer's bytes.

Each target reads its options from the first bytes (``_Options``), gives the rest to qatbe and checks what must
hold for every input: the call ends in a result or a ``QatbeError``; a result stays in its budget, holds no
control character or lone surrogate, and can be written out as UTF-8 and JSON. Anything else raises, which the
fuzzer reports as a crash (and ``tests/test_fuzz.py`` replays the kept crash inputs through the same functions).
"""

from __future__ import annotations

import json

import qatbe

_FORMATS = ("auto", "html", "markdown", "text")
_QUERIES = (None, "price", "how do I install it", "wer hat das geschrieben", "ferry 12 euros", "数据")
_TRUNCATIONS = ("drop", "truncate_end", "truncate_middle")
_FORBIDDEN = frozenset(chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)))


class _Options:
    """Options taken from the input's first bytes, so that the fuzzer explores them with the document."""

    def __init__(self, data: bytes) -> None:
        head = data[:6].ljust(6, b"\0")
        self.format = _FORMATS[head[0] % len(_FORMATS)]
        self.query = _QUERIES[head[1] % len(_QUERIES)]
        self.budget = (head[2] << 4 | head[3] >> 4) % 3000
        self.truncation = _TRUNCATIONS[head[3] % len(_TRUNCATIONS)]
        self.as_text = bool(head[4] & 1)  # give qatbe a str (decoded here) rather than bytes
        self.render = "text" if head[4] & 2 else "markdown"
        self.partial_note = bool(head[4] & 4)
        self.nested = bool(head[4] & 8) and self.truncation == "drop"
        self.split = 1 + head[5] % 5  # extract_many: how many documents
        self.body = data[6:]

    def source(self, body: bytes) -> str | bytes:
        return body.decode("utf-8", "surrogateescape") if self.as_text else body


def _check_text(text: str) -> None:
    bad = _FORBIDDEN.intersection(text)
    if bad:
        raise AssertionError(f"control characters in the output: {sorted(map(hex, map(ord, bad)))}")
    text.encode("utf-8")  # raises on a lone surrogate


def extract_one(data: bytes) -> None:
    o = _Options(data)
    try:
        r = qatbe.extract(o.source(o.body), o.query, budget=o.budget, format=o.format, render=o.render,
                          truncation=o.truncation, partial_note=o.partial_note, nested=o.nested)
    except qatbe.QatbeError:
        return
    if r.total_tokens > o.budget:
        raise AssertionError(f"{r.total_tokens} tokens over a budget of {o.budget}")
    _check_text(r.text)
    for s in r.segments:
        _check_text(s.text)
    json.dumps(r.to_dict(), ensure_ascii=False).encode("utf-8")


def segment_one(data: bytes) -> None:
    o = _Options(data)
    try:
        segments = qatbe.segment(o.source(o.body), format=o.format)
    except qatbe.QatbeError:
        return
    for s in segments:
        _check_text(s.text)
        if s.tokens < 0:
            raise AssertionError("a negative cost")
    json.dumps([s.to_dict() for s in segments], ensure_ascii=False).encode("utf-8")


def extract_many_one(data: bytes) -> None:
    o = _Options(data)
    step = max(len(o.body) // o.split, 1)
    docs = [o.source(o.body[k * step:(k + 1) * step]) for k in range(o.split)]
    budget = o.budget + 65  # over the default citation buffer: a smaller one is a ConfigError by design
    try:
        m = qatbe.extract_many(docs, o.query, budget=budget, format=o.format, truncation=o.truncation,
                               partial_note=o.partial_note)
    except qatbe.QatbeError:
        return
    if m.total_tokens > budget:
        raise AssertionError(f"{m.total_tokens} tokens over a budget of {budget}")
    if len(m.sources) != len(docs) or any(e.index >= len(docs) for e in m.errors):
        raise AssertionError("the account does not match the documents")
    _check_text(m.text)
    json.dumps(m.to_dict(), ensure_ascii=False).encode("utf-8")


TARGETS = {"extract": extract_one, "segment": segment_one, "extract_many": extract_many_one}
