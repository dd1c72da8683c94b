"""Does a change keep qatbe's output exactly as it was? Digests of everything observable, on every dev input.

    python benchmarks/equivalence.py write FILE [--parts segments,metadata,extract,scores] [--limit N]
        [--no-spans]
    python benchmarks/equivalence.py compare OLD NEW [--show 10]

``write`` records one digest per item:

* ``segments``: ``qatbe.segment(page)`` for every HTML page in the boilerplate corpora and every HTML or markdown
  document of the QA sets (kind, text, markdown, span, index, level, heading path, group, part, header);
* ``metadata``: the page's ``Metadata`` (every field, ``extra`` included);
* ``languages``: the language the scorer guesses from the page's segments when none is declared
  (``choose_language``), for the same inputs: the ``scores`` part sees a guess only on pages without
  ``<html lang>``, and only on the QA sets;
* ``extract``: for every answerable dev question, ``extract(document, query, budget=B)`` at 200, 1000 and 5000
  tokens (text, tokens, chosen segments with score and matched flag, dropped counts, no_match, explain() rows);
* ``scores``: every part of ``score_segments`` (raw, relevant, bm25, proximity, lead-in, heading, bridge, sibling,
  answer type) for the same questions, floats by ``repr``.

Why: the speed work rewrites the walk, the scorer and the selector for the same answers; a refactor that claims
"no change in output" is checked against every dev input rather than the tests' fixtures. ``compare`` names the
items whose digest moved. Needs ``../shared/corpora`` (not part of the repository).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import qatbe
from qatbe.score import score_segments
from qatbe.score.bm25 import choose_language
from qatbe.types import Segment, SegmentKind

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
_PARTS = ("segments", "metadata", "languages", "extract", "scores")
_BUDGETS = (200, 1000, 5000)


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def pages() -> Iterator[tuple[str, bytes]]:
    """(name, raw bytes) of every HTML page in the boilerplate corpora, bytes as stored (legacy encodings too)."""
    for folder in ("scrapinghub-aeb/html", "wcxb/html", "trafilatura-eval/html"):
        for path in sorted((CORPORA / folder).iterdir()):
            data = path.read_bytes()
            yield f"{folder}/{path.name}", gzip.decompress(data) if path.name.endswith(".gz") else data
    for path in sorted((CORPORA / "readability-testpages").glob("*/source.html")):
        yield f"readability/{path.parent.name}", path.read_bytes()


def documents() -> Iterator[tuple[str, str, str]]:
    """(name, text, format) of every document of the QA sets."""
    for folder, fields in (("conditionalqa-dev", ("html", "markdown")), ("wikitablequestions", ("html",)),
                           ("squad11-dev", ("markdown",)), ("hotpotqa-distractor", ("markdown",))):
        for doc in _jsonl(CORPORA / folder / "documents.jsonl"):
            for fmt in fields:
                if isinstance(doc.get(fmt), str):
                    yield f"{folder}/{doc['doc_id']}/{fmt}", str(doc[fmt]), fmt


def questions() -> Iterator[tuple[str, str, str, str]]:
    """(name, document, query, format) per answerable dev question, as the retention harness reads them."""
    sys.path.insert(0, str(Path(__file__).parent))
    from retention_quick import load

    for name in ("squad", "cqa", "hotpot", "wtq"):
        for k, (source, query, _, fmt) in enumerate(load(name)):
            yield f"{name}/{k}", source, query, fmt


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:20]


# Cleared by ``write --no-spans``: digests without the segments' source spans (``start``/``position`` and
# ``end``), to show that a change which moves only spans leaves every text, score and choice as it was.
_SPANS = [True]


def _segment_row(s: Segment) -> tuple[object, ...]:
    span = (s.position, s.end) if _SPANS[0] else None
    return (s.kind.value, s.text, s.markdown, span, s.index, s.level, s.heading_path, s.group, s.part,
            s.header, s.tokens)


def _floats(a: object) -> object:
    return None if a is None else [repr(float(x)) for x in a]  # type: ignore[attr-defined]


def write(out: Path, parts: set[str], limit: int | None) -> int:
    digests: dict[str, str] = {}
    ex = qatbe.Extractor()
    if parts & {"segments", "metadata", "languages"}:
        inputs: list[tuple[str, str | bytes, str | None]] = [(n, d, None) for n, d in pages()]
        inputs += [(n, t, f) for n, t, f in documents()]
        guess = qatbe.Settings()  # no declared language: the scorer guesses it from the segments
        for name, source, fmt in inputs[:limit]:
            doc = qatbe.Extractor(format=fmt).parse(source)
            if "segments" in parts:
                segs = qatbe.segment(source, format=fmt)
                digests[f"segments:{name}"] = _digest([_segment_row(s) for s in segs])
            if "metadata" in parts:
                digests[f"metadata:{name}"] = _digest(doc.metadata.to_dict())
            if "languages" in parts:
                cands = [s for s in doc.segments if s.kind is not SegmentKind.NAVIGATION]  # as ``scores``
                digests[f"languages:{name}"] = _digest(choose_language(cands, guess))
    if parts & {"extract", "scores"}:
        extractors = {b: qatbe.Extractor(budget=b) for b in _BUDGETS}
        for name, source, query, fmt in list(questions())[:limit]:
            if "extract" in parts:
                for b, bex in extractors.items():
                    r = bex.extract(source, query)
                    rows = [(_segment_row(s), repr(s.score), s.matched) for s in r.segments]
                    explained = [repr(row) for row in r.explain()]
                    digests[f"extract@{b}:{name}"] = _digest(
                        (r.text, r.total_tokens, rows, r.dropped_count, r.dropped_tokens, r.no_match,
                         r.truncated_count, [(_segment_row(s), repr(s.score)) for s in r.pending], explained))
            if "scores" in parts:
                doc = ex.parse(source)
                cands = [s for s in doc.segments if s.kind is not SegmentKind.NAVIGATION]
                settings = ex.settings
                if doc.metadata.language:
                    settings = settings.with_(language=doc.metadata.language)
                sc = score_segments(cands, query, settings)
                digests[f"scores:{name}"] = _digest(
                    (_floats(sc.raw), None if sc.relevant is None else sc.relevant.tolist(), sc.query_terms,
                     sc.weights, sc.language, _floats(sc.bm25), _floats(sc.proximity), _floats(sc.lead_in),
                     _floats(sc.heading), _floats(sc.bridge), _floats(sc.sibling), _floats(sc.answer_type)))
    out.write_text(json.dumps(digests, indent=0, sort_keys=True), encoding="utf-8")
    print(f"{len(digests)} digests -> {out} (backend {qatbe.BACKEND})")
    return 0


def compare(old: Path, new: Path, show: int) -> int:
    a = json.loads(old.read_text(encoding="utf-8"))
    b = json.loads(new.read_text(encoding="utf-8"))
    moved = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
    only = sorted(a.keys() ^ b.keys())
    by_part: dict[str, int] = {}
    for k in moved:
        by_part[k.split(":", 1)[0]] = by_part.get(k.split(":", 1)[0], 0) + 1
    print(f"{len(a.keys() & b.keys())} items in both; {len(moved)} moved {by_part}; {len(only)} in one only")
    for k in moved[:show]:
        print("  moved:", k)
    for k in only[:show]:
        print("  one only:", k)
    return 1 if moved else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--parts", default=",".join(_PARTS))
    w.add_argument("--limit", type=int, default=None)
    w.add_argument("--no-spans", action="store_true", help="leave the segments' source spans out of the digests")
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--show", type=int, default=10)
    args = ap.parse_args(argv)
    if args.cmd == "compare":
        return compare(args.old, args.new, args.show)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}", file=sys.stderr)
        return 2
    parts = set(args.parts.split(","))
    unknown = parts - set(_PARTS)
    if unknown:
        print(f"unknown part {min(unknown)!r}; parts: {', '.join(_PARTS)}", file=sys.stderr)
        return 2
    _SPANS[0] = not args.no_spans
    return write(args.out, parts, args.limit)


if __name__ == "__main__":
    raise SystemExit(main())
