"""The router's cache: hits, TTL, max_entries, clearing, per-agent path rules, concurrent queries and processes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from router_helpers import SECRET_WORD, make_handbook

from qatbe import ConfigError, Query
from qatbe.router import Router


def _router(tmp: Path, *, ttl: float = 600, max_entries: int = 1000, **top: Any) -> Router:
    root = tmp / "docs"
    if not root.exists():
        (root / "secrets").mkdir(parents=True)
        (root / "guide.md").write_text("# Guide\n\nThe backup runs every night at two.\n")
        (root / "secrets" / "keys.md").write_text(f"# Keys\n\nThe backup key is {SECRET_WORD}.\n")
    config: dict[str, Any] = {
        "sources": {"docs": {"type": "directory", "root": str(root)},
                    "other": {"type": "directory", "root": str(root), "include": ["*.md"]}},
        "routes": [{"name": "r", "sources": ["docs"]}],
        "cache": {"dir": str(tmp / "cache"), "ttl_seconds": ttl, "max_entries": max_entries},
        **top,
    }
    return Router(config)


def test_a_second_query_is_a_cache_hit_with_the_same_answer(tmp_path: Path) -> None:
    with _router(tmp_path) as router:
        first = router.query("when does the backup run")
        second = router.query("when does the backup run")
        assert first.cache_hits == () and second.cache_hits == ("docs",)
        assert first.text == second.text and "every night" in first.text
        stats = router.cache_stats()
        assert stats.entries == 1 and stats.per_source == {"docs": 1}


def test_entries_expire_after_their_ttl(tmp_path: Path) -> None:
    with _router(tmp_path, ttl=0.2) as router:
        router.query("backup")
        time.sleep(0.4)
        assert router.query("backup").cache_hits == ()


def test_max_entries_drops_the_oldest(tmp_path: Path) -> None:
    agents = [{"agent": f"a{k}", "default": "allow", "deny_paths": [f"x{k}/**"]} for k in range(4)]
    with _router(tmp_path, max_entries=2, permissions=agents) as router:
        for k in range(4):  # each agent's path rules differ: an entry each
            router.query(Query("backup", agent=f"a{k}"))
        assert router.cache_stats().entries == 2
        assert router.query(Query("backup", agent="a3")).cache_hits == ("docs",)
        assert router.query(Query("backup", agent="a0")).cache_hits == ()


def test_clear_one_source_or_all(tmp_path: Path) -> None:
    with _router(tmp_path, routes=[{"name": "r", "sources": ["docs", "other"]}]) as router:
        router.query("backup")
        assert router.cache_stats().per_source == {"docs": 1, "other": 1}
        assert router.clear_cache("other") == 1
        assert router.cache_stats().per_source == {"docs": 1}
        assert router.clear_cache() == 1 and router.cache_stats().entries == 0


def test_a_file_hidden_from_one_agent_never_reaches_it_through_the_cache(tmp_path: Path) -> None:
    perms = [{"agent": "*", "default": "allow"}, {"agent": "intern", "deny_paths": ["secrets/**"]}]
    with _router(tmp_path, permissions=perms) as router:
        admin = router.query(Query("backup key", agent="admin"))  # fills the cache with the secrets folder
        assert SECRET_WORD in admin.text
        for _ in range(2):
            intern = router.query(Query("backup key", agent="intern"))
            assert SECRET_WORD not in intern.to_json()
        assert intern.cache_hits == ("docs",)  # its own entry, fetched under its own rules
        assert router.query(Query("backup key", agent="admin")).cache_hits == ("docs",)


def test_global_deny_paths_keep_a_file_out_of_the_cache(tmp_path: Path) -> None:
    with _router(tmp_path, deny_paths=["**/secrets/**"]) as router:
        router.query("backup key")
    for file in (tmp_path / "cache").rglob("*"):
        if file.is_file():
            assert SECRET_WORD.encode() not in file.read_bytes()


def test_concurrent_aquery_calls_share_the_cache(tmp_path: Path) -> None:
    config = make_handbook(tmp_path)
    queries = [Query(text, agent=agent, tags=tags)
               for text in ("remote work policy", "laptop policy", "first day")
               for agent in ("hr-assistant", "support-bot")
               for tags in ((), ("onboarding",))]
    with Router.from_yaml(config) as reference:
        expected = [reference.query(q).text for q in queries]
        reference.clear_cache()

    async def together(router: Router) -> list[Any]:
        return await asyncio.gather(*(router.aquery(q) for q in queries * 3))

    with Router.from_yaml(config) as router:
        results = asyncio.run(together(router))
        assert [r.text for r in results] == expected * 3
        assert router.cache_stats().entries == 1  # the handbook, once: it does not depend on the query text
        again = router.query(Query("remote work policy", agent="hr-assistant"))
        assert again.cache_hits == ("handbook",) and again.text == expected[0]


_CHILD = """
import sys
from qatbe import ConfigError, Query
from qatbe.router import Router
with Router.from_yaml(sys.argv[1]) as router:
    for _ in range(10):
        r = router.query(Query("remote work policy", agent="hr-assistant"))
        assert "three days" in r.text and not r.source_errors, r.source_errors
print("ok")
"""


def test_processes_share_one_cache_directory(tmp_path: Path) -> None:
    config = make_handbook(tmp_path)
    root = Path(__file__).resolve().parents[1]
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, str(config)], cwd=root, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0 and out.strip() == "ok", err
    with Router.from_yaml(config) as router:
        assert router.cache_stats().entries == 1
        assert router.query(Query("remote work policy", agent="hr-assistant")).cache_hits == ("handbook",)


def test_a_cache_that_cannot_be_opened_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ConfigError, match=r"^cache\.dir: cannot open a cache"):
        Router({"cache": {"dir": str(tmp_path / "file" / "cache")}})


def test_a_router_without_a_cache_says_so() -> None:
    router = Router({"sources": {"a": {"type": "inline", "text": "x"}}})
    with pytest.raises(ConfigError, match="no cache"):
        router.cache_stats()
