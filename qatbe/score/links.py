"""A page's links: which text carries part of the score of the one before it (a lead-in) and which adjacent texts
are parts of one split unit (siblings). These are the scorer's rules; the kernel (``page_scores``) only follows
the links, one byte per text, with the shares of ``ScoringParams``.

Links depend on the page alone, not on the query, so a ``PageView`` reads them once for every question. The
loop is plain Python, about 0.1 us a text (7 us for a SQuAD article of 70 segments, under 1 % of its extract);
compiling it saved a fifth of that, too little for a compiled module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

# A text whose last visible character is one of these leads into the text after it ("You can renew online if:"):
# the lead-in share here and the selector's lead-in rule (``select.plan.lead_in``).
LEAD_IN_ENDS = ":\uff1a"


def ends_lead_in(text: str, ends: str = LEAD_IN_ENDS) -> bool:
    """Whether the last visible character of ``text`` is one of ``ends`` (the colons)."""
    last = text.rstrip()[-1:]
    return last != "" and last in ends


class PageLinks(NamedTuple):
    """One byte per text (0 or 1). ``lead_from[i]``: text i carries the lead-in share of text i - 1's score.
    ``joined[i]``: texts i - 1 and i are parts of one split unit, and each carries the sibling share of the
    other's score."""

    lead_from: bytes
    joined: bytes


def page_links(texts: Sequence[str], heads: Sequence[int], groups: Sequence[int],
               ends: str = LEAD_IN_ENDS) -> PageLinks:
    """The links of a page whose texts are ``texts``, whose headings are at ``heads`` and whose split units are
    ``groups`` (the same value >= 0 on each part of one unit, -1 elsewhere).

    - Two adjacent texts are joined when they have the same group >= 0.
    - A text follows the lead-in of the text before when that one's last visible character is one of ``ends``,
      unless it is a heading (a new section, not what the colon introduces) or the two are joined: there the
      colon is where the splitter cut, as after "def rocket_33(x):" in a long code block, not a lead-in the
      author wrote, and the sibling share links the parts.
    """
    n = len(texts)
    if len(groups) != n:
        raise ValueError(f"groups must have {n} entries, not {len(groups)}")
    is_head = bytearray(n)
    for h in heads:
        if not 0 <= h < n:
            raise ValueError("heads must be indices of the texts")
        is_head[h] = 1
    joined = bytearray(n)
    lead_from = bytearray(n)
    for i in range(1, n):
        group = groups[i]
        if group >= 0 and group == groups[i - 1]:
            joined[i] = 1
        elif not is_head[i] and ends_lead_in(texts[i - 1], ends):
            lead_from[i] = 1
    return PageLinks(bytes(lead_from), bytes(joined))
