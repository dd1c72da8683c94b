"""Keep pathological nesting away from the HTML parser.

Why: Lexbor's tree builder checks "element in scope" by walking the stack of open elements, so a page nested
N deep costs O(N^2) to parse (50,000 nested ``<div>`` take seconds, 200,000 take minutes). Real pages are
rarely nested more than a few hundred deep. When a page has enough tags to be at risk, one regex pass estimates
the nesting depth and drops the start and end tags beyond ``max_depth``; their text stays, so nothing a reader
sees is lost, only structure no reader could perceive.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*?(/?)>")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
     "keygen", "command", "basefont", "frame", "image"}
)
# Elements whose start tag implicitly closes an open one of the same name (so unclosed ones do not pile up).
_SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "dt", "dd", "option", "tr", "td", "th", "thead", "tbody"})

# Below this many "<" a page cannot be nested deep enough to matter; counting is one fast C call.
_RISKY_TAG_COUNT = 20_000
MAX_DEPTH = 1_500


def at_risk(length: int, tags: int, max_depth: int = MAX_DEPTH) -> bool:
    """Whether a page of ``length`` characters holding ``tags`` "<" could be nested deeper than ``max_depth``."""
    threshold = max(_RISKY_TAG_COUNT, max_depth)
    return length >= threshold and tags >= threshold


def limit_nesting(html: str, max_depth: int = MAX_DEPTH) -> str:
    """Return ``html`` unchanged unless its estimated nesting exceeds ``max_depth``; then flatten the excess."""
    # the length first: no page that short can hold so many
    if len(html) < max(_RISKY_TAG_COUNT, max_depth) or not at_risk(len(html), html.count("<"), max_depth):
        return html
    stack: list[tuple[str, bool]] = []  # (tag, kept)
    drops: list[tuple[int, int]] = []
    depth = 0
    deepest = 0
    for match in _TAG.finditer(html):
        closing, name, selfclose = match.group(1), match.group(2).lower(), match.group(3)
        if name in _VOID or selfclose:
            continue
        if closing:
            if stack and stack[-1][0] == name:
                _, kept = stack.pop()
                if kept:
                    depth -= 1
                else:
                    drops.append(match.span())
            continue
        if name in _SELF_CLOSING_SIBLINGS and stack and stack[-1][0] == name:
            _, kept = stack.pop()
            if kept:
                depth -= 1
        keep = depth < max_depth
        stack.append((name, keep))
        if keep:
            depth += 1
            deepest = max(deepest, depth)
        else:
            drops.append(match.span())
    if not drops:
        return html
    pieces: list[str] = []
    last = 0
    for start, end in drops:
        pieces.append(html[last:start])
        last = end
    pieces.append(html[last:])
    return "".join(pieces)
