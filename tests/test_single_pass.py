"""benchmarks/single_pass.py: every page once, each system in a process of its own, beside the bench's protocol."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from scripts import benchmark_script


@pytest.fixture(scope="module")
def single_pass() -> ModuleType:
    return benchmark_script("single_pass")


def _pages(folder: Path, n: int) -> list[Path]:
    for k in range(n):
        body = "".join(f"<p>Paragraph {j} of page {k} about tides and harbours.</p>" for j in range(3 + k))
        (folder / f"p{k}.html").write_text(f"<html><head><title>Tides {k}</title></head><body><h1>Tides {k}</h1>"
                                           f"{body}</body></html>", encoding="utf-8")
    return [folder]


def test_one_system_times_every_page_but_the_warm_ones_under_every_protocol(single_pass: ModuleType,
                                                                            tmp_path: Path) -> None:
    from qatbe.bench.speed import read_pages

    pages = read_pages(_pages(tmp_path, 4))
    got = single_pass.one_system("qatbe:summary", pages, 1)
    assert set(got) == {"single pass", "round robin", "repeated"}
    assert all(len(times) == 3 and all(t > 0 for t in times) for times in got.values())


def test_the_report_gives_every_protocol_and_the_target_ratios(single_pass: ModuleType, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    folder = _pages(tmp_path, 4)[0]
    assert single_pass.main([str(folder), "--systems", "parse,qatbe:summary,bm25:qatbe", "--warm", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 pages timed once each after 1 untimed, then in 3 rounds" in out
    for protocol in ("single pass", "round robin", "repeated"):
        line = next(row for row in out.splitlines() if row.startswith(protocol))
        assert "parse" in line and "qatbe:summary" in line and "bm25:qatbe" in line
    assert out.count("given pages (3 pages): qatbe:summary / parse") == 3
    assert out.count("bm25:qatbe: no page with 20+ segments") == 3  # these pages are small


@pytest.mark.parametrize("argv", [["--systems", "parse,nothing"], ["--warm", "4"], ["--warm", "-1"]])
def test_bad_arguments_stop_with_a_message(single_pass: ModuleType, tmp_path: Path, argv: list[str]) -> None:
    folder = _pages(tmp_path, 4)[0]
    with pytest.raises(SystemExit) as stop:
        single_pass.main([str(folder), *argv])
    assert stop.value.code == 2
