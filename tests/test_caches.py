"""Every cache kept across calls stays within its bound over a stream of new words, queries and languages, and
``benchmarks/rss_stream.py`` runs (a few pages; the 100,000-page figure is the benchmark's, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import qatbe
from qatbe import caches
from qatbe.score import analyze, languages

ROOT = Path(__file__).resolve().parents[1]


def _page(k: int) -> str:
    words = " ".join(f"term{k}x{j} word{j}{k}s" for j in range(40))
    return (f"<html lang='en'><head><title>Page {k}</title></head><body><article><h1>Heading {k}</h1>"
            f"<p class='c{k} body-{k}'>{words}</p><p>Second paragraph {k} about things{k}.</p></article></body></html>")


def test_every_cache_stays_within_its_bound_over_a_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small bounds, many pages with words never seen before and a new query each: no cache passes its bound
    (the term memo by at most the one page's tokens it checks its bound before), and the output does not
    depend on what was cached (the same page extracted again gives the same result)."""
    monkeypatch.setattr(analyze, "MEMO_MAX", 50)
    monkeypatch.setattr(analyze, "FILTER_MEMO_MAX", 3)
    analyze.clear_analyzers()  # new analysers read the small bounds
    first = qatbe.extract(_page(0), "term0x1 things0")
    per_page = 2 * 40 + 12  # distinct tokens of one page, at most
    try:
        for k in range(1, 60):
            qatbe.extract(_page(k), f"term{k}x3 heading {k}")
            for size in caches.sizes():
                slack = per_page if size.name == "term memo" else 0
                assert size.entries <= size.bound + slack, size
        got = {s.name: s for s in caches.sizes()}
        assert got["term memo"].entries > 0 and got["surface terms"].entries <= 50
        assert got["prefix filters"].entries <= 3
        again = qatbe.extract(_page(0), "term0x1 things0")
        assert (again.text, again.segments) == (first.text, first.segments)
    finally:
        analyze.clear_analyzers()


def test_analysers_are_kept_per_language_code_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Declared variants of one language share its analyser; beyond ``ANALYZERS_KEPT`` codes the least recently
    used goes."""
    analyze.clear_analyzers()
    try:
        assert analyze.analyzer("en-GB") is analyze.analyzer("EN_us") is analyze.analyzer("en")
        monkeypatch.setattr(analyze, "ANALYZERS_KEPT", 4)
        codes = ["de", "fr", "xx", "yy", "zz", "qq"]
        for code in codes:
            analyze.analyzer(code)
        kept = [a.language for a in analyze.analyzers()]
        assert kept == codes[-4:]
    finally:
        analyze.clear_analyzers()


def test_language_tables_are_loaded_once_per_shipped_language() -> None:
    """A code without a lexicon or a stemmer caches nothing: the tables hold shipped languages only."""
    for code in (f"q{a}{b}" for a in "abcdefgh" for b in "abcdefgh"):
        assert languages.lexicon(code) is languages.EMPTY and languages.stemmer(code) is None
        assert languages.stopwords(code) == frozenset()
    assert languages._lexicon.cache_info().currsize <= len(languages.LEXICONS)
    assert languages._stemmer.cache_info().currsize <= len(set(languages.STEMMERS.values()))
    assert languages.lexicon("en") is languages.lexicon("en")


def test_sizes_names_every_cache_of_the_table() -> None:
    listed = {s.name for s in caches.sizes()}
    for name in ("analysers", "term memo", "surface terms", "prefix filters", "queries read", "word splits",
                 "exact powers"):
        assert name in listed
    assert all(s.bound >= 1 and s.entries >= 0 for s in caches.sizes())


def test_rss_stream_runs(corpora: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rss_stream.py"), "--pages", "30", "--every", "10",
         "--corpora", str(corpora), "--out", str(tmp_path)],
        capture_output=True, text=True, check=False, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "rss_stream.json").read_text("utf-8"))
    assert result["pages"] == 30 and [s["page"] for s in result["samples"]] == [10, 20, 30]
    assert all(s["rss_mb"] > 0 for s in result["samples"])
    assert (tmp_path / "rss_stream.md").read_text("utf-8").startswith("qatbe ")


def test_preload_builds_every_shipped_languages_analyser() -> None:
    analyze.clear_analyzers()
    try:
        analyze.preload()
        assert sorted(str(a.language) for a in analyze.analyzers()) == sorted(languages.LEXICONS)
        analyze.preload(["de"])  # already there: nothing new
        assert len(analyze.analyzers()) == len(languages.LEXICONS)
    finally:
        analyze.clear_analyzers()
