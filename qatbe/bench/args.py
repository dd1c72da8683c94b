"""Command-line plumbing shared by the ``qatbe bench`` subcommands: one-line usage errors, common options.

argparse's own ``error()`` prints the usage and exits; here it raises ``UsageError`` instead, so that ``main(argv)``
can return an exit code in-process and print exactly one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import NoReturn

from ..errors import ConfigError

# /work/main/qatbe/bench/args.py → parents[2] is the repository root; ../shared/corpora sits beside it.
REPO_ROOT = Path(__file__).resolve().parents[2]


class UsageError(Exception):
    """A command line that cannot be parsed; the message is the one line to print."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            raise UsageError((message or f"{self.prog}: error").strip())
        raise SystemExit(0)  # --help: argparse has already printed it


def can_plot(command: str) -> bool:
    """Is matplotlib importable? If not, say on stderr that the plot is skipped (the tables are still written)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"{command}: plot skipped: matplotlib is not installed (pip install 'qatbe[bench]')", file=sys.stderr)
        return False
    return True


def default_corpora() -> Path:
    """``$QATBE_CORPORA`` if set, else ``../shared/corpora`` beside the working directory, else beside the repo."""
    env = os.environ.get("QATBE_CORPORA", "").strip()
    if env:
        return Path(env)
    for candidate in (Path.cwd().parent / "shared" / "corpora", REPO_ROOT.parent / "shared" / "corpora"):
        if candidate.is_dir():
            return candidate
    return REPO_ROOT.parent / "shared" / "corpora"


def parse_budgets(text: str) -> list[int]:
    """``"200,1000"`` → ``[200, 1000]``: positive integers, no duplicates, sorted."""
    budgets: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            value = int(part)
        except ValueError:
            raise ConfigError(f"budget {part!r} is not an integer") from None
        if value < 0:
            raise ConfigError(f"budget {value} is negative")
        budgets.append(value)
    if not budgets:
        raise ConfigError("no budgets given")
    if len(set(budgets)) != len(budgets):
        raise ConfigError("a budget is given twice")
    return sorted(budgets)


def _integer(text: str, least: int, name: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is not {name}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "positive")


def count(text: str) -> int:
    """An option counting things, where 0 means none (``--worst 0``)."""
    return _integer(text, 0, "a count (0 or more)")


def subset_of(known: Collection[str], what: str) -> Callable[[str], list[str]]:
    """An argparse ``type`` for a comma-separated choice among ``known``: ``"a, b"`` -> ``["a", "b"]``; an unknown
    name is a usage error that names it and the choices (``what``: "system", "dataset", ... in the message)."""
    def parse(text: str) -> list[str]:
        chosen = [name.strip() for name in text.split(",") if name.strip()]
        for name in chosen:
            if name not in known:
                raise argparse.ArgumentTypeError(f"unknown {what} {name!r} (choose from {', '.join(known)})")
        return chosen

    return parse
