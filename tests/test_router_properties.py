"""Property: no chunk from a denied source or a denied path ever appears in any output, whatever the config and
the query (and whatever an earlier config left in the shared cache)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qatbe import Query
from qatbe.router import Router

SOURCES = ("s0", "s1", "s2", "note")
FILES = ("pub/page0.md", "pub/page1.md", "pub/deep/page2.txt", "secret/page0.md", "x/page1.html", "page3.md")
AGENTS = ("a0", "a1", "a2", "stranger")
WORDS = ("apple", "banana", "cherry", "policy", "page", "secret")

# Each path pattern with an obviously correct reading of it, written out (the oracle the router is held to).
PATTERNS = {
    "**/secret/**": lambda p: "secret" in PurePosixPath(p).parts[:-1],
    "pub/*.md": lambda p: p.startswith("pub/") and p.count("/") == 1 and p.endswith(".md"),
    "**/page1.*": lambda p: PurePosixPath(p).name.startswith("page1."),
    "x/**": lambda p: p.startswith("x/"),
}
WHENS = ("", 'text.contains("apple")', '"t1" in tags', 'agent == "a1"', 'team == "docs"', "size(tags) > 1",
         'department == "ops"')


def marker(source: str, path: str | None) -> str:
    """A word found only in that one document."""
    key = f"{source}{path or ''}".replace("/", "").replace(".", "")
    return f"mk{key}zz"


FILLER = ("river", "stone", "lamp", "orbit", "maple", "cobalt", "violin", "harbor", "quartz", "tundra", "falcon",
          "meadow", "ember", "glacier", "saffron", "lantern", "copper", "willow", "canyon", "velvet", "nectar")


def distinct(name: str) -> str:
    """Sentences of words picked by the document's name: no two documents are near-duplicates (which
    ``extract_many`` would drop, hiding a leak instead of showing it)."""
    seed = sum(ord(c) * (k + 1) for k, c in enumerate(name))
    words = [FILLER[(seed * (k + 3) + k * k) % len(FILLER)] + str((seed + k) % 97) for k in range(12)]
    return " ".join(words) + "."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("router-world")
    for source in SOURCES[:3]:
        for path in FILES:
            file = root / source / path
            file.parent.mkdir(parents=True, exist_ok=True)
            body = f"{marker(source, path)} apple banana policy. " + distinct(f"{source}/{path}")
            if path.endswith(".html"):
                file.write_text(f"<html><body><p>{body}</p></body></html>")
            elif path.endswith(".md"):
                file.write_text(f"# Page {path}\n\n{body}\n")
            else:
                file.write_text(body + "\n")
    yield root


names = st.lists(st.sampled_from(SOURCES), unique=True)
rules = st.fixed_dictionaries(
    {"agent": st.sampled_from(("*",) + AGENTS[:3])},
    optional={"default": st.sampled_from(("allow", "deny")), "allow": names, "deny": names,
              "deny_paths": st.lists(st.sampled_from(sorted(PATTERNS)), unique=True)})
routes = st.lists(st.fixed_dictionaries({"when": st.sampled_from(WHENS),
                                         "sources": st.lists(st.sampled_from(SOURCES), min_size=1, unique=True)}),
                  min_size=1, max_size=4)


def expected_access(config: dict[str, Any], agent: str) -> tuple[set[str], list[str]]:
    """The reference: sources the agent may read, and the path patterns hidden from it."""
    mine = [r for r in config.get("permissions", []) if r["agent"] in (agent, "*")]
    allow = {s for r in mine for s in r.get("allow", [])}
    deny = {s for r in mine for s in r.get("deny", [])}
    defaults = {r["default"] for r in mine if "default" in r}
    default = "deny" if "deny" in defaults else "allow" if defaults else config["default_access"]
    allowed = {s for s in SOURCES if s not in deny and (s in allow or default == "allow")}
    hidden = list(config.get("deny_paths", [])) + [p for r in mine for p in r.get("deny_paths", [])]
    return allowed, hidden


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(perms=st.lists(rules, max_size=5), route_list=routes,
       global_paths=st.lists(st.sampled_from(sorted(PATTERNS)), unique=True),
       default_access=st.sampled_from(("allow", "deny")),
       text=st.lists(st.sampled_from(WORDS + tuple(marker(s, p) for s in SOURCES[:3] for p in FILES)),
                     min_size=1, max_size=6).map(" ".join),
       agent=st.sampled_from(AGENTS), tags=st.lists(st.sampled_from(("t1", "t2")), unique=True),
       budget=st.integers(65, 3000))  # above the default citation buffer (64)
def test_no_denied_source_or_path_ever_reaches_the_output(
        world: Path, perms: list[dict[str, Any]], route_list: list[dict[str, Any]], global_paths: list[str],
        default_access: str, text: str, agent: str, tags: list[str], budget: int) -> None:
    sources: dict[str, Any] = {s: {"type": "directory", "root": str(world / s)} for s in SOURCES[:3]}
    sources["note"] = {"type": "inline", "text": f"{marker('note', None)} apple policy"}
    config: dict[str, Any] = {
        "variables": {"team": "docs"}, "default_access": default_access, "sources": sources,
        "routes": [{"name": f"r{k}", **r} for k, r in enumerate(route_list)], "permissions": perms,
        "deny_paths": global_paths, "budget": {"budget": budget},
        # One cache for every example: an entry made under one agent's rules must never serve another's.
        "cache": {"dir": str(world / "cache"), "max_entries": 500},
    }
    allowed, hidden = expected_access(config, agent)
    forbidden = [marker(s, None) for s in ("note",) if s not in allowed]
    for source in SOURCES[:3]:
        for path in FILES:
            if source not in allowed or any(PATTERNS[p](path) for p in hidden):
                forbidden.append(marker(source, path))
    with Router(config) as router:
        result = router.query(Query(text, agent=agent, tags=tags, metadata={"department": "ops"}))
    shown = json.dumps({k: v for k, v in result.to_dict().items() if k != "query"})  # the query may name one
    leaked = [m for m in forbidden if m in shown]
    assert not leaked, (leaked, config, agent)
    for chunk in result.chunks:
        assert chunk.source in allowed
        assert chunk.path is None or not any(PATTERNS[p](chunk.path) for p in hidden)
    assert set(result.denied_sources) <= set(SOURCES) - allowed
