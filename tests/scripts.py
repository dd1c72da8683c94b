"""Loading a script of ``benchmarks/`` as a module, for the tests of the scripts that have them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark_script(name: str, beside: bool = False) -> ModuleType:
    """``benchmarks/<name>.py`` as the module ``name`` (registered in ``sys.modules``, as dataclasses need);
    ``beside``: with ``benchmarks/`` on the import path while it loads, for a script that imports another."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if beside:
        sys.path.insert(0, str(BENCHMARKS))
    try:
        spec.loader.exec_module(module)
    finally:
        if beside:
            sys.path.remove(str(BENCHMARKS))
    return module
