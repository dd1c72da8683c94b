"""The hostile corpus at the sizes issue 45 names: how each case ends, its time and its peak memory.

    PYTHONPATH=. python benchmarks/hostile.py [--cases nesting,table] [--timeout 900] [--json benchmarks/results/hostile.json]

Each case (``tests/hostile.py``) runs in its own interpreter, twice: at its full size and at a ``step``-th of it
(an eighth; a third of the table's rows, a ninth of its cells), and the ratio of CPU times is divided by the ratio
of input sizes: about 1 when time grows linearly, about 8 when it grows quadratically. Memory is the
peak resident set above what was resident once the input was built (``VmHWM`` after resetting it), so it counts
the decoded text, the parsed tree and the segments, and it is given as a multiple of the input's bytes (for the
gzip case, of the bytes the reader may hold: the decompressed input up to ``max_input_chars`` x 4).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from qatbe.bench.env import describe

ROOT = Path(__file__).resolve().parents[1]
# tests/hostile.py under another name: this script's own module name is "hostile" too.
_SPEC = importlib.util.spec_from_file_location("hostile_corpus", ROOT / "tests" / "hostile.py")
assert _SPEC is not None and _SPEC.loader is not None
corpus = importlib.util.module_from_spec(_SPEC)
sys.modules["hostile_corpus"] = corpus  # dataclasses look their module up there
_SPEC.loader.exec_module(corpus)
CASES = corpus.CASES

_CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
import hostile, qatbe
hostile.measure("nesting", 100)  # the first extract of a process loads lexicons: nobody's cost
m = hostile.measure({name!r}, {n})
print(json.dumps({{"outcome": m.outcome, "seconds": m.seconds, "input_bytes": m.input_bytes, "peak": m.peak}}))
"""


def run_one(name: str, n: int, timeout: float) -> dict[str, object]:
    code = _CHILD.format(tests=str(ROOT / "tests"), name=name, n=n)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    except subprocess.TimeoutExpired:
        return {"outcome": f"timeout after {timeout:.0f} s"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return {"outcome": f"crash: {tail[0][:200]}"}
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run before it counts as a hang")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows (and the machine) here")
    args = parser.parse_args()
    rows = []
    print("| case | size | input MB | outcome | CPU s | CPU s, smaller input | time ratio / input ratio | peak MB "
          "| peak / input |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for name in args.cases.split(","):
        case = CASES[name]
        full = run_one(name, case.full, args.timeout)
        eighth = run_one(name, case.full // case.step, args.timeout)
        row = {"case": name, "size": case.full, "full": full, "eighth": eighth}
        rows.append(row)
        seconds, small = full.get("seconds"), eighth.get("seconds")
        size, small_size = full.get("input_bytes"), eighth.get("input_bytes")
        ratio = None
        if (isinstance(seconds, float) and isinstance(small, float) and small > 0 and isinstance(size, int)
                and isinstance(small_size, int) and small_size > 0):
            ratio = (seconds / small) / (size / small_size)
        peak = full.get("peak")
        mb = f"{size / 1e6:.1f}" if isinstance(size, int) else "-"
        peak_mb = f"{peak / 1e6:.0f}" if isinstance(peak, int) else "-"
        multiple = f"{peak / size:.1f}" if isinstance(peak, int) and isinstance(size, int) and size else "-"
        print(f"| {name} | {case.full:,} | {mb} | {full['outcome']} | "
              f"{seconds if seconds is None else f'{seconds:.2f}'} | {small if small is None else f'{small:.2f}'} | "
              f"{'-' if ratio is None else f'{ratio:.2f}'} | {peak_mb} | {multiple} |", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": describe(), "rows": rows}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
