"""The quality gate as a script, for CI: ``python benchmarks/quality_gate.py [--raise] [--allow-lower]``.

Same as ``qatbe bench gate``; see ``qatbe/bench/gate.py`` for the rules and ``benchmarks/quality_floors.json``
for the pinned floors.
"""

from __future__ import annotations

import sys

from qatbe.bench.cli import main

if __name__ == "__main__":
    sys.exit(main(["gate", *sys.argv[1:]]))
