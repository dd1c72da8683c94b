"""The offset probe of lexbor_nodes failing (forced with QATBE_LEXBOR_DIRECT=0, as on a Lexbor whose node layout
it does not recognise): the compiled walk then calls Lexbor's exported node functions and gives the same segments
and metadata as when it reads the node header in place. Each mode needs a fresh interpreter (the probe runs once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "html"

_DUMP = """
import json, sys
from pathlib import Path
import qatbe
from qatbe.segmentation import html, lexbor_nodes
out = {"fast": html.FAST_WALK, "direct": lexbor_nodes.reads_directly(), "reason": lexbor_nodes.reason(), "pages": {}}
for path in sorted(Path(sys.argv[1]).iterdir()):
    data = path.read_bytes()
    segs = [[s.kind.value, s.text, s.index, s.level, list(s.heading_path)] for s in qatbe.segment(data, format="html")]
    out["pages"][path.name] = [segs, qatbe.extract(data, "price", format="html").metadata.to_dict()]
print(json.dumps(out))
"""


def _dump(direct: str | None) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QATBE_LEXBOR_DIRECT", None)
    env.pop("QATBE_HTML_WALK", None)
    if direct is not None:
        env["QATBE_LEXBOR_DIRECT"] = direct
    done = subprocess.run([sys.executable, "-c", _DUMP, str(FIXTURES)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout)
    return out


def test_forced_probe_failure_falls_back_to_the_node_functions_with_the_same_output() -> None:
    direct = _dump(None)
    if not direct["fast"]:
        pytest.skip("the compiled walk is not in use here")
    assert direct["direct"] is True
    called = _dump("0")
    assert called["fast"] is True and called["direct"] is False  # still the compiled walk, through the functions
    assert called["pages"] == direct["pages"]
    assert len(direct["pages"]) >= 20  # type: ignore[arg-type]


def test_a_malformed_switch_is_refused_and_the_python_walk_says_why() -> None:
    out = _dump("maybe")
    if out["reason"] is None and not out["fast"]:
        pytest.skip("the compiled walk is not in use here")
    assert out["fast"] is False and "QATBE_LEXBOR_DIRECT must be 0 or 1" in str(out["reason"])
