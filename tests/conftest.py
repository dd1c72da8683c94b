"""Shared test helpers: where the evaluation corpora live, and a skip when they are absent (a user's clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPORA = SHARED / "corpora"


@pytest.fixture(scope="session")
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"evaluation corpora not found at {CORPORA} (they sit beside the repository in CI only)")
    return CORPORA


def pytest_report_header(config: pytest.Config) -> str:
    import qatbe

    parts = ", ".join(f"{part}={name}" for part, name in qatbe.BACKEND.parts.items())
    return f"qatbe backend: {parts}"


@pytest.fixture(scope="session", autouse=True)
def backend_parts() -> dict[str, str]:
    """Every part's implementation for this run; with QATBE_BACKEND=python (CI's second pass) every twin must be
    the Python one, or that pass would test the compiled code twice."""
    import qatbe
    from qatbe import _backend

    parts = dict(qatbe.BACKEND.parts)
    if not _backend.compiled_allowed():  # QATBE_BACKEND=python, as _backend parsed it
        # python_modules are the same source compiled or not: no twin to switch to.
        compiled = sorted(part for part, name in parts.items()
                          if name == _backend.COMPILED and part != "python_modules")
        assert not compiled, f"QATBE_BACKEND=python but these parts are compiled: {compiled}"
    return parts
