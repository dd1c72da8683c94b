"""What the router's tests share: the issue's example config, a handbook folder to point it at, a git repo."""

from __future__ import annotations

import subprocess
from pathlib import Path

# The config of issue 42, exactly as written there.
ISSUE_CONFIG = """\
version: 1
variables: {team: docs}
sources:
  handbook: {type: directory, root: ./handbook, include: ["**/*.md", "**/*.html", "**/*.txt"]}
  rules: {type: inline, text: "Answer from the handbook and cite it."}
routes:
  - {name: default, sources: [rules]}
  - {name: policy, when: 'text.contains("policy") || "onboarding" in tags', sources: [handbook]}
permissions:
  - {agent: "*", default: deny, allow: [rules]}
  - {agent: hr-assistant, allow: [handbook]}
deny_paths: ["**/secrets/**"]
cache: {dir: .qatbe-cache, ttl_seconds: 600, max_entries: 1000}
budget: {budget: 1500, ranking: relevance}
"""

SECRET_WORD = "zebracorn"  # only ever written in the handbook's secrets folder


def make_handbook(root: Path) -> Path:
    """A handbook folder (markdown, HTML, text, and a secrets folder) and the issue's config beside it."""
    hb = root / "handbook"
    (hb / "hr").mkdir(parents=True)
    (hb / "it").mkdir()
    (hb / "secrets").mkdir()
    (hb / "hr" / "remote.md").write_text(
        "# Remote work policy\n\nEmployees may work remotely three days a week, with their manager's consent.\n")
    (hb / "hr" / "onboarding.html").write_text(
        "<html><head><title>Onboarding</title></head><body><h1>Onboarding</h1>"
        "<p>New hires meet their buddy on the first day and get a laptop.</p></body></html>")
    (hb / "it" / "laptops.txt").write_text("Laptops are replaced every three years under the hardware policy.\n")
    (hb / "secrets" / "salaries.md").write_text(f"# Salaries policy\n\nThe {SECRET_WORD} bonus is secret.\n")
    (hb / "notes.json").write_text('{"policy": "not a file type the handbook reads"}')
    config = root / "router.yaml"
    config.write_text(ISSUE_CONFIG)
    return config


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.org", "-c", "user.name=t",
                           "-c", "commit.gpgsign=false", *args],
                          check=True, capture_output=True, text=True).stdout
