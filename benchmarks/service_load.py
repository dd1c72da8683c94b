"""Load on the service (``qatbe serve``) next to the library called in a loop, over the dev pages of scrapinghub-aeb.

    PYTHONPATH=. python benchmarks/service_load.py [--requests 2000] [--concurrency 32] [--workers 2]

Starts ``qatbe serve`` on a free 127.0.0.1 port (a subprocess, stopped at the end), sends ``--requests`` POST
/v1/extract requests (each page's text as ``source``, ``tier="summary"``, no query), at most ``--concurrency`` at
once, cycling over the pages; then as many with the page itself as the body (``Content-Type: text/html;
charset=utf-8``, ``?tier=summary``), and stops. Every overhead figure below is given for both forms. Reports errors (any answer but 200, or a text that is not the library's),
throughput and p50/p99 latency; then the library in a loop over the same request sequence in this process.

Service overhead: what the service adds around the extract call (HTTP in and out, the kernel's socket work
included, JSON parse, validation, the hand-off to a worker thread and back, ``Result.to_dict()`` and the JSON
answer), per request, at the median page (the page whose extract CPU time is the median over the corpus).
``--overhead-rounds`` requests for that page are sent one at a time, each followed by the library's extract of
the same page (a fresh str, as the service decodes one from every request body). Two figures:

- by CPU time (the one the bar is judged by): the service's CPU time per request (user + system of all its
  processes, read from /proc before and after) minus the library's CPU time per extract (this thread), as a
  share of the latter. No client cost is in it, and no waiting: on a machine shared with other work, a
  request's wall time also holds the scheduler's delays at each hand-over (client, event loop, worker thread).
- by CPU time under load: the same, but the requests for the median page are sent ``--concurrency`` at once
  (``--requests`` of them), against the library called in a loop on that page: both sides run back to back, as
  a busy service does, where one at a time each request finds the service idle (caches cold, threads asleep).
- by latency: the median request latency seen by a keep-alive HTTP/1.1 client on a plain socket (its own cost
  is a few microseconds) minus the median wall time of the extract, as a share of the latter.

For reference it also reports the library's ``extract(...).to_dict()`` (``to_dict`` reads the page metadata that
``extract`` defers, so part of the answer's cost is in the library), and where the overhead goes: the HTTP floor
(``floor_app``: the same uvicorn answering the same body with a fixed ``{}``, nothing parsed, measured the same
way), the JSON parse of the body (this thread, at each round), and the rest. Both sides run with the allocator settings ``qatbe serve`` sets (``keep_freed_memory``), so the extract costs
the same in both. The client runs on the same machine and shares its cores with the service.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gzip
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

import qatbe
from qatbe.integrations.server import keep_freed_memory
from qatbe.segmentation.decode import decode_bytes

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "scrapinghub-aeb" / "html"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


async def load(base: str, bodies: list[bytes], expected: list[str], requests: int, concurrency: int,
               form: Form | None = None) -> tuple[list[float], int, float]:
    """``requests`` POSTs, ``concurrency`` at once. The client is aiohttp: httpx's async pool slows down as
    concurrent requests grow (about 100 trivial requests/s at 32 here, against 1,300 for aiohttp), so it would
    measure the client."""
    import aiohttp

    latencies: list[float] = []
    errors = 0
    next_index = 0
    form = form or JSON_FORM
    headers = {"content-type": form.content_type}
    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def worker() -> None:
            nonlocal next_index, errors
            while next_index < requests:
                k = next_index % len(bodies)
                next_index += 1
                started = time.perf_counter()
                async with session.post(form.path, data=bodies[k], headers=headers) as answer:
                    data = await answer.read()
                    status = answer.status
                latencies.append(time.perf_counter() - started)
                if status != 200 or json.loads(data)["text"] != expected[k]:
                    errors += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return latencies, errors, time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` and its children (uvicorn's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


@dataclass(frozen=True)
class Form:
    """How a request carries the page: the JSON form (``source`` in a JSON object) or the page itself as the body
    (its options in the query string); ``page`` reads the page back from a body, as the service does."""

    name: str
    path: str
    content_type: str

    def body(self, page: str) -> bytes:
        if self.name == "json":  # as a client's json.dumps writes it (escapes outside ASCII)
            return json.dumps({"source": page, "tier": "summary"}).encode()
        return page.encode("utf-8")

    def page(self, body: bytes) -> str:
        return str(orjson.loads(body)["source"]) if self.name == "json" else body.decode("utf-8")


JSON_FORM = Form("json", "/v1/extract", "application/json")
RAW_FORM = Form("raw", "/v1/extract?tier=summary", "text/html; charset=utf-8")


@dataclass
class Sequential:
    service_wall: list[float]  # seconds, one request at a time
    library_wall: list[float]  # seconds, one extract of the same page
    service_cpu: float  # the service's CPU seconds per request
    library_cpu: float  # this thread's CPU seconds per extract
    to_dict_cpu: float  # this thread's CPU seconds per extract(...).to_dict()
    parse_cpu: float  # this thread's CPU seconds to read the page from the request body (JSON parse, or decode)


class RawClient:
    """A keep-alive HTTP/1.1 client on a plain socket: a request is one ``sendall`` and the answer is read by its
    Content-Length, so the client's own cost in a request's latency is a few microseconds (an HTTP library in
    Python costs a sizable fraction of an extract per request, which would be counted as the service's)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")

    def post(self, path: str, body: bytes, content_type: str = "application/json") -> tuple[int, bytes]:
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.sock.sendall(head + body)
        status = int(self.reader.readline().split()[1])
        length = 0
        while (line := self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, self.reader.read(length)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


async def floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The HTTP floor: an ASGI app on the same uvicorn that reads a request body whole and answers a fixed small
    JSON, with nothing in between (no JSON parse, no worker thread, no extract)."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})


def floor(body: bytes, rounds: int) -> Sequential:
    """``one_at_a_time`` against ``floor_app`` (one uvicorn process, the allocator set as ``qatbe serve`` sets it)."""
    port = free_port()
    code = ("from qatbe.integrations.server import keep_freed_memory; keep_freed_memory(); import uvicorn; "
            f"uvicorn.run('service_load:floor_app', port={port}, log_level='warning', access_log=False)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "benchmarks")]))
    server = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("the floor app did not start")
        return one_at_a_time(port, body, rounds, server.pid)
    finally:
        server.terminate()
        server.wait(30)


def one_at_a_time(port: int, body: bytes, rounds: int, pid: int, form: Form = JSON_FORM) -> Sequential:
    """``rounds`` requests for ``body`` one at a time, each followed by the library's extract of the same page. The
    library gets the page as the service does, a fresh str read from the request body (outside its timing: a
    str reused across calls keeps caches, such as its UTF-8 form, that a request's str does not have)."""
    out = Sequential([], [], 0.0, 0.0, 0.0, 0.0)
    client = RawClient(port)
    try:
        for _ in range(20):  # warm-up
            client.post(form.path, body, form.content_type)
        library_cpu = to_dict_cpu = parse_cpu = 0.0
        cpu_before = cpu_seconds(pid)
        for _ in range(rounds):
            t = time.perf_counter()
            status, _ = client.post(form.path, body, form.content_type)
            out.service_wall.append(time.perf_counter() - t)
            assert status == 200, status
            c = time.thread_time()
            page = form.page(body)
            parse_cpu += time.thread_time() - c
            t, c = time.perf_counter(), time.thread_time()
            qatbe.extract(page, tier="summary")
            library_cpu += time.thread_time() - c
            out.library_wall.append(time.perf_counter() - t)
            page = form.page(body)
            c = time.thread_time()
            qatbe.extract(page, tier="summary").to_dict()
            to_dict_cpu += time.thread_time() - c
        out.service_cpu = (cpu_seconds(pid) - cpu_before) / rounds
    finally:
        client.close()
    out.library_cpu = library_cpu / rounds
    out.to_dict_cpu = to_dict_cpu / rounds
    out.parse_cpu = parse_cpu / rounds
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2, help="service worker processes")
    ap.add_argument("--overhead-rounds", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "service_load.json")
    args = ap.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    keep_freed_memory()  # the allocator settings `qatbe serve` runs with, so both sides extract alike
    pages = [decode_bytes(gzip.decompress(p.read_bytes())) for p in sorted(CORPUS.glob("*.html.gz"))]
    bodies = [JSON_FORM.body(page) for page in pages]
    raw_bodies = [RAW_FORM.body(page) for page in pages]
    expected = [qatbe.extract(page, tier="summary").text for page in pages]  # also warms the library

    # The library in a loop, over the same request sequence.
    started = time.perf_counter()
    for i in range(args.requests):
        qatbe.extract(pages[i % len(pages)], tier="summary")
    library_seconds = time.perf_counter() - started

    # Per-page extract CPU time (least of 5); the median page is the one the overhead is measured at.
    per_page = []
    for page in pages:
        runs = []
        for _ in range(5):
            c = time.thread_time()
            qatbe.extract(page, tier="summary")
            runs.append(time.thread_time() - c)
        per_page.append(min(runs))
    median_k = sorted(range(len(pages)), key=lambda k: per_page[k])[len(pages) // 2]

    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QATBE_API_KEY", None)
    server = subprocess.Popen([sys.executable, "-m", "qatbe", "serve", "--port", str(port),
                               "--workers", str(args.workers)], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz", trust_env=False, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        else:
            print("the service did not start", file=sys.stderr)
            return 1
        asyncio.run(load(base, bodies, expected, len(pages), 8))  # warm-up: every page once
        latencies, errors, seconds = asyncio.run(load(base, bodies, expected, args.requests, args.concurrency))
        raw_latencies, raw_errors, raw_seconds = asyncio.run(
            load(base, raw_bodies, expected, args.requests, args.concurrency, RAW_FORM))
        errors += raw_errors
        seq = one_at_a_time(port, bodies[median_k], args.overhead_rounds, server.pid)
        raw_seq = one_at_a_time(port, raw_bodies[median_k], args.overhead_rounds, server.pid, RAW_FORM)
        steady_service: dict[str, float] = {}
        for form, body in ((JSON_FORM, bodies[median_k]), (RAW_FORM, raw_bodies[median_k])):
            before = cpu_seconds(server.pid)
            _, steady_errors, _ = asyncio.run(load(base, [body], [expected[median_k]], args.requests,
                                                   args.concurrency, form))
            steady_service[form.name] = (cpu_seconds(server.pid) - before) / args.requests
            errors += steady_errors
    finally:
        server.terminate()
        server.wait(30)
    floor_seq = floor(bodies[median_k], args.overhead_rounds)
    steady_library = 0.0
    for _ in range(args.requests):  # the library in a loop on the median page, a fresh str each time
        page = orjson.loads(bodies[median_k])["source"]
        c = time.thread_time()
        qatbe.extract(page, tier="summary")
        steady_library += time.thread_time() - c
    steady_library /= args.requests

    svc_med, lib_med = statistics.median(seq.service_wall), statistics.median(seq.library_wall)
    report = {
        "qatbe": qatbe.__version__, "backend": qatbe.BACKEND, "python": platform.python_version(),
        "cpu": cpu_name(), "cores": os.cpu_count(), "date": dt.date.today().isoformat(),
        "load_average": os.getloadavg()[0],
        "pages": len(pages), "requests": args.requests, "concurrency": args.concurrency, "workers": args.workers,
        "errors": errors,
        "service_rps": args.requests / seconds,
        "service_p50_ms": percentile(latencies, 50) * 1000, "service_p99_ms": percentile(latencies, 99) * 1000,
        "raw_service_rps": args.requests / raw_seconds,
        "raw_service_p50_ms": percentile(raw_latencies, 50) * 1000,
        "raw_service_p99_ms": percentile(raw_latencies, 99) * 1000,
        "library_rps": args.requests / library_seconds,
        "median_page_bytes": len(pages[median_k].encode()), "median_page_body_bytes": len(bodies[median_k]),
        "overhead_rounds": args.overhead_rounds,
        "median_page_extract_cpu_ms": seq.library_cpu * 1000,
        "median_page_service_cpu_ms": seq.service_cpu * 1000,
        "cpu_overhead_share": (seq.service_cpu - seq.library_cpu) / seq.library_cpu,
        "median_page_extract_to_dict_cpu_ms": seq.to_dict_cpu * 1000,
        "median_page_http_floor_cpu_ms": floor_seq.service_cpu * 1000,
        "median_page_json_parse_cpu_ms": seq.parse_cpu * 1000,
        "raw_median_page_extract_cpu_ms": raw_seq.library_cpu * 1000,
        "raw_median_page_service_cpu_ms": raw_seq.service_cpu * 1000,
        "raw_cpu_overhead_share": (raw_seq.service_cpu - raw_seq.library_cpu) / raw_seq.library_cpu,
        "raw_median_page_decode_cpu_ms": raw_seq.parse_cpu * 1000,
        "steady_service_cpu_ms": steady_service["json"] * 1000,
        "steady_extract_cpu_ms": steady_library * 1000,
        "steady_cpu_overhead_share": (steady_service["json"] - steady_library) / steady_library,
        "raw_steady_service_cpu_ms": steady_service["raw"] * 1000,
        "raw_steady_cpu_overhead_share": (steady_service["raw"] - steady_library) / steady_library,
        "median_page_extract_ms": lib_med * 1000,
        "median_page_service_ms": svc_med * 1000,
        "wall_overhead_share": (svc_med - lib_med) / lib_med,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"qatbe {report['qatbe']} ({report['backend']}), Python {report['python']}, {report['cpu']} "
          f"x{report['cores']}, {report['date']}")
    print(f"service ({args.workers} workers): {args.requests} requests at {args.concurrency} concurrent over "
          f"{len(pages)} pages: {errors} errors, {report['service_rps']:.1f} req/s, p50 "
          f"{report['service_p50_ms']:.1f} ms, p99 {report['service_p99_ms']:.1f} ms")
    print(f"  the page as the body (text/html, options in the query string): "
          f"{report['raw_service_rps']:.1f} req/s, p50 {report['raw_service_p50_ms']:.1f} ms, "
          f"p99 {report['raw_service_p99_ms']:.1f} ms")
    print(f"library in a loop (1 process): {report['library_rps']:.1f} extracts/s")
    print(f"median page ({report['median_page_bytes']:,} bytes; request body {report['median_page_body_bytes']:,}), "
          f"{args.overhead_rounds} requests one at a time:")
    print(f"  overhead by CPU time: service {report['median_page_service_cpu_ms']:.3f} ms a request, extract "
          f"{report['median_page_extract_cpu_ms']:.3f} ms: {100 * report['cpu_overhead_share']:+.1f} % "
          f"(extract + to_dict {report['median_page_extract_to_dict_cpu_ms']:.3f} ms)")
    rest = (report["median_page_service_cpu_ms"] - report["median_page_extract_cpu_ms"]
            - report["median_page_http_floor_cpu_ms"] - report["median_page_json_parse_cpu_ms"])
    print(f"  where it goes (CPU): HTTP floor (uvicorn, an app that only reads the body) "
          f"{report['median_page_http_floor_cpu_ms']:.3f} ms, JSON parse of the body "
          f"{report['median_page_json_parse_cpu_ms']:.3f} ms, the rest (handler, worker-thread hand-off, to_dict, "
          f"JSON answer) {rest:.3f} ms")
    print(f"  the page as the body: service {report['raw_median_page_service_cpu_ms']:.3f} ms a request, extract "
          f"{report['raw_median_page_extract_cpu_ms']:.3f} ms: {100 * report['raw_cpu_overhead_share']:+.1f} % "
          f"(decoding the body {report['raw_median_page_decode_cpu_ms']:.3f} ms)")
    print(f"  overhead by CPU time under load ({args.requests} requests for the median page, {args.concurrency} at "
          f"once, against the library in a loop): service {report['steady_service_cpu_ms']:.3f} ms a request, "
          f"extract {report['steady_extract_cpu_ms']:.3f} ms: {100 * report['steady_cpu_overhead_share']:+.1f} %; "
          f"the page as the body {report['raw_steady_service_cpu_ms']:.3f} ms: "
          f"{100 * report['raw_steady_cpu_overhead_share']:+.1f} %")
    print(f"  overhead by latency (medians): service {report['median_page_service_ms']:.3f} ms, extract "
          f"{report['median_page_extract_ms']:.3f} ms: {100 * report['wall_overhead_share']:+.1f} %")
    print(f"load average (1 min) at the end: {report['load_average']:.1f} on {report['cores']} cores")
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
