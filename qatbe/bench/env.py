"""Describes the run: which qatbe, which kernel, which Python, which CPU, when, and the peers' versions.

Every benchmark row carries this block, so that a JSON file found later still says where its numbers came from.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import os
import platform
from functools import lru_cache

PEERS: tuple[str, ...] = (
    "selectolax",
    "trafilatura",
    "rank-bm25",
    "bm25s",
    "resiliparse",
    "markdown-it-py",
    "numpy",
)


@lru_cache(maxsize=1)
def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def describe() -> dict[str, object]:
    """The machine and software block stored with every row."""
    from .. import BACKEND, __version__

    return {
        "qatbe_version": __version__,
        "backend": BACKEND,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "peers": {name: package_version(name) for name in PEERS},
    }
