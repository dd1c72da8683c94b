"""The service: a real uvicorn on a free 127.0.0.1 port, called over HTTP with httpx; pages fetched from a real
local server. What it answers is what the library gives for the same page and options."""

# ruff: noqa: F811 (the fixtures imported from local_http come back as test parameters)

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from local_http import PAGE, base, corpus_pages, only_loopback, uvicorn_app  # noqa: F401 (fixtures)

import qatbe
from qatbe.fetching import FetchOptions
from qatbe.integrations.server import ServiceConfig, create_app

LOCAL = ("127.0.0.1/32",)
QUERY = "how much does renewal cost?"


def same(answer: dict[str, Any], result: Any) -> None:
    """The service's JSON equals the library's ``to_dict()`` but for the time it took."""
    expected = json.loads(json.dumps(result.to_dict()))
    for d in (answer, expected):
        d.pop("evaluation_time_ms")
    assert answer == expected


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    config = ServiceConfig(fetch=FetchOptions(allowed_networks=LOCAL, timeout=1.0))
    with uvicorn_app(create_app(config)) as url:
        yield url


@pytest.fixture(scope="module")
def client(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=30, trust_env=False) as c:
        yield c


def test_health_openapi_and_docs(client: httpx.Client) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    spec = client.get("/openapi.json").json()
    assert {"/v1/extract", "/v1/extract_many", "/healthz"} <= set(spec["paths"])
    assert "swagger" in client.get("/docs").text.lower()


def test_extract_of_a_source_is_the_library_s_result(client: httpx.Client) -> None:
    answer = client.post("/v1/extract", json={"source": PAGE, "query": QUERY, "budget": 60, "render": "text"})
    assert answer.status_code == 200
    same(answer.json(), qatbe.extract(PAGE, QUERY, budget=60, render="text"))


def test_scoring_constants_in_a_json_body_are_the_library_s(client: httpx.Client) -> None:
    scoring = {"number_cue": 0.0, "lead_in_share": 0.5}
    answer = client.post("/v1/extract", json={"source": PAGE, "query": QUERY, "budget": 60, "scoring": scoring})
    assert answer.status_code == 200
    same(answer.json(), qatbe.extract(PAGE, QUERY, budget=60, scoring=scoring))


def test_extract_of_a_url_is_the_library_s_result(client: httpx.Client, base: str) -> None:
    answer = client.post("/v1/extract", json={"url": f"{base}/chain/2", "query": QUERY, "tier": "key_facts"})
    assert answer.status_code == 200
    doc = qatbe.fetch(f"{base}/chain/2", allowed_networks=LOCAL)
    same(answer.json(), qatbe.extract(doc, QUERY, tier="key_facts"))
    assert answer.json()["metadata"]["url"] == f"{base}/page"


def test_extract_many_is_the_library_s_result_and_reports_failed_urls(client: httpx.Client, base: str) -> None:
    docs = [{"url": f"{base}/page", "title": "Renewal"}, {"source": "<p>Fees abroad are 101 pounds.</p>", "id": "a"},
            {"url": f"{base}/pdf"}]
    answer = client.post("/v1/extract_many", json={"documents": docs, "query": QUERY, "budget": 300})
    assert answer.status_code == 200
    data = answer.json()
    assert [(e["index"], e["error_type"]) for e in data["errors"]] == [(2, "FetchError")]
    library = qatbe.extract_many(
        [qatbe.Document(url=f"{base}/page", title="Renewal"), qatbe.Document(docs[1]["source"], id="a"),
         qatbe.Document(url=f"{base}/pdf")], QUERY, budget=300, fetch_options=FetchOptions(allowed_networks=LOCAL))
    same(data, library)


def test_concurrent_requests_all_answer_the_same(api: str) -> None:
    body = {"source": PAGE, "query": QUERY, "budget": 80}
    expected = qatbe.extract(PAGE, QUERY, budget=80).text

    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=api, timeout=30, trust_env=False) as c:
            return await asyncio.gather(*(c.post("/v1/extract", json=body) for _ in range(24)))

    answers = asyncio.run(run())
    assert [a.status_code for a in answers] == [200] * 24
    assert {a.json()["text"] for a in answers} == {expected}


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"source": PAGE, "query": "q", "colour": "red"}, 422, "unknown option 'colour'"),
    ({"source": PAGE, "budget": -1}, 422, "budget must be >= 0"),
    ({"source": PAGE, "tier": "huge"}, 422, "unknown tier"),
    ({"source": PAGE, "url": "http://127.0.0.1/"}, 422, "exactly one of url"),
    ({"query": "q"}, 422, "exactly one of url"),
    ({"url": "not a url"}, 422, "one http(s) URL"),
    ({"source": 5}, 422, "source must be a string"),
    ({"source": PAGE, "scoring": {"number_clue": 1}}, 422, "unknown scoring constant 'number_clue'"),
    ({"url": "http://10.0.0.1/admin"}, 400, "10.0.0.1: a private address"),
    ({"url": "http://169.254.169.254/latest/"}, 400, "metadata"),
])
def test_bad_requests_get_qatbe_s_one_line_message(client: httpx.Client, body: dict[str, Any], status: int,
                                                     message: str) -> None:
    answer = client.post("/v1/extract", json=body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in error


def test_extract_many_validates_its_documents(client: httpx.Client) -> None:
    for body, message in (({"documents": []}, "non-empty list"),
                          ({"documents": [{"source": "x", "colour": 1}]}, "unknown field 'colour'"),
                          ({"documents": [{"title": "t"}]}, "needs url or source"),
                          ({"documents": [{"source": "x"}], "dedupe": "yes"}, "dedupe must be True or False")):
        answer = client.post("/v1/extract_many", json=body)
        assert answer.status_code == 422 and message in answer.json()["error"]


def test_another_method_or_path_is_starlette_s_405_or_404(client: httpx.Client) -> None:
    assert client.get("/v1/extract").status_code == 405
    assert client.put("/v1/extract_many", json={}).status_code == 405
    assert client.post("/v1/nothing", json={}).status_code == 404


def test_body_that_is_not_json_is_400(client: httpx.Client) -> None:
    answer = client.post("/v1/extract", content=b"{nope", headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]


def test_an_oversized_body_is_413_declared_or_streamed() -> None:
    big = json.dumps({"source": "x" * 300_000}).encode()

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for i in range(0, len(big), 16_384):
            yield big[i:i + 16_384]

    with uvicorn_app(create_app(ServiceConfig(max_body_bytes=200_000))) as api, \
            httpx.Client(base_url=api, trust_env=False, timeout=30) as c:
        assert c.post("/v1/extract", content=big).status_code == 413
        assert c.post("/v1/extract", content=chunks()).status_code == 413
        assert c.post("/v1/extract", json={"source": PAGE}).status_code == 200


@pytest.mark.parametrize(("path", "status", "message"), [
    ("/slow?s=30", 504, "timeout=1"),
    ("/trickle", 504, "timeout=1"),
    ("/pdf", 502, "application/pdf"),
    ("/missing", 502, "HTTP 404"),
    ("/to-metadata", 400, "169.254.169.254"),
])
def test_fetch_failures_map_to_gateway_statuses(client: httpx.Client, base: str, path: str, status: int,
                                                message: str) -> None:
    answer = client.post("/v1/extract", json={"url": base + path, "query": "q"})
    assert answer.status_code == status and message in answer.json()["error"]


def test_the_request_timeout_holds_for_the_whole_request(base: str) -> None:
    config = ServiceConfig(request_timeout=0.5, fetch=FetchOptions(allowed_networks=LOCAL, timeout=30))
    with uvicorn_app(create_app(config)) as api:
        answer = httpx.post(f"{api}/v1/extract", json={"url": f"{base}/slow?s=30"}, timeout=30, trust_env=False)
    assert answer.status_code == 504


def test_the_request_timeout_holds_while_the_body_arrives() -> None:
    """A client that sends the headers and part of the body, then nothing: the time limit covers reading the body,
    so the service answers 504 once it is spent instead of holding the connection."""
    import socket
    import time
    import urllib.parse

    with uvicorn_app(create_app(ServiceConfig(request_timeout=0.5))) as api:
        address = urllib.parse.urlsplit(api)
        with socket.create_connection((address.hostname, address.port), timeout=20) as sock:
            sock.sendall(b"POST /v1/extract HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"source\": \"")
            started = time.monotonic()
            answer = sock.recv(4096)
            waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 504"), answer[:80]
    assert b"request_timeout=0.5" in answer
    assert 0.3 < waited < 15


def test_the_api_key_is_required_when_set() -> None:
    with uvicorn_app(create_app(ServiceConfig(api_key="s3cret"))) as api, \
            httpx.Client(base_url=api, trust_env=False, timeout=30) as c:
        body = {"source": PAGE, "query": QUERY}
        assert c.post("/v1/extract", json=body).status_code == 401
        assert c.post("/v1/extract", json=body, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.post("/v1/extract", json=body, headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert c.post("/v1/extract", json=body, headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/healthz").status_code == 200


def test_the_key_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QATBE_API_KEY", "from-env")
    with uvicorn_app(create_app()) as api:
        assert httpx.post(f"{api}/v1/extract", json={"source": PAGE}, trust_env=False).status_code == 401
        assert httpx.post(f"{api}/v1/extract", json={"source": PAGE}, headers={"X-API-Key": "from-env"},
                          trust_env=False).status_code == 200


def test_service_config_is_validated() -> None:
    for bad in ({"max_body_bytes": 0}, {"request_timeout": -1}, {"threads": 0}, {"api_key": ""}):
        with pytest.raises(qatbe.ConfigError):
            ServiceConfig(**bad)


@pytest.mark.corpora
def test_service_equals_library_on_every_dev_page_of_two_corpora(corpora: Path, client: httpx.Client) -> None:
    from qatbe.segmentation.decode import decode_bytes

    for name in ("scrapinghub-aeb", "wcxb"):
        for stem, data in corpus_pages(corpora, name).items():
            source = decode_bytes(data)
            answer = client.post("/v1/extract", json={"source": source, "tier": "summary"})
            assert answer.status_code == 200, (name, stem, answer.text)
            got = answer.json()
            got.pop("evaluation_time_ms")
            expected = json.loads(json.dumps(qatbe.extract(source, tier="summary").to_dict()))
            expected.pop("evaluation_time_ms")
            assert got == expected, (name, stem)


def test_a_bug_is_a_500_without_its_details(monkeypatch: pytest.MonkeyPatch,
                                            caplog: pytest.LogCaptureFixture) -> None:
    from qatbe.integrations import server

    async def broken(self: server.Service, raw: bytes, deadline: float) -> bytes:
        raise RuntimeError("secret detail of a bug")

    monkeypatch.setattr(server.Service, "extract", broken)  # fault injection: no real input reaches a bug
    with uvicorn_app(create_app(ServiceConfig())) as api:
        answer = httpx.post(f"{api}/v1/extract", json={"source": PAGE}, trust_env=False)
    assert answer.status_code == 500 and answer.json() == {"error": "internal error"}
    assert "secret" not in answer.text and "Traceback" not in answer.text
    assert "secret detail of a bug" in caplog.text  # logged on the server's side


# -- the page itself as the body ------------------------------------------------------------------------------------

_MD = "# Fees\n\nRenewal costs 92.50 crowns online.\n\n## Help\n\nCall us.\n"


@pytest.mark.parametrize(("media", "body", "fmt"), [
    ("text/html; charset=utf-8", PAGE.encode("utf-8"), "html"),
    ("application/xhtml+xml", PAGE.encode("utf-8"), "html"),
    ("text/markdown", _MD.encode("utf-8"), "markdown"),
    ("text/plain", b"Renewal costs 92.50 crowns.\n\nCall us on weekdays.", "text"),
])
def test_a_page_as_the_body_is_the_library_s_result(client: httpx.Client, media: str, body: bytes,
                                                     fmt: str) -> None:
    answer = client.post("/v1/extract", content=body, headers={"content-type": media},
                         params={"query": QUERY, "budget": 120, "include_headings": "false"})
    assert answer.status_code == 200, answer.text
    same(answer.json(), qatbe.extract(body, QUERY, budget=120, include_headings=False, format=fmt))


def test_a_page_as_the_body_answers_as_its_json_form(client: httpx.Client) -> None:
    raw = client.post("/v1/extract", content=PAGE.encode("utf-8"), headers={"content-type": "text/html"},
                      params={"query": QUERY, "tier": "key_facts"})
    posted = client.post("/v1/extract", json={"source": PAGE, "query": QUERY, "tier": "key_facts"})
    assert raw.status_code == posted.status_code == 200
    assert raw.json() | {"evaluation_time_ms": 0} == posted.json() | {"evaluation_time_ms": 0}


def test_the_charset_parameter_decodes_the_body(client: httpx.Client) -> None:
    page = "<p>Größe: der Preis beträgt 12 Euro für die Verlängerung.</p>"
    answer = client.post("/v1/extract", content=page.encode("latin-1"),
                         headers={"content-type": "text/html; charset=ISO-8859-1"}, params={"query": "Preis"})
    assert answer.status_code == 200
    assert "beträgt 12 Euro" in answer.json()["text"]


@pytest.mark.parametrize(("params", "headers", "status", "says"), [
    ({"tierx": "summary"}, {}, 422, "unknown option 'tierx'"),
    ({"budget": "abc"}, {}, 422, "budget"),
    ({"tier": "bogus"}, {}, 422, "bogus"),
    ({"weights": "{}"}, {}, 422, "JSON body"),
    ([("query", "a"), ("query", "b")], {}, 422, "twice"),
    ({}, {"content-type": "text/plain; charset=no-such-charset"}, 400, "no-such-charset"),
    ({"format": "sql"}, {}, 422, "format"),
])
def test_bad_query_strings_get_one_line_errors(client: httpx.Client, params: Any, headers: dict[str, str],
                                               status: int, says: str) -> None:
    answer = client.post("/v1/extract", content=b"Renewal costs 92.50 crowns.", params=params,
                         headers={"content-type": "text/plain", **headers})
    assert answer.status_code == status, answer.text
    message = answer.json()["error"]
    assert says in message and "\n" not in message and "Traceback" not in message


def test_another_media_type_is_read_as_json(client: httpx.Client) -> None:
    """Only the page media types take the body as the page: anything else is the JSON form (400 if not JSON)."""
    answer = client.post("/v1/extract", content=b"<p>x</p>", headers={"content-type": "application/pdf"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]


def test_the_openapi_description_names_both_forms(client: httpx.Client) -> None:
    extract = client.get("/openapi.json").json()["paths"]["/v1/extract"]["post"]
    assert {"application/json", "text/html", "text/markdown", "text/plain"} <= set(extract["requestBody"]["content"])
    assert {p["name"] for p in extract["parameters"]} >= {"query", "tier", "budget"}
