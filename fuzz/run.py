"""Fuzz one target with atheris: ``python fuzz/run.py TARGET [libFuzzer options] [CORPUS_DIR ...]``.

TARGET is ``extract``, ``segment`` or ``extract_many`` (``fuzz/targets.py``). qatbe's Python modules, markdown-it
and charset-normalizer are instrumented for coverage; the compiled modules are not (their crashes still show,
and with a ``QATBE_SANITIZE=1`` build, ASan/UBSan report their memory errors: fuzz/README.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["qatbe", "markdown_it", "charset_normalizer", "targets"]):
    import targets


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        raise SystemExit(f"usage: python fuzz/run.py {{{','.join(targets.TARGETS)}}} [libFuzzer options] [corpus]")
    target = targets.TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
