"""Command line: ``qatbe extract``, ``qatbe segment`` and ``qatbe bench``. What a result prints and how several
files are run is ``cli_batch``'s; reading a file is ``cli_input``'s.

``main(argv) -> int`` is the whole CLI, so tests call it in-process. Errors are one readable line on stderr
and a non-zero exit code; a traceback only with ``--debug``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from ._backend import BACKEND
from .cli_batch import (
    Options,
    bar_available,
    extractor_for,
    many_status,
    note,
    run_each,
    run_many,
    show,
    show_many,
    status_line,
)
from .cli_fetch import fetch_all, fetch_one, is_url, options_for
from .cli_input import STDIN, demo_page, read_source
from .cli_warc import read_queries, run_warc
from .errors import QatbeError
from .pipeline import Extractor
from .segmentation.listing import listing_line
from .settings import TIERS
from .warc import looks_like_warc

DEMO_QUERY = "how do I renew my passport and what does it cost?"
EXIT_USAGE = 2  # the command line cannot be parsed (unknown option, bad choice, missing argument)
EXIT_ERROR = 1  # anything else: an unreadable or empty input, a bad option value, a failed file


class _UsageError(Exception):
    """argparse's complaint, as one line (its usage block is what ``--help`` is for)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="qatbe", description="Query-aware, token-budgeted extraction.")
    parser.add_argument("--version", action="version", version=f"qatbe {__version__} ({BACKEND} core)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True)

    ex = sub.add_parser("extract", help="cut a document down to a token budget for a query")
    ex.add_argument("paths", nargs="*", metavar="path",
                    help="HTML, markdown or text files ('-' for stdin; .gz is decompressed); with several, each is "
                         "extracted on its own (--format json: one JSON object per line, naming its file)")
    ex.add_argument("--demo", action="store_true", help="run on the bundled sample page")
    ex.add_argument("-q", "--query", default=None, help="the question (omit for main content in reading order)")
    size = ex.add_mutually_exclusive_group()
    size.add_argument("--tier", choices=list(TIERS), default=None, help="budget preset (default: summary)")
    size.add_argument("--budget", type=int, default=None, help="token budget (overrides the tier)")
    ex.add_argument("--format", choices=["markdown", "text", "json"], default="markdown", help="output format")
    ex.add_argument("--input-format", choices=["auto", "html", "markdown", "text"], default="auto",
                    help="what the input is (default: detected from its bytes)")
    ex.add_argument("--estimator", choices=["chars_div4", "words", "whitespace"], default=None,
                    help="how tokens are counted for the budget (default: chars_div4, ceil(characters / 4))")
    ex.add_argument("--language", default=None, help="language code of the document (default: detected)")
    ex.add_argument("--explain", action="store_true",
                    help="print, per segment, matched terms, weights and why it is in or out (instead of the text)")
    ex.add_argument("--jobs", type=_jobs, default=1,
                    help="worker processes for several files (0: one per CPU); the output is the same for any")
    ex.add_argument("--many", action="store_true",
                    help="one cited context from all the files (extract_many) instead of one extract each")
    ex.add_argument("--allow-private-networks", action="store_true",
                    help="let URLs reach loopback and private addresses (refused by default: SSRF guard)")
    ex.add_argument("--queries", default=None, metavar="FILE.jsonl",
                    help='WARC input: a question per page, lines {"id" or "url": ..., "query": ...} (else -q)')

    seg = sub.add_parser("segment", help="list every typed segment of a document")
    seg.add_argument("path", nargs="?", help="file ('-' for stdin)")
    seg.add_argument("--demo", action="store_true", help="run on the bundled sample page")
    seg.add_argument("--input-format", choices=["auto", "html", "markdown", "text"], default="auto",
                     help="what the input is (default: detected from its bytes)")
    seg.add_argument("--json", action="store_true", help="JSON lines instead of a table")

    sub.add_parser("bench", help="benchmarks: retention, speed, extraction, gate (qatbe bench -h)", add_help=False)
    sub.add_parser("serve", help="run the HTTP service (qatbe serve -h; needs qatbe[server])", add_help=False)
    sub.add_parser("route", help="the context router: query, validate, cache (qatbe route -h)", add_help=False)
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of processes (0 or more), not {text!r}")
    return value or os.cpu_count() or 1


def _check_source(demo: bool, given: bool) -> None:
    """One input: a PATH (or several, for extract) or --demo."""
    if demo and given:
        raise QatbeError("give either a PATH or --demo, not both")
    if not demo and not given:
        raise QatbeError("give a PATH (or '-' for stdin), or --demo for the bundled sample page")


def _read(demo: bool, path: str, extractor: Extractor) -> bytes:
    """The one input of a command, once ``_check_source`` has passed: the demo page or ``path``."""
    return demo_page() if demo else read_source(path, extractor.settings.max_input_bytes)


def _extract(args: argparse.Namespace) -> int:
    paths: list[str] = args.paths
    _check_source(args.demo, bool(paths))
    if paths.count(STDIN) > 1:
        raise QatbeError("standard input ('-') can be read only once")
    if args.many and args.explain:
        raise QatbeError("--explain explains one extract per file; it does not combine with --many")
    query = args.query if args.query is not None or not args.demo else DEMO_QUERY
    choices = (("tier", args.tier), ("budget", args.budget), ("format", args.input_format),
               ("render", "text" if args.format == "text" else "markdown"), ("estimator", args.estimator),
               ("language", args.language))
    options = Options(query, choices, args.format, args.explain, lines=len(paths) > 1 and not args.many)
    extractor = extractor_for(choices)  # the options are checked here, before any file is read
    fetch = options_for(args.allow_private_networks)
    bar = sys.stderr.isatty() and bar_available()  # a progress bar over many pages, on a terminal only
    if paths and any(looks_like_warc(p) for p in paths):
        if not all(looks_like_warc(p) for p in paths) or args.many or args.explain:
            raise QatbeError("WARC files are read on their own: no other files, --many or --explain with them")
        queries = read_queries(args.queries) if args.queries else {}
        return run_warc(paths, options, queries, args.jobs, bar)
    if args.queries:
        raise QatbeError("--queries names the questions of WARC pages; give -q for files")
    if args.many:
        if not paths:
            raise QatbeError("--many combines files: give their PATHs")
        many = run_many(paths, options, fetch)
        print(show_many(many, options))
        for item in many.errors:  # the files it could not read; the context is made of the others
            print(f"qatbe: error: {paths[item.index]}: {item.message}", file=sys.stderr)
        if args.format != "json":
            print(f"\n[qatbe: {many_status(many)}]", file=sys.stderr)
        return EXIT_ERROR if many.errors else 0
    if len(paths) <= 1:
        path = paths[0] if paths else ""
        source = fetch_one(path, fetch) if is_url(path) else _read(args.demo, path, extractor)
        result = extractor.extract(source, query)
        print(show(result, options))
        if not args.explain and args.format != "json":
            print(f"\n[qatbe: {status_line(result)}]", file=sys.stderr)
        return 0
    failed = 0
    for n, done in enumerate(run_each(paths, options, args.jobs, fetched=fetch_all(paths, fetch), progress=bar)):
        if done.error:
            failed += 1
            note(f"qatbe: error: {done.path}: {done.error}", bar)
            if options.lines and args.format == "json":
                print(json.dumps({"source": done.path, "error": done.error}, ensure_ascii=False))
            continue
        if args.format == "json":
            print(done.out)
        else:
            gap = "\n" if n else ""  # head(1)'s way of telling files apart: a blank line, then "==> path <=="
            print(f"{gap}==> {done.path} <==\n{done.out}")
            if not args.explain:
                note(f"[qatbe: {done.path}: {done.status}]", bar)
    if failed:
        print(f"qatbe: {failed} of {len(paths)} files failed", file=sys.stderr)
    return EXIT_ERROR if failed else 0


def _run(argv: list[str]) -> int:
    if argv and argv[0] == "bench":
        from .bench.cli import main as bench_main

        return bench_main(argv[1:])
    if argv and argv[0] == "serve":
        from .integrations.server import main as serve_main

        return serve_main(argv[1:])
    if argv and argv[0] == "route":
        from .router.cli import main as route_main

        return route_main(argv[1:])
    args = _build_parser().parse_args(argv)
    if args.command == "extract":
        return _extract(args)
    if args.command == "segment":
        segmenter = Extractor(format=args.input_format)
        _check_source(args.demo, bool(args.path))
        segments = segmenter.segment(_read(args.demo, args.path or "", segmenter))
        for seg in segments:
            if args.json:
                print(json.dumps(seg.to_dict(), ensure_ascii=False))
            else:
                print(f"{seg.index:4d} {seg.position:7d} {seg.tokens:5d}  {listing_line(seg)[:100]}")
        return 0
    raise AssertionError(f"unhandled command {args.command}")  # argparse rejects unknown commands first


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        return _run([a for a in args if a != "--debug"])
    except _UsageError as exc:
        print(f"qatbe: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except QatbeError as exc:
        if debug:
            raise
        print(f"qatbe: error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (``qatbe segment page.html | head``): stop quietly, as the Python docs advise, with
        # standard output pointed at /dev/null so that the interpreter's last flush does not complain either.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):  # no real descriptor (a test's captured stdout)
            pass
        return EXIT_ERROR
    except OSError as exc:
        if debug:
            raise
        print(f"qatbe: error: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": "),
              file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("qatbe: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exc:  # --help and --version (usage errors raise _UsageError)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    except Exception as exc:  # a bug: still one line (the report needs --debug's traceback)
        if debug:
            raise
        print(f"qatbe: error: internal error ({type(exc).__name__}: {_one_line(str(exc))}); rerun with --debug "
              "to see where", file=sys.stderr)
        return EXIT_ERROR


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "unknown error"


if __name__ == "__main__":
    raise SystemExit(main())
