"""Scoring speed: compiled core vs the pure-Python twin, per 1,000 segments, tokenization included.

    python -m pytest benchmarks/bench_kernel.py --benchmark-only --benchmark-columns=min,median,mean,rounds

The segments are 1,000 paragraphs of SQuAD dev articles when ``../shared/corpora`` is present (real prose, about
750 characters each), else 1,000 deterministic synthetic paragraphs with Zipf-distributed words. ``score`` is the
whole scoring stage (``qatbe.score.score_segments``: tokenize, analyse, BM25, proximity); ``bm25`` and
``tokenize`` time the two kernels alone; ``detect`` the language guess for a page that declares none. The
Python rows swap the twin in for the compiled module. ``str.split`` over the same texts is timed as a machine
anchor (scores are reported as a multiple of it).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from qatbe import _core_py
from qatbe.score import analyze, bm25, languages
from qatbe.settings import Settings
from qatbe.types import Segment, SegmentKind

try:
    from qatbe import _core
except ImportError:  # pragma: no cover - the benchmark then times the twin only
    _core = None

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
KERNELS = {"cython": _core, "python": _core_py}
N = 1000
QUERIES = ["Which NFL team represented the AFC at Super Bowl 50?", "When was the oil crisis?",
           "What is the capital of Normandy?", "How many people live in Warsaw?"]


def _paragraphs() -> tuple[list[str], str]:
    path = CORPORA / "squad11-dev" / "documents.jsonl"
    if path.exists():
        out: list[str] = []
        with path.open(encoding="utf-8") as f:
            for line in f:
                out.extend(p.strip() for p in json.loads(line)["markdown"].split("\n\n")[1:] if p.strip())
                if len(out) >= N:
                    return out[:N], "squad11-dev paragraphs"
    rng = random.Random(7)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10))) for _ in range(20000)]
    weights = [1.0 / (r + 1) for r in range(len(vocab))]
    texts = [" ".join(rng.choices(vocab, weights, k=rng.randint(20, 120))) for _ in range(N)]
    return texts, "synthetic Zipf paragraphs"


TEXTS, SOURCE = _paragraphs()
SEGMENTS = [Segment(SegmentKind.PARAGRAPH, t, t, i * 500, i) for i, t in enumerate(TEXTS)]
SETTINGS = Settings(language="en")


@pytest.fixture(params=sorted(KERNELS))
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    module = KERNELS[request.param]
    if module is None:
        pytest.skip("the compiled core is not built")
    monkeypatch.setattr(bm25, "kernel", module)
    monkeypatch.setattr(analyze, "kernel", module)
    monkeypatch.setattr(languages, "kernel", module)
    # Analyzers (their term memos) and the stopword table are kernel objects, built once: build them anew.
    analyze.clear_analyzers()
    languages._stop_classes.cache_clear()
    yield module
    analyze.clear_analyzers()
    languages._stop_classes.cache_clear()


def _info(benchmark: Any, kernel: ModuleType) -> None:
    benchmark.extra_info.update(
        segments=N, source=SOURCE, chars=sum(map(len, TEXTS)), kernel=kernel.__name__
    )


def test_score(benchmark: Any, kernel: ModuleType) -> None:
    """The whole scoring stage for one query over 1,000 segments (cycling through a few queries)."""
    _info(benchmark, kernel)
    queries = iter(QUERIES * 10_000)
    benchmark(lambda: bm25.score_segments(SEGMENTS, next(queries), SETTINGS))


def _arrays() -> tuple[Any, ...]:
    vocab: dict[str, int] = {}
    flat, offsets, lengths = analyze.analyzer("en").index(TEXTS, vocab)
    q = np.asarray(sorted(set(flat[:: max(1, len(flat) // 5)].tolist()))[:5], dtype=np.int32)
    return flat, offsets, len(vocab), q, np.ones(len(q)), 1.2, 0.75, 3, 0.5, 0.0, None, lengths


def test_bm25(benchmark: Any, kernel: ModuleType) -> None:
    _info(benchmark, kernel)
    args = _arrays()
    run: Callable[[], object] = lambda: kernel.bm25_scores(*args)
    benchmark(run)


def test_detect(benchmark: Any, kernel: ModuleType) -> None:
    """Language detection as the scorer runs it for a page without a declared language (``Settings()``): the
    stopword vote over an 8,000-character sample of the segments."""
    _info(benchmark, kernel)
    auto = Settings()
    benchmark(lambda: bm25.choose_language(SEGMENTS, auto))


def test_tokenize(benchmark: Any, kernel: ModuleType) -> None:
    _info(benchmark, kernel)
    benchmark(lambda: kernel.tokenize(TEXTS, ["su", "bo", "af"]))


def test_reference_str_split(benchmark: Any) -> None:
    """Machine anchor: ``str.split`` over the same texts. Compare ``score`` to it across machines."""
    benchmark.extra_info.update(segments=N, source=SOURCE, chars=sum(map(len, TEXTS)))
    benchmark(lambda: [t.split() for t in TEXTS])
