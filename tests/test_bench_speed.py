"""The speed benchmark's plumbing (page reading, statistics, report); no timing is asserted."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from qatbe.bench import speed
from qatbe.bench.cli import main
from qatbe.bench.speed import Page, bm25_qatbe, loglog_slope, percentile, read_pages, run_speed, systems
from qatbe.errors import DataError
from qatbe.score import Scores

PAGE = "<html><head><title>Tide tables</title></head><body><h1>Tides</h1><p>{}</p></body></html>"


def write_pages(folder: Path, sizes: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n, size in enumerate(sizes):
        html = PAGE.format("high tide at noon. " * size)
        if n % 2:
            (folder / f"p{n}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
        else:
            (folder / f"p{n}.html").write_text(html, encoding="utf-8")


def test_statistics() -> None:
    sizes = [1.0, 2.0, 4.0, 8.0, 16.0]
    linear = loglog_slope(sizes, [3 * s for s in sizes])
    quadratic = loglog_slope(sizes, [3 * s * s for s in sizes])
    assert linear is not None and abs(linear - 1.0) < 1e-9
    assert quadratic is not None and abs(quadratic - 2.0) < 1e-9
    assert loglog_slope([1.0, 2.0], [1.0, 2.0]) is None
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile(list(map(float, range(1, 101))), 0.95) == 95.0


def test_read_pages_decodes_and_keeps_the_biggest(tmp_path: Path) -> None:
    write_pages(tmp_path, [1, 50, 2, 3, 4, 5])
    pages = read_pages([tmp_path])
    assert len(pages) == 6 and all(p.query == "Tide tables" for p in pages)
    assert {p.size for p in pages} == {len(PAGE.format("high tide at noon. " * s).encode()) for s in [1, 50, 2, 3, 4, 5]}
    few = read_pages([tmp_path], limit=2, biggest=1)
    assert len(few) == 2 and max(p.size for p in few) == max(p.size for p in pages)
    with pytest.raises(DataError, match="no such page"):
        read_pages([tmp_path / "missing"])
    (tmp_path / "bad.html.gz").write_bytes(b"not gzip")
    with pytest.raises(DataError, match="not gzip"):
        read_pages([tmp_path / "bad.html.gz"])


def test_bm25_qatbe_scores_the_page_as_segmented_and_qatbe_text_its_texts_only(tmp_path: Path) -> None:
    """The two qatbe scorer rows differ only in what they are given: the segments as qatbe made them (the heading
    lends its words to the paragraph under it) or their texts as plain paragraphs (no heading to lend any)."""
    (tmp_path / "p.html").write_text("<html><head><title>Tide tables</title></head><body><h1>Tide tables</h1>"
                                     "<p>High water at noon and low water at six.</p></body></html>", encoding="utf-8")
    page = read_pages([tmp_path])[0]
    table = systems()
    as_segmented = cast(Scores, table["bm25:qatbe"][0](page)())
    as_text = cast(Scores, table["bm25:qatbe-text"][0](page)())
    assert as_segmented.heading is not None and as_segmented.heading[-1] > 0
    assert as_text.heading is None or not as_text.heading.any()
    assert as_text.raw[-1] == 0 < as_segmented.raw[-1]


def test_bm25_qatbe_scores_in_the_declared_language_and_the_guess_row_guesses(tmp_path: Path) -> None:
    """``extract`` scores a page in the language it declares; so does the ``bm25:qatbe`` row. The ``-guess`` row
    guesses it from the page, as ``extract`` does for a page that declares none (here: English prose)."""
    prose = "<p>The tide comes in at noon and it goes out in the evening, and then the boats are on the sand.</p>"
    (tmp_path / "de.html").write_text(f'<html lang="de-AT"><head><title>Tide tables</title></head><body>{prose}'
                                      "</body></html>", encoding="utf-8")
    (tmp_path / "none.html").write_text(f"<html><head><title>Tide tables</title></head><body>{prose}</body></html>",
                                        encoding="utf-8")
    declared, undeclared = read_pages([tmp_path])
    table = systems()
    assert cast(Scores, table["bm25:qatbe"][0](declared)()).language == "de"
    assert cast(Scores, table["bm25:qatbe-guess"][0](declared)()).language == "en"
    assert cast(Scores, table["bm25:qatbe"][0](undeclared)()).language == "en"


def test_bm25_qatbe_options_set_settings_fields_for_every_page(tmp_path: Path) -> None:
    """The scripts that take the row apart ask what a part of the scorer costs by switching it off: the options
    reach the settings of every page, declared language or not (here: no heading share, so the paragraph under
    the matching heading inherits nothing)."""
    (tmp_path / "p.html").write_text('<html lang="en"><head><title>Tide tables</title></head><body>'
                                     "<h1>Tide tables</h1><p>High water at noon and low water at six.</p>"
                                     "</body></html>", encoding="utf-8")
    page = read_pages([tmp_path])[0]
    default = cast(Scores, bm25_qatbe(False)(page)())
    without = cast(Scores, bm25_qatbe(False, options={"heading_share": 0.0})(page)())
    guessed = cast(Scores, bm25_qatbe(False, guess=True, options={"heading_share": 0.0})(page)())
    assert default.raw[-1] > 0 and default.language == "en"
    assert without.raw[-1] == 0 and without.language == "en"
    assert guessed.raw[-1] == 0


def test_script_paths_gives_the_pages_or_names_the_missing_ones(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The scripts that take the bench apart read the pages they are given; a missing one stops them, named."""
    (tmp_path / "p.html").write_text("<p>x</p>", encoding="utf-8")
    assert speed.script_paths([tmp_path]) == [tmp_path]
    assert speed.script_paths([tmp_path, tmp_path / "gone"]) is None
    assert f"not found: {tmp_path / 'gone'}" in capsys.readouterr().err


def test_run_speed_starts_each_page_at_the_next_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A system runs in the caches the call before it left: no system may always follow the same one, and each
    meets the page once untimed. The report keeps the systems in their own order whatever order they ran in."""
    write_pages(tmp_path, [1, 2, 3, 4])
    ran: list[str] = []

    def timed(name: str) -> Callable[[Page], Callable[[], object]]:
        return lambda page: lambda: ran.append(name)

    monkeypatch.setattr(speed, "systems", lambda: {name: (timed(name), ()) for name in ("a", "b", "c")})
    report = run_speed(read_pages([tmp_path]), repeat=1)
    firsts = [name for k, name in enumerate(ran) if k == 0 or ran[k - 1] != name]
    # per page and system: one untimed call, then the timed one (repeat=1), the systems in turn from the next one
    assert len(ran) == 4 * 3 * 2
    assert firsts == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c"]
    assert [list(p["seconds"]) for p in report.pages] == [["a", "b", "c"]] * 4


def test_the_single_pass_times_each_page_once_before_the_repeats(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The single pass runs first on each page (after one untimed call of each system on the demo page), each of
    its systems once, the page starting them at the next one; the repeated calls follow."""
    write_pages(tmp_path, [1, 2, 3])
    ran: list[tuple[str, str]] = []

    def timed(name: str) -> Callable[[Page], Callable[[], object]]:
        return lambda page: lambda: ran.append((name, page.name))

    monkeypatch.setattr(speed, "systems", lambda: {name: (timed(name), ()) for name in ("a", "b", "c")})
    monkeypatch.setattr(speed, "SINGLE_PASS", ("a", "b"))
    report = run_speed(read_pages([tmp_path]), protocol="single")
    assert ran == [("a", "demo.html"), ("b", "demo.html"), ("a", "p0.html"), ("b", "p0.html"), ("b", "p1.html.gz"),
                   ("a", "p1.html.gz"), ("a", "p2.html"), ("b", "p2.html")]
    assert [sorted(p["single"]) for p in report.pages] == [["a", "b"]] * 3
    assert all(not p["seconds"] for p in report.pages)
    ran.clear()
    report = run_speed(read_pages([tmp_path]), repeat=1)
    first_page = [name for name, page in ran if page == "p0.html"]
    assert first_page == ["a", "b", "a", "a", "b", "b", "c", "c"]  # single pass, then one untimed + one timed each
    assert "single pass" in report.table() and "repeated calls" in report.table()


def test_run_speed_reports_every_page(tmp_path: Path) -> None:
    write_pages(tmp_path, [1, 8, 30])
    report = run_speed(read_pages([tmp_path]), names=["parse", "bm25:qatbe", "bm25:qatbe-text"], repeat=1)
    assert [set(p["seconds"]) for p in report.pages] == [{"parse", "bm25:qatbe", "bm25:qatbe-text"}] * 3
    summary = report.summary()
    assert summary["systems"]["parse"]["pages"] == 3
    assert "parse" in report.table()


def test_cli_speed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_pages(tmp_path / "pages", [1, 2, 3])
    code = main(["speed", str(tmp_path / "pages"), "--systems", "parse", "--repeat", "1", "--no-progress",
                 "--no-plot", "--out", str(tmp_path / "out")])
    assert code == 0
    data = json.loads((tmp_path / "out" / "speed.json").read_text(encoding="utf-8"))
    assert data["benchmark"] == "speed" and len(data["pages"]) == 3 and "cpu" in data
    capsys.readouterr()
    assert main(["speed", str(tmp_path / "pages"), "--systems", "parse,warp"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown speed system 'warp'" in err


def test_the_target_ratios_are_reported_per_corpus() -> None:
    from qatbe.bench.speed import SpeedReport

    def page(name: str, parse: float, ours: float, traf: float) -> dict[str, object]:
        return {"name": name, "bytes": 1000, "segments": 10, "errors": {},
                "seconds": {"parse": parse, "qatbe:summary": ours, "trafilatura-fast": traf}}

    pages = [page("aeb/a", 1.0, 4.0, 40.0), page("aeb/b", 1.0, 6.0, 30.0), page("aeb/c", 2.0, 10.0, 50.0),
             page("wcxb/x", 1.0, 9.0, 9.0)]
    summary = SpeedReport({}, pages, {}).summary()
    aeb = summary["by_corpus"]["aeb"]
    assert aeb["pages"] == 3
    assert aeb["qatbe:summary / parse"]["median"] == 5.0
    assert aeb["trafilatura-fast / qatbe:summary"]["median"] == 5.0
    assert summary["by_corpus"]["wcxb"]["qatbe:summary / parse"]["median"] == 9.0
    assert "the target ratios per corpus" in SpeedReport({}, pages, {}).table()
    for p in pages:
        seconds = p["seconds"]
        assert isinstance(seconds, dict)
        p["single"] = {k: 2 * v for k, v in seconds.items()}
    single = SpeedReport({}, pages, {}).summary()["single_pass"]
    assert single["by_corpus"]["aeb"]["qatbe:summary / parse"]["median"] == 5.0
    assert single["systems"]["parse"]["median_ms"] == 2000.0
    assert SpeedReport({}, pages, {}).table().startswith("single pass")


def test_bm25_time_is_split_into_a_fixed_part_and_a_part_per_segment() -> None:
    from qatbe.bench.speed import SpeedReport

    def page(name: str, segments: int, ms: float) -> dict[str, object]:
        return {"name": name, "bytes": 1000, "segments": segments, "errors": {}, "seconds": {"bm25:qatbe": ms / 1000}}

    # 0.05 ms a page plus 1.2 ms per 1,000 segments; the page of 10 segments is left out (fewer than 20)
    pages = [page(f"p{n}", n, 0.05 + 0.0012 * n) for n in (25, 60, 90, 200, 500)] + [page("small", 10, 9.0)]
    got = SpeedReport({}, pages, {}).summary()["per_1000_segments_ms"]["bm25:qatbe"]
    assert got["fixed_ms"] == pytest.approx(0.05)
    assert got["marginal_ms_per_1000"] == pytest.approx(1.2)
    assert got["median"] == pytest.approx(1000 * (0.05 + 0.0012 * 90) / 90)  # the per-page figure is unchanged
    table = SpeedReport({}, pages, {}).table()
    assert "fixed ms a page" in table and "0.050" in table and "1.200" in table
    # one page size only: no split, and the table says so
    same = [page(f"q{n}", 40, 0.1 + n / 100) for n in range(3)]
    got = SpeedReport({}, same, {}).summary()["per_1000_segments_ms"]["bm25:qatbe"]
    assert "fixed_ms" not in got and "—" in SpeedReport({}, same, {}).table()
