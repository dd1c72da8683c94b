"""Evidence from class names and ids: the fast form of ``_token`` answers as the rule it implements.

The rule, written plainly: split the lower-cased name at spaces, "_" and "-", drop trailing digits, also try
adjacent words joined; a quotation word makes it a quote; a strong word or strong infix makes it strong
furniture, else a weak word or infix weak; a metadata word marks a byline.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.segmentation import html_boilerplate as hb


def _plain_token(token: str) -> tuple[int, bool, bool, bool]:
    lower = token.lower()
    hidden = lower in hb._HIDDEN_CLASSES
    raw = [w.rstrip("0123456789") for w in hb._SPLIT.split(lower)]
    words = set(raw)
    for k in range(len(raw) - 1):
        words.add(raw[k] + raw[k + 1])
        if k + 2 < len(raw):
            words.add(raw[k] + raw[k + 1] + raw[k + 2])
    words.discard("")
    if words & hb._QUOTE_WORDS:
        return hb.NONE, True, hidden, False
    level = hb.NONE
    if words & hb._STRONG_WORDS or any(f in lower for f in hb._STRONG_INFIXES):
        level = hb.STRONG
    elif words & hb._WEAK_WORDS or any(f in lower for f in hb._WEAK_INFIXES):
        level = hb.WEAK
    return level, False, hidden, bool(words & hb._META_WORDS)


_PIECES = sorted(hb._KNOWN_WORDS | hb._HIDDEN_CLASSES) + [
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
    assert hb._token("entry-content") == (hb.NONE, False, False, False)
    assert hb._token("pullquote")[1] is True
    assert hb._token("post-date")[3] is True
    assert hb._token("mainNavigation")[0] == hb.STRONG  # an infix inside a compound
    assert hb._token("sr-only")[2] is True
