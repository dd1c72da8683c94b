"""Dates as pages write them, to ISO 8601: ``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS[+HH:MM]`` when the source
gives a time of day (the offset only when it gives one; the page's own clock is kept, not converted to UTC, so the
calendar day stays the one the page shows).

Why hand-written: machine-written values (JSON-LD, ``<meta>``, ``<time datetime>``) are ISO-like with small
deviations (a space for the ``T``, ``-0500`` offsets, stray quotes, "UTC" inside), and visible dates come in a few
shapes ("Jun 24, 2024", "24. Juni 2024", "17.12.2025"). ``dateutil.parser`` (installed) reads English month names
only, fills missing fields from a default date, and its fuzzy mode finds "dates" in any text with digits; htmldate
is accurate but costs ~10 ms a page, more than a whole extract. A few anchored regular expressions plus
``datetime`` for validation are cheaper, deterministic and easy to bound.

Conventions for ambiguous numeric dates: dots and dashes are day-first ("17.12.2025", "02-12-2025", the European
and ISO-adjacent habit), slashes are month-first ("01/31/2025", the US habit) unless the first number exceeds 12.
Two-digit years are refused (too ambiguous to be worth a wrong answer). Years outside 1900–2100 are refused.
"""

from __future__ import annotations

import datetime as _dt
import re

_MAX_INPUT = 200  # dates are short; longer text is only searched in its head
_MIN_YEAR, _MAX_YEAR = 1900, 2100

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate((
    "january jan janvier janv januar jänner enero ene gennaio gen januari",
    "february feb february févr fevrier février februar febrero febbraio febr februari",
    "march mar mars märz maerz marzo mrt maart",
    "april apr avril abril aprile",
    "may mai mayo maggio mei",
    "june jun juin juni junio giugno",
    "july jul juillet juil juli julio luglio",
    "august aug août aout agosto augustus ago",
    "september sep sept septembre septiembre settembre set",
    "october oct octobre oktober octubre ottobre okt",
    "november nov novembre noviembre",
    "december dec décembre decembre dezember diciembre dicembre dez dic",
), start=1):
    for _name in _names.split():
        _MONTHS.setdefault(_name, _number)

MONTH_NAMES: frozenset[str] = frozenset(_MONTHS)

_MONTH = r"(?P<month>[^\W\d_]{3,10})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th|er|\.)?"
_YEAR = r"(?P<year>\d{4})"
_TIME = (r"(?:[T\s]+(?:UTC)?(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,]\d{1,9})?)?"
         r"\s*(?P<zone>Z|UTC|GMT|[+-]\d{2}:?\d{2})?)?")

_ISO = re.compile(r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})" + _TIME + r"(?![\d:])", re.IGNORECASE)
_ISO_COMPACT = re.compile(r"(?<!\d)(?P<year>(?:19|20)\d{2})(?P<month>\d{2})(?P<day>\d{2})(?!\d)")
_YMD_SLASH = re.compile(r"(?<!\d)(?P<year>\d{4})[/.](?P<month>\d{1,2})[/.](?P<day>\d{1,2})(?!\d)")
_DMY = re.compile(r"(?<!\d)(?P<a>\d{1,2})(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4})(?!\d)")
_MONTH_FIRST = re.compile(_MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + r"(?!\d)", re.IGNORECASE)
_DAY_FIRST = re.compile(_DAY + r"\s*(?:de\s+)?" + _MONTH + r",?\s+(?:de\s+)?" + _YEAR + r"(?!\d)", re.IGNORECASE)
_FOUR_DIGITS = re.compile(r"\d{4}")
# The shapes machines write nearly always ("2024-06-24", "2024-06-24T10:00:00Z", "...T10:00:00.000+02:00", a space for
# the T), in ASCII digits, padded: for these the ISO output is the input itself with "T" and the zone as "+HH:MM",
# so it is sliced and its fields compared as strings (two padded digits order as their numbers do) rather than
# rebuilt from integers, which cost more than the match. Anything else, or a value out of range, takes the general
# path below, which gives the same answer for these shapes.
_ISO_EXACT = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
                        r"(?:[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?(Z|[+-][0-9]{2}:?[0-9]{2})?)?")
_MONTH_DAYS = {"01": "31", "02": "28", "03": "31", "04": "30", "05": "31", "06": "30", "07": "31", "08": "31",
               "09": "30", "10": "31", "11": "30", "12": "31"}


def _day(year: int, month: int, day: int) -> _dt.date | None:
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        return None
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def _with_time(date: _dt.date, match: re.Match[str]) -> str:
    hour = match["hour"]
    if hour is None:
        return date.isoformat()
    h, m, s = int(hour), int(match["minute"]), int(match["second"] or 0)
    if h > 23 or m > 59 or s > 59:
        return date.isoformat()
    text = f"{date.isoformat()}T{h:02d}:{m:02d}:{s:02d}"
    zone = (match["zone"] or "").upper()
    if zone in ("Z", "UTC", "GMT"):
        return text + "+00:00"
    if zone:
        digits = zone[1:].replace(":", "")
        if int(digits[:2]) > 23 or int(digits[2:]) > 59:
            return text
        return f"{text}{zone[0]}{digits[:2]}:{digits[2:]}"
    return text


def _iso_exact(text: str) -> str | None:
    """``text`` as ISO 8601 when it is exactly a padded ISO date or date-time (see ``_ISO_EXACT``), else None."""
    match = _ISO_EXACT.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    last = _MONTH_DAYS.get(month)
    if last is None or year < "1900" or year > "2100" or day < "01":
        return None
    if day > last and not (day == "29" and month == "02" and _leap(int(year))):
        return None
    if hour is None:
        return text
    if hour > "23" or minute > "59" or second > "59":
        return None
    clock = f"{text[:10]}T{text[11:19]}"
    if zone is None:
        return clock
    if zone == "Z":
        return clock + "+00:00"
    hours, minutes = zone[1:3], zone[-2:]
    if hours > "23" or minutes > "59":
        return None
    return f"{clock}{zone[0]}{hours}:{minutes}"


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _month(name: str) -> int | None:
    return _MONTHS.get(name.lower().rstrip("."))


def parse_date(value: object, search: bool = False) -> str | None:
    """``value`` as ISO 8601 (see the module docstring), or None if it holds no unambiguous date.

    With ``search=False`` the date must open the text (after spaces and quotes): right for values that are meant
    to be a date. With ``search=True`` it may stand anywhere in the first 200 characters ("By Jo Poe · Jun 2,
    2024"), which is how bylines are read.
    """
    if not isinstance(value, str):
        return None
    text = value[:_MAX_INPUT].strip().strip("\"'").strip()
    if not text:
        return None
    if not search:
        exact = _iso_exact(text)
        if exact is not None:
            return exact
    if _FOUR_DIGITS.search(text) is None:  # every shape below holds a year (or YYYYMMDD)
        return None

    def find(pattern: re.Pattern[str]) -> re.Match[str] | None:
        return pattern.search(text) if search else pattern.match(text)

    match = find(_ISO)
    if match is not None:
        date = _day(int(match["year"]), int(match["month"]), int(match["day"]))
        if date is not None:
            return _with_time(date, match)
    match = find(_MONTH_FIRST)
    if match is not None:
        month = _month(match["month"])
        date = _day(int(match["year"]), month, int(match["day"])) if month else None
        if date is not None:
            return date.isoformat()
    match = find(_DAY_FIRST)
    if match is not None:
        month = _month(match["month"])
        date = _day(int(match["year"]), month, int(match["day"])) if month else None
        if date is not None:
            return date.isoformat()
    match = find(_YMD_SLASH)
    if match is not None:
        date = _day(int(match["year"]), int(match["month"]), int(match["day"]))
        if date is not None:
            return date.isoformat()
    match = find(_DMY)
    if match is not None:
        a, b = int(match["a"]), int(match["b"])
        day, month = (b, a) if match["sep"] == "/" and a <= 12 else (a, b)
        date = _day(int(match["year"]), month, day)
        if date is not None:
            return date.isoformat()
    if not search:
        match = _ISO_COMPACT.match(text)
        if match is not None and len(text) == 8:
            date = _day(int(match["year"]), int(match["month"]), int(match["day"]))
            if date is not None:
                return date.isoformat()
    return None
