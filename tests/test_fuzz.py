"""The fuzz targets (fuzz/targets.py): kept crash inputs replay cleanly, and each target fuzzes for a few seconds.

The long runs are on a sanitized build (fuzz/README.md); here each target runs briefly on the normal build, in a
subprocess (libFuzzer owns its process), from the fixture pages as seeds copied to a temporary corpus.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fuzz"))

import targets

REGRESSIONS = sorted((ROOT / "tests" / "fixtures" / "fuzz").glob("*"))
SECONDS = 4


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_kept_crash_inputs_replay_cleanly(path: Path) -> None:
    data = path.read_bytes()
    for target in targets.TARGETS.values():
        target(data)


def test_every_target_accepts_trivial_inputs() -> None:
    for data in (b"", b"\0", b"\xff" * 7, b"\x01\x02\x03\x04\x05\x06<p>x</p>", b"\x02\x00\x10\x00\x00\x00# T\n\n- a"):
        for target in targets.TARGETS.values():
            target(data)


@pytest.mark.parametrize("target", sorted(targets.TARGETS))
def test_target_fuzzes_briefly_without_a_finding(target: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for seed in sorted((ROOT / "tests" / "fixtures" / "markdown").glob("*"))[:5] + sorted(
            (ROOT / "tests" / "fixtures" / "html").glob("*"))[:5]:
        shutil.copy(seed, corpus / seed.name)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), target, f"-max_total_time={SECONDS}", "-seed=1",
         "-rss_limit_mb=3072", "-max_len=20000", f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=SECONDS + 120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done" in done.stderr
