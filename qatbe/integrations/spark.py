"""Apache Spark: ``extract_dataframe`` adds qatbe's extract of every row's page to a DataFrame.

It runs on Spark's columnar path (``DataFrame.mapInArrow``): each Python worker receives Arrow record batches,
extracts every row with one ``Extractor`` per worker process (built on its first batch and kept, keyed by the
settings) and returns the batch with the new columns. Options are validated on the driver, before the job
starts; the executors receive the validated settings as plain values. The extract of a row is exactly
``qatbe.extract(source, query, **options)``.

New columns (``output_prefix`` + name): ``text`` (string), ``total_tokens`` (long), ``no_match`` (boolean),
``dropped_count`` (long), ``segments`` (JSON list of the chosen segments, ``Segment.to_dict()`` each) and
``error`` (``"ErrorType: message"`` for a row that failed, whose other new columns are then null).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

from .._optional import require
from ..batch import extractor_from, settings_fields
from ..errors import ConfigError, InputError
from ..pipeline import Extractor, _check_query

pyspark_sql = require("pyspark.sql", "spark", "qatbe.spark")
pa = require("pyarrow", "spark", "qatbe.spark")
types = require("pyspark.sql.types", "spark", "qatbe.spark")

_COLUMNS = (
    ("text", types.StringType()),
    ("total_tokens", types.LongType()),
    ("no_match", types.BooleanType()),
    ("dropped_count", types.LongType()),
    ("segments", types.StringType()),
    ("error", types.StringType()),
)
_ARROW = {"text": pa.string(), "total_tokens": pa.int64(), "no_match": pa.bool_(), "dropped_count": pa.int64(),
          "segments": pa.string(), "error": pa.string()}


def extract_dataframe(
    df: Any,
    *,
    source_col: str = "html",
    query_col: str | None = None,
    query: str | None = None,
    budget: int | None = None,
    tier: str | None = None,
    output_prefix: str = "qatbe_",
    **options: Any,
) -> Any:
    """``df`` with the extract of each row's ``source_col`` (HTML, markdown or text; string or binary) added.

    The question of a row: its ``query_col`` value when that column is given and the value is not null, else
    ``query`` (None: the page's main content under the budget). ``budget``, ``tier`` and every other keyword are
    ``qatbe.Settings`` options. Returns a new (lazy) DataFrame; nothing runs until an action."""
    if not isinstance(df, pyspark_sql.DataFrame):
        raise ConfigError(f"df must be a pyspark.sql.DataFrame, not {type(df).__name__}")
    settings = Extractor(options.pop("settings", None), budget=budget, tier=tier, **options).settings
    default_query = _check_query(query)
    fields = {f.name: f.dataType for f in df.schema.fields}
    for name, what in ((source_col, "source_col"), (query_col, "query_col")):
        if name is not None and name not in fields:
            raise ConfigError(f"{what}={name!r} is not a column of the DataFrame; it has {', '.join(fields)}")
    if not isinstance(fields[source_col], (types.StringType, types.BinaryType)):
        raise ConfigError(f"source_col {source_col!r} must be a string or binary column, not {fields[source_col]}")
    if query_col is not None and not isinstance(fields[query_col], types.StringType):
        raise ConfigError(f"query_col {query_col!r} must be a string column, not {fields[query_col]}")
    if not isinstance(output_prefix, str):
        raise ConfigError(f"output_prefix must be a string, not {output_prefix!r}")
    added = [output_prefix + name for name, _ in _COLUMNS]
    taken = sorted(set(added) & set(fields))
    if taken:
        raise ConfigError(f"the DataFrame already has a column {taken[0]!r}; choose another output_prefix")
    schema = types.StructType([*df.schema.fields,
                               *(types.StructField(output_prefix + n, t, True) for n, t in _COLUMNS)])
    run = partial(_extract_batches, settings_fields(settings), source_col, query_col, default_query, output_prefix)
    return df.mapInArrow(run, schema)


def _extract_batches(fields: dict[str, Any], source_col: str, query_col: str | None, query: str | None,
                     prefix: str, batches: Iterator[Any]) -> Iterator[Any]:
    """Runs in the Python workers: every Arrow batch with its extracts added."""
    extractor = extractor_from(fields)
    for batch in batches:
        sources = batch.column(source_col).to_pylist()
        questions = batch.column(query_col).to_pylist() if query_col is not None else [None] * len(sources)
        out: dict[str, list[Any]] = {name: [] for name, _ in _COLUMNS}
        for source, question in zip(sources, questions):
            row: dict[str, Any] = dict.fromkeys(out)
            try:
                if source is None:
                    raise InputError(f"the {source_col!r} value is null")
                result = extractor.extract(source, question if question is not None else query)
                row.update(text=result.text, total_tokens=result.total_tokens, no_match=result.no_match,
                           dropped_count=result.dropped_count,
                           segments=json.dumps([s.to_dict() for s in result.segments], ensure_ascii=False))
            except Exception as exc:  # noqa: BLE001 - one bad row must not fail the job; its error column says why
                row["error"] = f"{type(exc).__name__}: {exc}"
            for name, value in row.items():
                out[name].append(value)
        columns = [*batch.columns, *(pa.array(out[name], type=_ARROW[name]) for name, _ in _COLUMNS)]
        names = [*batch.schema.names, *(prefix + name for name, _ in _COLUMNS)]
        yield pa.RecordBatch.from_arrays(columns, names=names)
