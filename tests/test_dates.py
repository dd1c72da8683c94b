"""Dates as pages write them, normalised to ISO 8601 (qatbe.segmentation.dates)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qatbe.segmentation.dates import parse_date

_ISO_OUT = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2})?)?")


@pytest.mark.parametrize(("text", "iso"), [
    ("2024-02-03", "2024-02-03"),
    ("2025-01-17T13:39:16-0500", "2025-01-17T13:39:16-05:00"),
    ('"2025-12-17T13:22:47Z"', "2025-12-17T13:22:47+00:00"),
    ("2024-07-03 07:57:13 -0700", "2024-07-03T07:57:13-07:00"),
    ("2018-04-03T16:50:31.014538Z", "2018-04-03T16:50:31+00:00"),
    ("2006-08-08T22:13+00:00", "2006-08-08T22:13:00+00:00"),
    ("2026-02-15 03:05:48", "2026-02-15T03:05:48"),
    ("Jun 24, 2024", "2024-06-24"),
    ("November 18, 2025", "2025-11-18"),
    ("Dec. 13, 2025", "2025-12-13"),
    ("December 17th 2025", "2025-12-17"),
    ("24. Juni 2024", "2024-06-24"),
    ("4 August 2010", "2010-08-04"),
    ("1 de marzo de 2024", "2024-03-01"),
    ("17.12.2025", "2025-12-17"),
    ("02-12-2025", "2025-12-02"),  # dashes and dots: day first
    ("01/31/2025", "2025-01-31"),  # slashes: month first ...
    ("31/01/2025", "2025-01-31"),  # ... unless the first number cannot be a month
    ("2024/03/09", "2024-03-09"),
    ("20240102", "2024-01-02"),
])
def test_dates_become_iso(text: str, iso: str) -> None:
    assert parse_date(text) == iso


@pytest.mark.parametrize("text", ["", "   ", "2003-11", "2025-13-01", "2024-02-30", "07/03/24", "yesterday",
                                  "Jun 24", "Mayday 5, 2024", "1850-01-01", "Thu., January 08, 2026"])
def test_what_is_not_one_unambiguous_date_is_none(text: str) -> None:
    assert parse_date(text) is None


def test_search_finds_a_date_inside_a_line_and_match_does_not() -> None:
    line = "By Jo Poe · Updated Jun 2, 2024 at 10:00"
    assert parse_date(line) is None
    assert parse_date(line, search=True) == "2024-06-02"


def test_non_strings_are_none() -> None:
    assert parse_date(None) is None
    assert parse_date(20240102) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_any_string_gives_iso_or_none(text: str, search: bool) -> None:
    out = parse_date(text, search=search)
    assert out is None or _ISO_OUT.fullmatch(out)
    if out is not None:
        dt.date.fromisoformat(out[:10])
        dt.datetime.fromisoformat(out)


@settings(max_examples=200, deadline=None)
@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31)),
       st.sampled_from(["%Y-%m-%d", "%B %d, %Y", "%d %B %Y", "%b %d, %Y", "%d.%m.%Y"]))
def test_written_dates_round_trip(day: dt.date, form: str) -> None:
    assert parse_date(day.strftime(form)) == day.isoformat()


def test_long_odd_input_is_bounded() -> None:
    assert parse_date("9" * 1_000_000) is None
    assert parse_date("-" * 100_000 + "2024-01-01", search=True) is None  # only the head is searched


@pytest.mark.parametrize(("text", "iso"), [
    # The padded ISO shapes machines write, answered by slicing (dates._iso_exact) ...
    ("2024-06-24T10:00:00.123Z", "2024-06-24T10:00:00+00:00"),
    ("2024-06-24T10:00:00+0530", "2024-06-24T10:00:00+05:30"),
    ("2024-06-24T10:00:00-03:00", "2024-06-24T10:00:00-03:00"),
    ("2024-06-24T10:00:00", "2024-06-24T10:00:00"),
    # ... and what it hands to the general path, which must answer as it always did.
    ("2024-06-24T24:00:00Z", "2024-06-24"),  # no such hour: the day alone
    ("2024-06-24T10:00:00+24:00", "2024-06-24T10:00:00"),  # no such offset: the clock alone
    ("2024-06-24T10:00:00.1234567890Z", "2024-06-24T10:00:00"),  # ten fraction digits: the zone is not read
    ("2024-06-24t10:00:00z", "2024-06-24T10:00:00+00:00"),
    ("\u0662\u0660\u0662\u0664-\u0660\u0666-\u0662\u0664", "2024-06-24"),  # Arabic-Indic digits, ASCII out
    ("2100-12-31T23:59:59Z", "2100-12-31T23:59:59+00:00"),
])
def test_machine_iso_shapes(text: str, iso: str) -> None:
    assert parse_date(text) == iso


@pytest.mark.parametrize("text", ["1899-12-31", "2101-01-01T00:00:00Z", "2024-02-30T10:00:00Z", "2024-00-10"])
def test_machine_iso_out_of_range_is_none(text: str) -> None:
    assert parse_date(text) is None


def test_text_without_four_digits_in_a_row_holds_no_date() -> None:
    assert parse_date("Jun 24, 24", search=True) is None
    assert parse_date("By Jo Poe · 3 min read", search=True) is None
