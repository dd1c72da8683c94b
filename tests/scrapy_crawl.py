"""A real Scrapy crawl with qatbe's pipeline, run as its own process by tests/test_integration_scrapy.py (Twisted's
reactor cannot be started twice in one process).

Usage: ``python scrapy_crawl.py BASE_URL OUT_JSON SETTINGS_JSON``. The spider starts at ``BASE_URL/``, follows
every link of that index page, and yields one item per page: a ``scrapy.Item`` for some pages and a dict for
the others (the pipeline must fill both), the page's text (or its raw bytes when it is not text), and for the
timetable page its own question (for the garden page a number, which is no query). Items are exported with FEEDS to ``OUT_JSON``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response, TextResponse


class PageItem(scrapy.Item):
    url = scrapy.Field()
    html = scrapy.Field()
    question = scrapy.Field()
    qatbe = scrapy.Field()


class FixtureSpider(scrapy.Spider):
    name = "fixture"

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [base + "/"]

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse_page)

    def parse_page(self, response: Response) -> Iterator[Any]:
        source: str | bytes = response.text if isinstance(response, TextResponse) else response.body
        name = response.url.rsplit("/", 1)[-1]
        if name in ("museum", "trains"):
            item = PageItem(url=response.url, html=source)
            if name == "trains":
                item["question"] = "when is the first train on sundays"
            yield item
        elif name == "garden":
            yield {"url": response.url, "html": source, "question": 42}  # not a query: an error record
        else:
            yield {"url": response.url, "html": source}


def main(argv: list[str]) -> int:
    base, out, settings = argv[0], argv[1], json.loads(argv[2])
    process = CrawlerProcess(settings={
        "ITEM_PIPELINES": {"qatbe.integrations.scrapy.QatbePipeline": 300},
        # The raw page is not exported: a page that is not text is bytes, which JSON cannot hold.
        "FEEDS": {out: {"format": "json", "encoding": "utf8", "fields": ["url", "question", "qatbe"]}},
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,  # no listening port of Scrapy's own in a test run
        "REMOTE_CONTROL_ENABLED": False,
        "CLOSESPIDER_TIMEOUT": 60,  # a bound on the crawl, whatever happens
        **settings,
    })
    process.crawl(FixtureSpider, base=base)
    process.start()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
