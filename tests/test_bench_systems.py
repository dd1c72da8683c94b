"""Benchmark systems and the retention runner: baselines never exceed the budget, failures are recorded."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qatbe.bench import systems as systems_mod
from qatbe.bench.loaders import BenchDocument, Dataset, QAItem, load
from qatbe.bench.retention import run_retention
from qatbe.bench.systems import (
    Lead,
    RandomPick,
    TextNodesBM25,
    TrafilaturaBM25,
    bm25_order,
    cut_to_budget,
    html_text_units,
    make_system,
    pack,
    parse_options,
    split_specs,
)
from qatbe.errors import ConfigError
from qatbe.tokens import chars_div4

SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "sample"
unit_text = st.text(alphabet="abc xyz.\n", min_size=1, max_size=60)


@given(st.lists(unit_text, max_size=12), st.integers(0, 80), st.randoms(use_true_random=False))
def test_pack_never_exceeds_budget_and_keeps_document_order(units: list[str], budget: int, rnd: Any) -> None:
    order = list(range(len(units)))
    rnd.shuffle(order)
    out = pack(units, order, budget)
    assert chars_div4(out) <= budget
    # Reconstruct which units were kept: the output is those units, in index order, joined by blank lines.
    # Greedy on the given order: the output is exactly the units it accepted, in index order.
    limit, used, accepted = budget * 4, 0, []
    for i in order:
        size = len(units[i]) + (2 if accepted else 0)
        if used + size <= limit:
            accepted.append(i)
            used += size
    assert out == "\n\n".join(units[i] for i in sorted(accepted))


def test_pack_prefers_the_order_it_is_given() -> None:
    units = ["aaaa", "bbbb", "cccc"]
    # Budget 3 tokens = 12 chars: room for two 4-char units and one separator.
    assert pack(units, [2, 0, 1], 3) == "aaaa\n\ncccc"
    assert pack(units, [1, 2, 0], 3) == "bbbb\n\ncccc"
    assert pack(units, [0, 1, 2], 0) == ""


@given(st.text(max_size=300), st.integers(0, 100))
def test_cut_to_budget_is_a_prefix_within_budget(text: str, budget: int) -> None:
    out = cut_to_budget(text, budget)
    assert chars_div4(out) <= budget
    assert text.startswith(out)


def test_bm25_order_ranks_the_matching_unit_first() -> None:
    units = ["the weather today", "opening hours of the library", "parking"]
    assert bm25_order(units, "library hours")[0] == 1
    # Nothing matches: document order.
    assert bm25_order(units, "zebra") == [0, 1, 2]
    assert bm25_order([], "x") == []


def test_html_text_units_skip_scripts_and_keep_order() -> None:
    html = "<html><head><title>T</title><style>p{}</style></head><body><p>one <b>two</b></p>" \
           "<script>var x=1;</script><ul><li>three</li></ul></body></html>"
    assert html_text_units(html) == ["one", "two", "three"]


def test_deeply_nested_html_does_not_recurse() -> None:
    depth = 3_000  # past Python's recursion limit; Lexbor's own parse time grows faster than linearly with depth
    html = "<div>" * depth + "deep" + "</div>" * depth
    assert html_text_units(html) == ["deep"]


def test_random_pick_is_seeded() -> None:
    doc = BenchDocument("d", "\n\n".join(f"block {i}" for i in range(30)), "text")
    a, b, c = RandomPick(seed=1), RandomPick(seed=1), RandomPick(seed=2)
    out = [s.select(s.prepare(doc), "q", 20) for s in (a, b, c)]
    assert out[0] == out[1]
    assert out[0] != out[2]


def test_baselines_on_the_sample_stay_within_budget() -> None:
    ds = load(SAMPLE)
    available = [s for s in (Lead(), RandomPick(), TextNodesBM25(), TrafilaturaBM25()) if s.missing() is None]
    assert available  # Lead and RandomPick need no peer
    for system in available:
        for doc in ds.documents.values():
            state = system.prepare(doc)
            for budget in (0, 30, 200):
                assert chars_div4(system.select(state, "library opening hours", budget)) <= budget


def test_system_specs() -> None:
    assert make_system("lead").name == "lead"
    assert make_system("random:seed=3").name == "random:seed=3"
    q = make_system("qatbe:fill=none,include_headings=false,k1=1.5")
    assert q.name == "qatbe:fill=none,include_headings=false,k1=1.5"
    assert q.options == {"fill": "none", "include_headings": False, "k1": 1.5}  # type: ignore[attr-defined]
    for bad, message in [
        ("nope", "unknown system"),
        ("lead:x=1", "takes no options"),
        ("qatbe:colour=red", "unknown qatbe option"),
        ("qatbe:budget=5", "set by the benchmark"),
        ("qatbe:fill=sometimes", "fill must be one of"),
        ("qatbe:include_headings=maybe", "true or false"),
        ("random:seed=x", "seed=N"),
    ]:
        with pytest.raises(ConfigError, match=message):
            make_system(bad)
    assert parse_options("") == {}


def test_split_specs_keeps_qatbe_option_lists_together() -> None:
    assert split_specs("qatbe,lead") == ["qatbe", "lead"]
    assert split_specs("qatbe:fill=none,bm25=okapi,lead;random") == ["qatbe:fill=none,bm25=okapi", "lead", "random"]
    with pytest.raises(ConfigError):
        split_specs("lead,lead")
    with pytest.raises(ConfigError):
        split_specs(" , ")


# -- the runner, with stand-in systems -----------------------------------------------------------------------


class Echo:
    """Stand-in system: returns the document unchanged, whatever the budget (so it can go over budget)."""

    name = "echo"

    def missing(self) -> str | None:
        return None

    def prepare(self, document: BenchDocument) -> str:
        return document.source

    def select(self, prepared: str, query: str, budget: int) -> str:
        return prepared


class Broken(Echo):
    name = "broken"

    def select(self, prepared: str, query: str, budget: int) -> str:
        raise RuntimeError("kaput\nsecond line")


class Absent(Echo):
    name = "absent"

    def missing(self) -> str | None:
        return "peerlib not installed"


def tiny_dataset() -> Dataset:
    docs = {"d": BenchDocument("d", "Ada Lovelace wrote the first program in 1843.", "text")}
    items = (QAItem("q1", "d", "who?", ("Ada Lovelace",), ("first program",)),
             QAItem("q2", "d", "when?", ("1843",)),
             QAItem("q3", "d", "really?", ("yes",), (), "yes_no"))
    return Dataset("tiny", docs, items, (), "0" * 64)


def test_runner_scores_records_errors_and_skips_missing_peers() -> None:
    report = run_retention([tiny_dataset()], [Echo(), Broken(), Absent()], budgets=[5, 100])
    assert report.skipped_systems == {"absent": "peerlib not installed"}
    rows = {(r["system"], r["budget"]): r for r in report.rows}
    assert set(rows) == {("echo", 5), ("echo", 100), ("broken", 5), ("broken", 100)}
    # The document is 46 chars = 12 tokens: all three outputs over a budget of 5, within 100.
    assert rows[("echo", 5)]["over_budget"] == 3 and rows[("echo", 100)]["over_budget"] == 0
    assert rows[("echo", 100)]["answer_retention"] == 1.0 and rows[("echo", 100)]["answerable"] == 2
    assert rows[("echo", 100)]["skipped"] == {"yes_no": 1}
    assert rows[("broken", 5)]["errors"] == 3 and rows[("broken", 5)]["answer_retention"] == 0.0
    assert rows[("broken", 5)]["first_error"] == "RuntimeError: kaput"
    for key in ("qatbe_version", "backend", "python", "cpu", "date", "dataset_sha256"):
        assert key in rows[("echo", 5)]


def test_report_writes_self_describing_rows(tmp_path: Path) -> None:
    report = run_retention([tiny_dataset()], [Echo()], budgets=[5], keep_items=True)
    has_matplotlib = importlib.util.find_spec("matplotlib") is not None
    written = report.write(tmp_path, plot=has_matplotlib)
    rows = [json.loads(line) for line in written["rows"].read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1 and rows[0]["system"] == "echo" and rows[0]["budget"] == 5
    assert "echo" in written["table"].read_text(encoding="utf-8")
    assert len(written["items"].read_text(encoding="utf-8").splitlines()) == 3
    if has_matplotlib:
        assert written["plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_peer_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(systems_mod.importlib.util, "find_spec",
                        lambda name, *a: None if name == "trafilatura" else real(name, *a))
    reason = TrafilaturaBM25().missing()
    assert reason is not None and "trafilatura" in reason and "qatbe[bench]" in reason
    report = run_retention([tiny_dataset()], [TrafilaturaBM25(), Lead()], budgets=[50])
    assert "trafilatura-bm25" in report.skipped_systems
    assert [r["system"] for r in report.rows] == ["lead"]
