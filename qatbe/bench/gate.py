"""``qatbe bench gate``: a change that loses quality fails loudly.

The gate measures a fixed subset (small enough for a few minutes on 2 cores) of the dev corpora under
``../shared/corpora``: qatbe's answer retention and evidence recall on the four QA sets at small budgets, and its
main-content extraction scores (through ``qatbe.bench.extraction``). It compares them with the floors pinned in
``benchmarks/quality_floors.json``, which also stores a sha256 of every corpus folder it read and the subset it ran.

* A measurement below its floor is a regression: exit code 1.
* ``--raise`` moves floors up to the new measurements (never down); it also pins metrics that have no floor yet.
* Lowering a floor, or re-pinning after the corpus changed (hash mismatch), needs ``--allow-lower``.
* Any output over its budget, or any error, fails the gate whatever the floors say.
* When the corpora folder is absent (a user's clone), the gate says so and exits 0.

Measurements are rounded to 4 decimals before comparison; qatbe is deterministic, so the same code on the same
corpus gives the same numbers and no tolerance is needed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError
from .args import REPO_ROOT, ArgumentParser, default_corpora

FLOORS_FILE = REPO_ROOT / "benchmarks" / "quality_floors.json"


def default_floors() -> Path:
    """The checkout's floors file: the working directory's first (the gate runs from a clone, and a non-editable
    install puts this module in site-packages, away from ``benchmarks/``), then the one beside this source tree."""
    here = Path.cwd() / "benchmarks" / "quality_floors.json"
    return here if here.is_file() else FLOORS_FILE
DIGITS = 4

DEFAULT_SUBSET: dict[str, Any] = {
    "retention": {
        "datasets": ["squad11-dev", "conditionalqa-dev", "hotpotqa-distractor", "wikitablequestions"],
        "budgets": [200, 1000, 5000],
        "limit": 100,
        "system": "qatbe",
    },
    "extraction": {"datasets": ["scrapinghub-aeb", "wcxb", "trafilatura-eval", "readability-testpages"], "limit": 40},
}


@dataclass
class Measurement:
    """Metric values by key (``retention/<dataset>/<budget>/<metric>``, ``extraction/<dataset>/<metric>``), the
    corpus hash of every dataset read, failures that no floor can excuse, and notes (skipped parts)."""

    values: dict[str, float]
    hashes: dict[str, str]
    hard_failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Decision:
    code: int
    lines: list[str]
    new_floors: dict[str, Any] | None  # the file content to write, or None to leave it


def hash_tree(folder: Path) -> str:
    """sha256 over every file below ``folder`` (relative path and bytes, sorted by path)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


# -- measuring -----------------------------------------------------------------------------------------------


def measure_retention(corpora: Path, subset: Mapping[str, Any], m: Measurement) -> None:
    from .loaders import load
    from .retention import run_retention
    from .systems import make_system

    system = make_system(str(subset.get("system", "qatbe")))
    reason = system.missing()
    if reason:
        m.hard_failures.append(f"retention: system {system.name} cannot run: {reason}")
        return
    datasets = [load(corpora / name, limit=int(subset["limit"])) for name in subset["datasets"]]
    for name in subset["datasets"]:
        m.hashes[name] = hash_tree(corpora / name)
    report = run_retention(datasets, [system], [int(b) for b in subset["budgets"]])
    for row in report.rows:
        prefix = f"retention/{row['dataset']}/{row['budget']}"
        for metric in ("answer_retention", "evidence_recall"):
            if row.get(metric) is not None:
                m.values[f"{prefix}/{metric}"] = round(float(row[metric]), DIGITS)
        if row["over_budget"]:
            m.hard_failures.append(f"{prefix}: {row['over_budget']} outputs over budget")
        if row["errors"]:
            m.hard_failures.append(f"{prefix}: {row['errors']} errors, first: {row['first_error']}")


def measure_extraction(corpora: Path, subset: Mapping[str, Any], m: Measurement) -> None:
    """Scores through ``qatbe.bench.extraction``: its loaders, ``run_qatbe``, ``score_page`` and ``summarize``."""
    try:
        from . import extraction as ex
    except ImportError:
        m.notes.append("extraction: qatbe.bench.extraction is not available; extraction floors not checked")
        return
    needed = ("LOADERS", "run_qatbe", "score_page", "summarize")
    if not all(hasattr(ex, name) for name in needed):
        m.notes.append("extraction: qatbe.bench.extraction lacks " + ", ".join(needed) + "; not checked")
        return
    for name in subset["datasets"]:
        if name not in ex.LOADERS:
            m.notes.append(f"extraction: no loader for {name}; not checked")
            continue
        pages = ex.LOADERS[name](corpora / name)[: int(subset["limit"])]
        m.hashes[name] = hash_tree(corpora / name)
        scores = []
        for page in pages:
            try:
                text, seconds = ex.run_qatbe(page)
            except Exception as exc:  # noqa: BLE001 - any crash fails the gate, with the page named
                m.hard_failures.append(f"extraction/{name}: {page.id}: {type(exc).__name__}: {exc}"[:300])
                continue
            scores.append(ex.score_page(page, "qatbe", text, seconds))
        summary = ex.summarize(scores)
        for metric in getattr(ex, "HEADLINE_METRICS", ("f1", "survival")):
            if metric in summary:
                m.values[f"extraction/{name}/{metric}"] = round(float(summary[metric]), DIGITS)


def measure(corpora: Path, subset: Mapping[str, Any]) -> Measurement:
    m = Measurement({}, {})
    if "retention" in subset:
        measure_retention(corpora, subset["retention"], m)
    if "extraction" in subset:
        measure_extraction(corpora, subset["extraction"], m)
    return m


# -- deciding ------------------------------------------------------------------------------------------------


def decide(
    pinned: Mapping[str, Any] | None,
    m: Measurement,
    *,
    raise_floors: bool,
    allow_lower: bool,
    subset: Mapping[str, Any],
    stamp: Mapping[str, object],
) -> Decision:
    """Compares a measurement with the pinned floors and says what to print, exit with, and write."""
    lines: list[str] = [f"note: {n}" for n in m.notes]
    if pinned is None:
        if not (raise_floors or allow_lower):
            return Decision(2, [*lines, "no floors file yet: run with --raise to pin the current measurements"], None)
        lines += [f"pin  {k} = {v:.4f}" for k, v in sorted(m.values.items())]
        code = 1 if m.hard_failures else 0
        lines += [f"FAIL {f}" for f in m.hard_failures]
        new = None if m.hard_failures else _file(dict(m.values), m.hashes, subset, stamp)
        return Decision(code, lines, new)

    old_hashes: Mapping[str, str] = pinned.get("corpus_sha256", {})
    changed = sorted(k for k, v in m.hashes.items() if k in old_hashes and old_hashes[k] != v)
    if changed and not allow_lower:
        message = (f"corpus changed since the floors were pinned ({', '.join(changed)}): "
                   "the numbers are not comparable; re-pin with --allow-lower")
        return Decision(2, [*lines, message], None)
    floors: dict[str, float] = dict(pinned.get("floors", {}))
    new_floors = dict(floors)
    regressions = 0
    moved = False
    for key in sorted(set(floors) | set(m.values)):
        floor, value = floors.get(key), m.values.get(key)
        if value is None:
            lines.append(f"gone {key}: floor {floor:.4f}, not measured (dataset or metric missing)")
            continue
        if floor is None:
            if raise_floors or allow_lower:
                new_floors[key] = value
                moved = True
                lines.append(f"pin  {key} = {value:.4f} (new)")
            else:
                lines.append(f"new  {key} = {value:.4f} (no floor yet; --raise pins it)")
        elif value < floor:
            if allow_lower:
                new_floors[key] = value
                moved = True
                lines.append(f"LOW  {key}: {value:.4f} < floor {floor:.4f}, floor lowered (--allow-lower)")
            else:
                regressions += 1
                lines.append(f"FAIL {key}: {value:.4f} < floor {floor:.4f}")
        elif value > floor:
            if raise_floors:
                new_floors[key] = value
                moved = True
                lines.append(f"up   {key}: {value:.4f} > floor {floor:.4f}, floor raised")
            else:
                lines.append(f"ok   {key}: {value:.4f} > floor {floor:.4f} (--raise would pin it)")
        else:
            lines.append(f"ok   {key}: {value:.4f} = floor")
    lines += [f"FAIL {f}" for f in m.hard_failures]
    failed = regressions > 0 or bool(m.hard_failures)
    hashes = {**old_hashes, **m.hashes}
    if failed or not (moved or (changed and allow_lower)):
        new = None
    else:
        new = _file(new_floors, hashes, pinned.get("subset", subset), stamp)
    lines.append(f"{'FAILED' if failed else 'passed'}: {regressions} regression(s), "
                 f"{len(m.hard_failures)} hard failure(s), {len(m.values)} measurement(s)")
    return Decision(1 if failed else 0, lines, new)


def _file(floors: Mapping[str, float], hashes: Mapping[str, str], subset: Mapping[str, Any],
          stamp: Mapping[str, object]) -> dict[str, Any]:
    return {
        "about": "Quality floors of `qatbe bench gate`. Raised with --raise; lowering needs --allow-lower.",
        "pinned": dict(stamp),
        "subset": dict(subset),
        "corpus_sha256": dict(sorted(hashes.items())),
        "floors": dict(sorted(floors.items())),
    }


def read_floors(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("floors", {}), dict):
        raise DataError(f"{path}: not a floors file (expected an object with a 'floors' object)")
    for key, value in data.get("floors", {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DataError(f"{path}: floor {key!r} is not a number")
    return data


def run_gate(
    floors_path: Path,
    corpora: Path,
    *,
    raise_floors: bool = False,
    allow_lower: bool = False,
    measure_fn: Callable[[Path, Mapping[str, Any]], Measurement] = measure,
    out: Callable[[str], None] = print,
) -> int:
    if not corpora.is_dir():
        out(f"quality gate skipped: corpora not found at {corpora} (they sit beside the repository in CI only)")
        return 0
    pinned = read_floors(floors_path)
    subset = (pinned or {}).get("subset") or DEFAULT_SUBSET
    measurement = measure_fn(corpora, subset)
    from .env import describe

    env = describe()
    stamp = {k: env[k] for k in ("qatbe_version", "backend", "python", "cpu", "date")}
    decision = decide(pinned, measurement, raise_floors=raise_floors, allow_lower=allow_lower, subset=subset,
                      stamp=stamp)
    for line in decision.lines:
        out(line)
    if decision.new_floors is not None:
        floors_path.parent.mkdir(parents=True, exist_ok=True)
        floors_path.write_text(json.dumps(decision.new_floors, indent=1) + "\n", encoding="utf-8")
        out(f"floors written to {floors_path}")
    return decision.code


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="qatbe bench gate",
                            description="Quality gate: retention and extraction scores against pinned floors.")
    parser.add_argument("--floors", type=Path, default=default_floors(),
                        help="floors file (default: benchmarks/quality_floors.json of the working directory)")
    parser.add_argument("--corpora", type=Path, default=None,
                        help="corpora folder (default: $QATBE_CORPORA or ../shared/corpora)")
    parser.add_argument("--raise", dest="raise_floors", action="store_true",
                        help="raise floors to the new measurements (and pin new metrics)")
    parser.add_argument("--allow-lower", action="store_true",
                        help="accept lower measurements and a changed corpus, re-pinning the floors")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    corpora = args.corpora or default_corpora()
    return run_gate(args.floors, corpora, raise_floors=args.raise_floors, allow_lower=args.allow_lower)
