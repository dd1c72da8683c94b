"""A compiled builder and emit stage give the same segments as their sources.

``qatbe/segmentation/builder.py`` and ``html_emit.py`` may be compiled by Cython (typed by ``builder.pxd`` and
``html_emit.pxd``) when the package is built; the ``.py`` files are the fallback. Here the installed modules are
compared with the same files loaded from source (which also catches a stale build), on the fixtures, on generated
documents and, for the locator, on generated pages. Where neither module is compiled there is nothing to compare.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import html_markup, markdown_documents

from qatbe.segmentation import builder, html_emit
from qatbe.segmentation import html as html_module
from qatbe.segmentation import markdown as markdown_module
from qatbe.segmentation import text as text_module
from qatbe.settings import Settings
from qatbe.types import ParsedDocument, Segment

FIXTURES = Path(__file__).parent / "fixtures"
_COMPILED = not builder.__file__.endswith(".py") or not html_emit.__file__.endswith(".py")
_SKIP = pytest.mark.skipif(not _COMPILED, reason="builder and html_emit are not compiled here: nothing to compare")
# The default size and a small one, so that paragraphs, lists, tables and code are split too.
_SETTINGS = (Settings(), Settings(max_segment_tokens=12))


def _source(module: ModuleType) -> ModuleType:
    """The module's .py executed as plain Python, whatever the import system would pick."""
    path = Path(module.__file__ or "").with_name(module.__name__.rsplit(".", 1)[-1] + ".py")
    spec = importlib.util.spec_from_file_location(f"qatbe.segmentation._{path.stem}_source", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # dataclasses look their module up there
    spec.loader.exec_module(loaded)
    return loaded


PURE_BUILDER = _source(builder)
PURE_EMIT = _source(html_emit)


def _both(segmenter: Callable[[str, Settings], ParsedDocument], source: str,
          config: Settings) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """The segments from the installed modules, then from the sources (swapped in where the segmenters look)."""
    installed = segmenter(source, config).segments
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(html_module, "_emit", PURE_EMIT._emit)
        for module in (html_module, markdown_module, text_module):
            patch.setattr(module, "SegmentBuilder", PURE_BUILDER.SegmentBuilder)
        return installed, segmenter(source, config).segments


def _fixture_inputs(kind: str) -> list[str]:
    return [p.read_text(encoding="utf-8").split("\n==== expected ====\n")[0]
            for p in sorted((FIXTURES / kind).glob("*.txt"))]


@_SKIP
@pytest.mark.parametrize("config", _SETTINGS, ids=["default", "small"])
def test_compiled_matches_the_source_on_fixtures(config: Settings) -> None:
    for html in _fixture_inputs("html"):
        installed, pure = _both(html_module.segment_html, html, config)
        assert installed == pure
    for text in _fixture_inputs("markdown"):
        for segmenter in (markdown_module.segment_markdown, text_module.segment_text):
            installed, pure = _both(segmenter, text, config)
            assert installed == pure


_WORDS = ["alpha", "beta", "&amp;", "δέλτα", "  ", "\n", "\xa0", "x|y", "Sentence one. Sentence two! Three?",
          "A sentence of some length that reads like prose and keeps going for a while. " * 3]
_TAGS = ["div", "p", "span", "a", "ul", "ol", "li", "table", "tr", "td", "th", "h1", "h2", "pre", "nav", "article",
         "blockquote", "figcaption", "code", "br"]
_ATTRS = ["", ' class="nav"', ' class="byline"', ' href="#x"', ' class="language-py"', ' role="main"']


@_SKIP
@settings(max_examples=60, deadline=None)
@given(html_markup(_TAGS, _ATTRS, _WORDS, 60), markdown_documents(), st.sampled_from(_SETTINGS))
def test_compiled_matches_the_source_on_generated_documents(html: str, markdown: str, config: Settings) -> None:
    installed, pure = _both(html_module.segment_html, html, config)
    assert installed == pure
    installed, pure = _both(markdown_module.segment_markdown, markdown, config)
    assert installed == pure


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the pure-Python stages",
)
def test_compiled_builder_and_emit_are_in_use_when_required() -> None:
    assert not builder.__file__.endswith(".py"), builder.__file__
    assert not html_emit.__file__.endswith(".py"), html_emit.__file__


_FIRST_WORD = re.compile(r"[A-Za-z0-9]{4,}")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", " ", "\t", "\n", "\xa0", "\u2003", "\xad", "\u200b", "\u200e", "|", "x y"]),
                max_size=40).map("".join))
def test_tidy_cleans_what_the_walk_collapsed(raw: str) -> None:
    # The builder takes the HTML walk's texts without clean_inline's scan (clean=False): they are collapsed but for
    # the soft hyphens and zero-width spaces deleted after collapsing, which _tidy handles.
    from qatbe.segmentation.html_tables import visible_text

    text = visible_text(raw)
    assert builder._tidy(text) == builder.clean_inline(text) == PURE_BUILDER._tidy(text)
    assert builder._escape_pipes(text) == builder.escape_cell(text)
