"""``qatbe route``, the README's router examples (run as written), and examples/router.yaml."""

from __future__ import annotations

import json
import runpy
import shlex
from pathlib import Path
from typing import Any

import pytest
from readme_examples import example
from router_helpers import ISSUE_CONFIG, SECRET_WORD, make_handbook

from qatbe import ConfigError, Query
from qatbe.cli import main
from qatbe.router import Router

ROOT = Path(__file__).resolve().parents[1]


def _run(line: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    argv = shlex.split(line)
    assert argv[0] == "qatbe"
    code = main(argv[1:])
    out, err = capsys.readouterr()
    return code, out, err


def _run_example(code: str, tmp: Path) -> dict[str, Any]:
    """Run a README Python block as a script (as a reader would paste it); its globals."""
    script = tmp / "example.py"
    script.write_text(code)
    return runpy.run_path(str(script))


def test_readme_config_is_the_issues_and_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert example("router-config") == ISSUE_CONFIG
    make_handbook(tmp_path)
    monkeypatch.chdir(tmp_path)
    namespace = _run_example(example("router-python"), tmp_path)
    r = namespace["r"]
    assert r.matched_routes == ("default", "policy") and r.denied_sources == ()
    assert "three days a week" in r.text and r.query.agent == "hr-assistant"
    namespace["router"].close()


def test_readme_custom_source(tmp_path: Path) -> None:
    _run_example(example("router-custom-source"), tmp_path)
    router = Router({"sources": {"t": {"type": "tickets", "project": "Payroll"}},
                     "routes": [{"name": "r", "sources": ["t"]}]})
    r = router.query("late payslips")
    assert "Payroll tickets about late payslips" in r.text and r.chunks[0].source == "t"
    with pytest.raises(ConfigError, match=r"^sources\.t\.project: is required"):
        Router({"sources": {"t": {"type": "tickets"}}})


def test_readme_two_agents_get_different_contexts(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    maintainer, bot = example("router-cli-agents").strip().splitlines()
    code, out_m, err_m = _run(maintainer, capsys)
    assert code == 0 and "denied: none" in err_m
    code, out_b, err_b = _run(bot, capsys)
    assert code == 0 and "denied: docs" in err_b
    assert out_m != out_b
    assert "passport" in out_b.lower() and "README" not in out_b and "qatbe" not in out_b
    assert "README" in out_m or "qatbe" in out_m


def test_readme_admin_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    make_handbook(tmp_path)
    monkeypatch.chdir(tmp_path)
    validate, query, stats, clear = example("router-cli-admin").strip().splitlines()
    code, out, _ = _run(validate, capsys)
    assert code == 0 and out.startswith("ok: 2 sources, 2 routes, 2 permission rules")
    code, out, _ = _run(query, capsys)
    result = json.loads(out)
    assert code == 0 and result["matched_routes"] == ["default", "policy"] and "buddy" in result["text"]
    assert result["query"] == "first day" and result["query_context"]["tags"] == ["onboarding"]
    assert SECRET_WORD not in out
    code, out, _ = _run(stats, capsys)
    assert code == 0 and json.loads(out)["per_source"] == {"handbook": 1}
    code, out, _ = _run(clear, capsys)
    assert code == 0 and out.strip() == "removed 1 entries of handbook"


def test_the_example_config_loads_from_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Router.from_yaml(ROOT / "examples" / "router.yaml") as router:
        docs = router.query(Query("how does qatbe keep to a budget", agent="maintainer"))
        assert "README.md" in {c.path for c in docs.chunks}
        other = router.query(Query("how does qatbe keep to a budget", agent="someone"))
        assert other.denied_sources == ("docs",) and "README.md" not in {c.path for c in other.chunks}


@pytest.mark.parametrize(("argv", "message"), [
    (["route", "validate", "--config", "missing.yaml"], "qatbe: error: cannot read the router config"),
    (["route", "query", "x", "--config", "bad.yaml"], "qatbe: error: routes[0].when: route 'r' has a bad"),
    (["route", "cache", "stats", "--config", "bad.yaml"], "qatbe: error: routes[0].when"),
    (["route", "cache", "stats", "--config", "nocache.yaml"], "qatbe: error: this router has no cache"),
    (["route", "cache", "clear", "--config", "nocache.yaml", "--source", "zz"], "qatbe: error: no source named"),
])
def test_errors_are_one_line_without_a_traceback(argv: list[str], message: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text(
        "sources: {a: {type: inline, text: x}}\nroutes: [{name: r, when: 'text ==', sources: [a]}]\n")
    (tmp_path / "nocache.yaml").write_text("sources: {a: {type: inline, text: x}}\n")
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route"]) == 2
    assert main(["route", "query", "x"]) == 2  # --config is required
    assert "--config" in capsys.readouterr().err
