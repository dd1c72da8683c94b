"""The compiled walk over Lexbor's nodes (``html_fastwalk``) hands the decision step exactly what the Python walk
(``html_walk.Walker`` over selectolax's objects, after ``strip_tags``) hands it: every block, context and box.

The Python walk is the reference: it is loaded from its ``.py`` source, so a stale build cannot hide a difference.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser
from strategies import html_markup
from test_html_speedpath import PURE

from qatbe.segmentation import html as html_segmenter
from qatbe.segmentation import parse
from qatbe.segmentation.html_guard import limit_nesting
from qatbe.settings import Settings
from qatbe.types import SegmentKind

try:
    from qatbe.segmentation import lexbor_nodes
    from qatbe.segmentation.html_fastwalk import fast_walk

    FAST = lexbor_nodes.available()
    WHY_NOT = lexbor_nodes.reason()
except ImportError as exc:  # built without extensions
    FAST = False
    WHY_NOT = f"not compiled ({exc})"

needs_fast = pytest.mark.skipif(not FAST, reason=f"the compiled walk is not available here: {WHY_NOT}")
FIXTURES = sorted((Path(__file__).parent / "fixtures" / "html").glob("*.txt"))


def _dump(walker: Any) -> tuple[object, ...]:
    """Everything a walk hands to the decision step, with contexts and boxes named by their index."""
    ctx_index = {id(c): i for i, c in enumerate(walker.ctxs)}
    box_index = {id(b): i for i, b in enumerate(walker.boxes)}
    ctxs = [(c.tag, c.neg, c.pos, c.hidden, c.byline, c.order, c.name, ctx_index.get(id(c.parent)))
            for c in walker.ctxs]
    boxes = [box_index.get(id(b.parent)) for b in walker.boxes]
    blocks = [(b.kind, b.text, b.chars, b.link, b.level, b.lang, b.furniture, b.button, b.table,
               ctx_index[id(b.ctx)],
               box_index.get(id(b.box)), [(t, d, o, n, ctx_index[id(c)]) for t, d, o, n, c in b.items])
              for b in walker.blocks]
    return ctxs, boxes, blocks


def _python_walk(html: str) -> tuple[object, ...]:
    tree = LexborHTMLParser(limit_nesting(html))
    tree.strip_tags(list(PURE.SCRIPT_LIKE))
    walker = PURE.Walker()
    body = tree.body or tree.root
    if body is not None:
        walker.walk(body)
    return _dump(walker), walker.page_chars


def _fast_walk(html: str) -> tuple[object, ...]:
    tree = LexborHTMLParser(limit_nesting(html))
    body = tree.body or tree.root
    walker = fast_walk(body.mem_id)
    return _dump(walker), walker.page_chars


def _same(html: str) -> None:
    assert _fast_walk(html) == _python_walk(html)


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the Python walk",
)
def test_the_compiled_walk_is_in_use_when_required() -> None:
    assert FAST, WHY_NOT
    assert html_segmenter.FAST_WALK


@needs_fast
@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_same_blocks_on_fixtures(path: Path) -> None:
    _same(path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0])


# The Python walk's vocabulary plus what the compiled walk handles differently in mechanics: script-like
# elements (stripped before the Python walk, skipped by the compiled one), tables read cell by cell, <pre> with
# a language, lists with odd start numbers, and every kind of Unicode whitespace.
_TAGS = ["div", "p", "span", "a", "ul", "ol", "li", "table", "tr", "td", "th", "thead", "tbody", "caption", "h1",
         "h2", "h3", "pre", "code", "nav", "article", "aside", "blockquote", "section", "em", "b", "br", "hr",
         "dl", "dt", "dd", "main", "footer", "header", "figure", "figcaption", "noscript", "form", "label",
         "summary", "details", "my-widget", "x-card", "sup", "script", "style", "template", "svg", "math",
         "button", "select", "option", "iframe", "textarea", "img", "title", "font", "center", "menu"]
_ATTRS = ["", ' class="nav"', ' class="sidebar menu"', ' class="content"', ' hidden', ' style="display:none"',
          ' role="main"', ' role="Main"', ' role="navigation"', ' role="presentation"', ' role="tabpanel"',
          ' aria-hidden="true"', ' class="comments"', ' class="byline"', ' id="footer"', ' href="#top"',
          ' href="/x"', ' start="3"', ' start="²"', ' start="٣"', ' colspan="2"', ' rowspan="3"', ' colspan="x9"',
          ' class="reference"', ' itemprop="articleBody"', ' itemprop="author"', ' class="language-py"',
          ' data-lang="Go"', ' class="sr-only"', ' class="sortkey"', ' id="main" class="post"',
          ' class="btn btn-primary"', ' class="wp-block-button__link"', ' slot="primary-cta"', ' class="contact"',
          ' class="CTA"', ' class="ctaBox"', ' role=" Button\t"', ' role="buttons"', ' class="Knöpfe"']
_WORDS = ["alpha", "beta", "gamma", "&amp;", "δέλτα", "中文", "“quoted” — €5…", "Å", "A\u030a", "ǅ", "  ", "\n", "\t", "1,5", "\xad", "\u200b", "\xa0",
          "\u2003", "\u3000", "\x85", "\u2028", "e\u0301", "read more", "Advertisement",
          "<?php echo 1 ?>", "<![CDATA[c]]>",
          "A sentence of some length that reads like prose and keeps going for a while. " * 3]

markup = html_markup(_TAGS, _ATTRS, _WORDS, 90)


@needs_fast
@settings(max_examples=400, deadline=None)
@given(markup)
def test_same_blocks_on_generated_markup(html: str) -> None:
    _same(html)


@needs_fast
@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", " ", "\t", "\n", "\x0b", "\x1c", "\x85", "\xa0", "\u1680",
                                         "\u2003", "\u2028", "\u202f", "\u3000", "\u200b", "\ufeff", "<", ">",
                                         "/", "p", "a", "z"]), max_size=80))
def test_same_blocks_on_unicode_whitespace_soup(text: str) -> None:
    # Text nodes made only of Unicode whitespace, and link text measured after stripping it.
    _same(f"<body><p>{text}<a href='/x'>{text}</a></p><ul><li>{text}</li></ul></body>")


@needs_fast
def test_deep_nesting_stays_iterative() -> None:
    html = "<body>" + "<div><span>" * 5_000 + "deep words" + "</span></div>" * 5_000 + "</body>"
    dump, _ = _fast_walk(html)
    assert [b[1] for b in dump[2]] == ["deep words"]
    _same(html)


@needs_fast
def test_pages_without_a_body_element_and_empty_pages() -> None:
    for html in ("", "   ", "<!-- only a comment -->", "<html></html>", "text without tags", "<frameset></frameset>"):
        _same(html)


@needs_fast
@pytest.mark.corpora
def test_same_blocks_on_real_pages(corpora: Path) -> None:
    files = sorted((corpora / "scrapinghub-aeb" / "html").glob("*.html.gz"))[:20]
    files += sorted((corpora / "wcxb" / "html").glob("*.html.gz"))[:20]
    if not files:
        pytest.skip("no pages found under the corpora")
    for file in files:
        html = gzip.decompress(file.read_bytes()).decode("utf-8", "replace")
        assert _fast_walk(html) == _python_walk(html), file.name


def test_list_start_reads_only_plain_decimal_numbers() -> None:
    # "²" is a digit to str.isdigit but int() refuses it: an <ol start="²"> used to crash the walk.
    assert PURE.list_start("²") == 1
    assert PURE.list_start(" 7 ") == 7
    assert PURE.list_start("٣") == 3
    assert PURE.list_start(None) == 1
    assert PURE.list_start("123456789") == 1


def test_python_walk_can_be_forced_and_says_so() -> None:
    code = ("from qatbe.segmentation import html, lexbor_nodes; import qatbe; "
            "print(html.FAST_WALK, lexbor_nodes.reason()); "
            "print(qatbe.segment('<p>kept words</p>')[0].text)")
    env = dict(os.environ, QATBE_HTML_WALK="python", QATBE_BACKEND="auto")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if "No module named 'qatbe.segmentation.lexbor_nodes'" in out.stderr:
        pytest.skip("qatbe is not compiled here")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["False QATBE_HTML_WALK=python", "kept words"]


_NAME_PIECES = ["nav", "Nav", "menu", "site", "footer", "comment", "comments", "byline", "author", "quote",
                "pullquote", "sr-only", "hidden", "reference", "main", "content", "entry", "2", "-", "_", "--",
                "navigation", "mainNavigation", "related_posts", "socialmedia", "toc", "header", "x", "é", "ß",
                "tabpanel", "articleBody", "date", "time"]
_name = st.lists(st.sampled_from(_NAME_PIECES), max_size=5).map("".join)
_value = st.one_of(st.none(), st.lists(_name, max_size=4).map(" ".join),
                   st.sampled_from([" TRUE ", "true", "false", "display:none", "DISPLAY : NONE", "visibility:\thidden",
                                    "display: block", "color: none", " Navigation ", "main", "tabpanel", "\x1cmain",
                                    "a" * 300, "-".join("ab" for _ in range(70))]))
_attrs = st.dictionaries(st.sampled_from(["class", "id", "itemprop", "role", "hidden", "aria-hidden", "style"]),
                         _value, max_size=6)


@needs_fast
@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(["div", "nav", "header", "footer", "aside", "main", "article", "sup", "address", "span",
                        "section", "my-widget", "h2", "form"]), _attrs)
def test_c_evidence_answers_as_the_python_rules(tag: str, attrs: dict[str, str | None]) -> None:
    from qatbe.segmentation.html_boilerplate import evidence
    from qatbe.segmentation.html_fastwalk import evidence_in_c

    got = evidence_in_c(tag, attrs)
    if got is None:  # a non-ASCII value or an unusual name: the walk asks the Python rules
        assert any(v is not None and (not v.isascii() or len(v) > 255 or v.count("-") > 60) for v in attrs.values())
    else:
        assert got == evidence(tag, attrs)
    # Asked again, the names and whole values come from the table of names seen: the same answer.
    assert evidence_in_c(tag, attrs) == got


@needs_fast
@settings(max_examples=2000, deadline=None)
@given(_attrs, st.booleans(), st.booleans())
def test_c_hiding_answers_as_the_python_rules(attrs: dict[str, str | None], by_class: bool, sup: bool) -> None:
    from qatbe.segmentation.html_boilerplate import hidden_by_class, is_hidden
    from qatbe.segmentation.html_fastwalk import hidden_in_c

    got = hidden_in_c(attrs, by_class, sup)
    if got is None:
        assert any(v is not None and (not v.isascii() or len(v) > 255 or v.count("-") > 60) for v in attrs.values())
    else:
        assert got == (is_hidden(attrs) or (by_class and hidden_by_class("sup" if sup else "td", attrs)))


_SPLIT_SMALL = Settings(max_segment_tokens=12)


def _without_navigation(html: str, config: Settings) -> None:
    every = parse(html, "html", config).segments
    counted = parse(html, "html", config, navigation=False).segments
    assert counted == tuple(s for s in every if s.kind is not SegmentKind.NAVIGATION)


@settings(max_examples=300, deadline=None)
@given(markup, st.sampled_from([Settings(), _SPLIT_SMALL]))
def test_leaving_boilerplate_out_keeps_every_other_segment_as_it_is(html: str, config: Settings) -> None:
    # extract does not build boilerplate segments; the others keep their index, group and heading path.
    _without_navigation(html, config)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_leaving_boilerplate_out_on_fixtures(path: Path) -> None:
    html = path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0]
    for config in (Settings(), _SPLIT_SMALL):
        _without_navigation(html, config)


try:
    from qatbe.segmentation.html_fastwalk import collapse_in_c
except ImportError:  # built without extensions
    collapse_in_c = None

# Pieces that decide each branch of the collapse: runs of printable ASCII long enough for the eight-byte copy,
# single and double spaces at every offset, indentation long enough for the eight-byte skip, the other whitespace
# str.split() knows (vertical tab, \x1c-\x1f, NBSP, ideographic space), control bytes, DEL, multi-byte characters.
_COLLAPSE_PIECES = ["abcdefgh", "abc", "x", " ", "  ", "\t", "\n", "\r", "\x0b", "\x1c", "\x1f", "\x00", "\x7f", "\xa0",
                    "\u3000", "é", "中", "😀", ".,;:!?", "a b c d e f g h i", "word word", "\n        ", "\r\n\t\t  "]


@pytest.mark.skipif(collapse_in_c is None, reason="the compiled walk is not built")
@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_COLLAPSE_PIECES), max_size=30).map("".join))
def test_collapse_is_split_and_join(text: str) -> None:
    assert collapse_in_c is not None
    collapsed, ascii = collapse_in_c(text.encode("utf-8"))
    assert collapsed.decode("utf-8") == " ".join(text.split())
    assert ascii == collapsed.isascii()  # of what is kept: a dropped NBSP leaves ASCII text
