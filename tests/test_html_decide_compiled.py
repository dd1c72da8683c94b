"""A compiled decision step (``html_decide.py`` typed by ``html_decide.pxd``) marks the same blocks as its source.

The source is loaded from the ``.py`` (which also catches a stale build) and run on a second walk of the same page;
every verdict it writes (blocks' ``boiler`` and ``meta``, contexts' and boxes' fields) must match.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from selectolax.lexbor import LexborHTMLParser
from test_html_fastwalk import markup

from qatbe.segmentation import html as html_segmenter
from qatbe.segmentation import html_decide
from qatbe.segmentation.html import _walk
from qatbe.segmentation.html_guard import limit_nesting

_COMPILED = not html_decide.__file__.endswith(".py")
_SKIP = pytest.mark.skipif(not _COMPILED, reason="html_decide is not compiled here: nothing to compare")
FIXTURES = sorted((Path(__file__).parent / "fixtures" / "html").glob("*.txt"))


def _source() -> ModuleType:
    path = Path(html_decide.__file__).with_name("html_decide.py")
    spec = importlib.util.spec_from_file_location("qatbe.segmentation._html_decide_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PURE = _source()


def _verdicts(decide: Any, html: str, discussion: bool) -> tuple[object, ...]:
    walker = _walk(LexborHTMLParser(limit_nesting(html)))
    decide(walker, discussion)
    blocks = [(b.boiler, b.meta) for b in walker.blocks]
    ctxs = [(c.boiler, c.main, c.flagged, c.cleared, c.byline, c.prose, c.pos_prose, c.total, c.total_good)
            for c in walker.ctxs]
    boxes = [(b.prose, b.inside) for b in walker.boxes]
    return blocks, ctxs, boxes


def _same(html: str) -> None:
    for discussion in (False, True):
        assert _verdicts(html_decide.decide, html, discussion) == _verdicts(PURE.decide, html, discussion)


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the source",
)
def test_compiled_decide_is_in_use_when_required() -> None:
    assert _COMPILED, html_decide.__file__
    assert html_segmenter.decide is html_decide.decide


@_SKIP
@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_same_verdicts_on_fixtures(path: Path) -> None:
    _same(path.read_text(encoding="utf-8").split("\n==== expected ====\n")[0])


@_SKIP
@settings(max_examples=200, deadline=None)
@given(markup)
def test_same_verdicts_on_generated_markup(html: str) -> None:
    _same(html)


@_SKIP
@pytest.mark.corpora
def test_same_verdicts_on_real_pages(corpora: Path) -> None:
    files = sorted((corpora / "wcxb" / "html").glob("*.html.gz"))[:30]
    if not files:
        pytest.skip("no wcxb pages found under the corpora")
    for file in files:
        html = gzip.decompress(file.read_bytes()).decode("utf-8", "replace")
        assert _verdicts(html_decide.decide, html, False) == _verdicts(PURE.decide, html, False), file.name
