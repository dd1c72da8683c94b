"""Replay inputs through every target: ``python fuzz/replay.py DIR_OR_FILE ...``; prints how many ran.

Meant for the sanitized build (fuzz/README.md): atheris's coverage feedback needs libFuzzer's coverage hooks, and
gcc's ASan runtime, preloaded for a gcc build, provides its own, so the coverage-guided runs are made on the normal
build and the corpora they grow are replayed here under ASan and UBSan. A sanitizer report aborts the process; a
failed check raises with the input's path.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import targets


def main(paths: list[str]) -> int:
    files = sorted(f for p in map(Path, paths) for f in ([p] if p.is_file() else p.iterdir()) if f.is_file())
    started = time.perf_counter()
    for path in files:
        data = path.read_bytes()
        for name, target in targets.TARGETS.items():
            try:
                target(data)
            except Exception as exc:
                raise SystemExit(f"{path}: target {name}: {type(exc).__name__}: {exc}") from exc
    print(f"{len(files)} inputs x {len(targets.TARGETS)} targets in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
