"""The context router: the issue's config as written, routes, permissions, validation, interpolation, secrets."""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from router_helpers import ISSUE_CONFIG, SECRET_WORD, make_handbook

import qatbe
from qatbe import ConfigError, Query
from qatbe.router import (
    FetchRequest,
    Options,
    Router,
    RouterResult,
    Source,
    SourceContext,
    SourceDocument,
    register_source,
)


@pytest.fixture
def issue_router(tmp_path: Path) -> Router:
    with Router.from_yaml(make_handbook(tmp_path)) as router:
        yield router


def test_top_level_names_are_lazy() -> None:
    assert qatbe.Router is Router and qatbe.RouterResult is RouterResult
    assert "Router" in qatbe.__all__ and "Router" in dir(qatbe)


def test_the_issue_config_works_as_written(issue_router: Router) -> None:
    hr = issue_router.query(Query("what is the remote work policy?", agent="hr-assistant"))
    assert isinstance(hr, RouterResult) and isinstance(hr, qatbe.ManyResult)
    assert hr.matched_routes == ("default", "policy") and hr.denied_sources == ()
    assert "three days a week" in hr.text
    assert SECRET_WORD not in hr.to_json()
    assert hr.query == Query("what is the remote work policy?", agent="hr-assistant")
    assert {c.source for c in hr.chunks} == {"handbook"}  # the rules do not match this query: BM25 left them out
    assert {p.id for p in hr.sources} >= {"rules", "handbook:hr/remote.md", "handbook:it/laptops.txt"}
    remote = [c for c in hr.chunks if c.path == "hr/remote.md"]
    assert remote and remote[0].title == "Remote work policy" and remote[0].score > 0
    assert hr.total_tokens <= 1500 and hr.ranking == "relevance"

    # Any other agent: "*" denies by default and allows only the rules.
    bot = issue_router.query(Query("what is the remote work policy?", agent="support-bot"))
    assert bot.matched_routes == ("default", "policy") and bot.denied_sources == ("handbook",)
    assert "three days" not in bot.text and "Answer from the handbook" in bot.text
    assert {c.source for c in bot.chunks} == {"rules"}

    # The tag route: no "policy" in the text, "onboarding" in the tags.
    tagged = issue_router.query(Query("first day", agent="hr-assistant", tags=["onboarding"]))
    assert tagged.matched_routes == ("default", "policy") and "buddy" in tagged.text
    plain = issue_router.query(Query("first day", agent="hr-assistant"))
    assert plain.matched_routes == ("default",) and "buddy" not in plain.text


def test_files_of_other_types_and_denied_paths_are_left_out(issue_router: Router) -> None:
    r = issue_router.query(Query("salaries policy bonus", agent="hr-assistant"))
    paths = {c.path for c in r.chunks}
    assert "secrets/salaries.md" not in paths and "notes.json" not in paths
    assert SECRET_WORD not in r.text


def test_query_text_alone_is_agent_default(issue_router: Router) -> None:
    r = issue_router.query("policy")
    assert r.query == Query("policy") and r.denied_sources == ("handbook",)
    d = r.to_dict()
    assert d["query"] == "policy" and d["query_context"] == {"agent": "default", "tags": [], "metadata": {}}
    assert d["matched_routes"] == ["default", "policy"] and d["denied_sources"] == ["handbook"]
    assert all({"source", "path", "title", "score"} <= set(c) for c in d["chunks"])  # type: ignore[union-attr]
    json.dumps(d)


def test_aquery_matches_query(issue_router: Router) -> None:
    q = Query("remote work policy", agent="hr-assistant")

    async def both() -> tuple[RouterResult, RouterResult]:
        # query() from inside a running loop runs in a thread of its own
        return await issue_router.aquery(q), issue_router.query(q)

    a, b = asyncio.run(both())
    assert a.text == b.text and a.matched_routes == b.matched_routes


def test_relative_paths_start_at_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_handbook(tmp_path / "here")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with Router.from_yaml(config) as router:
        r = router.query(Query("remote policy", agent="hr-assistant"))
    assert "three days" in r.text
    assert (tmp_path / "here" / ".qatbe-cache").is_dir() and not (elsewhere / ".qatbe-cache").exists()


# -- routes and expressions -------------------------------------------------------------------------------------


def _inline(*names: str) -> dict[str, Any]:
    return {n: {"type": "inline", "text": f"{n} says hello"} for n in names}


def test_every_matching_route_contributes_merged_and_deduplicated() -> None:
    router = Router({
        "variables": {"team": "docs", "level": 3},
        "sources": _inline("a", "b", "c", "d"),
        "routes": [
            {"name": "always", "sources": ["a", "b"]},
            {"name": "empty", "when": "", "sources": ["b"]},
            {"name": "team", "when": 'team == "docs" && level > 2', "sources": ["c", "a"]},
            {"name": "meta", "when": 'department == "eng" && agent == "dev"', "sources": ["d"]},
            {"name": "never", "when": "false", "sources": ["d"]},
        ],
    })
    d = router.route(Query("x", agent="dev", metadata={"department": "eng"}))
    assert d.matched_routes == ("always", "empty", "team", "meta") and d.sources == ("a", "b", "c", "d")
    # A metadata key the query does not give makes a condition false, not an error.
    assert router.route(Query("x", agent="dev")).matched_routes == ("always", "empty", "team")
    # The config's variables win over the query's metadata: a caller cannot redefine them.
    assert router.route(Query("x", metadata={"team": "ops"})).sources == ("a", "b", "c")
    r = router.query(Query("hello", agent="dev", metadata={"department": "eng"}))
    assert [p.id for p in r.sources] == ["a", "b", "c", "d"]


def test_a_metadata_value_cel_cannot_hold_is_left_out() -> None:
    router = Router({"sources": _inline("a", "b"),
                     "routes": [{"name": "odd", "when": "size(weird) == 2", "sources": ["a"]},
                                {"name": "fine", "when": 'region == "eu"', "sources": ["b"]}]})
    d = router.route(Query("x", metadata={"weird": {1, 2}, "region": "eu"}))
    assert d.matched_routes == ("fine",)


def test_a_condition_that_is_not_a_boolean_does_not_match() -> None:
    router = Router({"sources": _inline("a"), "routes": [{"name": "s", "when": '"yes"', "sources": ["a"]},
                                                         {"name": "n", "when": "1 + 1", "sources": ["a"]}]})
    assert router.route("x").matched_routes == ()


@pytest.mark.parametrize("when", ["text.contains(", "text ==", "&& true", "text.contains('a') ||"])
def test_a_bad_expression_fails_at_load_naming_the_route(when: str) -> None:
    config = {"sources": _inline("a"), "routes": [{"name": "ok", "sources": ["a"]},
                                                  {"name": "broken", "when": when, "sources": ["a"]}]}
    with pytest.raises(ConfigError, match=r"^routes\[1\]\.when: route 'broken' has a bad condition"):
        Router(config)


# -- permissions ------------------------------------------------------------------------------------------------


def _perm_router(permissions: list[dict[str, Any]] | None, **top: Any) -> Router:
    config: dict[str, Any] = {"sources": _inline("a", "b", "c"), "routes": [{"name": "all", "sources": ["a", "b", "c"]}],
                              **top}
    if permissions is not None:
        config["permissions"] = permissions
    return Router(config)


def test_deny_wins_over_allow() -> None:
    r = _perm_router([{"agent": "*", "default": "allow", "deny": ["b"]}, {"agent": "x", "allow": ["b"]}])
    assert r.route(Query("q", agent="x")).allowed == ("a", "c")
    assert r.route(Query("q", agent="x")).denied == ("b",)


def test_the_most_restrictive_default_wins() -> None:
    r = _perm_router([{"agent": "*", "default": "allow"}, {"agent": "x", "default": "deny", "allow": ["a"]}])
    assert r.route(Query("q", agent="x")).allowed == ("a",)
    assert r.route(Query("q", agent="y")).allowed == ("a", "b", "c")
    r = _perm_router([{"agent": "*", "default": "deny", "allow": ["c"]}, {"agent": "x", "default": "allow"}])
    assert r.route(Query("q", agent="x")).allowed == ("c",)


def test_an_agent_without_a_rule_gets_the_configured_default() -> None:
    r = _perm_router([{"agent": "x", "allow": ["a"]}])  # permissions given: default_access is deny
    d = r.route(Query("q", agent="stranger"))
    assert d.allowed == () and d.denied == ("a", "b", "c")
    assert r.query(Query("a says", agent="stranger")).text == ""
    r = _perm_router([{"agent": "x", "allow": ["a"]}], default_access="allow")
    assert r.route(Query("q", agent="stranger")).allowed == ("a", "b", "c")
    assert _perm_router(None).route(Query("q", agent="anyone")).allowed == ("a", "b", "c")
    assert _perm_router(None, default_access="deny").route("q").allowed == ()


# -- validation -------------------------------------------------------------------------------------------------


BAD_CONFIGS: list[tuple[dict[str, Any], str]] = [
    ({"sourcez": {}}, r"^sourcez: unknown top-level key"),
    ({"version": 2}, r"^version: "),
    ({"variables": {"text": 1}}, r"^variables\.text: "),
    ({"variables": {"when": datetime.date(2026, 1, 1)}}, r"^variables\.when: date is not a value"),
    ({"sources": {"a": {"text": "x"}}}, r"^sources\.a\.type: is required"),
    ({"sources": {"a": {"type": "nope"}}}, r"^sources\.a\.type: unknown source type 'nope'"),
    ({"sources": {"a": {"type": "inline"}}}, r"^sources\.a\.text: is required"),
    ({"sources": {"a": {"type": "inline", "text": "x", "colour": 1}}}, r"^sources\.a\.colour: unknown key"),
    ({"sources": {"a": {"type": "inline", "text": "x", "timeout": -1}}}, r"^sources\.a\.timeout: must be > 0"),
    ({"sources": {"a": {"type": "directory", "root": "./missing"}}}, r"^sources\.a\.root: .* is not a directory"),
    ({"sources": {"a": {"type": "directory", "root": ".", "types": ["pdf"]}}}, r"^sources\.a\.types\[0\]: "),
    ({"sources": {"a": {"type": "http_api", "url": "file:///etc/passwd"}}}, r"^sources\.a\.url: .* not an http"),
    ({"sources": {"a": {"type": "http_api", "url": "http://x/{query}", "documents": "$["}}},
     r"^sources\.a\.documents: "),
    ({"sources": {"a": {"type": "http_api", "url": "http://x/", "allowed_networks": ["nonsense"]}}},
     r"^sources\.a\.allowed_networks\[0\]: "),
    ({"sources": _inline("a"), "routes": [{"name": "r", "sources": ["zz"]}]}, r"^routes\[0\]\.sources\[0\]: "),
    ({"sources": _inline("a"), "routes": [{"sources": ["a"]}]}, r"^routes\[0\]\.name: is required"),
    ({"sources": _inline("a"), "routes": [{"name": "r", "sources": []}]}, r"^routes\[0\]\.sources: "),
    ({"sources": _inline("a"), "routes": [{"name": "r", "sources": ["a"]}, {"name": "r", "sources": ["a"]}]},
     r"^routes\[1\]\.name: "),
    ({"sources": _inline("a"), "permissions": [{"agent": "x", "deny": ["b"]}]}, r"^permissions\[0\]\.deny\[0\]: "),
    ({"permissions": [{"agent": "x", "default": "maybe"}]}, r"^permissions\[0\]\.default: "),
    ({"permissions": [{"allow": []}]}, r"^permissions\[0\]\.agent: is required"),
    ({"default_access": "sometimes"}, r"^default_access: "),
    ({"deny_paths": ["/etc/**"]}, r"^deny_paths\[0\]: .* absolute"),
    ({"cache": {"ttl_seconds": 0}}, r"^cache\.ttl_seconds: "),
    ({"cache": {"max_entries": 0}}, r"^cache\.max_entries: "),
    ({"cache": {"size": 3}}, r"^cache\.size: unknown key"),
    ({"budget": {"budgt": 100}}, r"^budget: unknown option 'budgt'"),
    ({"budget": {"ranking": "random"}}, r"^budget: ranking must be one of"),
    ({"budget": {"budget": -5}}, r"^budget: budget"),
    ({"budget": {"nested": True}}, r"^budget\.nested: "),
]


@pytest.mark.parametrize(("config", "message"), BAD_CONFIGS)
def test_validation_messages_name_the_key_at_fault(config: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        Router(config, base_dir=tmp_path)


def test_budget_takes_every_extract_many_option(tmp_path: Path) -> None:
    router = Router({"sources": _inline("a"), "routes": [{"name": "r", "sources": ["a"]}],
                     "budget": {"budget": 300, "ranking": "manual", "max_document_tokens": 50, "reserve_tokens": 20,
                                "truncation": "truncate_end", "citations": False, "estimator": "words",
                                "partial_note": True, "dedupe": False}})
    r = router.query("hello")
    assert r.budget == 300 and r.reserve_tokens == 20 and r.ranking == "manual" and r.citation_tokens == 0


def test_a_yaml_error_is_one_line_with_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources:\n  a: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml: not valid YAML \(line \d+, column \d+\)") as info:
        Router.from_yaml(bad)
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="cannot read the router config"):
        Router.from_yaml(tmp_path / "absent.yaml")


# -- interpolation and secrets ----------------------------------------------------------------------------------


def test_interpolation_replaces_set_variables_and_keeps_unset_ones() -> None:
    env = {"GREETING": "bonjour"}
    router = Router({"sources": {"a": {"type": "inline", "text": "${GREETING} and ${NOT_SET_ANYWHERE} $HOME"}},
                     "routes": [{"name": "r", "sources": ["a"]}]}, environ=env)
    r = router.query("bonjour")
    # The value reached the source; what the router shows writes it back as its placeholder.
    assert router._sources["a"].text == "bonjour and ${NOT_SET_ANYWHERE} $HOME"  # type: ignore[attr-defined]
    assert "${NOT_SET_ANYWHERE}" in r.text


SECRET = "s3cr3t-Token-9f8e7d"


@register_source("leaky-test")
class _Leaky(Source):
    """Returns a document whose title and URL carry the token, then fails with the token in the message."""

    query_dependent = True

    def __init__(self, name: str, options: Options, context: SourceContext) -> None:
        super().__init__(name, options, context)
        self.token = options.string("token")
        self.fail = options.boolean("fail", False)

    async def fetch(self, request: FetchRequest) -> Sequence[SourceDocument]:
        if self.fail:
            raise RuntimeError(f"upstream refused token {self.token}")
        return [SourceDocument(f"Plain words about {request.query.text}.", title=f"t {self.token}",
                               url=f"https://api.example.org/?key={self.token}")]


def test_secrets_never_reach_errors_logs_results_or_the_cache(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    env = {"API_TOKEN": SECRET}
    config = {"sources": {"ok": {"type": "leaky-test", "token": "${API_TOKEN}"},
                          "bad": {"type": "leaky-test", "token": "${API_TOKEN}", "fail": True}},
              "routes": [{"name": "r", "sources": ["ok", "bad"]}],
              "cache": {"dir": str(tmp_path / "cache")}}
    caplog.set_level(logging.DEBUG, logger="qatbe")
    with Router(config, environ=env) as router:
        assert router._sources["ok"].token == SECRET  # type: ignore[attr-defined]
        r = router.query("widgets")
        again = router.query("widgets")
    assert r.source_errors[0].source == "bad" and "${API_TOKEN}" in r.source_errors[0].message
    assert again.cache_hits == ("ok",)
    for shown in (r.to_json(), again.to_json(), repr(r), caplog.text):
        assert SECRET not in shown
    assert "${API_TOKEN}" in r.to_json()
    for file in (tmp_path / "cache").rglob("*"):
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file
    # A config error that would quote the secret quotes its placeholder.
    with pytest.raises(ConfigError) as info:
        Router({"sources": {"a": {"type": "inline", "text": "x", "timeout": "${API_TOKEN}"}}}, environ=env)
    assert SECRET not in str(info.value) and "${API_TOKEN}" in str(info.value)


def test_the_issue_config_text_is_the_helpers(tmp_path: Path) -> None:
    # The helper's copy is the issue's, key for key (a guard against editing one and not the other).
    yaml = pytest.importorskip("yaml")
    assert set(yaml.safe_load(ISSUE_CONFIG)) == {"version", "variables", "sources", "routes", "permissions",
                                                 "deny_paths", "cache", "budget"}
    assert os.fspath(make_handbook(tmp_path)).endswith("router.yaml")


def test_a_budget_the_citation_buffer_takes_whole_is_refused_at_load() -> None:
    with pytest.raises(ConfigError, match=r"^budget: a budget of 30 tokens .* citation_buffer=64"):
        Router({"sources": {"r": {"type": "inline", "text": "x"}}, "routes": [{"name": "d", "sources": ["r"]}],
                "budget": {"budget": 30}})
