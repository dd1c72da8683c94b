"""``qatbe bench SUBCOMMAND ...``: dispatches to the benchmark modules; the top-level CLI forwards here.

Each subcommand module has its own ``main(argv) -> int``. This function only picks one, imports it lazily (peers
such as matplotlib load only when their benchmark runs), and turns expected failures into one line on stderr and a
non-zero exit code.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from ..errors import QatbeError
from .args import UsageError

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "retention": ("qatbe.bench.retention", "answer retention and evidence recall at token budgets"),
    "speed": ("qatbe.bench.speed", "per-page time on real HTML: parse, qatbe tiers, trafilatura, resiliparse, BM25"),
    "extraction": ("qatbe.bench.extraction", "main-content extraction scores on the boilerplate corpora"),
    "metadata": ("qatbe.bench.metadata", "title, author and publish date on wcxb, next to trafilatura"),
    "gate": ("qatbe.bench.gate", "quality gate: retention and extraction against pinned floors"),
}

USAGE = "usage: qatbe bench {" + ",".join(SUBCOMMANDS) + "} [options]   (qatbe bench SUBCOMMAND --help)"


def _help() -> str:
    lines = [USAGE, "", "subcommands:"]
    lines += [f"  {name:<11} {text}" for name, (_, text) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_help())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"qatbe bench: unknown subcommand {name!r} (choose from {', '.join(SUBCOMMANDS)})", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(SUBCOMMANDS[name][0])
    except ImportError as exc:
        print(f"qatbe bench {name}: not available ({exc})", file=sys.stderr)
        return 2
    try:
        return int(module.main(rest))
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help of a subcommand, or a subcommand that exits itself
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except (QatbeError, OSError) as exc:
        print(f"qatbe bench {name}: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"qatbe bench {name}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # python -m qatbe.bench.cli
    sys.exit(main())
