"""Front matter: the block of fields that opens many markdown files (Jekyll, Hugo, MkDocs, Docusaurus, Obsidian).

A file that starts with a line ``---`` (YAML) or ``+++`` (TOML) and closes it with the same line (YAML also
``...``) within ``MAX_LINES`` lines declares its title, author, date and language there. CommonMark knows nothing of
it: markdown-it reads ``---`` / ``title: x`` / ``---`` as a rule and a heading, so the fields became a bogus
heading that cost tokens and hid the declared title. Here the block is read into ``Metadata`` and kept out of the
segments.

Why a reader of our own rather than a YAML or TOML parser: qatbe needs five top-level scalar fields, not the
document's data; a YAML parser would be a new runtime dependency, and a parse error in some field nobody asked for
would cost the title. The reader takes ``key: value`` (YAML) or ``key = value`` (TOML) lines at the left margin,
quoted or not, the first item of a list (inline ``[a, b]`` or a ``- a`` block below the key), a folded or literal
block (``key: >``) joined into one line, and ``name:`` under a key that holds a mapping. Anything else is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..types import Metadata
from .dates import parse_date

MAX_LINES = 200
_FENCES = {"---": ("---", "..."), "+++": ("+++",)}
_YAML_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_TOML_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*=[ \t]*(.*)$")
_TOML_TABLE = re.compile(r"\[{1,2}[^\]]*\]{1,2}[ \t]*(?:#.*)?$")
# The fields read, by the names sites use for them; the first name present wins.
_TITLE = ("title",)
_AUTHOR = ("author", "authors", "creator")
_DATE = ("date", "published", "publishdate", "pubdate", "created")
_DESCRIPTION = ("description", "summary", "excerpt", "abstract")
_LANGUAGE = ("lang", "language", "locale")
_URL = ("canonical_url", "canonicalurl", "url")


@dataclass(frozen=True)
class FrontMatter:
    """``lines``: how many lines the block takes, its fences included; ``end``: the offset just after it;
    ``fields``: each top-level field's value as one line of text (keys lower-cased, first occurrence kept)."""

    lines: int
    end: int
    fields: dict[str, str]

    def metadata(self, title: str | None) -> Metadata:
        """The document's metadata: these fields, with ``title`` (the first top-level heading) when the block
        names none."""
        date_text = self._first(_DATE)
        date = parse_date(date_text) if date_text else None
        extra = {"date_text": date_text} if date_text and date is None else {}
        return Metadata(title=self._first(_TITLE) or title, author=self._first(_AUTHOR), date=date,
                        description=self._first(_DESCRIPTION), language=self._first(_LANGUAGE),
                        url=self._first(_URL), extra=extra)

    def _first(self, names: tuple[str, ...]) -> str | None:
        for name in names:
            value = self.fields.get(name)
            if value:
                return value
        return None


def read_front_matter(text: str) -> FrontMatter | None:
    """The front matter that opens ``text``, or None: no opening fence, no closing fence within ``MAX_LINES``, or no
    field in between (``---`` followed by prose and another ``---`` is a rule and a heading, as CommonMark says)."""
    if not text.startswith(("---", "+++")):
        return None
    lines = text.split("\n", MAX_LINES + 1)
    fence = lines[0].rstrip()
    if fence not in _FENCES:
        return None
    closers = _FENCES[fence]
    for n in range(1, min(len(lines), MAX_LINES + 1)):
        if lines[n].rstrip() in closers:
            fields = _fields(lines[1:n], toml=fence == "+++")
            if not fields:
                return None
            end = sum(len(line) + 1 for line in lines[:n + 1])
            return FrontMatter(n + 1, min(end, len(text)), fields)
    return None


def _fields(body: list[str], toml: bool) -> dict[str, str]:
    fields: dict[str, str] = {}
    i = 0
    while i < len(body):
        line = body[i].rstrip()
        i += 1
        if not line or line[0] in " \t#":
            continue
        if toml:
            if _TOML_TABLE.match(line):
                break  # a [table] ends the top level
            m = _TOML_KEY.match(line)
            if m is not None and m.group(1).lower() not in fields:
                value = _scalar(m.group(2))
                if value:
                    fields[m.group(1).lower()] = value
            continue
        m = _YAML_KEY.match(line)
        if m is None:
            return {}  # a line at the margin that is no field: not YAML front matter
        key, value = m.group(1).lower(), (m.group(2) or "").strip()
        if value in ("", ">", "|", ">-", "|-", ">+", "|+"):
            nested = []  # the key's block: indented lines, or a list written at the margin
            while i < len(body) and (not body[i].strip() or body[i][0] in " \t" or body[i].startswith("- ")):
                nested.append(body[i].strip())
                i += 1
            value = _nested(nested, folded=bool(value))
        else:
            value = _scalar(value)
        if value and key not in fields:
            fields[key] = value
    return fields


def _nested(lines: list[str], folded: bool) -> str:
    """A key's indented block: a folded/literal scalar joined into one line, else the first list item or the
    ``name:`` of a mapping."""
    lines = [x for x in lines if x]
    if folded:
        return " ".join(lines)
    for x in lines:
        if x.startswith("- "):
            item = x[2:].strip()
            m = _YAML_KEY.match(item)
            return _scalar(m.group(2) or "") if m and m.group(1).lower() == "name" else _scalar(item)
        m = _YAML_KEY.match(x)
        if m and m.group(1).lower() == "name":
            return _scalar(m.group(2) or "")
    return ""


def _scalar(value: str) -> str:
    """One value as text: quotes removed, a trailing comment dropped, an inline list's first item."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        items = [x.strip() for x in value[1:-1].split(",")]
        value = items[0] if items else ""
    if value[:1] in ("'", '"'):
        close = value.find(value[0], 1)
        return value[1:close].strip() if close > 0 else value[1:].strip()
    return re.sub(r"[ \t]+#.*$", "", value).strip()
