"""The scorer's tuned constants are one validated group, ``Settings.scoring``, and each of them is used."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

import qatbe
from qatbe import ConfigError, Scoring, Settings
from qatbe.batch import settings_fields
from qatbe.score.bm25 import score_segments

GUIDE = """# Renewal guide

## How to renew online

You can renew your passport online if you meet these rules:

- You are over 16 and your passport was issued within the last 15 years and it is not damaged at all.
- The fee is 75 pounds and it takes three weeks, and the colour of the photo background must be plain grey.

## Septicemic shock

Septicemic shock is treated in hospital. The honours list names a player who has nothing to do with it.
"""
GUIDE_QUERY = "how do I renew my passport online and how many weeks does it take, and what does septicemia do"
SPELLING_QUERY = "who is on the honored list"

BRIDGE = """# Classic 2015

The 2015 Classic tournament MVP award went to a guard from the Bahamas after a long final game in the rain. The
winner was Hield, who later moved west.

# Buddy Hield

He is with the Sacramento Kings.

# Harbour Museum

The museum opens at nine.
"""
NAMED = BRIDGE.replace("winner was Hield", "winner was Buddy Hield")
LONG_SECTION = NAMED.replace("He is with the Sacramento Kings.",
                             "He is with the Sacramento Kings.\n\nHe is tall.\n\nHe shoots well.\n\nHe was a Sooner.")
BRIDGE_QUERY = "Which team does the MVP of the 2015 Classic tournament play for?"
KINDS = ("# Cells\n\nChloroplasts are one type of organelle in the plant cell.\n\nCyanobacteria are prokaryotes, "
         "a phylum of bacteria.\n")
KIND_QUERY = "What type of organism are cyanobacteria?"
FAR = ("The ferry leaves the harbour one two three four five six seven eight nine ten eleven at noon.\n\n"
       "A bus leaves at noon.\n\nThe harbour is old.")

# (constant, a value other than the default, a page and a question where it matters)
CASES = [
    ("proximity_window", 20, FAR, "ferry noon"),
    ("lead_in_share", 0.0, GUIDE, GUIDE_QUERY),
    ("sibling_share", 0.0, GUIDE, GUIDE_QUERY),
    ("inherit_words", 9.0, GUIDE, GUIDE_QUERY),
    ("feedback_segments", 5, GUIDE, GUIDE_QUERY),
    ("feedback_terms", 0, GUIDE, GUIDE_QUERY),
    ("feedback_common_zipf", 0.0, GUIDE, GUIDE_QUERY),
    ("bridge_top", 0, BRIDGE, BRIDGE_QUERY),
    ("bridge_min", 1.0, BRIDGE, BRIDGE_QUERY),
    ("bridge_parts", False, BRIDGE, BRIDGE_QUERY),
    ("name_bridge", 1.0, NAMED, BRIDGE_QUERY),
    ("name_section", 1.0, LONG_SECTION, BRIDGE_QUERY),
    ("spellings", False, GUIDE, SPELLING_QUERY),
    ("number_cue", 0.0, GUIDE, GUIDE_QUERY),
    ("wh_heading_cue", 0.0, GUIDE, GUIDE_QUERY),
    ("frame_weight", 1.0, KINDS, KIND_QUERY),
    ("prefix_min", 0, GUIDE, GUIDE_QUERY),
    ("prefix_weight", 0.0, GUIDE, GUIDE_QUERY),
]


def test_the_cases_cover_every_constant() -> None:
    assert sorted(name for name, *_ in CASES) == sorted(f.name for f in dataclasses.fields(Scoring))


@pytest.mark.parametrize(("name", "value", "page", "query"), CASES, ids=[c[0] for c in CASES])
def test_every_constant_changes_the_scores_where_its_part_applies(name: str, value: object, page: str,
                                                                  query: str) -> None:
    # Feedback is off by default; its constants are tried with it on.
    base = Settings(language="en", max_segment_tokens=24, feedback=0.5 if name.startswith("feedback") else 0.0)
    assert getattr(base.scoring, name) != value
    segments = qatbe.segment(page, format="markdown", max_segment_tokens=24)
    changed = base.with_(scoring={name: value})
    assert getattr(changed.scoring, name) == value
    before = score_segments(segments, query, base).raw.tolist()
    after = score_segments(segments, query, changed).raw.tolist()
    assert before != after
    assert score_segments(segments, query, changed).raw.tolist() == after  # and the same again


def test_a_mapping_names_some_constants_and_keeps_the_rest() -> None:
    settings = Settings(scoring={"number_cue": 0.5, "spellings": False})
    assert settings.scoring == dataclasses.replace(Scoring(), number_cue=0.5, spellings=False)
    assert Settings(scoring=Scoring()).scoring == Settings().scoring


@pytest.mark.parametrize(("scoring", "message"), [
    ({"number_clue": 0.5}, "unknown scoring constant 'number_clue'"),
    ({"number_cue": -1}, "scoring.number_cue must be between"),
    ({"number_cue": float("nan")}, "scoring.number_cue must be a finite number"),
    ({"prefix_min": 2.5}, "scoring.prefix_min must be an integer"),
    ({"proximity_window": 0}, "scoring.proximity_window must be >= 1"),
    ({"spellings": 1}, "scoring.spellings must be True or False"),
    ({"name_section": 0.5}, "scoring.name_section must be between"),
    ({"frame_weight": 1.5}, "scoring.frame_weight must be between"),
    ("strict", "scoring must be a qatbe.Scoring or a mapping"),
])
def test_bad_constants_are_refused_with_their_name(scoring: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings(scoring=scoring)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=message):
        qatbe.extract(GUIDE, GUIDE_QUERY, scoring=scoring)


def test_extract_takes_the_constants_as_an_option() -> None:
    default = qatbe.extract(GUIDE, GUIDE_QUERY, budget=40, format="markdown")
    off = qatbe.extract(GUIDE, GUIDE_QUERY, budget=40, format="markdown",
                        scoring={"wh_heading_cue": 0.0, "number_cue": 0.0, "lead_in_share": 0.0})
    assert [s.score for s in default.segments] != [s.score for s in off.segments]


def test_the_constants_travel_to_worker_processes() -> None:
    # extract_batch and Spark send Settings as its fields, pickled, and rebuild it in the worker.
    settings = Settings(scoring={"number_cue": 0.5})
    fields = pickle.loads(pickle.dumps(settings_fields(settings)))
    assert Settings(**fields) == settings
