"""Apache Spark: ``qatbe.spark.extract_dataframe`` in ``local[2]`` gives, row for row, what ``qatbe.extract``
gives in a loop; a bad row is an error column, not a failed job; options are checked on the driver; and the
example job (``examples/spark_warc.py``) reads WARC files into extracts and Parquet. One SparkSession for the
whole test session; without Java the tests skip and say why."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from many_pages import WCXB_QUERY, Page, plain, wcxb_loop, wcxb_pages, wcxb_warc, write_warc
from readme_examples import example
from test_batch import fixture_pages

import qatbe

ROOT = Path(__file__).resolve().parents[1]
# PySpark 4 warns at every Arrow call that it does not yet support pandas 3; nothing here uses pandas.
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime (Spark needs one): apt-get install openjdk-17-jre-headless")
    sql = pytest.importorskip("pyspark.sql", reason="pyspark is in the 'spark' extra")
    # The Python workers import qatbe (and the example) from this checkout, with this interpreter.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "examples"),
                                                os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    session = (sql.SparkSession.builder.master("local[2]").appName("qatbe-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("spark_warc", ROOT / "examples" / "spark_warc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["spark_warc"] = module
    spec.loader.exec_module(module)
    return module


def _row_dict(row: Any, prefix: str = "qatbe_") -> dict[str, object]:
    return {name: row[prefix + name] for name in ("text", "total_tokens", "no_match", "dropped_count")} | {
        "segments": json.loads(row[prefix + "segments"])}


def _loop_dict(result: qatbe.Result) -> dict[str, object]:
    data = json.loads(plain(result))
    return {name: data[name] for name in ("text", "total_tokens", "no_match", "dropped_count", "segments")}


def test_rows_are_the_loops(spark: Any) -> None:
    from qatbe.spark import extract_dataframe

    pages = fixture_pages()
    questions = ["chess openings", None, "passport fee"]
    rows = [(i, page, questions[i % 3]) for i, page in enumerate(pages)]
    frame = spark.createDataFrame(rows, "n long, html binary, question string")
    got = extract_dataframe(frame, query_col="question", query="fee", budget=150).orderBy("n").collect()
    assert [r.n for r in got] == list(range(len(pages)))
    assert all(r.qatbe_error is None for r in got)
    expected = [qatbe.extract(p, q if q is not None else "fee", budget=150) for _, p, q in rows]
    assert [_row_dict(r) for r in got] == [_loop_dict(e) for e in expected]
    text = spark.createDataFrame([(p.decode(),) for p in pages[:3]], "body string")
    got = extract_dataframe(text, source_col="body", output_prefix="x_", tier="key_facts").collect()
    assert [_row_dict(r, "x_") for r in got] == [_loop_dict(qatbe.extract(p, tier="key_facts")) for p in pages[:3]]


def test_a_bad_row_is_an_error_column(spark: Any) -> None:
    from qatbe.spark import extract_dataframe

    frame = spark.createDataFrame([(0, fixture_pages()[0]), (1, b"\x00\x01\x02" * 99), (2, None)],
                                  "n long, html binary")
    got = extract_dataframe(frame).orderBy("n").collect()
    assert got[0].qatbe_error is None and got[0].qatbe_text
    assert got[1].qatbe_error.startswith("InputError: input looks like binary") and got[1].qatbe_text is None
    assert got[2].qatbe_error == "InputError: the 'html' value is null"


def test_options_are_checked_on_the_driver(spark: Any) -> None:
    from qatbe.spark import extract_dataframe

    frame = spark.createDataFrame([(b"<p>x</p>", 1, "t")], "html binary, n long, text string")
    for kwargs, message in (({"budget": -5}, "budget"), ({"colour": 1}, "unknown option"),
                            ({"source_col": "page"}, "not a column"), ({"source_col": "n"}, "string or binary"),
                            ({"output_prefix": ""}, "already has a column 'text'"),
                            ({"query_col": "n"}, "string column")):
        with pytest.raises(qatbe.ConfigError, match=message):
            extract_dataframe(frame, **kwargs)
    with pytest.raises(qatbe.ConfigError, match="pyspark.sql.DataFrame"):
        extract_dataframe([1, 2])
    assert importlib.import_module("qatbe.spark").extract_dataframe is extract_dataframe


def test_the_example_job_writes_parquet(spark: Any, tmp_path: Path) -> None:
    example = _example()
    first = write_warc(tmp_path / "a.warc.gz", [Page("https://x.test/a", fixture_pages()[0])])
    second = write_warc(tmp_path / "b.warc.gz", [Page("https://x.test/b", fixture_pages()[-1]),
                                                 Page("https://x.test/logo", b"\x89PNG", "image/png")])
    frame = example.extracts(spark, [str(first), str(second)], query="passport", budget=80, partitions=2)
    frame.write.mode("overwrite").parquet(str(tmp_path / "out"))
    rows = sorted(spark.read.parquet(str(tmp_path / "out")).collect(), key=lambda r: r.url)
    assert [r.url for r in rows] == ["https://x.test/a", "https://x.test/b"]
    assert [r.qatbe_text for r in rows] == [qatbe.extract(p, "passport", budget=80).text
                                          for p in (fixture_pages()[0], fixture_pages()[-1])]
    assert all(r.record_id.startswith("<urn:uuid:") and r.date for r in rows)


@pytest.mark.corpora
def test_every_wcxb_page_from_a_warc_is_the_loops(spark: Any, corpora: Path,
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    example = _example()
    path = wcxb_warc(corpora, tmp_path_factory.mktemp("wcxb"))
    got = {r.url: r for r in example.extracts(spark, [str(path)], query=WCXB_QUERY, partitions=2).collect()}
    loop = wcxb_loop(corpora)
    pages = wcxb_pages(corpora)
    assert len(got) == len(pages) >= 300
    assert [_row_dict(got[p.url]) for p in pages] == [
        {k: v for k, v in json.loads(e).items() if k in ("text", "total_tokens", "no_match", "dropped_count",
                                                         "segments")} for e in loop]


def test_the_readme_spark_example_runs(spark: Any) -> None:
    # Spark resolves relative paths against the JVM's working directory, the one the session started in.
    here = Path(spark.sparkContext._jvm.java.lang.System.getProperty("user.dir"))
    pages, out = here / "pages.parquet", here / "extracts.parquet"
    if pages.exists() or out.exists():
        pytest.skip(f"{here} already holds pages.parquet or extracts.parquet; not overwritten")
    try:
        sources = fixture_pages()[:3]
        frame = spark.createDataFrame([(p, "chess openings") for p in sources], "html binary, question string")
        frame.write.parquet(str(pages))
        exec(example("many-pages-spark"), {})  # noqa: S102 - the README example, run as written
        rows = spark.read.parquet(str(out)).collect()
    finally:
        shutil.rmtree(pages, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    assert sorted(r.qatbe_text for r in rows) == sorted(qatbe.extract(p, "chess openings", budget=500).text
                                                        for p in sources)
