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
