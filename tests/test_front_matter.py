"""Front matter (the ``---`` YAML / ``+++`` TOML block that opens many markdown files): read into the metadata,
never segmented, and invisible to the positions of what follows."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import markdown_documents

import qatbe
from qatbe import Settings
from qatbe.segmentation.front_matter import MAX_LINES, read_front_matter
from qatbe.segmentation.markdown import segment_markdown
from qatbe.source import detect_format

YAML = """---
title: "Renewing: a guide"
authors:
  - Jane Doe
  - John Roe
date: 2024-03-01
description: >
  How to renew an adult
  passport, and what it costs.
lang: de-DE  # the site's locale
tags: [travel, documents]
---
"""

TOML = """+++
title = 'Hugo page'
date = 2023-01-02T10:00:00Z
author = ["A. Writer", "B. Editor"]
[params]
title = 'not the page title'
+++
"""


def test_yaml_fields_become_the_metadata() -> None:
    doc = segment_markdown(YAML + "\n# Renewing a passport\n\nThe fee is 92 crowns.\n", Settings())
    m = doc.metadata
    assert (m.title, m.author, m.date, m.language) == ("Renewing: a guide", "Jane Doe", "2024-03-01", "de-DE")
    assert m.description == "How to renew an adult passport, and what it costs."
    assert [s.text for s in doc.segments] == ["Renewing a passport", "The fee is 92 crowns."]


def test_toml_fields_stop_at_the_first_table() -> None:
    m = segment_markdown(TOML + "Body text.\n", Settings()).metadata
    assert (m.title, m.author, m.date) == ("Hugo page", "A. Writer", "2023-01-02T10:00:00+00:00")


def test_the_first_heading_is_the_title_when_the_block_names_none() -> None:
    m = segment_markdown("---\nauthor:\n  name: Jo Poe\n---\n# The heading\n\ntext\n", Settings()).metadata
    assert (m.title, m.author) == ("The heading", "Jo Poe")


def test_an_unreadable_date_is_kept_as_text() -> None:
    m = segment_markdown("---\ndate: sometime soon\n---\ntext\n", Settings()).metadata
    assert m.date is None and m.extra["date_text"] == "sometime soon"


@pytest.mark.parametrize(
    "source",
    [
        "---\n\nSome prose, then a rule.\n---\n",  # a rule and a setext heading, as CommonMark says
        "---\ntitle: never closed\n\nbody\n",
        "----\ntitle: x\n----\n",  # four dashes: a rule, not a fence
        "+++\n+++\n",  # no field
        "text\n---\ntitle: x\n---\n",  # not at the start
        "---\n" + "key: v\n" * (MAX_LINES + 5) + "---\n",  # closed too far down
    ],
)
def test_what_is_not_front_matter_is_left_to_markdown(source: str) -> None:
    assert read_front_matter(source) is None
    plain = segment_markdown(source, Settings())
    assert plain.metadata.author is None and plain.metadata.date is None


def test_windows_line_ends() -> None:
    fm = read_front_matter(YAML.replace("\n", "\r\n") + "body")
    assert fm is not None and fm.fields["title"] == "Renewing: a guide" and fm.fields["lang"] == "de-DE"


def test_extract_spends_nothing_on_the_block_and_scores_in_its_language() -> None:
    source = YAML + "\n# Reisepass verlängern\n\nDie Gebühren für Reisepässe betragen 92 Euro.\n"
    r = qatbe.extract(source, "Gebühr Reisepass", budget=200)
    assert "title" not in r.text and "Jane" not in r.text and "92 Euro" in r.text
    assert r.metadata.title == "Renewing: a guide" and r.format == "markdown"
    # The block's "de-DE" is the declared language: the German stemmer joins Gebühr and Gebühren.
    assert r.segments and any("Gebühren" in s.text for s in r.segments if s.matched)


def test_a_front_matter_block_marks_a_file_as_markdown() -> None:
    assert detect_format("---\ntitle: Notes\n---\nJust prose, no other markdown.\n") == "markdown"
    assert detect_format("Just prose, no other markdown.\n") == "text"


@settings(max_examples=60, deadline=None)
@given(markdown_documents(), st.sampled_from([YAML, TOML, "---\ntitle: t\n---\n"]))
def test_a_block_in_front_changes_no_segment_and_shifts_every_position(body: str, block: str) -> None:
    """The body's segments are the same with the block in front, their positions moved by the block's length."""
    alone = segment_markdown(body, Settings()).segments
    fronted = segment_markdown(block + body, Settings()).segments
    shift = len(block)

    def moved(s: qatbe.Segment) -> qatbe.Segment:
        return dataclasses.replace(s, position=s.position + shift if s.position >= 0 else s.position,
                                   end=s.end + shift)

    assert [moved(s) for s in alone] == list(fronted)
