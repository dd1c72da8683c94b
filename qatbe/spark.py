"""``qatbe.spark.extract_dataframe``: the Spark integration (``qatbe.integrations.spark``), under a short name."""

from __future__ import annotations

from .integrations.spark import extract_dataframe

__all__ = ["extract_dataframe"]
