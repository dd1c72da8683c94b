"""Chooses, in this one module, the compiled or the pure-Python implementation of every part that has both.

``QATBE_BACKEND`` is parsed strictly: ``auto`` (default: each compiled part when it is built and usable),
``cython`` (fail if the compiled kernel is missing) or ``python`` (every part's pure-Python twin). The parts:

* ``kernel``: ``qatbe._core``, or ``qatbe._core_py`` -- chosen at import, as every call needs it;
* ``records``: the ``Segment`` constructors of ``qatbe._segment``, or ``qatbe._segment_py``;
* ``html_walk``: ``segmentation/html_fastwalk`` over Lexbor's nodes, or ``segmentation/html_walk`` over
  selectolax's objects (also when the Lexbor probe fails, or ``QATBE_HTML_WALK=python``);
* ``metadata``: ``lexbor_dom.MetadataSource``, or ``html_metadata.CssSource``;
* ``spans``: ``html_fastwalk.SpanAligner``, or ``spans.PySpanAligner``;
* ``markdown``: markdown-it-pyrs or markdown-it-py, reported here and chosen per document by
  ``segmentation/markdown.py`` (``QATBE_MARKDOWN_PARSER``): a third-party parser, not a twin of ours;
* ``python_modules``: whether the ``.py`` modules ``setup.py`` compiles run compiled (``compiled_sources``). They
  are the same source either way, so ``QATBE_BACKEND`` leaves them be (``QATBE_NO_EXTENSION=1`` at build time
  does not compile them); an edit to one takes effect at the next build, and ``qatbe.BACKEND.stale`` lists the
  ones edited since.

Every part but the kernel is chosen when its module is first imported, so ``import qatbe`` probes nothing.
``qatbe.BACKEND`` is the kernel's name, ``"cython"`` or ``"python"``; ``qatbe.BACKEND.parts`` names each part's
implementation (and probes what is still unchosen).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, NamedTuple

from .errors import ConfigError

_CHOICES = ("auto", "cython", "python")
COMPILED = "cython"
PYTHON = "python"


def _wanted() -> str:
    wanted = os.environ.get("QATBE_BACKEND", "auto").strip().lower() or "auto"
    if wanted not in _CHOICES:
        raise ConfigError(f"QATBE_BACKEND must be one of {', '.join(_CHOICES)}, not {wanted!r}")
    return wanted


WANTED = _wanted()


def compiled_allowed() -> bool:
    """False when ``QATBE_BACKEND=python`` asks for every part's Python twin."""
    return WANTED != "python"


_modules: dict[str, ModuleType | None] = {}


def _compiled(name: str) -> ModuleType | None:
    """The compiled module ``name``, or None when the Python twins are asked for or it is not built (imported by
    name: this module stays below every part it chooses)."""
    if name not in _modules:
        module = None
        if compiled_allowed():
            try:
                module = importlib.import_module(name)
            except ImportError:  # not built (QATBE_NO_EXTENSION=1), or built for another layout of the records
                module = None
        _modules[name] = module
    return _modules[name]


def records() -> tuple[ModuleType, str]:
    """The ``Segment`` constructors (``qatbe/records.py``): ``qatbe._segment`` or its twin ``qatbe._segment_py``."""
    compiled = _compiled("qatbe._segment")
    if compiled is not None:
        return compiled, COMPILED
    return importlib.import_module("qatbe._segment_py"), PYTHON


def span_aligner() -> Any:
    """The compiled ``SpanAligner`` class, or None for ``spans.PySpanAligner``."""
    compiled = _compiled("qatbe.segmentation.html_fastwalk")
    return None if compiled is None else compiled.SpanAligner


MARKDOWN_PARSER_ENV = "QATBE_MARKDOWN_PARSER"
MARKDOWN_PARSERS = ("auto", "markdown-it-py", "markdown-it-pyrs")


def markdown_parser_choice() -> str:
    """``QATBE_MARKDOWN_PARSER``, read strictly on every call: "markdown-it-py", "markdown-it-pyrs" or "auto"
    (unset). ``segmentation/markdown.py`` sends a document to markdown-it-pyrs unless markdown-it-py is chosen,
    markdown-it-pyrs is not installed, or the document holds a construct the two parse differently."""
    value = os.environ.get(MARKDOWN_PARSER_ENV, "auto").strip() or "auto"
    if value not in MARKDOWN_PARSERS:
        raise ConfigError(f"{MARKDOWN_PARSER_ENV}={value!r}: use one of {', '.join(MARKDOWN_PARSERS)}")
    return value


def _load_kernel() -> tuple[ModuleType, str]:
    if WANTED == "python":
        from . import _core_py

        return _core_py, PYTHON
    try:
        from . import _core
    except ImportError as exc:
        if WANTED == "cython":
            raise ImportError(
                "QATBE_BACKEND=cython but the compiled qatbe._core is not importable; reinstall with a C compiler"
            ) from exc
        warnings.warn(
            "qatbe: the compiled core qatbe._core is not available; using the much slower pure-Python twin. "
            "Reinstall with a C compiler (pip install --force-reinstall qatbe) to get it.",
            RuntimeWarning,
            stacklevel=3,
        )
        from . import _core_py

        return _core_py, PYTHON
    return _core, COMPILED


class HtmlWalk(NamedTuple):
    """Which HTML walk ``segment_html`` runs: the compiled one (``fast``), the compiled metadata search
    (``metadata``), and why the Python walk when it runs (``why_python``, else None)."""

    fast: bool
    metadata: bool
    why_python: str | None


def _choose_html_walk() -> HtmlWalk:
    if not compiled_allowed():
        return HtmlWalk(False, False, "QATBE_BACKEND=python")
    lexbor_nodes = _compiled("qatbe.segmentation.lexbor_nodes")
    if lexbor_nodes is None or _compiled("qatbe.segmentation.html_fastwalk") is None:
        return HtmlWalk(False, False, "the compiled walk is not built")
    fast = bool(lexbor_nodes.available())  # the Lexbor probe
    # The C metadata search tells HTML from SVG elements by the node header's namespace field.
    return HtmlWalk(fast, fast and bool(lexbor_nodes.reads_directly()), lexbor_nodes.reason())


_html_walk: HtmlWalk | None = None


def html_walk() -> HtmlWalk:
    """The HTML walk's choice, made on first call (``segmentation/html.py`` asks at its import, so the first
    HTML page pays for the probe)."""
    global _html_walk
    if _html_walk is None:
        _html_walk = _choose_html_walk()
    return _html_walk


# An installer writes a module's files within moments of each other; an edit comes later.
_STALE_AFTER = 2.0


class CompiledSources(NamedTuple):
    """The package's ``.py`` modules with an extension module beside them (``setup.py``'s ``_COMPILED_PY``:
    Python imports the extension, not the source), and those whose source changed after the extension was built
    (``stale``: an edit that does nothing until the next build)."""

    compiled: tuple[str, ...]
    stale: tuple[str, ...]


def compiled_sources(root: Path | None = None) -> CompiledSources:
    """``CompiledSources`` of the package at ``root`` (this one by default), from the files' names and times."""
    root = Path(__file__).parent if root is None else root
    compiled: list[str] = []
    stale: list[str] = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for extension in sorted(root.rglob("*" + suffix)):
            source = extension.with_name(extension.name[: -len(suffix)] + ".py")
            if not source.is_file():
                continue
            module = ".".join((root.name, *source.relative_to(root).with_suffix("").parts))
            if module in compiled:
                continue
            compiled.append(module)
            if source.stat().st_mtime > extension.stat().st_mtime + _STALE_AFTER:
                stale.append(module)
    return CompiledSources(tuple(sorted(compiled)), tuple(sorted(stale)))


def _parts() -> Mapping[str, str]:
    walk = html_walk()
    choice = markdown_parser_choice()
    pyrs = choice != "markdown-it-py" and importlib.util.find_spec("markdown_it_pyrs") is not None
    return MappingProxyType({
        "kernel": str(BACKEND),
        "records": records()[1],
        "html_walk": COMPILED if walk.fast else PYTHON,
        "metadata": COMPILED if walk.metadata else PYTHON,
        "spans": PYTHON if span_aligner() is None else COMPILED,
        "markdown": "markdown-it-pyrs" if pyrs else "markdown-it-py",
        "python_modules": COMPILED if compiled_sources().compiled else PYTHON,
    })


class Backend(str):
    """The kernel's name (``"cython"`` or ``"python"``), with ``parts``: every part's implementation."""

    __slots__ = ()

    @property
    def parts(self) -> Mapping[str, str]:
        """Part -> ``"cython"`` or ``"python"`` (``markdown``: the parser's name); the module docstring lists them."""
        return _parts()

    @property
    def stale(self) -> tuple[str, ...]:
        """The compiled ``.py`` modules whose source is newer than their build: rebuild
        (``python setup.py build_ext --inplace``) for an edit to them to take effect."""
        return compiled_sources().stale


kernel, _kernel_name = _load_kernel()
BACKEND = Backend(_kernel_name)
