"""The router's source types: directory (and its root), git_repo, custom types, failures and timeouts."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from router_helpers import LocalApi, git

from qatbe import ConfigError, Query
from qatbe.router import FetchRequest, Options, Router, Source, SourceContext, SourceDocument, register_source


def _dir_router(root: Path, tmp: Path, **options: Any) -> Router:
    return Router({"sources": {"d": {"type": "directory", "root": str(root), **options}},
                   "routes": [{"name": "r", "sources": ["d"]}], "budget": {"budget": 5000}}, base_dir=tmp)


def _paths(router: Router, text: str = "anything", agent: str = "default") -> set[str | None]:
    return {p.id for p in router.query(Query(text, agent=agent)).sources}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "a" / "b").mkdir(parents=True)
    (root / "top.md").write_text("# Top\n\nalpha words here\n")
    (root / "a" / "page.html").write_text("<html><body><p>beta words here</p></body></html>")
    (root / "a" / "b" / "deep.txt").write_text("gamma words here\n")
    (root / "a" / "b" / "data.csv").write_text("x,y\n")
    (tmp_path / "outside.md").write_text("# Outside\n\nleaked words from outside the root\n")
    return root


def test_directory_reads_its_types_with_include_and_exclude(tree: Path, tmp_path: Path) -> None:
    assert _paths(_dir_router(tree, tmp_path)) == {"d:top.md", "d:a/page.html", "d:a/b/deep.txt"}
    assert _paths(_dir_router(tree, tmp_path, include=["**/*.txt"])) == {"d:a/b/deep.txt"}
    assert _paths(_dir_router(tree, tmp_path, exclude=["a/**"])) == {"d:top.md"}
    assert _paths(_dir_router(tree, tmp_path, types=["md", "html"])) == {"d:top.md", "d:a/page.html"}


@pytest.mark.parametrize("pattern", ["../**", "a/../../*.md", "**/../outside.md", "..\\outside.md"])
def test_directory_refuses_dotdot_in_a_glob(tree: Path, tmp_path: Path, pattern: str) -> None:
    with pytest.raises(ConfigError, match=r"^sources\.d\.include\[0\]: .*'\.\.'"):
        _dir_router(tree, tmp_path, include=[pattern])


@pytest.mark.parametrize("pattern", [str(Path("/tmp") / "*.md"), "/etc/**", "C:\\Windows\\*.txt"])
def test_directory_refuses_absolute_paths(tree: Path, tmp_path: Path, pattern: str) -> None:
    with pytest.raises(ConfigError, match=r"^sources\.d\.include\[0\]: .*absolute"):
        _dir_router(tree, tmp_path, include=[pattern])
    with pytest.raises(ConfigError, match=r"^deny_paths\[0\]: .*absolute"):
        Router({"deny_paths": [pattern]})


def test_directory_never_follows_a_link_out_of_its_root(tree: Path, tmp_path: Path) -> None:
    (tree / "escape.md").symlink_to(tmp_path / "outside.md")
    (tree / "a" / "updir").symlink_to(tmp_path, target_is_directory=True)
    (tree / "inside.md").symlink_to(tree / "top.md")  # a link inside the root is fine
    router = _dir_router(tree, tmp_path)
    r = router.query("leaked words outside")
    assert "leaked" not in r.text
    assert {p.id for p in r.sources} == {"d:top.md", "d:inside.md", "d:a/page.html", "d:a/b/deep.txt"}


def test_a_link_to_a_denied_file_is_denied_too(tree: Path, tmp_path: Path) -> None:
    (tree / "secrets").mkdir()
    (tree / "secrets" / "key.md").write_text("# Key\n\nthe vault code is quokka\n")
    (tree / "innocent.md").symlink_to(tree / "secrets" / "key.md")
    router = Router({"sources": {"d": {"type": "directory", "root": str(tree)}},
                     "routes": [{"name": "r", "sources": ["d"]}], "deny_paths": ["**/secrets/**"]})
    r = router.query("vault code")
    assert "quokka" not in r.text and "d:innocent.md" not in {p.id for p in r.sources}


def test_deny_paths_apply_before_a_file_is_read(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree / "secrets").mkdir()
    (tree / "secrets" / "key.md").write_text("the vault code is quokka\n")
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    router = Router({"sources": {"d": {"type": "directory", "root": str(tree)}},
                     "routes": [{"name": "r", "sources": ["d"]}], "deny_paths": ["**/secrets/**"]})
    r = router.query("vault code")
    assert "quokka" not in r.text
    assert any(p.endswith("top.md") for p in opened)  # the spy sees the reads
    assert not any("secrets" in p for p in opened)


# -- git_repo ---------------------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "docs" / "private").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "docs" / "guide.md").write_text("# Guide\n\nThe release train leaves on Tuesdays.\n")
    (repo / "docs" / "private" / "plan.md").write_text("# Plan\n\nAcquire the wombat company.\n")
    (repo / "README.txt").write_text("Version one of the readme.\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "tag", "v1")
    (repo / "docs" / "guide.md").write_text("# Guide\n\nThe release train leaves on Thursdays.\n")
    os.symlink("guide.md", repo / "docs" / "link.md")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "two")
    return repo


def _git_router(repo: Path, **options: Any) -> Router:
    return Router({"sources": {"g": {"type": "git_repo", "repo": str(repo), **options}},
                   "routes": [{"name": "r", "sources": ["g"]}], "deny_paths": ["**/private/**"]})


def test_git_repo_reads_files_at_a_ref_without_a_checkout(repo: Path) -> None:
    (repo / "docs" / "guide.md").write_text("# Guide\n\nUncommitted: the train leaves on Sundays.\n")
    before = sorted(str(p) for p in repo.rglob("*") if ".git" not in p.parts)
    status = git(repo, "status", "--porcelain")
    head = _git_router(repo).query("when does the release train leave")
    assert "Thursdays" in head.text and "Sundays" not in head.text and "Tuesdays" not in head.text
    old = _git_router(repo, ref="v1").query("when does the release train leave")
    assert "Tuesdays" in old.text and "Thursdays" not in old.text
    ids = {p.id for p in head.sources}
    assert ids == {"g:docs/guide.md", "g:README.txt"}  # the link is skipped, the private folder denied
    assert "wombat" not in head.to_json()
    assert head.chunks[0].path in {"docs/guide.md", "README.txt"}
    # Nothing was written to the work tree and nothing changed in it.
    assert sorted(str(p) for p in repo.rglob("*") if ".git" not in p.parts) == before
    assert git(repo, "status", "--porcelain") == status


def test_git_repo_ignores_the_callers_git_environment(repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    r = _git_router(repo).query("release train")
    assert r.source_errors == () and "Thursdays" in r.text


def test_git_repo_include_and_a_bad_ref(repo: Path) -> None:
    r = _git_router(repo, include=["docs/**"]).query("train")
    assert {p.id for p in r.sources} == {"g:docs/guide.md"}
    bad = _git_router(repo, ref="no-such-branch").query("train")
    assert bad.source_errors and bad.source_errors[0].source == "g" and bad.text == ""
    with pytest.raises(ConfigError, match=r"^sources\.g\.ref: "):
        _git_router(repo, ref="--upload-pack=evil")


# -- custom types, failures and timeouts ------------------------------------------------------------------------


@register_source("tickets-test")
class _Tickets(Source):
    """A custom type: one document per configured ticket, the query's text echoed in the title."""

    query_dependent = True

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        self.tickets = options.str_list("tickets")
        self.delay = options.number("delay", 0.0)
        self.fail = options.boolean("fail", False)
        self.sync = options.boolean("sync", False)

    def fetch(self, request: FetchRequest) -> Any:
        if self.sync:
            if self.fail:
                raise OSError("the ticket server is down")
            return [SourceDocument(t, title=f"{t[:12]} ({request.query.text})") for t in self.tickets]
        return self._fetch(request)

    async def _fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        await asyncio.sleep(self.delay)
        if self.fail:
            raise ValueError("the ticket server said no")
        return [SourceDocument(t, path=f"tickets/{k}.txt") for k, t in enumerate(self.tickets)]


def _custom(**sources: dict[str, Any]) -> Router:
    return Router({"sources": {n: {"type": "tickets-test", **o} for n, o in sources.items()},
                   "routes": [{"name": "r", "sources": list(sources)}]})


def test_a_custom_source_type_registers_with_a_decorator() -> None:
    r = _custom(t={"tickets": ["Printer on floor two is jammed.", "VPN drops at noon."]}).query("printer jammed")
    assert "Printer on floor two is jammed." in r.text and r.chunks[0].source == "t"
    s = _custom(t={"tickets": ["Printer jammed."], "sync": True}).query("printer")
    assert s.sources[0].label == "Printer jamm (printer)"
    with pytest.raises(ConfigError, match=r"^sources\.t\.colour: unknown key"):
        _custom(t={"tickets": [], "colour": "red"})
    with pytest.raises(ConfigError, match="subclass"):
        register_source("x")(int)  # type: ignore[type-var]


def test_a_failing_source_is_recorded_and_the_others_go_on() -> None:
    r = _custom(ok={"tickets": ["The coffee machine is fixed."]}, bad={"tickets": [], "fail": True},
                worse={"tickets": [], "fail": True, "sync": True}).query("coffee machine")
    assert "coffee machine is fixed" in r.text
    errors = {e.source: (e.error_type, e.message) for e in r.source_errors}
    assert errors == {"bad": ("ValueError", "the ticket server said no"),
                      "worse": ("OSError", "the ticket server is down")}


def test_a_hanging_source_is_cut_at_its_timeout() -> None:
    router = Router({"sources": {"slow": {"type": "tickets-test", "tickets": ["never"], "delay": 120, "timeout": 0.3},
                                 "fast": {"type": "tickets-test", "tickets": ["The lift is repaired."]}},
                     "routes": [{"name": "r", "sources": ["slow", "fast"]}]})
    started = time.monotonic()
    r = router.query("lift repaired")
    assert time.monotonic() - started < 60  # cut at 0.3 s, nowhere near the source's 120
    assert [(e.source, e.error_type) for e in r.source_errors] == [("slow", "TimeoutError")]
    assert "lift is repaired" in r.text and "never" not in r.text


def test_custom_path_documents_are_filtered_by_deny_paths_after_fetch() -> None:
    router = Router({"sources": {"t": {"type": "tickets-test", "tickets": ["open ticket", "secret ticket"]}},
                     "routes": [{"name": "r", "sources": ["t"]}], "deny_paths": ["tickets/1.txt"]})
    r = router.query("ticket")
    assert "open ticket" in r.text and "secret ticket" not in r.text


# -- http_api and url, against a real local server -------------------------------------------------------------


@pytest.fixture
def api() -> Any:
    server = LocalApi()
    try:
        yield server
    finally:
        server.close()


def _api_router(api: LocalApi, **options: Any) -> Router:
    source = {"type": "http_api", "url": api.url + "/search?q={query}", "documents": "$.data.results[*]",
              "text_field": "body", "title_field": "name", "url_field": "link", **options}
    return Router({"sources": {"api": source}, "routes": [{"name": "r", "sources": ["api"]}]},
                  environ={"API_KEY": "k-1234567890"})


def test_http_api_is_refused_a_private_address_unless_the_config_allows_it(api: LocalApi) -> None:
    refused = _api_router(api).query("vpn")
    assert [(e.source, e.error_type) for e in refused.source_errors] == [("api", "BlockedAddressError")]
    assert api.requests == []  # refused before any connection
    for allowed in ({"allow_private": True}, {"allowed_networks": ["127.0.0.0/8"]}):
        r = _api_router(api, **allowed).query("vpn")
        assert r.source_errors == () and "the vpn guide says to restart" in r.text
    assert _api_router(api, allowed_networks=["10.0.0.0/8"]).query("vpn").source_errors[0].error_type == \
        "BlockedAddressError"


def test_http_api_template_method_headers_and_json_path(api: LocalApi) -> None:
    router = _api_router(api, allow_private=True, headers={"X-Api-Key": "${API_KEY}"})
    r = router.query("wifi & vpn/2?")
    method, path, headers = api.requests[-1]
    assert method == "GET" and path == "/search?q=wifi%20%26%20vpn%2F2%3F"  # the query is URL-encoded
    assert headers["X-Api-Key"] == "k-1234567890"  # the secret reached the server, and only the server
    assert "k-1234567890" not in r.to_json()
    assert {p.label for p in r.sources} == {"Guide to wifi & vpn/2?"}  # two equal results: one kept (dedupe)
    assert r.chunks[0].source == "api" and r.chunks[0].url == "http://127.0.0.1/0" and r.chunks[0].path is None

    post = Router({"sources": {"p": {"type": "http_api", "url": api.url + "/ask", "method": "POST",
                                     "body": {"question": "{query}"}, "allow_private": True}},
                   "routes": [{"name": "r", "sources": ["p"]}]}).query("ferry times")
    assert "Posted answer for ferry times." in post.text and api.requests[-1][0] == "POST"


def test_http_api_follows_a_redirect(api: LocalApi) -> None:
    router = _api_router(api, allow_private=True, url=api.url + "/moved?q={query}")
    r = router.query("printer")
    assert r.source_errors == () and "the printer guide says" in r.text
    assert [path.split("?")[0] for _, path, _ in api.requests] == ["/moved", "/search"]


def test_a_hanging_http_api_is_cut_at_its_timeout(api: LocalApi) -> None:
    router = Router({"sources": {"hang": {"type": "http_api", "url": api.url + "/hang", "allow_private": True,
                                          "timeout": 0.5},
                                 "rules": {"type": "inline", "text": "Be brief."}},
                     "routes": [{"name": "r", "sources": ["hang", "rules"]}]})
    r = router.query("anything")
    assert [e.source for e in r.source_errors] == ["hang"] and "Be brief." in r.text


def test_url_source_fetches_pages_through_the_guard(api: LocalApi) -> None:
    def router(**options: Any) -> Router:
        return Router({"sources": {"web": {"type": "url", "urls": [api.url + "/page.html"], **options}},
                       "routes": [{"name": "r", "sources": ["web"]}]})

    assert router().query("ferry").source_errors[0].error_type == "BlockedAddressError"
    r = router(allowed_networks=["127.0.0.1/32"]).query("when does the ferry leave")
    assert "ferry to the island leaves at noon" in r.text and r.chunks[0].url == api.url + "/page.html"
