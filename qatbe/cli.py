"""Command line: ``qatbe extract``, ``qatbe segment`` and ``qatbe bench``.

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
from importlib import resources
from pathlib import Path

from . import __version__
from ._backend import BACKEND
from .errors import InputError, QatbeError
from .pipeline import Extractor
from .segmentation.listing import listing_line
from .settings import TIERS

DEMO_QUERY = "how do I renew my passport and what does it cost?"
EXIT_USAGE = 2
EXIT_ERROR = 1


def _read_source(path: str, limit: int) -> bytes:
    """The bytes of ``path`` ('-': standard input), a .gz file decompressed; at most ``limit`` bytes are
    decompressed (a few kilobytes of gzip can expand to gigabytes), more is refused as the API refuses it."""
    if path == "-":
        return sys.stdin.buffer.read()
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{path} is a directory, not a file")
    if not file.is_file():
        raise InputError(f"no such file: {path}")
    data = file.read_bytes()
    if file.suffix == ".gz":
        import gzip
        import zlib

        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
                data = stream.read(limit + 1)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut file ends in EOFError
            raise InputError(f"{path} is not a readable gzip file ({exc})") from None
        if len(data) > limit:
            raise InputError(f"{path} decompresses to more than {limit:,} bytes; the limit is max_input_chars x 4")
    return data


def demo_page() -> bytes:
    """The bundled sample page (written for this project, free to redistribute)."""
    return resources.files("qatbe.data").joinpath("demo.html").read_bytes()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qatbe", description="Query-aware, token-budgeted extraction.")
    parser.add_argument("--version", action="version", version=f"qatbe {__version__} ({BACKEND} core)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True)

    ex = sub.add_parser("extract", help="cut a document down to a token budget for a query")
    ex.add_argument("path", nargs="?", help="HTML, markdown or text file ('-' for stdin; .gz is decompressed)")
    ex.add_argument("--demo", action="store_true", help="run on the bundled sample page")
    ex.add_argument("-q", "--query", default=None, help="the question (omit for main content in reading order)")
    size = ex.add_mutually_exclusive_group()
    size.add_argument("--tier", choices=list(TIERS), default=None, help="budget preset (default: summary)")
    size.add_argument("--budget", type=int, default=None, help="token budget (overrides the tier)")
    ex.add_argument("--format", choices=["markdown", "text", "json"], default="markdown", help="output format")
    ex.add_argument("--input-format", choices=["auto", "html", "markdown", "text"], default="auto")
    ex.add_argument("--estimator", choices=["chars_div4", "words", "whitespace"], default=None)
    ex.add_argument("--language", default=None, help="language code of the document (default: detected)")
    ex.add_argument("--explain", action="store_true",
                    help="print, per segment, matched terms, weights and why it is in or out (instead of the text)")

    seg = sub.add_parser("segment", help="list every typed segment of a document")
    seg.add_argument("path", nargs="?", help="file ('-' for stdin)")
    seg.add_argument("--demo", action="store_true", help="run on the bundled sample page")
    seg.add_argument("--input-format", choices=["auto", "html", "markdown", "text"], default="auto")
    seg.add_argument("--json", action="store_true", help="JSON lines instead of a table")

    sub.add_parser("bench", help="benchmarks: retention, speed, extraction, gate (qatbe bench -h)", add_help=False)
    return parser


def _source(args: argparse.Namespace, extractor: Extractor) -> bytes:
    if args.demo and args.path:
        raise QatbeError("give either a PATH or --demo, not both")
    if args.demo:
        return demo_page()
    if not args.path:
        raise QatbeError("give a PATH (or '-' for stdin), or --demo for the bundled sample page")
    return _read_source(args.path, extractor.settings.max_input_chars * 4)


def _run(argv: list[str]) -> int:
    if argv and argv[0] == "bench":
        from .bench.cli import main as bench_main

        return bench_main(argv[1:])
    args = _build_parser().parse_args(argv)
    if args.command == "extract":
        query = args.query if args.query is not None or not args.demo else DEMO_QUERY
        extractor = Extractor(tier=args.tier, budget=args.budget, format=args.input_format,
                              render="text" if args.format == "text" else "markdown",
                              estimator=args.estimator, language=args.language)
        result = extractor.extract(_source(args, extractor), query)
        if args.explain:
            from .explain import format_reports

            reports = result.explain()
            if args.format == "json":
                print(json.dumps([r.to_dict() for r in reports], ensure_ascii=False, indent=2))
            else:
                print(format_reports(reports))
        elif args.format == "json":
            print(result.to_json())
        else:
            print(result.text)
            note = "no segment matched the query; main content shown" if result.no_match else ""
            kept = len(result.segments)
            print(f"\n[qatbe: {result.total_tokens}/{result.budget} tokens, {kept} segment{'' if kept == 1 else 's'} "
                  f"kept, {result.dropped_count} dropped{'; ' + note if note else ''}]", file=sys.stderr)
        return 0
    if args.command == "segment":
        segmenter = Extractor(format=args.input_format)
        segments = segmenter.segment(_source(args, segmenter))
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
    except QatbeError as exc:
        if debug:
            raise
        print(f"qatbe: error: {exc}", file=sys.stderr)
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
    except SystemExit as exc:  # argparse: usage errors already printed one line of usage + the error
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
