"""Source spans: ``source[seg.start:seg.end]`` is where each segment was read (qatbe/segmentation/spans.py).

The check is written out plainly here: a segment's words (runs of letters and digits, case-folded) occur in order
in the text of its slice -- for HTML the slice with comments, scripts and tags removed and character references
decoded, composed as the walk composes text (NFC, soft hyphens and zero-width spaces dropped). Spans lie in the
source, starts never decrease in document order, and the segments an extraction selects have increasing spans.
On the dev pages the words check holds for all but a pinned share of segments (``MISPLACED_AT_MOST``): units the
walk reads out of the source's order get an empty span (qatbe/segmentation/spans.py says which).
"""

from __future__ import annotations

import gzip
import html as html_lib
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qatbe
from qatbe import Settings
from qatbe.segmentation import html as html_segmenter
from qatbe.segmentation.markdown import segment_markdown
from qatbe.segmentation.spans import Stream
from qatbe.segmentation.text import segment_text
from qatbe.types import Segment, SegmentKind

FIXTURES = Path(__file__).parent / "fixtures"
_WORD = re.compile(r"[^\W_]+")
_HIDDEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style|iframe|noembed|noframes|xmp)\b[^>]*>.*?(?:</\1\s*>|\Z)"
    r"|<[^>]*>", re.DOTALL | re.IGNORECASE)
_TEX = re.compile(r"\$\$?[^$]*\$\$?")


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFC", text))]


def html_text(fragment: str) -> str:
    """The readable text of a piece of HTML: comments, raw-text elements and tags removed, references decoded,
    composed as the walk composes it."""
    text = html_lib.unescape(_HIDDEN.sub("", fragment))
    return unicodedata.normalize("NFC", text.replace("\xad", "").replace("\u200b", ""))


def in_order(wanted: Sequence[str], text: str) -> bool:
    """Every word of ``wanted`` occurs in ``text``'s letters and digits, in order. The letters are compared run
    together: a tag between two letters joins them in the walk's text and splits them in the source's, or the
    other way round (cells, blocks)."""
    letters = "".join(words(text))
    at = 0
    for word in wanted:
        found = letters.find(word, at)
        if found < 0:
            return False
        at = found + len(word)
    return True


def own_words(seg: Segment) -> list[str]:
    """The words a segment read from its own span: a later row group of a table repeats the table's caption and
    header (read at the table's start) in its text; a formula's TeX is not the page's text."""
    text = seg.text
    if seg.kind in (SegmentKind.TABLE, SegmentKind.NAVIGATION) and seg.part > 0 and seg.header:
        repeated = int(seg.header.startswith("Table: ")) + int("\n| " in "\n" + seg.header)
        text = "\n".join(text.split("\n")[repeated:])
    return words(_TEX.sub(" ", text))


def contained(wanted: Sequence[str], text: str) -> bool:
    """Every word of ``wanted`` occurs in ``text``'s letters and digits (in any order)."""
    letters = "".join(words(text))
    return all(word in letters for word in wanted)


def _table_like(seg: Segment) -> bool:
    return seg.kind is SegmentKind.TABLE or seg.markdown.startswith(("| ", "Table: "))


def problems(source: str, segments: Sequence[Segment], fmt: str) -> list[str]:
    """What breaks the invariants of the module docstring, one line a segment.

    A table's text is its grid, in which a cell spanning rows or columns repeats and stacked header rows are
    merged per column: its words are only required to occur in its span, not in order, and for a later row group
    in the table's source up to the group's end (a spanning cell's text is where the cell is, in an earlier
    group)."""
    found: list[str] = []
    last = 0
    group_start: dict[int, int] = {}
    for seg in segments:
        if not 0 <= seg.start <= seg.end <= len(source) or seg.position != seg.start:
            found.append(f"span out of the source: {seg}")
            continue
        if seg.start < last:
            found.append(f"start {seg.start} before the previous segment's {last}: {seg.text[:80]!r}")
        last = seg.start
        group_start.setdefault(seg.group, seg.start)
        wanted = own_words(seg)
        if _table_like(seg):
            piece = source[group_start[seg.group] : seg.end]
            ok = contained(wanted, html_text(piece) if fmt == "html" else piece)
        else:
            piece = source[seg.start : seg.end]
            # markdown keeps inline markup as written; raw HTML inside it is read as HTML
            ok = in_order(wanted, html_text(piece)) or (fmt != "html" and in_order(wanted, piece))
        if not ok:
            found.append(f"{seg.kind.value} words not in its span: {seg.text[:80]!r} / {piece[:160]!r}")
    return found


def check(source: str, segments: Sequence[Segment], fmt: str) -> None:
    found = problems(source, segments, fmt)
    assert not found, "\n".join(found[:5])


def _segments(source: str, fmt: str) -> Sequence[Segment]:
    return qatbe.segment(source, format=fmt)


# -- the cases the issue lists ----------------------------------------------------------------------------


def test_a_sentence_starting_with_short_words_starts_at_its_first_character() -> None:
    page = "<html><body><h1>Setup</h1><p>To install it now.</p><p>Then run it.</p></body></html>"
    segs = _segments(page, "html")
    assert [page[s.start : s.end] for s in segs] == ["Setup", "To install it now.", "Then run it."]


def test_non_ascii_words_and_references_do_not_shift_later_spans() -> None:
    page = ("<body><p>Größe café naïve résumé</p><p>Gr&ouml;&szlig;e caf&eacute; again</p>"
            "<p>Plain words after them.</p></body>")
    segs = _segments(page, "html")
    assert [page[s.start : s.end] for s in segs] == [
        "Größe café naïve résumé", "Gr&ouml;&szlig;e caf&eacute; again", "Plain words after them."]


def test_spans_of_a_split_paragraph_are_its_sentence_runs() -> None:
    sentences = [f"Sentence number {k} says something about topic {k} at some length here." for k in range(40)]
    page = "<body><p>" + " <b>and</b> ".join(sentences) + "</p></body>"
    segs = _segments(page, "html")
    assert len(segs) > 1
    check(page, segs, "html")
    assert [s.start for s in segs] == sorted({s.start for s in segs})  # strictly increasing
    assert segs[-1].end == page.index("</p>")


def _wtq(corpora: Path, doc_id: str) -> tuple[str, list[str]]:
    folder = corpora / "wikitablequestions"
    docs = (folder / "documents.jsonl").read_text(encoding="utf-8").splitlines()
    page = next(d["html"] for d in map(json.loads, docs) if d["doc_id"] == doc_id)
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [q["query"] for q in map(json.loads, lines) if q["doc_id"] == doc_id]
    return page, queries


@pytest.mark.corpora
@pytest.mark.parametrize("budget", [37, 1000, 5000])
def test_selected_table_rows_have_increasing_spans(corpora: Path, budget: int) -> None:
    page, queries = _wtq(corpora, "203-csv/588")
    assert queries
    for query in queries:
        r = qatbe.extract(page, query, budget=budget)
        assert r.segments
        starts = [s.start for s in r.segments]
        assert starts == sorted(set(starts)), starts
        check(page, r.segments, "html")


# -- every fixture and every dev page ---------------------------------------------------------------------


def _fixtures() -> Iterator[tuple[str, str, str]]:
    for path in sorted((FIXTURES / "html").glob("*.txt")):
        yield path.stem, path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0], "html"
    for path in sorted((FIXTURES / "markdown").glob("*.txt")):
        yield path.stem, path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0], "markdown"


@pytest.mark.parametrize(("name", "source", "fmt"), list(_fixtures()), ids=[n for n, _, _ in _fixtures()])
def test_spans_on_fixtures(name: str, source: str, fmt: str) -> None:
    check(source, _segments(source, fmt), fmt)


def _dev_pages(corpora: Path) -> Iterator[tuple[str, str, str]]:
    for folder in ("scrapinghub-aeb/html", "wcxb/html", "trafilatura-eval/html"):
        for path in sorted((corpora / folder).iterdir()):
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            if path.name.endswith((".html", ".html.gz")):
                yield f"{folder}/{path.name}", data.decode("utf-8", "replace"), "html"
    for path in sorted((corpora / "readability-testpages").glob("*/source.html")):
        yield f"readability/{path.parent.name}", path.read_text(encoding="utf-8", errors="replace"), "html"
    for folder, fields in (("conditionalqa-dev", ("html", "markdown")), ("wikitablequestions", ("html",)),
                           ("squad11-dev", ("markdown",)), ("hotpotqa-distractor", ("markdown",))):
        for line in (corpora / folder / "documents.jsonl").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            for fmt in fields:
                if isinstance(doc.get(fmt), str):
                    yield f"{folder}/{doc['doc_id']}/{fmt}", doc[fmt], fmt


# The share of the dev pages' segments whose words are not all in their span: units the walk reads in another
# order than the source has them (a grid's merged header, text a tree builder moves), placed as "not found" at
# an empty span rather than at a wrong copy. A floor to lower, never to raise silently.
MISPLACED_AT_MOST = 0.011


@pytest.mark.corpora
def test_spans_on_every_dev_page(corpora: Path) -> None:
    count = segments = 0
    misplaced: list[str] = []
    broken: list[str] = []
    for name, source, fmt in _dev_pages(corpora):
        text, _ = qatbe.source.load_source(source, Settings(format="html" if fmt == "html" else "markdown"))
        segs = _segments(text, fmt)
        for problem in problems(text, segs, fmt):
            (misplaced if "words not in its span" in problem else broken).append(f"{name}: {problem[:300]}")
        count += 1
        segments += len(segs)
    assert count > 1000
    assert not broken, f"{len(broken)} segments: " + "\n".join(broken[:5])  # in the source, in document order
    assert len(misplaced) <= MISPLACED_AT_MOST * segments, (len(misplaced), segments, misplaced[:5])


# -- generated documents -----------------------------------------------------------------------------------

_INLINE = ["b", "i", "a", "span", "em", "code"]
_TEXTS = ["alpha beta", "Größe café", "caf&eacute;", "A&amp;B", "x &lt; y", "naïve", "e\u0301t\u00e9", "To do it.",
          "1,5 km", "“quoted” — ok", "soft\xadhyphen", "zero\u200bwidth", "中文字", "&#169; 2024", "Ab. Cd? Ef!"]


@st.composite
def _html_pages(draw: st.DrawFn) -> str:
    def inline() -> str:
        parts = []
        for _ in range(draw(st.integers(1, 4))):
            text = draw(st.sampled_from(_TEXTS))
            tag = draw(st.sampled_from([None, *_INLINE]))
            parts.append(text if tag is None else f"<{tag}>{text}</{tag}>")
        return draw(st.sampled_from([" ", "", "\n"])).join(parts)

    blocks = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["p", "h2", "ul", "table", "pre", "div", "blockquote", "comment", "script"]))
        if kind == "ul":
            blocks.append("<ul>" + "".join(f"<li>{inline()}</li>" for _ in range(draw(st.integers(1, 4)))) + "</ul>")
        elif kind == "table":
            rows = draw(st.integers(1, 5))
            cells = draw(st.integers(1, 3))
            head = "<tr>" + "".join(f"<th>{inline()}</th>" for _ in range(cells)) + "</tr>"
            body = "".join("<tr>" + "".join(f"<td>{inline()}</td>" for _ in range(cells)) + "</tr>"
                           for _ in range(rows))
            blocks.append(f"<table>{head}{body}</table>")
        elif kind == "pre":
            blocks.append("<pre>" + "\n".join(inline() for _ in range(draw(st.integers(1, 4)))) + "</pre>")
        elif kind == "comment":
            blocks.append(f"<!-- {inline()} -->")
        elif kind == "script":
            blocks.append(f"<script>var s = '{draw(st.sampled_from(_TEXTS))}';</script>")
        else:
            blocks.append(f"<{kind}>{inline()}</{kind}>")
    return "<html><head><title>T</title></head><body>" + "\n".join(blocks) + "</body></html>"


@st.composite
def _markdown_docs(draw: st.DrawFn) -> str:
    words = st.sampled_from(["alpha", "beta", "Größe", "café", "**bold** text", "`code`", "[link](http://x.y/z)",
                             "To do it.", "naïve", "1,5"])
    blocks = []
    for _ in range(draw(st.integers(0, 8))):
        line = " ".join(draw(st.lists(words, min_size=1, max_size=6)))
        kind = draw(st.sampled_from(["p", "h", "ul", "ol", "quote", "code", "table"]))
        if kind == "h":
            blocks.append("## " + line)
        elif kind in ("ul", "ol"):
            marker = "-" if kind == "ul" else "1."
            blocks.append("\n".join(f"{marker} {line} {k}" for k in range(draw(st.integers(1, 3)))))
        elif kind == "quote":
            blocks.append("> " + line)
        elif kind == "code":
            blocks.append("```\n" + line + "\n```")
        elif kind == "table":
            blocks.append("| a | b |\n|---|---|\n" + "\n".join(f"| {line} | {k} |" for k in range(3)))
        else:
            blocks.append(line)
    return "\n\n".join(blocks) + "\n"


@settings(max_examples=150, deadline=None)
@given(_html_pages(), st.sampled_from([40, 400]))
def test_spans_on_generated_html(page: str, segment_tokens: int) -> None:
    segs = qatbe.segment(page, format="html", max_segment_tokens=segment_tokens)
    check(page, segs, "html")


@settings(max_examples=150, deadline=None)
@given(_markdown_docs(), st.sampled_from([40, 400]))
def test_spans_on_generated_markdown(doc: str, segment_tokens: int) -> None:
    segs = segment_markdown(doc, Settings(max_segment_tokens=segment_tokens)).segments
    check(doc, segs, "markdown")
    check(doc, segment_text(doc, Settings(max_segment_tokens=segment_tokens)).segments, "text")


@pytest.mark.skipif(not html_segmenter.FAST_WALK, reason="the compiled walk is not in use here")
@settings(max_examples=100, deadline=None)
@given(_html_pages())
def test_compiled_and_python_walks_give_the_same_spans(page: str) -> None:
    fast = html_segmenter.segment_html(page, Settings()).segments
    html_segmenter.FAST_WALK = False
    try:
        slow = html_segmenter.segment_html(page, Settings()).segments
    finally:
        html_segmenter.FAST_WALK = True
    assert [(s.text, s.start, s.end) for s in fast] == [(s.text, s.start, s.end) for s in slow]


# -- the stream itself -------------------------------------------------------------------------------------


def test_stream_maps_references_and_composed_characters_to_their_source() -> None:
    page = "<p>x&nbsp;caf&eacute; <b>e\u0301t\u00e9</b><!-- hidden --><script>no</script>end</p>"
    stream = Stream(page, markup=True)
    assert stream.text == "xcaféétéend"
    spans = stream.align(["café", "été", "not there", "end"])
    assert [page[a:b] for a, b in spans] == ["caf&eacute;", "e\u0301t\u00e9", "", "end"]
    assert spans[1][1] <= spans[2][0] <= spans[3][0]  # not found: an empty span where the stream stands


def test_a_far_copy_of_a_unit_is_not_taken_when_the_next_unit_comes_first() -> None:
    page = "<p>Label</p>" + "<p>filler words here</p>" * 40 + "<p>Label again</p>"
    stream = Stream(page, markup=True)
    spans = stream.align(["Missing", "filler words here", "Label again"])
    assert spans[0][0] == spans[0][1]
    assert page[slice(*spans[1])] == "filler words here"
    assert page[slice(*spans[2])] == "Label again"


def test_segment_dict_carries_start_and_end() -> None:
    seg = qatbe.segment("<p>Some words here.</p>", format="html")[0]
    row = seg.to_dict()
    assert (row["start"], row["end"], row["position"]) == (seg.start, seg.end, seg.start)
    assert (seg.start, seg.end) == (3, 19)
