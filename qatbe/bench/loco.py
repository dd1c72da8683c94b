"""``qatbe bench extraction --leave-one-corpus-out`` and ``--ablate``: do the extraction rules generalise across
corpora?

The main-content decision (``qatbe.segmentation.html_decide``) has thresholds set by hand on the dev pages. Here a
small grid of them (``GRID``) is tried on the four extraction corpora; for each corpus in turn, the grid point with
the best mean F1 on the other three is taken ("tuned on three") and scored on the one left out, next to the shipped
values and trafilatura in the same run. A threshold fitted to one corpus shows as a tuned point that does worse on
the corpus left out than the shipped one; thresholds that generalise leave the shipped point best, or close to it,
everywhere. The same runs give each threshold's effect alone (the others at their shipped values), per corpus: a
threshold that helps one corpus and hurts another is a candidate to generalise or remove.

``--ablate`` turns each rule of the decision off alone (``RULES``), the others as shipped, and reports the F1
change per corpus with the pages it made better and worse: a rule whose removal helps one corpus and hurts another
fits the first one's pages, not pages in general.

The thresholds and patterns are module constants, read where they are used, so a grid point or a rule turned off
is applied by setting them for the duration of a run (``applied``, ``patched``), in this process only.
"""

from __future__ import annotations

import importlib
import itertools
import re
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

# The four corpora whose metric is main-content F1 (the QA sets score answer survival at an unlimited budget).
CORPORA = ("scrapinghub-aeb", "wcxb", "trafilatura-eval", "readability-testpages")


@dataclass(frozen=True)
class Knob:
    """A threshold of a module (``module.name``) and the values tried; ``shipped`` is the value in the code."""

    module: str
    name: str
    values: tuple[float, ...]
    shipped: float
    meaning: str


# Three thresholds of the main-content decision, each at its shipped value and one step to either side.
GRID: tuple[Knob, ...] = (
    Knob("qatbe.segmentation.html_decide", "_LINKY", (0.4, 0.5, 0.6), 0.5,
         "link share above which a block is a menu"),
    Knob("qatbe.segmentation.html_decide", "_MAIN_SHARE", (0.3, 0.4, 0.5), 0.4,
         "share of the page's prose a main candidate must hold"),
    Knob("qatbe.segmentation.html_decide", "_BOX_SHARE", (0.65, 0.75, 0.85), 0.75,
         "share of the densest box's prose another box must reach to stay"),
)

Point = tuple[float, ...]  # one value per knob of the grid, in its order


class Tools(NamedTuple):
    """What a run needs from ``qatbe.bench.extraction`` (which hands it over: this module does not import it, since
    that one calls this one): its page loaders, output cache, systems and scoring."""

    loaders: Mapping[str, Callable[[Path], list[Any]]]
    cache: Callable[[Path | None], Any]
    run_system: Callable[[str, Sequence[Any], Any, int], list[tuple[str, float]]]
    score_page: Callable[[Any, str, str, float], Any]
    summarize: Callable[[Sequence[Any]], dict[str, float]]


def shipped(grid: Sequence[Knob] = GRID) -> Point:
    return tuple(k.shipped for k in grid)


def points(grid: Sequence[Knob] = GRID) -> list[Point]:
    """Every combination of the knobs' values, the shipped point first (it wins ties)."""
    first = shipped(grid)
    return [first] + [p for p in itertools.product(*(k.values for k in grid)) if p != first]


def splits(corpora: Sequence[str]) -> list[tuple[tuple[str, ...], str]]:
    """``(tuned on, left out)`` for each corpus: every corpus left out once, never among those it is tuned on."""
    return [(tuple(c for c in corpora if c != out), out) for out in corpora]


def best_point(f1: Mapping[Point, Mapping[str, float]], tuned_on: Sequence[str]) -> Point:
    """The point with the best mean F1 over ``tuned_on`` (the first such point in ``f1``'s order on a tie)."""
    best: Point | None = None
    best_value = -1.0
    for point, by_corpus in f1.items():
        value = statistics.fmean(by_corpus[c] for c in tuned_on)
        if value > best_value:
            best, best_value = point, value
    if best is None:
        raise ValueError("no grid point was scored")
    return best


@contextmanager
def patched(assignments: Sequence[tuple[str, str, object]]) -> Iterator[None]:
    """Each ``(module, name, value)`` set inside the block, and back to what it was after it."""
    saved: list[tuple[Any, str, Any]] = []
    try:
        for module_name, name, value in assignments:
            module = importlib.import_module(module_name)
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, value)
        yield
    finally:
        for module, name, value in reversed(saved):
            setattr(module, name, value)


def applied(point: Point, grid: Sequence[Knob] = GRID) -> AbstractContextManager[None]:
    """The knobs set to ``point`` inside the block, and back to what they were after it."""
    return patched([(knob.module, knob.name, value) for knob, value in zip(grid, point, strict=True)])


_DECIDE = "qatbe.segmentation.html_decide"
_NEVER = re.compile(r"(?!)")  # a pattern that matches nothing: the rule it stands in for finds nothing
_NONE = 10**12  # a minimum no block reaches


@dataclass(frozen=True)
class Rule:
    """A rule of the main-content decision (``html_decide``) and the constants that turn it off."""

    label: str
    off: tuple[tuple[str, object], ...]
    meaning: str
    module: str = _DECIDE


# The decision's rules that a constant switches off; the container judgement (class and id evidence) and the
# three thresholds of ``GRID`` are the frame the rules work in, and are not listed.
RULES: tuple[Rule, ...] = (
    Rule("furniture words", (("_FURNITURE_TEXT", _NEVER), ("_FURNITURE_LINE", _NEVER)),
         'short lines in the words of page furniture ("Read more", "Leave a comment")'),
    Rule("teaser after a label", (("_TEASER_LINK", -1),), 'the link a "Read also:" label introduces'),
    Rule("post meta", (("_POST_META_MAX", -1),), 'a post\'s filing line ("This entry was posted in News on ...")'),
    Rule("page notice", (("_PAGE_NOTICE_MAX", -1),), "an affiliate disclosure, a warning about the browser"),
    Rule("social line", (("_SOCIAL_LINE_MAX", -1),), 'a "follow us on" line naming two networks or more'),
    Rule("cookie notice", (("_COOKIE_NOTICE_MAX", -1),), "a cookie or consent notice"),
    Rule("copyright", (("_COPYRIGHT", _NEVER),), 'a copyright line ("(c) 2024 Example News")'),
    Rule("markup as text", (("_MARKUP_TEXT", _NEVER),), "escaped tags shown as text"),
    Rule("credits", (("_CREDIT_MAX", -1),), 'a photo credit or source line ("Photo: Getty Images")'),
    Rule("byline", (("_BYLINE_MAX", -1),), "a short line in a byline container, kept as metadata"),
    Rule("teasers", (("_TEASER_MAX", 0),), "linked headlines with a line or two under each, beside an article"),
    Rule("orphan headings", (("_ORPHAN_MAX", -1),), "a heading with no kept text after it"),
    Rule("sentence items", (("_ITEM_WORDS", _NONE),), "a linked list in the main text whose items are sentences"),
    Rule("linked sentence", (("_LINKED_SENTENCE", _NONE),), "a link-dense sentence in the main text"),
    Rule("lone link", (("_LONE_LINK", -1),), 'a short link line in the main text ("Lifetime guarantee")'),
    Rule("menu table", (("_MENU_TABLE_DENSITY", 2.0),), "a table of links without the shape of data"),
    Rule("repeats", (("_REPEAT_MIN", _NONE),), "a line said again later, kept once"),
    Rule("trailing labels", (("_TRAILING_LABELS", -1),), 'one or two labels after the last text ("More on this:")'),
    Rule("main box", (("_MIN_PROSE", _NONE),), "outside the densest container, only the title and prose"),
    Rule("main box cover", (("_BOX_COVER", 0.0),), "no pruning when the box holds little of the visible text"),
    Rule("comments", (("_ARTICLE_PROSE", _NONE),), "a comment section under an article"),
)


def _label(point: Point, grid: Sequence[Knob] = GRID) -> str:
    return ", ".join(f"{k.name.strip('_').lower()}={v:g}" for k, v in zip(grid, point, strict=True))


def _pages(tools: Tools, corpora_dir: Path, corpora: Sequence[str], limit: int | None) -> dict[str, Sequence[Any]]:
    """Each corpus's pages, its first ``limit`` when given."""
    pages: dict[str, Sequence[Any]] = {}
    for name in corpora:
        loaded = tools.loaders[name](corpora_dir / name)
        pages[name] = loaded[:limit] if limit is not None else loaded
    return pages


def _scores(tools: Tools, pages: Mapping[str, Sequence[Any]], cache: Any) -> dict[str, tuple[float, list[float]]]:
    """qatbe's F1 on each corpus, and each page's, with the decision's constants as they are now (``run_system``
    runs qatbe in this process, so it reads the constants set here)."""
    out = {}
    for name, group in pages.items():
        outputs = tools.run_system("qatbe", group, cache, 1)
        scored = [tools.score_page(p, "qatbe", t, s) for p, (t, s) in zip(group, outputs, strict=True)]
        out[name] = (tools.summarize(scored)["f1"], [s.values["f1"] for s in scored])
    return out


def run(tools: Tools, corpora_dir: Path, corpora: Sequence[str], limit: int | None, cache_path: Path | None,
        jobs: int, grid: Sequence[Knob] = GRID) -> dict[str, Any]:
    """Score every grid point and trafilatura on each corpus; the leave-one-out choices and the effect of each knob
    alone. Returns the report (``markdown`` holds its tables)."""
    run_system, score_page, summarize = tools.run_system, tools.score_page, tools.summarize
    pages = _pages(tools, corpora_dir, corpora, limit)
    cache = tools.cache(cache_path)
    trafilatura = {}
    for name in corpora:
        outputs = run_system("trafilatura", pages[name], cache, jobs)
        trafilatura[name] = summarize([score_page(p, "trafilatura", t, s)
                                       for p, (t, s) in zip(pages[name], outputs, strict=True)])["f1"]
    cache.save()
    f1: dict[Point, dict[str, float]] = {}
    for point in points(grid):
        with applied(point, grid):
            f1[point] = {name: value for name, (value, _) in _scores(tools, pages, cache).items()}
    base = shipped(grid)
    held_out = []
    for tuned_on, out in splits(corpora):
        best = best_point(f1, tuned_on)
        held_out.append({"left_out": out, "tuned_on": list(tuned_on), "tuned": list(best),
                         "f1_shipped": f1[base][out], "f1_tuned": f1[best][out], "f1_trafilatura": trafilatura[out]})
    alone = []
    for k, knob in enumerate(grid):
        for value in knob.values:
            if value == knob.shipped:
                continue
            point = base[:k] + (value,) + base[k + 1:]
            alone.append({"knob": knob.name, "value": value,
                          "delta": {c: f1[point][c] - f1[base][c] for c in corpora}})
    report: dict[str, Any] = {
        "grid": [{"module": k.module, "name": k.name, "values": list(k.values), "shipped": k.shipped}
                 for k in grid],
        "pages": {c: len(pages[c]) for c in corpora}, "held_out": held_out, "alone": alone,
        "f1": {_label(p, grid): by for p, by in f1.items()}, "trafilatura": trafilatura,
    }
    report["markdown"] = markdown(report, corpora, grid)
    return report


def markdown(report: Mapping[str, Any], corpora: Sequence[str], grid: Sequence[Knob] = GRID) -> str:
    lines = ["Leave one corpus out: the grid point best on the other three, scored on the one left out (F1).", "",
             "| left out (pages) | tuned point | shipped | tuned | trafilatura |", "|---|---|--:|--:|--:|"]
    for row in report["held_out"]:
        out = row["left_out"]
        tuned = "shipped" if tuple(row["tuned"]) == shipped(grid) else _label(tuple(row["tuned"]), grid)
        lines.append(f"| {out} ({report['pages'][out]}) | {tuned} | {row['f1_shipped']:.3f} | {row['f1_tuned']:.3f} "
                     f"| {row['f1_trafilatura']:.3f} |")
    lines += ["", "Each threshold alone, the others shipped: F1 change per corpus (× 1000).", "",
              "| threshold | " + " | ".join(corpora) + " |", "|---|" + "--:|" * len(corpora)]
    for row in report["alone"]:
        cells = " | ".join(f"{1000 * row['delta'][c]:+.1f}" for c in corpora)
        lines.append(f"| {row['knob'].strip('_').lower()} = {row['value']:g} | {cells} |")
    return "\n".join(lines)


def ablate(tools: Tools, corpora_dir: Path, corpora: Sequence[str], limit: int | None,
           rules: Sequence[Rule] = RULES) -> dict[str, Any]:
    """Each rule off alone, the others as shipped: the F1 change per corpus and the pages it made better and
    worse (a page's F1 moved by more than 1e-9). Returns the report (``markdown`` holds its table)."""
    pages = _pages(tools, corpora_dir, corpora, limit)
    cache = tools.cache(None)  # qatbe's outputs are never cached: only the run's own constants count
    shipped_f1 = _scores(tools, pages, cache)
    rows = []
    for rule in rules:
        with patched([(rule.module, name, value) for name, value in rule.off]):
            off = _scores(tools, pages, cache)
        cells = {}
        for name in corpora:
            (f1_off, pages_off), (f1_on, pages_on) = off[name], shipped_f1[name]
            cells[name] = {"delta": f1_off - f1_on,
                           "better": sum(1 for a, b in zip(pages_off, pages_on, strict=True) if a > b + 1e-9),
                           "worse": sum(1 for a, b in zip(pages_off, pages_on, strict=True) if a < b - 1e-9)}
        rows.append({"rule": rule.label, "meaning": rule.meaning, "off": {k: repr(v) for k, v in rule.off},
                     "corpora": cells})
    report: dict[str, Any] = {"pages": {c: len(pages[c]) for c in corpora},
                              "shipped": {c: shipped_f1[c][0] for c in corpora}, "rules": rows}
    report["markdown"] = ablation_markdown(report, corpora)
    return report


def ablation_markdown(report: Mapping[str, Any], corpora: Sequence[str]) -> str:
    lines = ["Each rule of the main-content decision off alone, the others as shipped: F1 change per corpus (× 1000),",
             "then the pages it made better / worse. Negative: the rule helps that corpus.", "",
             "| rule off | " + " | ".join(f"{c} ({report['pages'][c]})" for c in corpora) + " |",
             "|---|" + "--:|" * len(corpora),
             "| shipped F1 | " + " | ".join(f"{report['shipped'][c]:.3f}" for c in corpora) + " |"]
    for row in report["rules"]:
        cells = []
        for c in corpora:
            cell = row["corpora"][c]
            moved = f" ({cell['better']}/{cell['worse']})" if cell["better"] or cell["worse"] else ""
            cells.append(f"{1000 * cell['delta']:+.1f}{moved}")
        lines.append(f"| {row['rule']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
