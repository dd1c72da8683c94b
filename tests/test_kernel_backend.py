"""Which kernel is in use, and the strictly parsed QATBE_BACKEND switch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


_PARTS = ("kernel", "records", "html_walk", "metadata", "spans", "markdown", "python_modules")
_TWINS = _PARTS[:5]


def _parts(backend: str) -> dict[str, str]:
    env = {**os.environ, "QATBE_BACKEND": backend}
    code = "import json, qatbe; print(json.dumps(dict(qatbe.BACKEND.parts)))"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    parts: dict[str, str] = json.loads(proc.stdout)
    return parts


def test_backend_python_runs_every_part_s_twin() -> None:
    parts = _parts("python")
    assert tuple(parts) == _PARTS
    assert {part: parts[part] for part in _TWINS} == dict.fromkeys(_TWINS, "python")
    assert parts["markdown"] in ("markdown-it-py", "markdown-it-pyrs")  # a third-party parser, not a twin


@pytest.mark.skipif(
    os.environ.get("QATBE_REQUIRE_CYTHON") != "1",
    reason="QATBE_REQUIRE_CYTHON=1 is not set (CI sets it); a development install may run the pure-Python twins",
)
def test_every_part_is_compiled_when_required() -> None:
    parts = qatbe.BACKEND.parts
    assert {part: parts[part] for part in (*_TWINS, "python_modules")} == dict.fromkeys((*_TWINS, "python_modules"),
                                                                                         "cython")


def test_the_backend_is_the_kernel_s_name_and_reports_every_part() -> None:
    assert qatbe.BACKEND in ("cython", "python") and isinstance(qatbe.BACKEND, str)
    assert qatbe.BACKEND.parts["kernel"] == qatbe.BACKEND
    assert set(qatbe.BACKEND.parts) == set(_PARTS)


def test_import_probes_nothing() -> None:
    # Choosing the HTML walk probes Lexbor's memory layout: that waits for the first HTML page.
    code = ("import sys, qatbe, qatbe._backend as b; "
            "print(b._html_walk is None, 'qatbe.segmentation.lexbor_nodes' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False"]


_PAGE = ("<html><head><title>Renewals</title></head><body><nav><a href='/'>Home</a></nav><main><h1>Renew</h1>"
         "<p>You can renew a passport online. It costs 75 pounds and takes three weeks.</p><table><tr><th>Fee</th>"
         "<th>Time</th></tr><tr><td>75</td><td>3 weeks</td></tr></table></main><footer>(c) 2026</footer></body>"
         "</html>")


def test_both_backends_give_the_same_result() -> None:
    # The same result but its timing and, for the table, its span: the compiled walk anchors a block at its
    # element (a table's span starts at <table>), the Python walk aligns from the first letter (docs/API.md).
    code = ("import json, sys, qatbe; r = qatbe.extract(sys.stdin.read(), 'how long does renewal take', budget=60); "
            "d = r.to_dict(); [d.pop(k, None) for k in ('backend', 'evaluation_time_ms')]; "
            "[s.pop(k) for s in d['segments'] for k in ('start', 'position')]; print(json.dumps(d, sort_keys=True))")
    outputs = []
    for backend in ("auto", "python"):
        proc = subprocess.run([sys.executable, "-c", code], input=_PAGE, env={**os.environ, "QATBE_BACKEND": backend},
                              capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr
        outputs.append(json.loads(proc.stdout))
    assert outputs[0] == outputs[1]
    assert "3 weeks" in outputs[0]["text"]


def test_compiled_sources_are_found_and_the_edited_ones_named_stale(tmp_path: Path) -> None:
    from importlib.machinery import EXTENSION_SUFFIXES

    package = tmp_path / "pkg"
    (package / "score").mkdir(parents=True)
    files = {
        "score/bm25.py": 1_000.0, "score/bm25" + EXTENSION_SUFFIXES[0]: 2_000.0,  # built after its edit
        "pipeline.py": 3_000.0, "pipeline" + EXTENSION_SUFFIXES[-1]: 2_000.0,  # edited after its build
        "tokens.py": 2_001.0, "tokens" + EXTENSION_SUFFIXES[0]: 2_000.0,  # written by one install
        "_core" + EXTENSION_SUFFIXES[0]: 2_000.0,  # an extension with no .py source
        "plain.py": 5_000.0,
    }
    for name, mtime in files.items():
        path = package / name
        path.write_text("")
        os.utime(path, (mtime, mtime))
    found = _backend.compiled_sources(package)
    assert found.compiled == ("pkg.pipeline", "pkg.score.bm25", "pkg.tokens")
    assert found.stale == ("pkg.pipeline",)


def test_the_backend_names_stale_builds_of_this_package() -> None:
    assert set(qatbe.BACKEND.stale) <= set(_backend.compiled_sources().compiled)
    assert all(name.startswith("qatbe.") for name in _backend.compiled_sources().compiled)
