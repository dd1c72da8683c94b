"""Extract every HTML page of a list of WARC files with qatbe on Apache Spark, and write the extracts as Parquet.

    spark-submit examples/spark_warc.py warcs.txt extracts.parquet [--query Q] [--budget N] [--partitions N]

``warcs.txt`` holds one WARC path per line (a path every executor can open). Each WARC file is read by one task
(``qatbe.read_warc``); ``--partitions`` spreads the pages of a few large files over more tasks (a shuffle).
The pages are extracted by ``qatbe.spark.extract_dataframe`` (Arrow batches, one extractor per Python worker);
without ``--query`` each page's main content, boilerplate out, under the budget. Output columns: ``warc``, ``url``,
``record_id``, ``date`` and qatbe's (``qatbe_text``, ``qatbe_total_tokens``, ``qatbe_no_match``,
``qatbe_dropped_count``, ``qatbe_segments``, ``qatbe_error``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

import qatbe
from qatbe.spark import extract_dataframe

SCHEMA = "warc string, url string, record_id string, date string, html binary"
ROWS_PER_BATCH = 64


def pages(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The HTML pages of each WARC file named in ``batches`` (column ``warc``), as Arrow batches of rows. A page
    decoded by its HTTP charset is passed on as UTF-8, which qatbe reads back to the same text (valid multi-byte
    UTF-8 wins over a page's legacy declaration). Why Arrow here too: the pages reach the extraction without
    being converted to Spark rows one by one."""
    for batch in batches:
        for path in batch.column("warc").to_pylist():
            rows: dict[str, list[Any]] = {"warc": [], "url": [], "record_id": [], "date": [], "html": []}
            for doc in qatbe.read_warc(path):
                rows["warc"].append(path)
                rows["url"].append(doc.url)
                rows["record_id"].append(doc.id)
                rows["date"].append(doc.metadata.get("date") if doc.metadata else None)
                rows["html"].append(doc.source.encode("utf-8") if isinstance(doc.source, str) else doc.source)
                if len(rows["url"]) == ROWS_PER_BATCH:
                    yield _batch(rows)
            if rows["url"]:
                yield _batch(rows)


def _batch(rows: dict[str, list[Any]]) -> pa.RecordBatch:
    batch = pa.RecordBatch.from_pydict(rows, schema=pa.schema([
        ("warc", pa.string()), ("url", pa.string()), ("record_id", pa.string()), ("date", pa.string()),
        ("html", pa.binary())]))
    for column in rows.values():
        column.clear()
    return batch


def extracts(spark: SparkSession, warcs: Sequence[str], *, partitions: int | None = None,
             **options: Any) -> DataFrame:
    """The pages of ``warcs`` with their extracts (``options``: those of ``extract_dataframe``)."""
    listing = spark.sparkContext.parallelize([(w,) for w in warcs], max(1, len(warcs))).toDF("warc string")
    frame = listing.mapInArrow(pages, SCHEMA)
    if partitions:
        frame = frame.repartition(partitions)
    return extract_dataframe(frame, source_col="html", **options).drop("html")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("warc_list", help="a text file with one WARC path per line")
    parser.add_argument("output", help="the Parquet directory to write (replaced if it exists)")
    parser.add_argument("--query", default=None, help="one question for every page (default: main content)")
    parser.add_argument("--budget", type=int, default=None, help="token budget per page (default: 1000)")
    parser.add_argument("--partitions", type=int, default=None, help="spread the pages over this many tasks")
    args = parser.parse_args(argv)
    with open(args.warc_list, encoding="utf-8") as listing:
        warcs = [line.strip() for line in listing if line.strip()]
    spark = SparkSession.builder.appName("qatbe-warc").getOrCreate()
    frame = extracts(spark, warcs, partitions=args.partitions, query=args.query, budget=args.budget)
    frame.write.mode("overwrite").parquet(args.output)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
