"""The context router's two speed targets: route evaluation, and a cache hit against the fetch it replaces.

    PYTHONPATH=. python benchmarks/router.py [--repeat 2000] [--files 200] [--json benchmarks/results/router.json]

1. Route evaluation: ``Router.route(query)`` with 10 routes (CEL conditions of the kinds a config holds: text
   tests, tags, agent, metadata keys, variables), the median of ``--repeat`` calls; and, side by side, the same 10
   conditions evaluated by the two CEL libraries alone: common-expression-language (the one the router uses) and
   cel-python (``celpy``; skipped when it is not installed). Target: under 0.1 ms for the 10 routes.
2. Cache hit against fetch: one source's fetch stage (``Router._fetch``: what ``aquery`` awaits per source),
   uncached (the cache cleared before each call: the fetch and the cache write) and cached (a hit), each the
   median of several calls, for a ``directory`` of ``--files`` markdown files, a ``git_repo`` holding the same
   files, and an ``http_api`` served on 127.0.0.1 by this script. Target: a hit at least 10x faster.

Prints a table and the machine; ``--json`` also writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import qatbe
from qatbe import Query
from qatbe.router import Router

CONDITIONS = (
    'text.contains("policy") || "onboarding" in tags',
    'agent == "hr-assistant" && size(tags) > 0',
    'department == "engineering"',
    'team == "docs" && text.startsWith("how")',
    '"urgent" in tags || priority > 3',
    'text.endsWith("?") && !text.contains("visa")',
    'agent in ["support-bot", "triage"]',
    'size(text) > 200',
    'has(metadata.region) && metadata.region == "eu"',
    '',
)
QUERY = Query("how do I renew my passport under the travel policy?", agent="hr-assistant", tags=["onboarding"],
              metadata={"department": "engineering", "priority": 2, "region": "eu"})
VARIABLES = {"team": "docs"}


def _median_us(fn: Callable[[], object], repeat: int) -> float:
    for _ in range(min(repeat, 200)):  # warm up
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def route_figures(repeat: int) -> dict[str, float]:
    config = {"variables": VARIABLES, "sources": {"a": {"type": "inline", "text": "x"}},
              "routes": [{"name": f"r{k}", "when": c, "sources": ["a"]} for k, c in enumerate(CONDITIONS)]}
    router = Router(config)
    out = {"router_route_us": _median_us(lambda: router.route(QUERY), repeat)}
    import cel

    programs = [cel.compile(c) for c in CONDITIONS if c]
    names = {**dict(QUERY.metadata), **VARIABLES, "text": QUERY.text, "agent": QUERY.agent,
             "tags": list(QUERY.tags), "metadata": dict(QUERY.metadata)}
    # As the router does: the query's names converted once (a cel.Context), then every condition.
    def rust_all() -> list[object]:
        context = cel.Context(names)
        return [p.execute(context) for p in programs]

    out["cel_rust_us"] = _median_us(rust_all, repeat)
    try:
        import celpy
    except ImportError:
        return out
    env = celpy.Environment()
    celpy_programs = [env.program(env.compile(c)) for c in CONDITIONS if c]

    def celpy_all() -> list[object]:
        activation = {k: celpy.json_to_cel(v) for k, v in names.items()}
        return [p.evaluate(activation) for p in celpy_programs]

    out["celpy_us"] = _median_us(celpy_all, max(repeat // 20, 20))
    return out


def _corpus(root: Path, files: int) -> None:
    words = ("passport", "renewal", "policy", "travel", "office", "form", "photo", "fee", "delivery", "embassy")
    for k in range(files):
        page = root / f"section{k % 10}" / f"page{k}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        body = " ".join(words[(k * j) % len(words)] for j in range(300))
        page.write_text(f"# Page {k}\n\n{body}\n")


class _Api:
    """A JSON search API on 127.0.0.1 answering 20 documents at once (no added latency)."""

    def __init__(self) -> None:
        docs = [{"text": f"Result {k}: " + "passport renewal policy text " * 40} for k in range(20)]
        payload = json.dumps({"results": docs}).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/search?q={{query}}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def cache_figures(files: int, rounds: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        _corpus(tmp / "docs", files)
        repo = tmp / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        _corpus(repo, files)
        subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@example.org", "commit",
                        "-q", "-m", "pages"], check=True)
        api = _Api()
        try:
            sources = {"directory": {"type": "directory", "root": str(tmp / "docs")},
                       "git_repo": {"type": "git_repo", "repo": str(repo)},
                       "http_api": {"type": "http_api", "url": api.url, "documents": "$.results[*]",
                                    "allow_private": True}}
            router = Router({"sources": sources, "routes": [{"name": "all", "sources": list(sources)}],
                             "cache": {"dir": str(tmp / "cache"), "max_entries": 100}})
            _, _, hidden = router._agent(QUERY.agent)

            async def timed(name: str) -> tuple[list[float], list[float], Any, Any]:
                # Timed inside one running loop, as aquery awaits them (asyncio.run's own setup is not the fetch).
                misses, hits = [], []
                miss = hit = None
                for _ in range(rounds):
                    router.clear_cache(name)
                    t = time.perf_counter()
                    miss = await router._fetch(name, QUERY, hidden)
                    misses.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    hit = await router._fetch(name, QUERY, hidden)
                    hits.append(time.perf_counter() - t)
                    assert not miss.cached and hit.cached and hit.documents == miss.documents
                    assert miss.error is None, miss.error
                return misses, hits, miss, hit

            for name in sources:
                misses, hits, miss, _ = asyncio.run(timed(name))
                fetch_ms = statistics.median(misses) * 1e3
                hit_ms = statistics.median(hits) * 1e3
                out[name] = {"documents": len(miss.documents), "fetch_ms": fetch_ms, "hit_ms": hit_ms,
                             "ratio": fetch_ms / hit_ms}
            router.close()
        finally:
            api.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2000, help="route evaluations timed")
    ap.add_argument("--files", type=int, default=200, help="files of the directory and git sources")
    ap.add_argument("--rounds", type=int, default=7, help="fetch/hit pairs timed per source")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    if min(args.repeat, args.files, args.rounds) < 1:
        ap.error("--repeat, --files and --rounds must be at least 1")
    routes = route_figures(args.repeat)
    cache = cache_figures(args.files, args.rounds)
    machine = {"qatbe": qatbe.__version__, "backend": qatbe.BACKEND, "python": platform.python_version(),
               "cpu": platform.processor() or platform.machine(), "date": datetime.now(timezone.utc).isoformat(),
               "repeat": args.repeat, "rounds": args.rounds}
    print(f"route evaluation, {len(CONDITIONS)} routes (median of {args.repeat}):")
    print(f"  Router.route                 {routes['router_route_us']:8.1f} µs   (target < 100 µs)")
    print(f"  common-expression-language   {routes['cel_rust_us']:8.1f} µs   (the conditions alone)")
    if "celpy_us" in routes:
        print(f"  cel-python                   {routes['celpy_us']:8.1f} µs   (the conditions alone)")
    print(f"cache hit against the fetch it replaces (median of {args.rounds}):")
    for name, row in cache.items():
        print(f"  {name:9s} {row['documents']:4d} docs  fetch {row['fetch_ms']:8.2f} ms  hit {row['hit_ms']:7.2f} ms"
              f"  {row['ratio']:6.1f}x   (target >= 10x)")
    print(" ".join(f"{k}={v}" for k, v in machine.items()))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": machine, "routes": routes, "cache": cache}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
