"""README.md's code blocks: every block has a unique marker, some test runs every marker, and the core examples
run as written.

How each kind of block is checked:

* Python blocks are exec'd in a fresh namespace. The API examples continue from the quick start (they use its
  ``qatbe`` and ``page``), so ``_after_quickstart`` runs the quick-start block first and hands its namespace on:
  that is the whole setup, and it is the README's own.
* ``qatbe ...`` lines go through ``qatbe.cli.main(argv)`` in-process, in a temporary folder that holds the files the
  lines name (written by ``_cli_files``); a ``*`` in an argument is expanded there, as a shell would.
* ``pip install ...`` lines are NOT executed (installing the project would replace the build these tests import):
  each must be one of the documented install commands below, and every extra it names must exist in
  ``pyproject.toml``.
* ``qatbe bench ...`` lines need the evaluation corpora and take minutes, so they are not run as written: each is
  parsed by its subcommand's own argparse parser (``build_parser``), and the retention command also runs in its
  smallest form (the bundled ``corpora/sample`` set, qatbe alone, one budget).
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from readme_examples import README, blocks, example

import qatbe
from qatbe.bench.cli import SUBCOMMANDS
from qatbe.cli import main

ROOT = README.parent
TESTS = Path(__file__).resolve().parent
# The install commands the README may show; a new one is added here on purpose, with its reason.
INSTALL_COMMANDS = frozenset({
    "pip install .",  # from a clone: builds the compiled core
    'pip install ".[all]"',  # every integration's extra
    'pip install ".[bench]"',  # the benchmarks' peers (trafilatura, rank-bm25, ...)
})
_CALL = re.compile(r"""\bexample\(\s*(["'])([\w.-]+)\1\s*\)""")


# -- every block is marked, every marker is run --------------------------------------------------------------


def test_every_block_has_a_unique_marker() -> None:
    found = blocks()
    assert blocks(README), "README.md has no code blocks"
    unmarked = [text.splitlines()[0] if text.strip() else "(empty block)" for name, _, text in found if name is None]
    assert not unmarked, f"blocks in README.md or docs/ without a '<!-- example: NAME -->' line before them: {unmarked}"
    names = [name for name, _, _ in found]
    twice = sorted({n for n in names if n is not None and names.count(n) > 1})
    assert not twice, f"example names used more than once in README.md and docs/: {twice}"


def test_every_marker_is_run_by_some_test() -> None:
    called = {m.group(2) for path in TESTS.glob("*.py") for m in _CALL.finditer(path.read_text(encoding="utf-8"))}
    orphans = sorted({name for name, _, _ in blocks() if name is not None} - called)
    assert not orphans, f"examples (README.md, docs/) that no test in tests/ runs with example('NAME'): {orphans}"


def test_the_marker_scan_sees_calls_in_both_quote_styles() -> None:
    text = "example(\"a-b\") example('c.d') examples('no') example(name)"
    assert [m.group(2) for m in _CALL.finditer(text)] == ["a-b", "c.d"]


# -- Python blocks ----------------------------------------------------------------------------------------------


def _run_python(code: str, namespace: dict[str, Any] | None = None) -> tuple[dict[str, Any], str]:
    """Exec a README block's ``code`` as written; its namespace afterwards and what it printed."""
    namespace = {} if namespace is None else dict(namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 -- running the README's own code is the test
    return namespace, out.getvalue()


def _after_quickstart() -> dict[str, Any]:
    """The namespace the quick start leaves (``qatbe``, ``page``, ``r``): the setup of the examples after it."""
    return _run_python(example("quickstart"))[0]


def test_quickstart() -> None:
    namespace, printed = _run_python(example("quickstart"))
    r = namespace["r"]
    assert isinstance(r, qatbe.Result) and r.budget == qatbe.TIERS["key_facts"]
    assert 0 < r.total_tokens <= r.budget
    assert "92.50 crowns" in r.text  # the online renewal fee the question asks for
    assert printed.startswith(r.text) and printed.endswith(f"{r.total_tokens} <= {r.budget}\n")


def test_extractor_one_page_many_questions() -> None:
    namespace, printed = _run_python(example("extractor"), _after_quickstart())
    ex, doc, page = namespace["ex"], namespace["doc"], namespace["page"]
    assert len(printed.splitlines()) >= 3
    for question in ["what does renewal cost?", "how long does it take?", "what if my passport is lost?"]:
        from_doc, from_page = ex.extract(doc, question), ex.extract(page, question)
        assert from_doc.text == from_page.text  # "the same results as extracting the page each time"
        assert from_doc.total_tokens <= 300
    with pytest.raises(qatbe.ConfigError):  # another unit size refuses the parsed document
        qatbe.Extractor(budget=40).extract(doc, "fee")


def test_extract_many() -> None:
    namespace, printed = _run_python(example("extract-many"), _after_quickstart())
    m = namespace["m"]
    assert isinstance(m, qatbe.ManyResult) and m.total_tokens <= 400
    assert "61 crowns" in m.text and "Sources:" in m.text
    assert "[1]" in m.text and "[2]" in m.text and m.errors == ()
    assert printed.startswith(m.text)


def test_budget_options() -> None:
    namespace, printed = _run_python(example("budget-options"), _after_quickstart())  # the block asserts the budget itself
    assert namespace["r"].total_tokens <= 100 and namespace["small"].budget == 200
    window = int(printed.splitlines()[-1])
    assert window == qatbe.fit_budget(model="gpt-4o", prompt_tokens=1200, max_output_tokens=800) > 0


def test_errors() -> None:
    _, printed = _run_python(example("errors"), _after_quickstart())
    assert printed.startswith("unknown tier 'huge'") and printed.count("\n") == 1


# -- shell blocks ------------------------------------------------------------------------------------------------


def _commands(block: str) -> list[list[str]]:
    """A README block's commands, one argv each (comments and blank lines left out)."""
    out = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out.append(words)
    return out


@pytest.fixture
def cli_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files the README's command lines name, in a temporary folder that is the working directory."""
    demo = (ROOT / "qatbe" / "data" / "demo.html").read_bytes()
    (tmp_path / "page.html").write_bytes(demo)
    (tmp_path / "notes.md").write_text(
        "# Setup\n\n## Install on Windows\n\nRun the installer, then restart your terminal.\n\n"
        "## Install on Linux\n\nUse your package manager.\n", encoding="utf-8")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "library.html").write_text(
        "<title>City library</title><h1>Library</h1><p>Opening hours: 9am to 6pm, Monday to Saturday.</p>",
        encoding="utf-8")
    (tmp_path / "pages" / "museum.html").write_text(
        "<title>Museum</title><h1>Museum</h1><p>The museum's opening hours are 10am to 5pm; closed on Monday.</p>",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _qatbe(words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    assert words[0] == "qatbe", f"not a qatbe command: {words}"
    argv: list[str] = []
    for word in words[1:]:
        argv += sorted(glob.glob(word)) if "*" in word else [word]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_quickstart_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """One line: an install (checked, not run: see the module docstring), then the demo, run as written."""
    [line] = [x for x in example("quickstart-cli").splitlines() if x.strip()]
    install, demo = (part.strip() for part in line.split("&&"))
    assert install in INSTALL_COMMANDS
    code, out, err = _qatbe(shlex.split(demo), capsys)
    assert code == 0 and "92.50 crowns" in out and "[qatbe:" in err


def test_the_test_command_is_the_one_ci_runs() -> None:
    """The README's test command is checked, not run (it would reinstall the project under test): CI's script
    must run exactly it."""
    [line] = [x for x in example("tests").splitlines() if x.strip()]
    assert line == 'pip install -e ".[test]" && python -m pytest -n auto'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert line in ci


def test_cli_lines(cli_files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = {" ".join(words): _qatbe(words, capsys) for words in _commands(example("cli"))}
    assert len(results) == 6
    for line, (code, out, err) in results.items():
        assert code == 0, f"{line}: exit {code}: {err}"
        assert out.strip(), f"{line}: printed nothing"
        if "--format json" in line:  # one file: one indented object; several: one object per line
            rows = [json.loads(out)] if "*" not in line else [json.loads(row) for row in out.splitlines()]
            assert all(row["total_tokens"] <= row["budget"] for row in rows), line
    by_start = {line.split(" -q ")[0].split(" --")[0] + (" many" if "--many" in line else ""): r
                for line, r in results.items()}
    assert "92.50" in by_start["qatbe extract page.html"][1]
    notes = json.loads(by_start["qatbe extract notes.md"][1])
    assert "installer" in notes["text"] and notes["total_tokens"] <= 500
    each = [json.loads(row) for row in by_start["qatbe extract pages/*.html"][1].splitlines()]
    assert [row["source"] for row in each] == ["pages/library.html", "pages/museum.html"]
    many = by_start["qatbe extract pages/*.html many"][1]
    assert "9am to 6pm" in many and "10am to 5pm" in many and "Sources:" in many
    segments = by_start["qatbe segment page.html"][1].splitlines()
    assert len(segments) > 10 and segments[0].split()[0] == "0"
    assert "retention" in by_start["qatbe bench"][1]


def _extras() -> set[str]:
    """The extras ``pyproject.toml`` defines: the keys of its ``[project.optional-dependencies]`` table (read with a
    regex because tomllib is not in Python 3.10, which qatbe supports)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*=", table, re.MULTILINE))


def test_extras_are_read() -> None:
    assert {"all", "bench", "test", "server"} <= _extras()


def _pip_lines(block: str) -> list[list[str]]:
    return [words for words in _commands(block) if words[:2] == ["pip", "install"]]


@pytest.mark.parametrize("block", [example("install"), example("bench")], ids=["install", "bench"])
def test_install_lines_are_the_documented_ones(block: str) -> None:
    """Checked, not run: see the module docstring."""
    lines = _pip_lines(block)
    assert lines, f"no pip install line in {block!r}"
    extras = _extras()
    for words in lines:
        assert shlex.join(words).replace("'", '"') in INSTALL_COMMANDS, words
        for target in words[2:]:
            named = re.fullmatch(r"\.\[([\w,-]+)\]", target)
            if named:
                assert set(named.group(1).split(",")) <= extras, f"unknown extra in {target}"
    assert _commands(example("install")) == _pip_lines(example("install"))  # the install block holds only pip lines


def test_bench_lines_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each ``qatbe bench`` line is parsed by its subcommand's parser (not run: see the module docstring)."""
    lines = [words for words in _commands(example("bench")) if words[0] == "qatbe"]
    assert [words[:2] for words in lines] == [["qatbe", "bench"]] * 4
    for words in lines:
        sub, rest = words[2], words[3:]
        assert sub in SUBCOMMANDS, words
        module = importlib.import_module(SUBCOMMANDS[sub][0])
        module.build_parser().parse_args(rest)  # raises UsageError on a line the subcommand would refuse
    # The retention line in its smallest form: the bundled sample set, qatbe alone, one budget.
    [retention] = [words for words in lines if words[2] == "retention"]
    assert retention[3:7] == ["squad11-dev", "conditionalqa-dev", "hotpotqa-distractor", "wikitablequestions"]
    small = ["bench", "retention", str(ROOT / "corpora" / "sample"), "--systems", "qatbe", "--budgets", "200",
             "--out", str(tmp_path), "--no-plot", "--no-progress"]
    assert main(small) == 0
    rows = [json.loads(row) for row in (tmp_path / "retention.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(row["system"] == "qatbe" and row["over_budget"] == 0 for row in rows)
    capsys.readouterr()
