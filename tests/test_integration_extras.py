"""The integrations stay at the edge: ``import qatbe`` imports no framework, and an integration imported without its
framework raises ``qatbe.MissingExtraError`` naming the extra. Run in a fresh interpreter, where ``sys.modules``
blocks the frameworks (a ``None`` entry makes their import fail as if they were not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_FRAMEWORKS = ("langchain_core", "langchain_classic", "llama_index", "scrapy", "twisted", "itemadapter", "pydantic")

_PROBE = """
import json, sys
for name in {blocked!r}:
    sys.modules[name] = None
import qatbe, qatbe.integrations
report = {{"loaded": sorted(n for n in sys.modules if n.split(".")[0] in {frameworks!r} and sys.modules[n] is not None)}}
for module in {modules!r}:
    try:
        __import__("qatbe.integrations." + module)
        report[module] = None
    except qatbe.MissingExtraError as exc:
        report[module] = [type(exc).__name__, isinstance(exc, ImportError), str(exc)]
print(json.dumps(report))
"""


def _probe(blocked: tuple[str, ...], modules: tuple[str, ...]) -> dict[str, object]:
    code = _PROBE.format(blocked=blocked, frameworks=_FRAMEWORKS, modules=modules)
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_import_qatbe_loads_no_framework_and_each_integration_names_its_extra() -> None:
    report = _probe(("langchain_core", "llama_index", "scrapy"), ("langchain", "llamaindex", "scrapy"))
    assert report["loaded"] == []
    for module, framework in (("langchain", "langchain_core"), ("llamaindex", "llama_index"), ("scrapy", "scrapy")):
        entry = report[module]
        assert isinstance(entry, list)
        kind, is_import_error, message = entry
        assert kind == "MissingExtraError" and is_import_error
        assert f"pip install 'qatbe[{module}]'" in message and framework in message
        assert f"qatbe.integrations.{module}" in message


def test_with_nothing_blocked_import_qatbe_still_loads_no_framework() -> None:
    # The integrations themselves import with their frameworks in the other tests (and test_package_layout).
    assert _probe((), ())["loaded"] == []
