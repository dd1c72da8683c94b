"""``qatbe.extract_batch``: the same results as ``qatbe.extract`` in a loop for any number of workers, in input
order or tagged with their index, an error record per bad item, a bounded number of items in flight, and the
options checked before anything runs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from many_pages import plain
from readme_examples import example

import qatbe
from qatbe.batch import _CHUNKS_PER_WORKER, BatchResult

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "html").glob("*.txt"))
QUESTIONS = ("how do I renew my passport and what does it cost?", "best way to learn chess openings", None)


def fixture_pages() -> list[bytes]:
    """Every HTML segmenter fixture's page, and the bundled demo page."""
    pages = [f.read_text(encoding="utf-8").split("==== expected ====")[0].encode() for f in FIXTURES]
    return [*pages, resources.files("qatbe.data").joinpath("demo.html").read_bytes()]


def results(outcomes: Iterator[BatchResult | qatbe.ItemError]) -> list[str]:
    out = []
    for outcome in outcomes:
        assert isinstance(outcome, BatchResult), outcome
        out.append(plain(outcome.result))
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_results_are_the_loops_for_any_number_of_workers(workers: int) -> None:
    pages = fixture_pages()
    items = [(page, QUESTIONS[i % len(QUESTIONS)]) for i, page in enumerate(pages)]
    loop = [plain(qatbe.extract(page, query, budget=120)) for page, query in items]
    assert results(qatbe.extract_batch(items, workers=workers, budget=120, chunksize=3)) == loop


def test_documents_name_their_results_and_the_default_query_applies() -> None:
    pages = fixture_pages()[:5]
    docs = [qatbe.Document(page, id=f"p{i}" if i % 2 else None, url=f"https://x.test/{i}")
            for i, page in enumerate(pages)]
    out = list(qatbe.extract_batch(docs, "chess", workers=2, tier="key_facts"))
    assert all(isinstance(o, BatchResult) for o in out)
    assert [o.index for o in out] == list(range(5))
    assert [o.id for o in out] == ["https://x.test/0", "p1", "https://x.test/2", "p3", "https://x.test/4"]
    assert [plain(o.result) for o in out if isinstance(o, BatchResult)] == [
        plain(qatbe.extract(p, "chess", tier="key_facts")) for p in pages]


def test_unordered_results_carry_their_index() -> None:
    pages = fixture_pages()[:9]
    loop = {i: plain(qatbe.extract(p, "fee")) for i, p in enumerate(pages)}
    out = list(qatbe.extract_batch(pages, "fee", workers=2, ordered=False, chunksize=1))
    assert sorted(o.index for o in out) == list(range(9))
    assert {o.index: plain(o.result) for o in out if isinstance(o, BatchResult)} == loop


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bad_item_is_an_error_record_and_the_others_go_on(workers: int) -> None:
    good = fixture_pages()[0]
    items: list[Any] = [good, 42, (good, "x", "y"), b"\x00\x01\x02\x03" * 100, qatbe.Document(b"\x00" * 99, id="bin"),
                        (good, 3), good]
    out = list(qatbe.extract_batch(items, workers=workers))
    assert [type(o).__name__ for o in out] == ["BatchResult", "ItemError", "ItemError", "ItemError", "ItemError",
                                               "ItemError", "BatchResult"]
    errors = [o for o in out if isinstance(o, qatbe.ItemError)]
    assert [(e.index, e.id, e.error_type) for e in errors] == [
        (1, None, "InputError"), (2, None, "InputError"), (3, None, "InputError"), (4, "bin", "InputError"),
        (5, None, "InputError")]
    assert "binary" in errors[2].message and "query must be a string" in errors[4].message


@pytest.mark.parametrize("workers", [1, 2])
def test_strict_raises_the_items_error(workers: int) -> None:
    with pytest.raises(qatbe.InputError, match="binary"):
        list(qatbe.extract_batch([fixture_pages()[0], b"\x00\x01\x02" * 100], workers=workers, strict=True))
    with pytest.raises(qatbe.InputError, match="an item must be"):
        list(qatbe.extract_batch([1.5], workers=workers, strict=True))


def test_options_are_checked_before_any_item_is_read() -> None:
    def never() -> Iterator[bytes]:
        raise AssertionError("an item was read")
        yield b""  # pragma: no cover

    for bad in ({"budget": -1}, {"tier": "huge"}, {"colour": "red"}, {"workers": 0}, {"chunksize": 0},
                {"ordered": "yes"}, {"strict": 1}, {"progress": None}):
        with pytest.raises(qatbe.ConfigError):
            qatbe.extract_batch(never(), **bad)
    with pytest.raises(qatbe.InputError):
        qatbe.extract_batch(never(), 42)


@pytest.mark.parametrize("workers", [1, 2])
def test_items_are_streamed_with_a_bounded_number_in_flight(workers: int) -> None:
    """A generator of many items is read as results are taken: never more than the pool's window ahead."""
    page = b"<html><body><h1>Fees</h1><p>The fee is 92 crowns.</p></body></html>"
    count = 400
    chunk = 3
    read = 0

    def items() -> Iterator[bytes]:
        nonlocal read
        for _ in range(count):
            read += 1
            yield page

    window = 1 if workers == 1 else workers * _CHUNKS_PER_WORKER * chunk
    ahead = []
    taken = 0
    for outcome in qatbe.extract_batch(items(), "fee", workers=workers, chunksize=chunk, budget=50):
        assert isinstance(outcome, BatchResult)
        taken += 1
        ahead.append(read - taken)
    assert taken == count
    assert max(ahead) <= window
    assert max(ahead) > 0 or workers == 1  # the pool does read ahead


def test_explain_works_for_results_made_in_workers() -> None:
    page = fixture_pages()[-1]
    query = QUESTIONS[0]
    out = next(qatbe.extract_batch([page], query, workers=2))
    assert isinstance(out, BatchResult)
    mine = qatbe.extract(page, query).explain()
    assert [r.to_dict() for r in out.result.explain()] == [r.to_dict() for r in mine] and mine


def test_progress_shows_pages_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    list(qatbe.extract_batch(fixture_pages()[:4], "fee", workers=1, progress=True))
    err = capsys.readouterr().err
    assert "4/4" in err and "pages/s" in err


def test_the_top_level_names_are_lazy() -> None:
    assert qatbe.extract_batch is __import__("qatbe.batch").batch.extract_batch
    assert "extract_batch" in qatbe.__all__ and "read_warc" in qatbe.__all__
    code = ("import sys, qatbe, qatbe.cli; qatbe.extract_batch; qatbe.read_warc; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'tqdm', 'fastwarc', 'warcio', 'pyspark', "
            "'pyarrow', 'pandas'}))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[1])
    assert found.stdout.strip() == "[]"


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(range(len(FIXTURES) + 1)), min_size=0, max_size=12),
       st.integers(min_value=20, max_value=400), st.integers(min_value=1, max_value=5))
def test_in_process_batches_match_the_loop_and_keep_the_budget(picks: list[int], budget: int, chunk: int) -> None:
    pages = fixture_pages()
    chosen = [pages[i] for i in picks]
    out = list(qatbe.extract_batch(chosen, "opening fee", workers=1, budget=budget, chunksize=chunk))
    assert [o.index for o in out] == list(range(len(chosen)))
    assert all(isinstance(o, BatchResult) and o.result.total_tokens <= budget for o in out)
    assert results(iter(out)) == [plain(qatbe.extract(p, "opening fee", budget=budget)) for p in chosen]


def test_the_readme_batch_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    exec(example("many-pages-batch"), {})  # noqa: S102 - the README example, run as written
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[0].startswith("0 ") and "92 crowns" in lines[0]
    assert lines[1].startswith("1 ") and lines[2].startswith("2 failed: InputError")
