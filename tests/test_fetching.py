"""qatbe.fetch against a real HTTP server on 127.0.0.1, and the SSRF guard.

Every test here runs with ``loopback_only``: a connect to anything but loopback is refused by the test process
itself, so a broken guard fails these tests without a packet leaving the machine. The guard's refusals of private,
link-local and metadata addresses are asserted on IP literals (no name is resolved: there is no network).
"""

# ruff: noqa: F811 (the fixtures imported from local_http come back as test parameters)

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from local_http import base, only_loopback  # noqa: F401 (fixtures; a test names base as its parameter)

import qatbe
from qatbe import BlockedAddressError, ConfigError, FetchError, FetchTimeoutError
from qatbe.fetching import FetchOptions, async_http_client, guard_url, http_client, is_url

LOCAL = ("127.0.0.1/32",)


def get(url: str, **options: object) -> qatbe.Document:
    options.setdefault("allowed_networks", LOCAL)
    return qatbe.fetch(url, **options)  # type: ignore[arg-type]


# -- fetching --------------------------------------------------------------------------------------------------


def test_a_page_becomes_a_document_with_its_url_and_server_date(base: str) -> None:
    doc = get(f"{base}/page")
    assert isinstance(doc.source, str) and "Renew your passport" in doc.source
    assert doc.url == f"{base}/page"
    assert doc.metadata is not None and doc.metadata["date"] == "2015-10-21T07:28:00+00:00"
    assert doc.metadata["content_type"] == "text/html"


def test_extract_takes_the_document_and_reports_its_url(base: str) -> None:
    doc = get(f"{base}/page")
    r = qatbe.extract(doc, "how much does renewal cost?", budget=60)
    assert "75 pounds" in r.text
    assert r.metadata.url == f"{base}/page"
    assert r.text == qatbe.extract(doc.source, "how much does renewal cost?", budget=60).text  # type: ignore[arg-type]


def test_a_document_without_source_is_refused_by_extract() -> None:
    with pytest.raises(qatbe.InputError, match="fetch it first"):
        qatbe.extract(qatbe.Document(url="http://127.0.0.1/x"), "q")


def test_the_page_s_own_url_wins_over_the_document_s() -> None:
    page = "<html><head><link rel='canonical' href='https://example.org/a'></head><body><p>Fees: 5.</p></body></html>"
    r = qatbe.extract(qatbe.Document(page, url="http://127.0.0.1/fetched"), "fees")
    assert r.metadata.url == "https://example.org/a"


def test_without_last_modified_the_date_header_is_the_date(base: str) -> None:
    doc = get(f"{base}/latin1")
    assert doc.metadata is not None and doc.metadata["date_source"] == "date"
    assert qatbe.extract_many([doc], "coffee").sources[0].date == doc.metadata["date"]


def test_charset_from_the_header_then_from_the_page(base: str) -> None:
    assert "Caf\u00e9 cr\u00e8me" in str(get(f"{base}/latin1").source)
    doc = get(f"{base}/meta-charset")
    assert isinstance(doc.source, bytes)  # no header charset: qatbe's decoder reads the page's <meta>
    assert "Na\u00efve \u2013 caf\u00e9" in qatbe.extract(doc, "naive").text


def test_markdown_and_gzip_bodies(base: str) -> None:
    assert qatbe.extract(get(f"{base}/markdown"), "fee").format == "markdown"
    assert "Renew your passport" in str(get(f"{base}/gzip").source)


def test_redirects_are_followed_up_to_the_cap(base: str) -> None:
    doc = get(f"{base}/chain/3")
    assert doc.url == f"{base}/page"
    with pytest.raises(FetchError, match="max_redirects=2"):
        get(f"{base}/chain/3", max_redirects=2)
    with pytest.raises(FetchError, match="redirects"):
        get(f"{base}/loop")


@pytest.mark.parametrize(("path", "message"), [
    ("/pdf", "content type application/pdf"),
    ("/image", "content type image/png"),
    ("/missing", "HTTP 404"),
    ("/broken", "HTTP 500"),
    ("/to-file", "http and https"),
])
def test_what_is_not_a_page_is_a_fetch_error_that_says_why(base: str, path: str, message: str) -> None:
    with pytest.raises(FetchError, match=message):
        get(base + path)


def test_max_bytes_holds_against_a_declared_size_a_stream_and_a_gzip_bomb(base: str) -> None:
    with pytest.raises(FetchError, match="30,000,000 bytes"):
        get(f"{base}/big")
    with pytest.raises(FetchError, match="larger than max_bytes=100,000"):
        get(f"{base}/forever", max_bytes=100_000)
    with pytest.raises(FetchError, match="decompresses to more than"):
        get(f"{base}/bomb", max_bytes=1_000_000)


def test_timeout_is_a_total_deadline(base: str) -> None:
    for path in ("/slow?s=30", "/trickle", "/forever"):  # no answer; a byte at a time; a body without end
        with pytest.raises(FetchTimeoutError, match="timeout=0.3"):
            get(base + path, timeout=0.3, max_bytes=10**12)


def test_afetch_is_the_same_fetch(base: str) -> None:
    doc = asyncio.run(qatbe.afetch(f"{base}/chain/2", allowed_networks=LOCAL))
    assert doc == get(f"{base}/page")
    with pytest.raises(FetchTimeoutError):
        asyncio.run(qatbe.afetch(f"{base}/trickle", allowed_networks=LOCAL, timeout=0.3))
    with pytest.raises(BlockedAddressError, match="169.254.169.254"):
        asyncio.run(qatbe.afetch(f"{base}/to-metadata", allowed_networks=LOCAL))


@pytest.mark.parametrize("bad", [
    {"timeout": 0}, {"timeout": float("nan")}, {"max_bytes": 0}, {"max_redirects": -1},
    {"allow_private": "yes"}, {"allowed_networks": "10.0.0.0/8"}, {"allowed_networks": ["nonsense"]},
])
def test_fetch_options_are_validated(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        qatbe.fetch("http://127.0.0.1:9/", **bad)  # type: ignore[arg-type]


def test_importing_qatbe_does_not_import_httpx() -> None:
    code = "import sys, qatbe; qatbe.fetch; qatbe.FetchOptions; assert 'httpx' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the SSRF guard --------------------------------------------------------------------------------------------

REFUSED = [
    ("http://127.0.0.1/", "loopback"),
    ("http://127.8.9.10:8080/", "loopback"),
    ("http://10.0.0.1/", "private"),
    ("http://172.16.5.4/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.1.1/", "link-local"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://100.100.100.200/", "metadata"),
    ("http://[fd00:ec2::254]/", "metadata"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified"),
    ("http://[fd12:3456::1]/", "private"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:10.1.2.3]/", "private"),
    ("http://[::ffff:169.254.169.254]/", "metadata"),
    ("http://[64:ff9b::a00:1]/", "private"),
    ("http://224.0.0.1/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://100.64.0.1/", "non-public"),
    ("http://2130706433/", "loopback"),  # decimal 127.0.0.1
    ("http://0x7f.1/", "loopback"),  # hexadecimal, short form
    ("http://127.1/", "loopback"),
    ("http://0xa9fea9fe/", "metadata"),  # 169.254.169.254
]


@pytest.mark.parametrize(("url", "why"), REFUSED)
def test_the_guard_refuses_internal_addresses(url: str, why: str) -> None:
    with pytest.raises(BlockedAddressError, match=why):
        guard_url(url)
    with pytest.raises(BlockedAddressError, match=why):
        qatbe.fetch(url, timeout=2)
    with http_client(timeout=2) as client, pytest.raises(BlockedAddressError, match=why):
        client.get(url)


def test_the_guard_refuses_octal_where_the_url_parser_accepts_it() -> None:
    try:
        httpx.URL("http://0177.0.0.1/")
    except httpx.InvalidURL:
        return  # httpx refuses the form itself: nothing reaches the resolver
    with pytest.raises(BlockedAddressError):
        qatbe.fetch("http://0177.0.0.1/")


@pytest.mark.parametrize(("path", "why"), [
    ("/to-private", "10.0.0.1: a private address"),
    ("/to-metadata", "169.254.169.254: a cloud metadata address"),
    ("/to-link-local", "169.254.1.1: a link-local address"),
    ("/to-ipv6-loopback", "::1: a loopback address"),
    ("/to-mapped", "a private address"),
])
def test_the_guard_refuses_every_redirect_hop(base: str, path: str, why: str) -> None:
    with pytest.raises(BlockedAddressError, match=why):
        get(base + path)
    with http_client(timeout=2, allowed_networks=LOCAL) as client, pytest.raises(BlockedAddressError, match=why):
        client.get(base + path, follow_redirects=True)


def test_loopback_is_refused_by_default_and_opened_by_the_allow_list_or_allow_private(base: str) -> None:
    with pytest.raises(BlockedAddressError, match="loopback"):
        qatbe.fetch(f"{base}/page")
    assert qatbe.fetch(f"{base}/page", allow_private=True).url == f"{base}/page"
    with pytest.raises(BlockedAddressError):  # the allow-list opens only what it names
        qatbe.fetch(f"{base}/page", allowed_networks=("127.0.0.2/32",))
    # allow_private turns the guard off, so the test's own safety net is what refuses 10.0.0.1 here
    with pytest.raises(FetchError) as caught:
        qatbe.fetch(f"{base}/to-private", allow_private=True, timeout=2)
    assert not isinstance(caught.value, BlockedAddressError) and "safety net" in str(caught.value)


def test_an_allow_list_never_opens_a_metadata_address() -> None:
    with pytest.raises(BlockedAddressError, match="metadata"):
        guard_url("http://169.254.169.254/", allowed_networks=("169.254.0.0/16",))


def test_the_async_client_enforces_the_guard(base: str) -> None:
    async def run() -> None:
        async with async_http_client(timeout=2, allowed_networks=LOCAL) as client:
            assert (await client.get(f"{base}/page")).status_code == 200
            with pytest.raises(BlockedAddressError, match="10.0.0.1"):
                await client.get(f"{base}/to-private", follow_redirects=True)
        async with async_http_client(timeout=2) as client:
            with pytest.raises(BlockedAddressError, match="loopback"):
                await client.get(f"{base}/page")

    asyncio.run(run())


@settings(max_examples=200, deadline=None)
@given(st.ip_addresses())
def test_an_address_the_guard_lets_through_is_global(ip: object) -> None:
    url = f"http://[{ip}]/" if ":" in str(ip) else f"http://{ip}/"
    try:
        guard_url(url)
    except BlockedAddressError:
        return
    import ipaddress

    address = ipaddress.ip_address(str(ip))
    assert address.is_global and not address.is_multicast


def test_is_url_is_exactly_one_url() -> None:
    assert is_url("https://example.org/a?b=c") and is_url("  http://x.y/ \n")
    assert not is_url("see https://example.org/") and not is_url("https://a.b/ https://c.d/")
    assert not is_url("ftp://example.org/") and not is_url(b"https://example.org/")


# -- many URLs -------------------------------------------------------------------------------------------------


def test_extract_many_fetches_urls_and_a_failure_is_an_item_error(base: str) -> None:
    docs: list[str | qatbe.Document] = [qatbe.Document(url=f"{base}/page"), f"{base}/latin1", f"{base}/pdf",
            qatbe.Document("<p>The renewal fee abroad changed in 2020.</p>", id="local"), f"{base}/to-private"]
    m = qatbe.extract_many(docs, "renewal fee", budget=300,
                           fetch_options=FetchOptions(allowed_networks=LOCAL, concurrency=3))
    assert [(e.index, e.error_type) for e in m.errors] == [(2, "FetchError"), (4, "BlockedAddressError")]
    assert "application/pdf" in m.errors[0].message
    assert m.sources[0].url == f"{base}/page" and m.sources[0].date == "2015-10-21T07:28:00+00:00"
    assert "75 pounds" in m.text
    assert [s.document for s in m.sources] == [0, 1, 2, 3, 4]


def test_recency_ranking_reads_the_server_date(base: str) -> None:
    page = "<html><body><p>The renewal fee is 80 pounds.</p></body></html>"
    newer = qatbe.Document(page, url="http://127.0.0.1/new", metadata={"date": "2024-01-01"})
    m = qatbe.extract_many([qatbe.Document(url=f"{base}/page"), newer], "renewal fee", ranking="recency",
                           budget=400, fetch_options=FetchOptions(allowed_networks=LOCAL))
    assert [s.url for s in m.sources if s.citation == 1] == ["http://127.0.0.1/new"]
    assert m.sources[0].date == "2015-10-21T07:28:00+00:00"


def test_extract_many_refuses_bad_fetch_options() -> None:
    with pytest.raises(ConfigError, match="fetch_options"):
        qatbe.extract_many(["http://127.0.0.1/"], "q", fetch_options={"timeout": 1})  # type: ignore[arg-type]
