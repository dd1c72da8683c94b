"""The README's "Fetching URLs" and "The service" examples, run as written against real local servers."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from local_http import loopback_only, serve
from readme_examples import example

import qatbe

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    loopback_only(monkeypatch)


def test_fetch_urls_example() -> None:
    with serve() as base:
        scope: dict[str, object] = {"url": f"{base}/page"}
        exec(compile(example("fetch-urls"), "README:fetch-urls", "exec"), scope)  # noqa: S102  - the README example, run as written
    doc, r, m = scope["doc"], scope["r"], scope["m"]
    assert isinstance(doc, qatbe.Document) and isinstance(r, qatbe.Result) and isinstance(m, qatbe.ManyResult)
    assert r.metadata.url == f"{base}/page" and doc.metadata is not None
    assert doc.metadata["date"] == "2015-10-21T07:28:00+00:00"
    assert [(e.index, e.error_type) for e in m.errors] == [(1, "FetchError")]


@pytest.fixture
def service() -> Iterator[None]:
    """The `serve` example's command, as written (``qatbe`` run as ``python -m qatbe`` from this checkout)."""
    words = shlex.split(example("serve").strip())
    env = dict(os.environ)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    assert words[0] == "qatbe"
    port = int(words[words.index("--port") + 1])
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            pytest.skip(f"port {port}, which the example names, is in use on this machine")
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen([sys.executable, "-m", "qatbe", *words[1:]], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", trust_env=False, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None:
                pytest.fail("qatbe serve exited")
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait(30)


def test_service_example(service: None) -> None:
    scope: dict[str, object] = {}
    exec(compile(example("serve-client"), "README:serve-client", "exec"), scope)  # noqa: S102  - the README example, run as written
    answer = scope["answer"]
    assert isinstance(answer, httpx.Response) and answer.status_code == 200
    page = str(scope["page"])
    assert answer.json()["text"] == qatbe.extract(page, "renewal fee", budget=100, render="text").text
    assert "75 pounds" in answer.json()["text"]
    exec(compile(example("serve-raw-body"), "docs:serve-raw-body", "exec"), scope)  # noqa: S102  - run as written
    raw = scope["raw"]
    assert isinstance(raw, httpx.Response) and raw.status_code == 200
    assert raw.json() | {"evaluation_time_ms": 0} == answer.json() | {"evaluation_time_ms": 0}
