"""The fast paths of the HTML segmenter give the same answers as the slow ones.

``qatbe/segmentation/html_walk.py`` is compiled by Cython (typed by ``html_walk.pxd``) when the package is built; the
``.py`` is the fallback. Here the compiled walk is compared with the ``.py`` loaded from source (which also catches
a stale build), and the walk's shortcuts are compared with the plain selectolax calls they replace.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser
from strategies import html_markup

from qatbe.segmentation import html_walk
from qatbe.segmentation.html_guard import limit_nesting
from qatbe.segmentation.html_metadata import _clean

_SOURCE = Path(html_walk.__file__).with_name("html_walk.py")
_COMPILED = not html_walk.__file__.endswith(".py")
FIXTURES = sorted((Path(__file__).parent / "fixtures" / "html").glob("*.txt"))


def _pure_module() -> ModuleType:
    """html_walk.py executed as plain Python, whatever the import system would pick."""
    spec = importlib.util.spec_from_file_location("qatbe.segmentation._html_walk_source", _SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


PURE = _pure_module()


def _body(html: str) -> Any:
    tree = LexborHTMLParser(limit_nesting(html))
    tree.strip_tags(list(html_walk.SCRIPT_LIKE))
    return tree, tree.body or tree.root


def _dump(module: ModuleType, html: str) -> tuple[object, ...]:
    """Everything the walk hands to the decision step, with contexts and boxes named by their index."""
    _tree, body = _body(html)
    walker = module.Walker()
    walker.walk(body)
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


_TAGS = ["div", "p", "span", "a", "ul", "ol", "li", "table", "tr", "td", "th", "h1", "h2", "pre", "nav", "article",
         "aside", "blockquote", "section", "em", "b", "br", "dl", "dt", "dd", "main", "footer", "header", "figure",
         "figcaption", "noscript", "form", "label", "summary", "details", "hr", "my-widget", "sup", "code"]
_ATTRS = ["", ' class="nav"', ' class="sidebar"', ' class="content"', ' hidden', ' style="display:none"',
          ' role="main"', ' role="navigation"', ' aria-hidden="true"', ' class="comments"', ' class="byline"',
          ' id="footer"', ' href="#top"', ' start="3"', ' class="reference"', ' itemprop="articleBody"',
          ' class="language-py"']
_WORDS = ["alpha", "beta", "gamma", "&amp;", "δέλτα", "  ", "\n", "1,5", "\xad", "\u200b", "read more",
          "A sentence of some length that reads like prose and keeps going for a while. " * 3]


markup = html_markup(_TAGS, _ATTRS, _WORDS, 80)


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the pure-Python walk",
)
def test_compiled_walk_is_in_use_when_required() -> None:
    assert _COMPILED, html_walk.__file__
    assert PURE.__file__ is not None and PURE.__file__.endswith(".py")


@pytest.mark.skipif(not _COMPILED, reason="html_walk is not compiled here: nothing to compare the source with")
@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_compiled_walk_matches_the_source_on_fixtures(path: Path) -> None:
    html = path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0]
    assert _dump(html_walk, html) == _dump(PURE, html)


@pytest.mark.skipif(not _COMPILED, reason="html_walk is not compiled here: nothing to compare the source with")
@settings(max_examples=100, deadline=None)
@given(markup)
def test_compiled_walk_matches_the_source_on_generated_markup(html: str) -> None:
    assert _dump(html_walk, html) == _dump(PURE, html)


@pytest.mark.corpora
@pytest.mark.skipif(not _COMPILED, reason="html_walk is not compiled here: nothing to compare the source with")
def test_compiled_walk_matches_the_source_on_real_pages(corpora: Path) -> None:
    files = sorted((corpora / "scrapinghub-aeb" / "html").glob("*.html.gz"))[:8]
    if not files:
        pytest.skip("scrapinghub-aeb pages not found")
    for file in files:
        html = gzip.decompress(file.read_bytes()).decode("utf-8", "replace")
        assert _dump(html_walk, html) == _dump(PURE, html), file.name


def _holds_main_everywhere(html: str) -> None:
    _tree, body = _body(html)
    walker = PURE.Walker()
    walker.walk(body)
    for node in body.traverse():
        assert walker._holds_main(node) == (node.css_first(PURE._MAIN_LIKE) is not None), node.html


@settings(max_examples=100, deadline=None)
@given(markup)
def test_main_holders_answer_like_a_css_query(html: str) -> None:
    _holds_main_everywhere(html)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_main_holders_answer_like_a_css_query_on_fixtures(path: Path) -> None:
    _holds_main_everywhere(path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0])


def test_walk_of_deep_nesting_stays_iterative() -> None:
    html = "<body>" + "<div><span>" * 5_000 + "deep words" + "</span></div>" * 5_000 + "</body>"
    for module in (html_walk, PURE):
        _, _, blocks = _dump(module, html)
        assert [b[1] for b in blocks] == ["deep words"]


@given(st.text(alphabet=st.sampled_from(["a", "é", " ", "\t", "\n", "\x0b", "\x1c", "\x85", "\xa0", "\u2003",
                                         "\u3000", "\u200b", "\ufeff", "z"]), max_size=40))
def test_metadata_whitespace_cleaning_is_the_regex_it_replaced(value: str) -> None:
    expected = re.sub(r"\s+", " ", value).strip()[:1000] or None
    assert _clean(value) == expected
