"""The systems a benchmark compares, all behind one small interface.

A system turns (document, query, budget) into text. It has two steps so that the harness can run fairly and fast:
``prepare(document)`` does the query-independent work (trafilatura's extraction, parsing into text nodes) and
``select(prepared, query, budget)`` does the rest. The harness prepares a document once per system and charges the
measured preparation time to *every* question on that document, so the reported time per call is what a caller
would pay without caching. qatbe's own step is ``extract()`` end to end, inside ``select``.

Systems (spec strings, as given to ``--systems``):

* ``qatbe`` or ``qatbe:key=value,...``: ``qatbe.extract`` with those options (any ``Settings`` field: ``fill=none``,
  ``bm25=okapi``, ``include_headings=false``, ...); several configurations may run side by side.
* ``lead``: the document's text cut to the budget (what "just truncate it" gives).
* ``trafilatura-bm25``: trafilatura's main text → paragraphs → rank-bm25 → packed to the budget → document order.
  Markdown and plain-text documents skip trafilatura (it reads HTML, and they are main text already).
* ``textnodes-bm25``: every text node of the page → rank-bm25 → packed → document order.
* ``random`` or ``random:seed=N``: text nodes in a seeded random order, packed → document order.

Peers (trafilatura, rank-bm25) are optional: ``pip install qatbe[bench]``. A system whose peer is missing reports
why through ``missing()`` and the harness skips it instead of failing.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from ..errors import ConfigError
from ..tokens import chars_div4
from .loaders import BenchDocument

DEFAULT_SYSTEMS: tuple[str, ...] = ("qatbe", "lead", "trafilatura-bm25", "textnodes-bm25", "random")
SEPARATOR = "\n\n"
_WORD = re.compile(r"\w+")
_BLANK = re.compile(r"\n[ \t]*\n")
_NO_TEXT_TAGS = ["script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas", "select"]


class System(Protocol):
    name: str

    def missing(self) -> str | None:
        """Why this system cannot run here (a missing peer), or ``None``."""

    def prepare(self, document: BenchDocument) -> Any:
        """Query-independent work on one document."""

    def select(self, prepared: Any, query: str, budget: int) -> str:
        """The output text for one query within ``budget`` tokens (``chars_div4``)."""


# -- shared pieces ------------------------------------------------------------------------------------------


def _missing_modules(*modules: str) -> str | None:
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    if absent:
        return f"{', '.join(absent)} not installed (pip install 'qatbe[bench]')"
    return None


def html_text_units(html: str) -> list[str]:
    """Every non-empty text node of a page, in document order, without script/style/head content.

    selectolax's ``traverse`` walks the tree without Python recursion, so deeply nested pages are fine.
    """
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    tree.strip_tags(_NO_TEXT_TAGS)
    root = tree.body or tree.root
    if root is None:
        return []
    units: list[str] = []
    for node in root.traverse(include_text=True):
        if node.tag == "-text":
            text = " ".join((node.text(deep=False) or "").split())
            if text:
                units.append(text)
    return units


def markdown_to_html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark").enable("table").render(markdown))


def blocks(text: str) -> list[str]:
    """Blank-line separated blocks, whitespace-trimmed, empty ones dropped."""
    return [b.strip() for b in _BLANK.split(text) if b.strip()]


def text_units(document: BenchDocument) -> list[str]:
    """Text nodes of the document as HTML (markdown is rendered first; plain text becomes its blocks)."""
    if document.format == "html":
        return html_text_units(document.source)
    if document.format == "markdown":
        return html_text_units(markdown_to_html(document.source))
    return [" ".join(b.split()) for b in blocks(document.source)]


def cut_to_budget(text: str, budget: int) -> str:
    """The longest prefix of ``text`` within ``budget`` tokens, ending at a whitespace boundary when there is one."""
    limit = max(budget, 0) * 4
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"))
    return (head[:space] if space > 0 else head).rstrip()


def pack(units: Sequence[str], order: Sequence[int], budget: int) -> str:
    """Greedy packing: take units in ``order``, keep each whole unit that still fits, render in document order.

    The cost is the rendered text (units joined by a blank line), so the output is never over budget.
    """
    limit = max(budget, 0) * 4
    chosen: list[int] = []
    used = 0
    for index in order:
        size = len(units[index]) + (len(SEPARATOR) if chosen else 0)
        if used + size <= limit:
            chosen.append(index)
            used += size
    out = SEPARATOR.join(units[i] for i in sorted(chosen))
    assert chars_div4(out) <= max(budget, 0)
    return out


def bm25_order(units: Sequence[str], query: str) -> list[int]:
    """Unit indices by rank-bm25 (BM25Okapi) score, best first, ties (and zero scores) in document order."""
    from rank_bm25 import BM25Okapi

    tokenized = [_WORD.findall(u.lower()) for u in units]
    q = _WORD.findall(query.lower())
    if not units or not q or not any(tokenized):
        return list(range(len(units)))
    scores = BM25Okapi(tokenized).get_scores(q)
    return sorted(range(len(units)), key=lambda i: (-float(scores[i]), i))


# -- baselines ----------------------------------------------------------------------------------------------


@dataclass
class Lead:
    """The document's text from the top, cut to the budget."""

    name: str = "lead"

    def missing(self) -> str | None:
        return None

    def prepare(self, document: BenchDocument) -> str:
        if document.format == "html":
            return "\n".join(html_text_units(document.source))
        return document.source

    def select(self, prepared: str, query: str, budget: int) -> str:
        return cut_to_budget(prepared, budget)


@dataclass
class TrafilaturaBM25:
    """trafilatura → paragraphs → rank-bm25 → packed → document order."""

    name: str = "trafilatura-bm25"

    def missing(self) -> str | None:
        return _missing_modules("trafilatura", "rank_bm25")

    def prepare(self, document: BenchDocument) -> list[str]:
        if document.format != "html":
            return [" ".join(b.split()) for b in blocks(document.source)]
        import trafilatura

        text = trafilatura.extract(
            document.source, output_format="txt", include_comments=False, include_tables=True
        )
        return [line.strip() for line in (text or "").splitlines() if line.strip()]

    def select(self, prepared: list[str], query: str, budget: int) -> str:
        return pack(prepared, bm25_order(prepared, query), budget)


@dataclass
class TextNodesBM25:
    """Every text node → rank-bm25 → packed → document order."""

    name: str = "textnodes-bm25"

    def missing(self) -> str | None:
        return _missing_modules("rank_bm25")

    def prepare(self, document: BenchDocument) -> list[str]:
        return text_units(document)

    def select(self, prepared: list[str], query: str, budget: int) -> str:
        return pack(prepared, bm25_order(prepared, query), budget)


@dataclass
class RandomPick:
    """Text nodes in a random order seeded by (seed, document, query), packed: the floor any ranking must beat."""

    seed: int = 0
    name: str = "random"

    def missing(self) -> str | None:
        return None

    def prepare(self, document: BenchDocument) -> tuple[str, list[str]]:
        return document.id, text_units(document)

    def select(self, prepared: tuple[str, list[str]], query: str, budget: int) -> str:
        doc_id, units = prepared
        order = list(range(len(units)))
        # A str seed is hashed with sha512 by random.Random, so the order is the same in every process.
        random.Random(f"{self.seed}\0{doc_id}\0{query}").shuffle(order)
        return pack(units, order, budget)


# -- qatbe --------------------------------------------------------------------------------------------------


def _coerce(name: str, raw: str, annotation: str) -> object:
    """Turns ``key=value`` text into the type of the Settings field (bool, int, float, None, or str)."""
    low = raw.strip().lower()
    if low in ("none", "null") and "None" in annotation:
        return None
    if "bool" in annotation:
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise ConfigError(f"option {name} needs true or false, not {raw!r}")
    if annotation.startswith("int"):
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"option {name} needs an integer, not {raw!r}") from None
    if annotation.startswith("float"):
        try:
            return float(raw)
        except ValueError:
            raise ConfigError(f"option {name} needs a number, not {raw!r}") from None
    return raw.strip()


class BundledEmbedder:
    """``embedder=minilm`` in a system spec: the bundled all-MiniLM-L6-v2 (``qatbe[embed]``), loaded on first
    use and shared by every system of the run (its vector cache too)."""

    _shared: Any = None

    def missing(self) -> str | None:
        return _missing_modules("sentence_transformers", "all_minilm_l6_v2")

    def __call__(self, texts: list[str]) -> Any:
        if BundledEmbedder._shared is None:
            from ..score.embedders import SentenceTransformerEmbedder

            BundledEmbedder._shared = SentenceTransformerEmbedder()
        return BundledEmbedder._shared(texts)


EMBEDDERS: dict[str, Callable[[], Any]] = {"minilm": BundledEmbedder}


def parse_options(text: str) -> dict[str, object]:
    """``"fill=none,bm25=okapi"`` → ``{"fill": "none", "bm25": "okapi"}``, typed after ``qatbe.Settings``.
    ``embedder=minilm`` names the bundled embedding model (``EMBEDDERS``)."""
    from ..settings import Settings

    annotations = {f.name: str(f.type) for f in fields(Settings)}
    options: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            raise ConfigError(f"qatbe option {part!r} must look like key=value")
        if key in ("budget", "tier"):
            raise ConfigError(f"qatbe option {key!r} is set by the benchmark's --budgets")
        if key not in annotations:
            raise ConfigError(f"unknown qatbe option {key!r}; options are Settings fields: {', '.join(annotations)}")
        if key == "embedder":
            if value.strip() not in EMBEDDERS:
                raise ConfigError(f"embedder must be one of {', '.join(EMBEDDERS)}, not {value!r}")
            options[key] = EMBEDDERS[value.strip()]()
            continue
        options[key] = _coerce(key, value, annotations[key])
    Settings(**options)  # type: ignore[arg-type]  # validate once, here, with qatbe's own messages
    return options


@dataclass
class Qatbe:
    """``qatbe.extract`` with fixed options; ``budget`` comes from the benchmark."""

    name: str = "qatbe"
    options: dict[str, object] = field(default_factory=dict)
    extract: Callable[..., Any] | None = None

    def missing(self) -> str | None:
        if self.extract is not None:
            return None
        qatbe = importlib.import_module("qatbe")
        if not callable(getattr(qatbe, "extract", None)):
            return "qatbe.extract is not available in this build"
        embedder = self.options.get("embedder")
        if isinstance(embedder, BundledEmbedder):
            return embedder.missing()
        return None

    def prepare(self, document: BenchDocument) -> BenchDocument:
        return document

    def select(self, prepared: BenchDocument, query: str, budget: int) -> str:
        extract = self.extract or importlib.import_module("qatbe").extract
        result = extract(prepared.source, query, budget=budget, format=prepared.format, **self.options)
        return str(result.text)


# -- registry -----------------------------------------------------------------------------------------------


def make_system(spec: str) -> System:
    """Builds a system from its spec string (see the module docstring)."""
    spec = spec.strip()
    base, _, rest = spec.partition(":")
    if base == "qatbe":
        return Qatbe(name=spec, options=parse_options(rest))
    if rest and base != "random":
        raise ConfigError(f"system {base!r} takes no options (got {spec!r})")
    if base == "lead":
        return Lead()
    if base == "trafilatura-bm25":
        return TrafilaturaBM25()
    if base == "textnodes-bm25":
        return TextNodesBM25()
    if base == "random":
        seed = 0
        if rest:
            key, _, value = rest.partition("=")
            if key.strip() != "seed" or not value.strip().lstrip("-").isdigit():
                raise ConfigError(f"random takes only seed=N, not {rest!r}")
            seed = int(value)
        return RandomPick(seed=seed, name=spec)
    known = "qatbe[:key=value,...], lead, trafilatura-bm25, textnodes-bm25, random[:seed=N]"
    raise ConfigError(f"unknown system {spec!r}; choose from {known}")


def split_specs(text: str) -> list[str]:
    """Splits ``--systems`` on ``;`` or on commas that do not belong to a ``qatbe:`` option list.

    ``"qatbe,lead"`` → two systems; ``"qatbe:fill=none,bm25=okapi;lead"`` → two systems; a comma followed by a
    ``key=value`` continues the previous system's options.
    """
    specs: list[str] = []
    for chunk in text.split(";"):
        for part in chunk.split(","):
            part = part.strip()
            if not part:
                continue
            if specs and "=" in part and ":" not in part and specs[-1].startswith(("qatbe:", "random:")):
                specs[-1] += "," + part
            else:
                specs.append(part)
    if not specs:
        raise ConfigError("no systems given")
    if len(set(specs)) != len(specs):
        raise ConfigError("the same system is given twice")
    return specs
