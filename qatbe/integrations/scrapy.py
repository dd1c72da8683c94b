"""Scrapy: an item pipeline that cuts each scraped page to a token budget for a query.

Enable it and configure it in the project's settings::

    ITEM_PIPELINES = {"qatbe.integrations.scrapy.QatbePipeline": 300}
    QATBE_QUERY = "opening hours on sundays"   # the query for every item, or
    QATBE_QUERY_FIELD = "question"             # the item field holding each item's own query (missing or blank:
                                               # QATBE_QUERY)
    QATBE_SOURCE_FIELD = "html"                # the item field holding the page (str or bytes); default "html"
    QATBE_BUDGET = 500                         # tokens, or QATBE_TIER = "summary" (default tier: summary)
    QATBE_OUTPUT_FIELD = "qatbe"               # where the result goes; default "qatbe"
    QATBE_OPTIONS = {"render": "text"}         # any other keyword qatbe.extract takes
    QATBE_ENABLED = True                       # False turns the pipeline off (NotConfigured)

The settings are read and validated once, when the crawler builds the pipeline (``from_crawler``): a bad value
raises ``qatbe.ConfigError`` naming the setting, so a misconfigured crawl stops before it starts instead of
running without qatbe. With no query (neither setting, or an item whose query field is empty) the page's main
content is kept, boilerplate out.

Each item (a dict, a ``scrapy.Item`` declaring the output field, or any item ``itemadapter`` knows) gets in its
output field a dict: ``text`` (the cut text), ``tokens`` (its tokens by the estimator, never above the budget),
``budget``, ``no_match``, ``truncated`` (whether content was left out), ``metadata`` (the page's ``title``,
``author``, ``date``, ``description``, ``language`` and ``url``) and ``error``, None. A page qatbe cannot use (no
source field, binary bytes, ...) does not stop the crawl and its item is kept: ``text`` is empty, ``tokens`` 0,
and ``error`` holds ``{"error_type", "message"}``; a warning is logged and the crawl's stats count
``qatbe/items`` and ``qatbe/errors``. The extraction runs in Twisted's thread pool, so the reactor goes on
downloading meanwhile.
"""

from __future__ import annotations

import logging
from typing import Any

from .._optional import require
from ..errors import ConfigError, InputError, QatbeError
from ..pipeline import Extractor
from ..result import Result
from ._shared import build_extractor

require("scrapy", "scrapy", "qatbe.integrations.scrapy")

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

__all__ = ["QatbePipeline"]

logger = logging.getLogger(__name__)

_PAGE_FIELDS = ("title", "author", "date", "description", "language", "url")


def _field_name(settings: BaseSettings, name: str, default: str | None) -> str | None:
    value = settings.get(name, default)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{name} must be an item field name, not {value!r}")
    return value


def _budget(settings: BaseSettings) -> int | None:
    value = settings.get("QATBE_BUDGET")
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():  # from the command line: -s QATBE_BUDGET=500
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"QATBE_BUDGET must be a whole number of tokens, not {value!r}")
    return value


class QatbePipeline:
    """Fills each item with its page cut to the budget for the query (see the module's documentation)."""

    def __init__(self, extractor: Extractor, *, query: str | None = None, query_field: str | None = None,
                 source_field: str = "html", output_field: str = "qatbe", crawler: Crawler | None = None) -> None:
        self.extractor = extractor
        self.query = query
        self.query_field = query_field
        self.source_field = source_field
        self.output_field = output_field
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> QatbePipeline:
        settings = crawler.settings
        try:
            enabled = settings.getbool("QATBE_ENABLED", True)
        except ValueError:
            raise ConfigError(f"QATBE_ENABLED must be True or False, not {settings.get('QATBE_ENABLED')!r}") from None
        if not enabled:
            raise NotConfigured("QATBE_ENABLED is False")
        query = settings.get("QATBE_QUERY")
        if query is not None and not isinstance(query, str):
            raise ConfigError(f"QATBE_QUERY must be a string, not {query!r}")
        try:
            options = settings.getdict("QATBE_OPTIONS")
        except ValueError:
            raise ConfigError(f"QATBE_OPTIONS must be a dict (or its JSON), not {settings.get('QATBE_OPTIONS')!r}") \
                from None
        for name in ("budget", "tier"):
            if name in options:
                raise ConfigError(f"set QATBE_{name.upper()}, not {name!r} in QATBE_OPTIONS")
        try:
            extractor = build_extractor("QatbePipeline", _budget(settings), settings.get("QATBE_TIER"), options,
                                        together=False)
        except ConfigError as exc:
            raise ConfigError(f"QatbePipeline settings: {exc}") from None
        return cls(
            extractor,
            query=query or None,
            query_field=_field_name(settings, "QATBE_QUERY_FIELD", None),
            source_field=_field_name(settings, "QATBE_SOURCE_FIELD", "html") or "html",
            output_field=_field_name(settings, "QATBE_OUTPUT_FIELD", "qatbe") or "qatbe",
            crawler=crawler,
        )

    def _query(self, adapter: ItemAdapter) -> object:
        """The item's own query when it has one (anything but a string is refused by ``extract``), else
        QATBE_QUERY."""
        if self.query_field is not None:
            value = adapter.get(self.query_field)
            if value is not None and not (isinstance(value, str) and not value.strip()):
                return value
        return self.query

    def _cut(self, source: object, query: object) -> Result:
        if source is None:
            raise InputError(f"the item has no {self.source_field!r} field (QATBE_SOURCE_FIELD) to cut")
        if not isinstance(source, (str, bytes)):
            raise InputError(f"the item's {self.source_field!r} field must be str or bytes, not "
                             f"{type(source).__name__}")
        return self.extractor.extract(source, query)

    def _record(self, outcome: Result | QatbeError) -> dict[str, Any]:
        if isinstance(outcome, QatbeError):
            return {"text": "", "tokens": 0, "budget": self.extractor.settings.token_budget, "no_match": False,
                    "truncated": False, "metadata": {},
                    "error": {"error_type": type(outcome).__name__, "message": str(outcome)}}
        page = outcome.metadata
        return {"text": outcome.text, "tokens": outcome.total_tokens, "budget": outcome.budget,
                "no_match": outcome.no_match, "truncated": outcome.was_truncated,
                "metadata": {name: getattr(page, name) for name in _PAGE_FIELDS}, "error": None}

    def _stat(self, key: str) -> None:
        if self.crawler is not None and self.crawler.stats is not None:
            self.crawler.stats.inc_value(key)

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        """``spider`` is accepted for Scrapy versions that still pass it; it is not used."""
        adapter = ItemAdapter(item)
        outcome: Result | QatbeError
        try:
            outcome = await maybe_deferred_to_future(
                deferToThread(self._cut, adapter.get(self.source_field), self._query(adapter)))
        except QatbeError as exc:
            outcome = exc
            self._stat("qatbe/errors")
            logger.warning("qatbe could not cut the item of %s: %s: %s", adapter.get("url", "an unknown URL"),
                           type(exc).__name__, exc)
        self._stat("qatbe/items")
        try:
            adapter[self.output_field] = self._record(outcome)
        except KeyError:
            raise ConfigError(f"{type(item).__name__} has no field {self.output_field!r} for QatbePipeline's output:"
                              " declare it, or set QATBE_OUTPUT_FIELD") from None
        return item
