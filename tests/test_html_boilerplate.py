"""Evidence from class names and ids: the fast form of ``_token`` answers as the rule it implements.

The rule, written plainly: split the lower-cased name at spaces, "_" and "-", drop trailing digits, also try
adjacent words joined; a quotation word makes it a quote; a strong word or strong infix makes it strong
furniture, else a weak word or infix weak; a metadata word marks a byline.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.segmentation import html_boilerplate as hb


def _plain_token(token: str) -> tuple[int, bool, bool, bool, bool]:
    lower = token.lower()
    hidden = lower in hb._HIDDEN_CLASSES
    footnote = lower in hb.FOOTNOTE_CLASSES
    raw = [w.rstrip("0123456789") for w in hb._SPLIT.split(lower)]
    words = set(raw)
    for k in range(len(raw) - 1):
        words.add(raw[k] + raw[k + 1])
        if k + 2 < len(raw):
            words.add(raw[k] + raw[k + 1] + raw[k + 2])
    words.discard("")
    if words & hb._QUOTE_WORDS:
        return hb.NONE, True, hidden, False, footnote
    level = hb.NONE
    if words & hb._STRONG_WORDS or any(f in lower for f in hb._STRONG_INFIXES):
        level = hb.STRONG
    elif words & hb._WEAK_WORDS or any(f in lower for f in hb._WEAK_INFIXES):
        level = hb.WEAK
    return level, False, hidden, bool(words & hb._META_WORDS), footnote


_PIECES = sorted(set(hb.WORD_BITS) | hb._HIDDEN_CLASSES | hb.FOOTNOTE_CLASSES) + [
    "x", "main", "content", "Nav", "FOOTER", "post", "entry", "é", "navigation", "mainNavigation", "related_posts",
    "socialmedia", "2", "col", "md"]
names = st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(["", "-", "_", "--", "1", "-2", " "])),
                 min_size=1, max_size=4).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=2000, deadline=None)
@given(names)
def test_token_evidence_follows_the_plain_rule(name: str) -> None:
    assert hb._token.__wrapped__(name) == _plain_token(name)


def test_examples() -> None:
    assert hb._token("site-nav")[0] == hb.STRONG
    assert hb._token("comments-area")[0] == hb.WEAK
    assert hb._token("entry-content") == (hb.NONE, False, False, False, False)
    assert hb._token("pullquote")[1] is True
    assert hb._token("post-date")[3] is True
    assert hb._token("mainNavigation")[0] == hb.STRONG  # an infix inside a compound
    assert hb._token("sr-only").hidden is True
    assert hb._token("Reference").footnote is True


def test_rule_tables_hold_each_rule_at_every_argument() -> None:
    # The compiled walk looks the rules up in these tables: each entry is the rule at its arguments.
    tables = hb.RULE_TABLES
    for words in range(hb.NAME_WORD_BITS):
        for infix in (hb.NONE, hb.WEAK, hb.STRONG):
            level, quote, meta = hb.name_rule(words, infix)
            assert tables["name"][3 * words + infix] == level | quote << 2 | meta << 3
    for tag in range(3):
        for names in range(3):
            for quote in (False, True):
                for role in (False, True):
                    index = ((tag * 3 + names) * 2 + quote) * 2 + role
                    assert tables["neg"][index] == hb.neg_rule(tag, names, quote, role)
    flags = (False, True)
    for a in flags:
        for b in flags:
            for c in flags:
                assert tables["pos"][(a * 2 + b) * 2 + c] == hb.pos_rule(a, b, c)
                assert tables["byline"][(a * 2 + b) * 2 + c] == hb.byline_rule(a, b, c)
                for d in flags:
                    assert tables["hidden"][((a * 2 + b) * 2 + c) * 2 + d] == hb.hidden_rule(a, b, c, d)


def _source() -> ModuleType:
    """html_boilerplate.py executed as plain Python (the installed module may be compiled)."""
    path = Path(hb.__file__).with_name("html_boilerplate.py")
    spec = importlib.util.spec_from_file_location("qatbe.segmentation._html_boilerplate_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PURE = _source()
_VALUES = st.one_of(st.none(), st.sampled_from(["", "nav", "entry-content", "Main", "main", "tabpanel", "true",
                                                "display: none", "visibility:hidden", "reference", "articleBody",
                                                "sr-only post", "comments", "byline author", " TRUE "]), names)
attrs = st.dictionaries(st.sampled_from(["class", "id", "role", "itemprop", "hidden", "aria-hidden", "style",
                                         "data-x"]), _VALUES, max_size=5)
tags = st.sampled_from(["div", "nav", "header", "footer", "aside", "main", "article", "sup", "address", "span",
                        "section", "my-widget"])


@settings(max_examples=1000, deadline=None)
@given(tags, attrs)
def test_installed_module_answers_as_its_source(tag: str, values: dict[str, str | None]) -> None:
    assert hb.evidence(tag, values) == PURE.evidence(tag, values)
    assert hb.is_hidden(values) == PURE.is_hidden(values)
    assert hb.hidden_by_class(tag, values) == PURE.hidden_by_class(tag, values)
