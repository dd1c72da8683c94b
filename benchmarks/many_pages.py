"""Pages per second over many pages: a plain loop, ``extract_batch``, the CLI on a WARC and Spark ``local[2]``; and
peak memory of reading a large WARC (streaming: flat in the number of pages).

    python benchmarks/many_pages.py [--pages 2000] [--rounds 2] [--memory-pages 1000,10000] [--json out.json]

Pages: the dev pages of ``../shared/corpora/wcxb`` and ``scrapinghub-aeb``, cycled to ``--pages``; every system
extracts the same pages with the same options (no query: each page's main content under the default budget,
the pretraining-data use). Systems, each timed wall-clock over all pages, in turn, ``--rounds`` times; the best round of each is kept (the
machine may be shared: interleaved rounds and the best of them keep the ratios fair):
- ``loop``: ``[qatbe.extract(page) for page in pages]``;
- ``batch-1``, ``batch-2``: ``list(qatbe.extract_batch(pages, workers=N))`` (the pool's start included);
- ``cli-warc``: ``qatbe extract pages.warc.gz --jobs 2 > /dev/null`` as a subprocess (interpreter start
  included), on the pages packed into one WARC;
- ``spark``: ``examples/spark_warc.py``'s ``extracts`` on the pages in 4 WARC files, ``local[2]``, written to
  Spark's ``noop`` sink; the JVM and the Python workers are started by an untimed warm-up job first.
Memory: the peak RSS (``ru_maxrss``) of a subprocess that reads a WARC of N pages with ``read_warc`` and of one
that runs ``qatbe extract`` on it (``--budget 50 --jobs 2``; the largest of its processes), for each N.
Ratios are within one run; the machine may be shared, which moves absolute figures but much less the ratios.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import qatbe
from qatbe.bench.args import default_corpora
from qatbe.bench.env import describe

ROOT = Path(__file__).resolve().parents[1]
CORPORA = default_corpora()  # $QATBE_CORPORA, else ../shared/corpora beside the repository


def dev_pages() -> list[bytes]:
    if not (CORPORA / "wcxb" / "index.jsonl").is_file():
        raise SystemExit(f"many_pages.py: the dev corpora are not at {CORPORA} (set QATBE_CORPORA)")
    wcxb = [json.loads(line) for line in (CORPORA / "wcxb" / "index.jsonl").read_text().splitlines()]
    pages = [gzip.decompress((CORPORA / "wcxb" / row["html"]).read_bytes()) for row in wcxb
             if row.get("wcxb_split", "dev") == "dev"]
    aeb = sorted((CORPORA / "scrapinghub-aeb" / "html").glob("*.html.gz"))
    return pages + [gzip.decompress(p.read_bytes()) for p in aeb]


def write_warc(path: Path, pages: Sequence[bytes], first: int = 0) -> Path:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True)
        for i, page in enumerate(pages, first):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(f"https://bench.test/{i}", "response",
                                                          payload=io.BytesIO(page), length=len(page),
                                                          http_headers=http))
    return path


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def run_cli(args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "qatbe", "extract", *args], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def spark_runner(folder: Path, pages: Sequence[bytes]) -> tuple[Callable[[], object], Callable[[], None]]:
    """Spark's timed run over ``pages`` in 4 WARC files, and how to stop the session. The JVM and the Python
    workers are started by an untimed warm-up job first."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "examples")])
    sys.path.insert(0, str(ROOT / "examples"))
    from pyspark.sql import SparkSession
    from spark_warc import extracts  # examples/spark_warc.py

    quarter = -(-len(pages) // 4)
    warcs = [str(write_warc(folder / f"part{k}.warc.gz", pages[k * quarter:(k + 1) * quarter], k * quarter))
             for k in range(4)]
    warm = str(write_warc(folder / "warm.warc.gz", pages[:20]))
    spark = (SparkSession.builder.master("local[2]").appName("qatbe-bench").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    extracts(spark, [warm, warm]).write.mode("overwrite").format("noop").save()
    return lambda: extracts(spark, warcs).write.mode("overwrite").format("noop").save(), spark.stop


_READ = "import sys, qatbe\nfor doc in qatbe.read_warc(sys.argv[1]): pass\n"


def peak_rss_mb(command: list[str]) -> float:
    """The largest RSS (MB) of any process of ``command``: run in a fresh Python that reports its children's."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *command], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    return int(out.strip()) / 1024


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--memory-pages", default="1000,10000")
    parser.add_argument("--skip", default="", help="systems to leave out, comma-separated")
    parser.add_argument("--rounds", type=int, default=2, help="runs of every system, in turn; the best is kept")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    base = dev_pages()
    pages = [base[i % len(base)] for i in range(args.pages)]
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warc = write_warc(folder / "pages.warc.gz", pages)
        systems: dict[str, Callable[[], object]] = {
            "loop": lambda: [qatbe.extract(p) for p in pages],
            "batch-1": lambda: list(qatbe.extract_batch(pages, workers=1)),
            "batch-2": lambda: list(qatbe.extract_batch(pages, workers=2)),
            "cli-warc": lambda: run_cli([str(warc), "--jobs", "2"]),
        }
        stop: Callable[[], None] = lambda: None
        if "spark" not in skip:
            systems["spark"], stop = spark_runner(folder, pages)
        try:
            for _ in range(args.rounds):  # every system once per round; the best round of each is kept
                for name, run in systems.items():
                    if name not in skip:
                        took = timed(run)
                        seconds[name] = min(took, seconds.get(name, took))
                        print(f"{name}: {len(pages) / took:.1f} pages/s", file=sys.stderr)
        finally:
            stop()
        memory: dict[str, dict[str, float]] = {}
        for n in (int(x) for x in args.memory_pages.split(",") if x):
            warc = write_warc(folder / f"mem{n}.warc.gz", [base[i % len(base)] for i in range(n)])
            memory[str(n)] = {
                "read_warc_mb": peak_rss_mb([sys.executable, "-c", _READ, str(warc)]),
                "cli_mb": peak_rss_mb([sys.executable, "-m", "qatbe", "extract", str(warc), "--budget", "50",
                                       "--jobs", "2"]),
            }
            print(f"memory {n}: {memory[str(n)]}", file=sys.stderr)
            warc.unlink()
    loop = seconds.get("loop")
    rows = {name: {"seconds": round(s, 2), "pages_per_s": round(len(pages) / s, 1),
                   "vs_loop": round(loop / s, 2) if loop else None} for name, s in seconds.items()}
    report = {"machine": describe(), "pages": len(pages), "rounds": args.rounds, "systems": rows, "peak_rss": memory,
              "max_rss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    print("| system | pages/s | x loop |\n|---|---:|---:|")
    for name, row in rows.items():
        print(f"| {name} | {row['pages_per_s']} | {row['vs_loop']} |")
    print("\n| WARC pages | read_warc peak RSS (MB) | CLI peak RSS (MB) |\n|---:|---:|---:|")
    for n, m in memory.items():
        print(f"| {int(n):,} | {m['read_warc_mb']:.0f} | {m['cli_mb']:.0f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
