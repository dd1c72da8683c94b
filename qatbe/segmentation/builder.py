"""Turns structural units (headings, paragraphs, lists, tables, code) into budget-sized ``Segment`` records.

Both segmenters (HTML and markdown) walk their trees and call one builder, so the split rules live in one place:
a unit that is larger than ``settings.segment_tokens`` is split where a reader would split it, never inside a table
row or a code line. Paragraphs split into runs of whole sentences, lists into runs of whole items, tables into row
groups that each repeat the header row, code into runs of whole lines (preferring blank lines as cut points).
"""

from __future__ import annotations

import builtins
import re
import unicodedata
from collections.abc import Iterable, Sequence

from .._backend import kernel
from ..records import new_segment
from ..settings import Settings
from ..tokens import chars_div4
from ..types import Segment, SegmentKind
from .spans import Aligner

# The kinds the builder tests and assigns, read once: a member of an Enum class is a descriptor lookup on the
# class (about 90 ns on Python 3.11), and the builder reads two or three of them per segment.
_HEADING = SegmentKind.HEADING
_QUOTE = SegmentKind.QUOTE
_NAVIGATION = SegmentKind.NAVIGATION

# Texts up to this long are checked for double spaces in place (a kernel call costs about as much as that).
_TIDY_INLINE = 48
# Texts up to this long are checked for showing nothing (``invisible``): what is left of an emptied element.
_INVISIBLE_MAX = 8
# A sentence ends at . ! ? … (with closing quotes or brackets) followed by space, or right after a CJK full stop.
# The pattern starts with a character class so the scan is fast; lookbehinds at every position were 3x slower.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s+|[。！？]")


def clean_inline(text: str) -> str:
    """Collapse every run of whitespace (newlines included) to one space: inline text has no layout to keep."""
    # Most text arrives clean (the HTML walk joins words with single spaces), and checking that is about twice as
    # fast as split + join. The check is exact: every character str.split() splits on, except " " itself, is
    # non-printable (categories Cc, Zs, Zl, Zp; tests/test_builder.py checks all code points), so printable
    # text without "  " and without a space at either end has nothing to collapse.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def invisible(text: str) -> bool:
    """Does ``text`` show nothing: format and control characters and spaces only (a lone zero-width joiner, a
    word joiner, a bidi mark)? Such a block is no segment. Only short texts are asked (what a page leaves of an
    emptied element); a printable one shows something, so the category lookup runs for the rare rest."""
    return not text.isprintable() and all(unicodedata.category(c)[0] in "CZ" for c in text)


def _shows_nothing(text: str) -> bool:
    """Empty, or a short text that is ``invisible``: no segment is made of it."""
    return not text or (len(text) <= _INVISIBLE_MAX and invisible(text))


def escape_cell(text: str) -> str:
    return clean_inline(text).replace("|", "\\|")


def _tidy(text: str) -> str:
    """``clean_inline`` of a text that is collapsed already but for what was deleted after collapsing.

    The HTML walk collapses whitespace, then deletes soft hyphens and zero-width spaces (html_tables.visible_text),
    which can leave two spaces or an end space ("LLC.\u200b" -> "LLC. "). Only those need the split and join; the
    rest of its texts are returned as they are, without clean_inline's printable scan.
    """
    # Short texts are checked here; a longer one by the kernel, which looks for two spaces sixteen characters a
    # step (str.__contains__ checks every single space as a candidate, about 2 ns a character).
    if (kernel.untidy(text) if len(text) > _TIDY_INLINE else "  " in text or text[:1] == " " or text[-1:] == " "):
        return " ".join(text.split())
    return text


def _escape_pipes(text: str) -> str:
    """``escape_cell`` of a text that is collapsed already (see ``_tidy``)."""
    return _tidy(text).replace("|", "\\|")


class ListItem:
    """One list item as a segmenter hands it to the builder: its text, nesting depth, numbering and position.

    A plain class, compiled to an extension type with read-only fields (builder.pxd): the HTML emit stage makes one
    per item of every list on a page, menus included, and a frozen dataclass cost 1.5 us each to build.
    """

    __slots__ = ("depth", "number", "ordered", "position", "text")

    def __init__(self, text: str, depth: int = 0, ordered: bool = False, number: int = 1, position: int = -1) -> None:
        self.text = text
        self.depth = depth
        self.ordered = ordered
        self.number = number
        self.position = position


# A pause inside a sentence: a comma, semicolon or colon, or a dash with a space on either side; the cut goes
# after it (group end), so the mark stays with the clause it closes.
_CLAUSE_END = re.compile(r"[,;:](?=\s)|\s[—–]|[—–](?=\s)")


def _capitalised(word: str) -> bool:
    """A word that starts a name: its first letter or digit is an upper-case letter ("Virgin", "(Deca-Durabolin")."""
    for ch in word:
        if ch.isalnum():
            return ch.isupper()
    return False


def _cut_point(text: str, low: int, high: int) -> int:
    """Where to cut ``text`` between ``low`` and ``high`` (exclusive of a cut at ``low``), or 0 for nowhere.

    The last clause mark wins; then the last space whose neighbouring words are not both capitalised (a cut
    there would split a name); then the last space."""
    best = 0
    for match in _CLAUSE_END.finditer(text, low, high):
        best = match.end()
    if best > low:
        return best
    space = text.rfind(" ", low, high + 1)
    fallback = space if space > low else 0
    while space > low:
        before = text.rfind(" ", 0, space) + 1
        after = text.find(" ", space + 1)
        if not (_capitalised(text[before:space]) and _capitalised(text[space + 1 : after if after >= 0 else None])):
            return space
        space = text.rfind(" ", low, space)
    return fallback


def sentence_ends(text: str) -> list[int]:
    """Where each match of ``_SENTENCE_END`` ends, as ``finditer`` finds them: after a . ! ? or … followed by any
    closing quotes or brackets and then whitespace (the whitespace included), or right after a CJK full stop.

    A loop rather than the regex: compiled (builder.pxd) it is a C scan of the text, and the regex engine took
    20 ns a character (two alternatives tried at every position), most of emitting a text-heavy page.
    tests/test_builder.py checks it against the regex."""
    ends: list[int] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c == "。" or c == "！" or c == "？":
            i += 1
            ends.append(i)
            continue
        if c == "." or c == "!" or c == "?" or c == "…":
            j = i + 1
            while j < n and (text[j] == '"' or text[j] == "'" or text[j] == "”" or text[j] == "’"
                             or text[j] == ")" or text[j] == "]"):
                j += 1
            if j < n and text[j].isspace():
                j += 1
                while j < n and text[j].isspace():
                    j += 1
                ends.append(j)
                i = j
                continue
        i += 1
    return ends


def split_sentences(text: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for end in sentence_ends(text):
        parts.append(text[start:end].strip())
        start = end
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _source_cells(caption: str, head: builtins.list[str] | None, rows: Sequence[builtins.list[str]],
                  above: builtins.list[str] | None) -> str:
    """The text of a table part as the source holds it, for the aligner: a cell that repeats its left neighbour or
    the cell above it is left out, since row and column spans copy one source cell into several
    (``html_tables._expand``); ``above`` is the row before the first of ``rows``. A row equal to the one above
    is the source's own (a schedule's repeated rows): row spans covering every cell would leave it no cell."""
    out = [caption] if caption else []
    for row in ([head] if head else []) + builtins.list(rows):
        up = above if above != row else None
        out.append(" ".join([cell for k, cell in enumerate(row) if not (
            (k and cell == row[k - 1]) or (up is not None and k < len(up) and cell == up[k]))]))
        above = row
    return "\n".join(out)


class SegmentBuilder:
    """Accumulates segments in document order, tracking the heading path.

    With ``navigation=False`` boilerplate units are counted, not built: ``extract`` never looks at them (unless
    ``include_navigation``), and on a typical page they are three blocks in four. Counting keeps every other
    segment's ``index`` and ``group`` what they are when boilerplate is built, so ``Segment.index`` still names
    a segment's place in ``qatbe.segment``'s listing. With an aligner (``spans``) they are also aligned, not
    built, so that every other segment's span is what it is when boilerplate is built.
    """

    def __init__(self, settings: Settings, navigation: bool = True, clean: bool = True,
                 spans: Aligner | None = None, anchored: bool = False) -> None:
        # Split sizes are a layout decision, so they use chars/4 whatever estimator the budget is counted in.
        self._estimate = chars_div4
        self._max = settings.segment_tokens
        self._sentence_max = settings.sentence_tokens
        self._segments: list[Segment] = []
        self._headings: list[tuple[int, str]] = []
        self._path: tuple[str, ...] = ()  # the texts of _headings, kept in step with it (read for every segment)
        self._group = 0
        self._navigation = navigation
        self._count = 0  # segments built or counted: the next segment's index
        # clean=False: the caller's inline texts are collapsed already (the HTML walk's are: html_tables.visible_text),
        # so clean_inline would return each unchanged after scanning it twice.
        self._clean = clean
        # With an aligner (qatbe.segmentation.spans) every built segment's source span is found by aligning its
        # text with the source, in document order. The positions the callers pass are then read only with
        # ``anchored``: a unit's is where the source holds its element (html_fastwalk.anchor_offsets), and the
        # aligner starts its search for the unit's first part there.
        self._spans = spans
        self._anchored = anchored
        self._held_start = -1  # hold(): the span of every segment built until released
        self._held_end = -1

    # -- public API ---------------------------------------------------------------------------------------

    def hold(self, start: int, end: int) -> None:
        """Give every segment built from now on the span ``start``-``end`` without aligning it, until
        ``hold(-1, -1)``: for text the page holds outside its readable text (the JSON-LD a page with an empty
        body is read from)."""
        self._held_start = start
        self._held_end = end

    @property
    def segments(self) -> list[Segment]:
        return self._segments

    def heading(self, text: str, level: int, position: int, *, boilerplate: bool = False) -> None:
        self.add_heading(text, level, position, boilerplate)

    # The add_* methods are the public ones with positional arguments only: compiled, the HTML emit stage calls
    # them as C methods (keyword arguments make every call a Python one, and emit makes one per block).

    def add_heading(self, text: str, level: int, position: int, boilerplate: bool) -> None:
        text = clean_inline(text) if self._clean else _tidy(text)
        if _shows_nothing(text):
            return
        level = min(max(level, 1), 6)
        if boilerplate:
            if self._navigation or self._spans is not None:  # with spans, _add aligns what it does not build
                self._add(_NAVIGATION, text, text, position, self._next_group())
            else:
                self._next_group()
                self._count += 1
            return
        headings = self._headings
        if headings and headings[-1][0] >= level:
            while headings and headings[-1][0] >= level:
                headings.pop()
            self._path = tuple([t for _, t in headings])
        self._add(_HEADING, text, "#" * level + " " + text, position, self._next_group(), level=level)
        headings.append((level, text))
        self._path += (text,)

    def paragraph(
        self, text: str, position: int, *, kind: SegmentKind = SegmentKind.PARAGRAPH, boilerplate: bool = False
    ) -> None:
        self.add_paragraph(text, position, kind, boilerplate)

    def add_paragraph(self, text: str, position: int, kind: SegmentKind, boilerplate: bool) -> None:
        text = clean_inline(text) if self._clean else _tidy(text)
        if _shows_nothing(text):
            return
        if boilerplate:
            if not self._navigation and self._spans is None:
                self._next_group()
                # as many parts as the split below would make
                self._count += 1 if (len(text) + 3) // 4 <= self._max else len(self._pack_text(text))
                return
            kind = _NAVIGATION
        prefix = "> " if kind is _QUOTE else ""
        group = self._next_group()
        if (len(text) + 3) // 4 <= self._max:  # fits whole (chars_div4, as in _pack_text): the common case
            self._add(kind, text, prefix + text, position, group)
            return
        offset = 0
        for part, chunk in enumerate(self._pack_text(text)):
            found = text.find(chunk[:32], offset)
            offset = found if found >= 0 else offset
            self._add(kind, chunk, prefix + chunk, position + offset if position >= 0 else position, group, part=part)

    def quote(self, text: str, position: int, *, boilerplate: bool = False) -> None:
        self.add_paragraph(text, position, _QUOTE, boilerplate)

    def metadata(self, text: str, position: int) -> None:
        self.paragraph(text, position, kind=SegmentKind.METADATA)

    def list(self, items: Sequence[ListItem], position: int, *, boilerplate: bool = False) -> None:
        self.add_list(items, position, boilerplate)

    def add_list(self, items: Sequence[ListItem], position: int, boilerplate: bool) -> None:
        rendered: builtins.list[tuple[ListItem, str]] = []  # (item, its cleaned text)
        clean = self._clean
        for item in items:
            cleaned = clean_inline(item.text) if clean else _tidy(item.text)
            if cleaned:
                rendered.append((item, cleaned))
        if not rendered:
            return
        kind = _NAVIGATION if boilerplate else SegmentKind.LIST
        group = self._next_group()
        if boilerplate and not self._navigation and self._spans is None:
            sizes = [self._item_length(item, cleaned) for item, cleaned in rendered]
            self._count += len(self._run_sizes(sizes, 1, 4 * self._max))
            return
        runs = self._pack([self._item_markdown(item, cleaned) for item, cleaned in rendered], sep="\n")
        start = 0
        for part, run in enumerate(runs):
            chunk = rendered[start : start + len(run)]
            start += len(run)
            text = "\n".join([cleaned for _, cleaned in chunk])
            first = chunk[0][0].position
            self._add(kind, text, "\n".join(run), first if first >= 0 else position, group, part=part)

    def table(
        self,
        header: Sequence[str] | None,
        rows: Sequence[Sequence[str]],
        position: int,
        *,
        caption: str | None = None,
        boilerplate: bool = False,
        row_positions: Sequence[int] | None = None,
    ) -> None:
        # A row is kept when some cell has text; an escaped cell is empty exactly when its cleaned text is, so each
        # cell is cleaned once.
        escape = escape_cell if self._clean else _escape_pipes
        body = [row for row in ([escape(c) for c in cells] for cells in rows) if any(row)]
        head = [escape(c) for c in header] if header else None
        if head is not None and not any(head):
            head = None
        if not body and not head:
            return
        width = max([len(r) for r in body] + [len(head) if head else 0])
        body = [r + [""] * (width - len(r)) for r in body]
        if head is not None:
            head = head + [""] * (width - len(head))
        kind = _NAVIGATION if boilerplate else SegmentKind.TABLE
        group = self._next_group()
        head_md = ""
        if head is not None:
            head_md = "| " + " | ".join(head) + " |\n| " + " | ".join("---" for _ in head) + " |"
        cap = (clean_inline(caption) if self._clean else _tidy(caption)) if caption else ""
        if cap:
            head_md = f"Table: {cap}\n" + head_md if head_md else f"Table: {cap}"
        row_mds = ["| " + " | ".join(r) + " |" for r in body]
        if not row_mds:
            self._add(kind, self._table_text(cap, head, []), head_md, position, group, header=head_md or None,
                      whole=True)
            return
        budget = max(self._max - (self._estimate(head_md) if head_md else 0), self._max // 4)
        runs = self._pack(row_mds, sep="\n", limit=budget)
        if boilerplate and not self._navigation and self._spans is None:
            self._count += len(runs)
            return
        start = 0
        for part, run in enumerate(runs):
            rows_here = body[start : start + len(run)]
            pos = position
            if row_positions is not None and start < len(row_positions) and row_positions[start] >= 0:
                pos = row_positions[start]
            start += len(run)
            md = (head_md + "\n" if head_md else "") + "\n".join(run)
            key = None
            if self._spans is not None:
                # What the source holds: parts after the first repeat the header, which is not at their place.
                first = start - len(run)
                key = (_source_cells(cap, head, rows_here, None) if part == 0
                       else _source_cells("", None, rows_here, body[first - 1]))
            self._add(kind, self._table_text(cap, head, rows_here), md, pos, group, part=part,
                      header=head_md or None, key=key, whole=True)

    def code(self, code: str, language: str | None, position: int) -> None:
        code = code.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
        if not code.strip():
            return
        lang = (language or "").strip() or None
        group = self._next_group()
        fence = "```"
        while fence in code:
            fence += "`"
        opener = fence + (lang or "")
        overhead = self._estimate(opener + "\n\n" + fence)
        limit = max(self._max - overhead, self._max // 4)
        for part, chunk in enumerate(self._pack_code(code, limit)):
            self._add(SegmentKind.CODE, chunk, f"{opener}\n{chunk}\n{fence}", position, group, part=part,
                      language=lang, header=opener, whole=True)

    # -- helpers ------------------------------------------------------------------------------------------

    def _next_group(self) -> int:
        self._group += 1
        return self._group

    def _add(self, kind: SegmentKind, text: str, markdown: str, position: int, group: int, *, part: int = 0,
             level: int = 0, language: str | None = None, header: str | None = None, key: str | None = None,
             whole: bool = False) -> None:
        """One segment; ``key`` is what the aligner places in the source (``text`` unless given). ``whole``: the
        unit is an element's (a table, a code block), so an anchored first part's span starts at the element,
        where the text found may start later (a header row with empty cells). A list's does not: the walk may
        emit text inside the list element as blocks of their own, before it."""
        index = self._count
        self._count += 1
        start = max(position, 0)
        end = start
        if self._held_start >= 0:
            start, end = self._held_start, self._held_end
        elif self._spans is not None:  # also for what is not built: the spans after it depend on its place
            if self._anchored and part == 0 and position >= 0:
                self._spans.skip_to(position)
                start, end = self._spans.span(text if key is None else key)
                if whole and position < start:
                    start = position
            else:
                start, end = self._spans.span(text if key is None else key)
        if kind is _NAVIGATION and not self._navigation:
            return
        path = self._path
        if kind is _HEADING and path and path[-1] == text:
            path = path[:-1]
        # Every segment of every document is built here: new_segment is Segment(...) without the dataclass
        # __init__'s 14 object.__setattr__ calls (qatbe/_segment.pyx; about 0.37 us a record instead of 2.1 us).
        self._segments.append(
            new_segment(kind, text, markdown, start, index, level, path, language, group, part, header, 0, 0.0, False,
                        end)
        )

    @staticmethod
    def _item_markdown(item: ListItem, cleaned: str) -> str:
        marker = f"{item.number}." if item.ordered else "-"
        return "  " * max(item.depth, 0) + marker + " " + cleaned

    @staticmethod
    def _item_length(item: ListItem, cleaned: str) -> int:
        """``len(_item_markdown(item, cleaned))`` without building it."""
        marker = len(str(item.number)) + 1 if item.ordered else 1
        return 2 * max(item.depth, 0) + marker + 1 + len(cleaned)

    @staticmethod
    def _table_text(caption: str, head: builtins.list[str] | None, rows: Iterable[builtins.list[str]]) -> str:
        lines = [caption] if caption else []
        if head:
            lines.append(" | ".join(head))
        lines.extend(" | ".join(r) for r in rows)
        return "\n".join(lines)

    def _pack(self, pieces: Sequence[str], *, sep: str, limit: int | None = None) -> builtins.list[builtins.list[str]]:
        """Greedy runs of whole pieces whose joined size stays under ``limit`` tokens (chars/4; a lone oversized
        piece stands alone)."""
        max_chars = 4 * (self._max if limit is None else limit)
        runs: builtins.list[builtins.list[str]] = []
        start = 0
        for count in self._run_sizes([len(piece) for piece in pieces], len(sep), max_chars):
            runs.append(list(pieces[start : start + count]))
            start += count
        return runs

    @staticmethod
    def _run_sizes(lengths: Sequence[int], sep_len: int, max_chars: int) -> builtins.list[int]:
        """How many pieces each greedy run takes: a run grows while its joined length stays within ``max_chars``
        (a lone oversized piece stands alone). The one packing rule, for ``_pack`` and for counting."""
        sizes: builtins.list[int] = []
        taken = 0
        size = 0
        for length in lengths:
            if taken and size + sep_len + length > max_chars:
                sizes.append(taken)
                taken, size = 0, 0
            size += (sep_len if taken else 0) + length
            taken += 1
        if taken:
            sizes.append(taken)
        return sizes

    def _pack_text(self, text: str) -> builtins.list[str]:
        if self._estimate(text) <= self._max:
            return [text]
        pieces: builtins.list[str] = []
        for sentence in split_sentences(text):
            if self._estimate(sentence) <= self._sentence_max:
                pieces.append(sentence)
            else:
                pieces.extend(self._hard_split(sentence))
        return [" ".join(run) for run in self._pack(pieces, sep=" ")]

    def _hard_split(self, text: str) -> builtins.list[str]:
        """Split a sentence with no usable boundary, as a reader would: after the last clause mark (, ; : or a
        spaced dash) in the back half of the size limit, else at the last space there that is not inside a run
        of capitalised words, else at the last space, else at the limit.

        Why: a cut at whatever space comes last splits names ("... Vietnam Airlines and Virgin" | "Atlantic"),
        so the answer to a question is in no unit; a clause mark is where the sentence itself pauses.
        """
        max_chars = 4 * self._sentence_max
        chunks: builtins.list[str] = []
        start, n = 0, len(text)
        while start < n:
            end = start + max_chars
            if end < n:
                end = _cut_point(text, start + max_chars // 2, end) or end
            chunk = text[start:end].strip()
            if chunk:
                chunks.append(chunk)
            start = end
        return chunks

    def _pack_code(self, code: str, limit: int) -> builtins.list[str]:
        if self._estimate(code) <= limit:
            return [code]
        lines = code.split("\n")
        runs: builtins.list[builtins.list[str]] = []
        run: builtins.list[str] = []
        size = 0
        max_chars = 4 * limit
        for line in lines:
            full = run and size + len(line) + 1 > max_chars
            # Prefer to cut at a blank line once the run is at least half full.
            soft = run and not line.strip() and (size + 3) // 4 >= limit // 2
            if full or soft:
                while run and not run[-1].strip():
                    run.pop()
                if run:
                    runs.append(run)
                run, size = [], 0
                if not line.strip():
                    continue
            size += len(line) + (1 if run else 0)
            run.append(line)
        while run and not run[-1].strip():
            run.pop()
        if run:
            runs.append(run)
        return ["\n".join(r) for r in runs]
