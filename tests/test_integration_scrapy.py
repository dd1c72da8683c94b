"""qatbe's Scrapy pipeline in a real crawl (CrawlerProcess, in a subprocess: Twisted's reactor cannot restart)
against fixture pages served on 127.0.0.1, items exported with FEEDS; and its settings checked at start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from integration_pages import PAGES, QUERY, serve
from readme_examples import example

import qatbe

pytest.importorskip("scrapy")

from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from qatbe.integrations.scrapy import QatbePipeline

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BINARY = bytes(range(256)) * 16


def _routes() -> dict[str, tuple[str, bytes]]:
    index = "".join(f'<a href="/{p.name}">{p.name}</a>' for p in PAGES) + '<a href="/blob">blob</a>'
    routes = {f"/{p.name}": ("text/html; charset=utf-8", p.html.encode()) for p in PAGES}
    routes["/"] = ("text/html; charset=utf-8", f"<html><body>{index}</body></html>".encode())
    routes["/blob"] = ("application/octet-stream", BINARY)
    return routes


def _python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(TESTS)]))
    return subprocess.run([sys.executable, *args], check=False, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=180)


def _crawl(tmp_path: Path, settings: dict[str, Any]) -> tuple[list[dict[str, Any]], str, list[str]]:
    out = tmp_path / "items.json"
    with serve(_routes()) as served:
        done = _python([str(TESTS / "scrapy_crawl.py"), served.base, str(out), json.dumps(settings)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8")), done.stderr, served.requests


def test_a_real_crawl_fills_every_item_and_survives_a_bad_page(tmp_path: Path) -> None:
    items, log, asked = _crawl(tmp_path, {"QATBE_QUERY": QUERY, "QATBE_QUERY_FIELD": "question",
                                          "QATBE_BUDGET": 60, "QATBE_OPTIONS": {"render": "text"}})
    assert sorted(asked) == sorted(["/", "/blob", *(f"/{p.name}" for p in PAGES)])
    by_name = {item["url"].rsplit("/", 1)[-1]: item for item in items}
    assert sorted(by_name) == sorted(["blob", *(p.name for p in PAGES)])
    estimate = qatbe.Settings().estimate
    for page in PAGES:
        if page.name == "garden":
            continue
        out = by_name[page.name]["qatbe"]
        assert out["error"] is None
        assert 0 < out["tokens"] == estimate(out["text"]) <= out["budget"] == 60
        assert "Copyright" not in out["text"] and not out["text"].startswith("#")  # render="text" applied
        query = "when is the first train on sundays" if page.name == "trains" else QUERY
        assert out["text"] == qatbe.extract(page.html, query, budget=60, render="text").text
        assert out["metadata"]["title"] == page.html.split("<title>")[1].split("<")[0]
        assert out["metadata"]["language"] == "en"
    assert "10am on Sundays" in by_name["museum"]["qatbe"]["text"]
    assert "7:30" in by_name["trains"]["qatbe"]["text"]  # the item's own question
    blob = by_name["blob"]["qatbe"]
    assert blob["text"] == "" and blob["tokens"] == 0 and blob["error"]["error_type"] == "InputError"
    garden = by_name["garden"]["qatbe"]
    assert garden["text"] == "" and garden["error"] == {"error_type": "InputError",
                                                        "message": "query must be a string or None, not int"}
    assert "qatbe could not cut the item of" in log and "/blob" in log
    assert "'qatbe/items': 5" in log and "'qatbe/errors': 2" in log


def test_a_bad_setting_stops_the_crawl_before_it_starts(tmp_path: Path) -> None:
    out = tmp_path / "items.json"
    with serve(_routes()) as served:
        done = _python([str(TESTS / "scrapy_crawl.py"), served.base, str(out),
                        json.dumps({"QATBE_BUDGET": "lots"})], tmp_path)
    assert "QATBE_BUDGET must be a whole number of tokens, not 'lots'" in done.stderr
    assert served.requests == [] and not out.exists()


def test_settings_are_read_and_checked_when_the_pipeline_is_built() -> None:
    pipeline = QatbePipeline.from_crawler(get_crawler(settings_dict={
        "QATBE_BUDGET": "300", "QATBE_QUERY": "fees", "QATBE_SOURCE_FIELD": "body", "QATBE_OUTPUT_FIELD": "cut",
        "QATBE_OPTIONS": '{"render": "text"}'}))
    settings = pipeline.extractor.settings
    assert (settings.budget, settings.render, pipeline.query) == (300, "text", "fees")
    assert (pipeline.source_field, pipeline.output_field, pipeline.query_field) == ("body", "cut", None)
    assert QatbePipeline.from_crawler(get_crawler(settings_dict={"QATBE_TIER": "key_facts"})).extractor.settings \
        .token_budget == 200
    bad: list[tuple[dict[str, Any], str]] = [
        ({"QATBE_TIER": "huge"}, "unknown tier 'huge'"),
        ({"QATBE_BUDGET": -3}, "budget must be >= 0"),
        ({"QATBE_OPTIONS": {"colour": "red"}}, "unknown option 'colour'"),
        ({"QATBE_OPTIONS": {"budget": 5}}, "set QATBE_BUDGET"),
        ({"QATBE_OPTIONS": {"citations": False}}, "does not take 'citations'"),
        ({"QATBE_OPTIONS": "not json"}, "QATBE_OPTIONS must be a dict"),
        ({"QATBE_OUTPUT_FIELD": ""}, "QATBE_OUTPUT_FIELD must be an item field name"),
        ({"QATBE_QUERY": 5}, "QATBE_QUERY must be a string"),
    ]
    for settings_dict, message in bad:
        with pytest.raises(qatbe.ConfigError, match=message):
            QatbePipeline.from_crawler(get_crawler(settings_dict=settings_dict))
    with pytest.raises(NotConfigured):
        QatbePipeline.from_crawler(get_crawler(settings_dict={"QATBE_ENABLED": False}))


def test_readme_example_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "example.py").write_text(example("scrapy"), encoding="utf-8")
    done = _python(["example.py"], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    [item] = [json.loads(line) for line in (tmp_path / "pages.jsonl").read_text(encoding="utf-8").splitlines()]
    out = item["qatbe"]
    assert out["error"] is None and 0 < out["tokens"] <= 200
    assert "crowns" in out["text"] and out["metadata"]["title"].startswith("Renew or replace your adult passport")
    assert set(item) == {"url", "qatbe"}
