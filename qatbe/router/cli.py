"""``qatbe route``: query a router, validate its config, look at or clear its cache.

    qatbe route query "TEXT" --config router.yaml [--agent A] [--tags a,b] [--format markdown|text|json]
    qatbe route validate --config router.yaml
    qatbe route cache stats|clear --config router.yaml [--source S]

Errors are raised as ``QatbeError`` for ``qatbe.cli.main`` to print as one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..errors import QatbeError
from ..query import Query
from .engine import Router, RouterResult


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qatbe route", description="The context router (qatbe[router]).")
    sub = parser.add_subparsers(dest="action", required=True)
    q = sub.add_parser("query", help="the context a query gets")
    q.add_argument("text", help="the query text")
    q.add_argument("--config", required=True, help="the router's YAML config")
    q.add_argument("--agent", default="default", help="who is asking (default: default)")
    q.add_argument("--tags", default="", help="comma-separated tags (a,b)")
    q.add_argument("--format", choices=["markdown", "json"], default="markdown",
                   help="the context as text (and an account on stderr), or the whole result as JSON")
    v = sub.add_parser("validate", help="load the config and report what it holds, or its first error")
    v.add_argument("--config", required=True)
    c = sub.add_parser("cache", help="cache stats, or clear it")
    c.add_argument("what", choices=["stats", "clear"])
    c.add_argument("--config", required=True)
    c.add_argument("--source", default=None, help="clear only this source's entries")
    return parser


def _account(result: RouterResult) -> str:
    parts = [f"{result.total_tokens}/{result.budget} tokens",
             f"routes: {', '.join(result.matched_routes) or 'none'}",
             f"denied: {', '.join(result.denied_sources) or 'none'}",
             f"cache hits: {', '.join(result.cache_hits) or 'none'}"]
    parts += [f"error: {e.source}: {e.error_type}: {e.message}" for e in result.source_errors]
    return "; ".join(parts)


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    if args.action == "cache" and args.what == "stats" and args.source is not None:
        raise QatbeError("--source goes with cache clear")
    router = Router.from_yaml(args.config)
    try:
        if args.action == "validate":
            cfg = router.config
            print(f"ok: {len(cfg.sources)} sources, {len(cfg.routes)} routes, {len(cfg.permissions)} permission "
                  f"rules, {len(cfg.deny_paths)} deny_paths, cache {'on' if cfg.cache else 'off'}")
            return 0
        if args.action == "cache":
            if args.what == "stats":
                print(json.dumps(router.cache_stats().to_dict(), indent=2))
            else:
                removed = router.clear_cache(args.source)
                print(f"removed {removed} entries" + (f" of {args.source}" if args.source else ""))
            return 0
        tags = tuple(t.strip() for t in args.tags.split(",") if t.strip())
        result = router.query(Query(args.text, agent=args.agent, tags=tags))
        if args.format == "json":
            print(result.to_json())
        else:
            print(result.text)
            print(f"\n[qatbe route: {_account(result)}]", file=sys.stderr)
        return 0
    finally:
        router.close()
