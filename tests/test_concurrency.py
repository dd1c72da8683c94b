"""One shared Extractor under load: 8 threads, and worker processes, give exactly the sequential results.

Pages are the dev corpora's (a slice of them, so that the test takes seconds) or, without the corpora, generated
pages of several languages and shapes. Each thread walks the whole list from its own starting point, so different
pages (and their different languages, tables, lists) are in flight together.
"""

from __future__ import annotations

import gzip
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from conftest import CORPORA
from threads import in_threads

import qatbe

THREADS = 8
PAGES = 32  # per thread: 8 x 24 extractions in threads, and the same list in processes
QUERIES = ("what does it cost", "who wrote this and when", "how do I install it", None)
BUDGET = 300

_LANG = {
    "en": "The ferry to the island leaves at nine and costs twelve euros for adults.",
    "de": "Die Fähre zur Insel fährt um neun Uhr und kostet zwölf Euro für Erwachsene.",
    "fr": "Le bateau pour l'île part à neuf heures et coûte douze euros pour les adultes.",
}


def _generated(n: int) -> list[bytes]:
    pages = []
    for k in range(n):
        lang = list(_LANG)[k % len(_LANG)]
        rows = "".join(f"<tr><td>item {j}</td><td>{j * k} euros</td></tr>" for j in range(k % 7 + 1))
        body = "".join(f"<p>{_LANG[lang]} ({k}.{j})</p>" for j in range(k % 5 + 2))
        pages.append(f'<html lang="{lang}"><head><title>Page {k}</title></head><body><nav>Home | About</nav>'
                     f"<h1>Page {k}</h1>{body}<table>{rows}</table><ul><li>install with pip</li></ul>"
                     f"<footer>Written by Ann {k}</footer></body></html>".encode())
    return pages


def _pages(n: int) -> list[bytes]:
    folder = CORPORA / "scrapinghub-aeb" / "html"
    if not folder.is_dir():
        return _generated(n)
    out = []
    for path in sorted(folder.iterdir())[:n]:
        data = path.read_bytes()
        out.append(gzip.decompress(data) if path.name.endswith(".gz") else data)
    return out


def _digest(r: qatbe.Result) -> tuple[object, ...]:
    d = r.to_dict()
    d.pop("evaluation_time_ms")
    return (r.text, repr(d))


_worker_extractor: qatbe.Extractor | None = None


def _init_worker() -> None:
    global _worker_extractor
    _worker_extractor = qatbe.Extractor(budget=BUDGET)


def _in_worker(job: tuple[bytes, str | None]) -> tuple[object, ...]:
    assert _worker_extractor is not None
    return _digest(_worker_extractor.extract(job[0], job[1]))


def _jobs(pages: list[bytes]) -> list[tuple[bytes, str | None]]:
    return [(page, QUERIES[k % len(QUERIES)]) for k, page in enumerate(pages)]


def test_threads_sharing_one_extractor_match_the_sequential_run() -> None:
    jobs = _jobs(_pages(PAGES))
    expected = [_digest(qatbe.Extractor(budget=BUDGET).extract(page, q)) for page, q in jobs]
    shared = qatbe.Extractor(budget=BUDGET)
    parsed = shared.parse(jobs[0][0], shared.settings.include_navigation)  # one parsed page, shared too
    results: dict[tuple[int, int], tuple[object, ...]] = {}
    on_parsed: list[tuple[object, ...]] = []
    starts = iter(range(THREADS))

    def work() -> None:
        me = next(starts)  # next() on a range iterator is atomic under the GIL
        for step in range(len(jobs)):
            k = (me * 3 + step) % len(jobs)
            results[(me, k)] = _digest(shared.extract(*jobs[k]))
            if step % 8 == 0:
                on_parsed.append(_digest(shared.extract(parsed, jobs[0][1])))

    in_threads(work, THREADS, together=True)
    assert len(results) == THREADS * len(jobs)
    mismatched = sorted({k for (_, k), got in results.items() if got != expected[k]})
    assert not mismatched, f"pages {mismatched} differ from the sequential run"
    assert on_parsed and all(d == expected[0] for d in on_parsed)


def test_worker_processes_match_the_sequential_run() -> None:
    jobs = _jobs(_pages(PAGES))
    expected = [_digest(qatbe.Extractor(budget=BUDGET).extract(page, q)) for page, q in jobs]
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing inherited from this one
    with ProcessPoolExecutor(max_workers=2, mp_context=context, initializer=_init_worker) as pool:
        got = list(pool.map(_in_worker, jobs, chunksize=4))
    assert got == expected


def test_generated_fallback_pages_are_varied() -> None:
    pages = _generated(12)
    assert len(set(pages)) == 12 and {qatbe.extract(p, None).metadata.language for p in pages} == set(_LANG)

