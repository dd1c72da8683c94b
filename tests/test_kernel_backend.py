"""Which kernel is in use, and the strictly parsed QATBE_BACKEND switch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import qatbe
from qatbe import _backend


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run on the pure-Python twin",
)
def test_compiled_kernel_is_in_use_when_required() -> None:
    from qatbe import _core

    assert qatbe.BACKEND == "cython"
    assert _backend.kernel is _core
    assert _core.__file__ is not None and not _core.__file__.endswith(".py")


def _run(backend: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QATBE_BACKEND": backend}
    code = "import qatbe, qatbe._backend as b; print(qatbe.BACKEND, b.kernel.__name__)"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False)


def test_backend_python_selects_the_twin() -> None:
    proc = _run("python")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["python", "qatbe._core_py"]


def test_bad_backend_value_is_a_clear_config_error() -> None:
    proc = _run("fortran")
    assert proc.returncode != 0
    assert "ConfigError" in proc.stderr and "QATBE_BACKEND must be one of auto, cython, python" in proc.stderr


def _compiled_python_modules() -> list[str]:
    """The modules setup.py compiles from their .py source, read from its ``_COMPILED_PY`` (one list to keep)."""
    import ast
    from pathlib import Path

    setup = Path(__file__).resolve().parents[1] / "setup.py"
    for node in ast.walk(ast.parse(setup.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_COMPILED_PY" for t in node.targets):
            return [f"qatbe.{name}" for name in ast.literal_eval(node.value)]
    raise AssertionError("setup.py has no _COMPILED_PY")


def test_the_build_list_names_real_modules() -> None:
    import importlib

    names = _compiled_python_modules()
    assert "qatbe.score.bm25" in names and "qatbe.segmentation.builder" in names
    for name in names:
        importlib.import_module(name)  # a typo in the list would leave a module silently uncompiled


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the pure-Python modules",
)
def test_compiled_python_modules_are_in_use_when_required() -> None:
    import importlib

    for name in _compiled_python_modules():
        path = importlib.import_module(name).__file__
        assert path is not None and not path.endswith(".py"), path
