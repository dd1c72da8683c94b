"""Link-dense tables: a grid of links is a menu, a table of many rows of short linked names is data (issue #2).

The tables carry a caption: without one (and without header cells) ``html_tables`` reads a table as layout.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe import SegmentKind, Settings
from qatbe.segmentation.html import segment_html


def _kinds(html: str) -> list[tuple[SegmentKind, str]]:
    return [(s.kind, s.text) for s in segment_html(html, Settings()).segments]


names = st.lists(st.from_regex(r"[A-Z][a-z]{2,9} [A-Z][a-z]{2,12}", fullmatch=True), min_size=3, max_size=30)


@settings(max_examples=30, deadline=None)
@given(names)
def test_rows_of_linked_names_are_data_not_navigation(people: list[str]) -> None:
    rows = "".join(f"<tr><td><a href='/p{i}'>{name}</a></td><td><a href='/c'>Denmark</a></td>"
                   f"<td><a href='/y{i}'>{1900 + i}</a></td></tr>" for i, name in enumerate(people))
    html = (f"<body><main><p>{'Some prose about the club and its history. ' * 4}</p>"
            f"<table><caption>Coaches</caption>{rows}</table></main></body>")
    tables = [(k, t) for k, t in _kinds(html) if "Denmark" in t]
    assert tables and all(k is SegmentKind.TABLE for k, _ in tables)
    kept = " ".join(t for _, t in tables)  # a long table may be split into several segments
    assert all(name in kept for name in people)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.from_regex(r"[A-Z][a-z]{3,10}", fullmatch=True), min_size=6, max_size=20),
                min_size=1, max_size=4))
def test_a_grid_of_link_lists_is_navigation(groups: list[list[str]]) -> None:
    rows = "".join(f"<tr><td>Group {i}</td><td>{' '.join(f'<a href=/{w}>{w}</a>' for w in words)}</td></tr>"
                   for i, words in enumerate(groups))
    html = (f"<body><main><p>{'Some prose about the club and its history. ' * 4}</p></main>"
            f"<table><caption>Clubs</caption>{rows}</table></body>")
    grid = [k for k, t in _kinds(html) if groups[0][0] in t and "Group" in t]
    # A big grid may be split into row groups (and a word may recur in another row): every part is navigation.
    assert grid and all(k is SegmentKind.NAVIGATION for k in grid)
