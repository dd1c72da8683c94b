"""The embedders: the bundled all-MiniLM-L6-v2 through sentence-transformers (real model, no network) and an
OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1 that answers like one)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import numpy as np
import pytest
from local_http import QuietHTTPServer

import qatbe
from qatbe.score.embedders import OpenAIEmbedder, _VectorCache


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 for b in digest[:8]]


class _Endpoint(BaseHTTPRequestHandler):
    calls: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if body.get("model") == "broken":
            self.send_response(500)
            self.end_headers()
            return
        inputs = body["input"]
        if body.get("model") == "short":
            inputs = inputs[:-1]
        # Out of order on purpose: clients must sort by "index".
        data = [{"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(inputs)][::-1]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture()
def endpoint() -> Iterator[str]:
    _Endpoint.calls = []
    server = QuietHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_openai_endpoint_vectors_batches_auth_and_cache(endpoint: str) -> None:
    embed = OpenAIEmbedder(endpoint, "test-model", api_key="sk-test", batch_size=2)
    texts = ["alpha", "beta", "gamma", "alpha"]
    vectors = embed(texts)
    assert vectors.shape == (4, 8)
    assert np.allclose(vectors, [_vector(t) for t in texts])
    assert [c["input"] for c in _Endpoint.calls] == [["alpha", "beta"], ["gamma"]]  # batches of 2, no repeats
    assert all(c["path"] == "/v1/embeddings" and c["auth"] == "Bearer sk-test" for c in _Endpoint.calls)
    embed(["beta", "gamma"])
    assert len(_Endpoint.calls) == 2  # both cached
    embed.close()


def test_openai_endpoint_in_a_hybrid_extract(endpoint: str) -> None:
    embed = OpenAIEmbedder(endpoint, "test-model")
    page = "# Title\n\n" + "\n\n".join(f"Paragraph {i} talks about item {i}." for i in range(20))
    r = qatbe.extract(page, "item 7", budget=40, ranking="hybrid", embedder=embed)
    assert "item 7" in r.text and r.total_tokens <= 40
    assert r.text == qatbe.extract(page, "item 7", budget=40, ranking="hybrid", embedder=embed).text


@pytest.mark.parametrize(("model", "fragment"), [("broken", "failed"), ("short", "returned 1 vectors for 2")])
def test_openai_endpoint_failures_are_fetch_errors(endpoint: str, model: str, fragment: str) -> None:
    with pytest.raises(qatbe.FetchError, match=fragment):
        OpenAIEmbedder(endpoint, model)(["a", "b"])


def test_openai_embedder_options_are_checked() -> None:
    with pytest.raises(qatbe.ConfigError):
        OpenAIEmbedder("ftp://x", "m")
    with pytest.raises(qatbe.ConfigError):
        OpenAIEmbedder("http://127.0.0.1:1", "m", batch_size=0)


def test_the_cache_keeps_the_most_recent_texts() -> None:
    computed: list[list[str]] = []

    def compute(texts: list[str]) -> np.ndarray:
        computed.append(list(texts))
        return np.array([[float(len(t))] for t in texts])

    cache = _VectorCache(2)
    cache.embed(["a", "bb"], compute)
    cache.embed(["a"], compute)          # "a" is now the most recent
    cache.embed(["ccc"], compute)        # evicts "bb"
    assert len(cache) == 2
    cache.embed(["a", "bb"], compute)
    assert computed == [["a", "bb"], ["ccc"], ["bb"]]


def test_without_the_extra_the_error_names_it() -> None:
    code = ("import sys; sys.modules['sentence_transformers'] = None\n"
            "import qatbe\nfrom qatbe.score.embedders import SentenceTransformerEmbedder\n"
            "try:\n    SentenceTransformerEmbedder()\nexcept qatbe.MissingExtraError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "qatbe[embed]" in out


@pytest.fixture(scope="module")
def minilm() -> Any:
    pytest.importorskip("sentence_transformers", reason="qatbe[embed] is not installed")
    pytest.importorskip("all_minilm_l6_v2", reason="qatbe[embed] is not installed")
    from qatbe.score.embedders import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


def test_the_bundled_model_embeds_meaning(minilm: Any) -> None:
    vectors = minilm(["a car", "an automobile", "a banana", "a car"])
    assert vectors.shape == (4, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[3])
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_the_bundled_model_in_hybrid_ranking(minilm: Any) -> None:
    page = ("# Clinic\n\n" + "\n\n".join(f"Section {i} covers tomatoes, soil and watering in spring." for i in range(8))
            + "\n\nOur physician sees patients on Mondays and Thursdays.\n")
    r = qatbe.extract(page, "when can I see a doctor?", budget=30, ranking="embedding", embedder=minilm)
    assert "physician" in r.text and r.total_tokens <= 30


def test_readme_hybrid_example(minilm: Any) -> None:
    from readme_examples import example

    namespace: dict[str, Any] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example("quickstart"), "README.md", "exec"), namespace)  # noqa: S102 - the README's own code
        exec(compile(example("hybrid"), "README.md", "exec"), namespace)  # noqa: S102
    r = namespace["r"]
    assert r.total_tokens <= 200 and "crowns" in r.text
    assert out.getvalue().endswith(r.text + "\n")
