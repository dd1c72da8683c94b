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


class LocalApi:
    """A real HTTP server on 127.0.0.1 (a free port) for the http_api and url sources: ``/search?q=`` answers
    JSON built from the query, ``POST /search`` reads a JSON body, ``/page.html`` is a page, ``/hang`` answers
    only when the server stops. ``requests`` records (method, path, headers) of what it was asked."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler

        from local_http import QuietHTTPServer

        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.release = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                import json as _json
                from urllib.parse import parse_qs, urlsplit

                api.requests.append(("GET", self.path, dict(self.headers)))
                parts = urlsplit(self.path)
                if parts.path == "/search":
                    q = parse_qs(parts.query).get("q", [""])[0]
                    results = [{"body": f"Result about {q}: the {q} guide says to restart the router.",
                                "name": f"Guide to {q}", "link": f"http://127.0.0.1/{k}"} for k in range(2)]
                    self._send(200, _json.dumps({"data": {"results": results}}).encode(), "application/json")
                elif parts.path == "/page.html":
                    self._send(200, b"<html><head><title>Local page</title></head><body><h1>Local page</h1>"
                                    b"<p>The ferry to the island leaves at noon.</p></body></html>", "text/html")
                elif parts.path == "/moved":
                    self.send_response(302)
                    self.send_header("Location", "/search?" + parts.query)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif parts.path == "/hang":
                    api.release.wait(30)
                    self._send(200, b"{}", "application/json")
                else:
                    self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                import json as _json

                length = int(self.headers.get("Content-Length", "0"))
                body = _json.loads(self.rfile.read(length) or b"null")
                api.requests.append(("POST", self.path, dict(self.headers)))
                text = body.get("question", "") if isinstance(body, dict) else ""
                self._send(200, _json.dumps([{"text": f"Posted answer for {text}."}]).encode(), "application/json")

        self.server = QuietHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
