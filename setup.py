"""Build the compiled kernel, qatbe/_core.pyx, the Segment constructors, qatbe/_segment.pyx, and the compiled
segmenter stages.

The Python modules in ``_COMPILED_PY`` (the segmenter's stages, the scorer, the selector, the renderer and the
pipeline) are compiled as they are, those with a .pxd beside them with its C types (Cython's "augmenting .pxd"):
one source, so the pure-Python fallback and the compiled module cannot disagree. Compiled plain Python runs the
same bytecode-level semantics without the interpreter loop; for the scorer's glue that is 7% of its time. The walk over Lexbor's nodes (lexbor_nodes.pyx, html_fastwalk.pyx) and the metadata walk
(lexbor_dom.pyx) exist only compiled; without them the Python walk and the CSS-selector metadata reader are used.

Build options are environment variables, read strictly:
  QATBE_NO_EXTENSION=1  skip the extension (the pure-Python twin is then used, with a warning at import).
  QATBE_OPTIONAL_EXTENSION=1  a compiler failure falls back to the twin instead of failing the install.
  QATBE_SANITIZE=1  every extension built with AddressSanitizer and UndefinedBehaviorSanitizer, for fuzz/ (never
                    for a release; fuzz/README.md says how to run Python with the sanitizer runtime preloaded).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    value = os.environ.get(name, "").strip()
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    raise SystemExit(f"{name} must be '0' or '1', not {value!r}")


class _OptionalBuildExt(build_ext):
    """Turn a compiler failure into a loud warning when QATBE_OPTIONAL_EXTENSION=1."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            if not _flag("QATBE_OPTIONAL_EXTENSION"):
                raise
            print(f"WARNING: qatbe._core could not be compiled ({exc}); the pure-Python twin will be used",
                  file=sys.stderr)


# Python modules compiled as they are (see the module docstring), a literal that tests/test_kernel_backend.py reads:
# the segmenter's stages, the scorer, the selector, the renderer and the pipeline around them.
_COMPILED_PY = (
    "segmentation.html_walk", "segmentation.builder", "segmentation.html_emit", "segmentation.html_decide",
    "segmentation.html_boilerplate", "segmentation.html_metadata", "segmentation.dates",
    "score.bm25", "score.analyze", "score.languages", "score.question", "score.expand",
    "select.knapsack", "select.plan", "select.dedupe", "select.nested", "select.truncate",
    "render.blocks", "pipeline", "tokens",
)

ext_modules = []
if not _flag("QATBE_NO_EXTENSION"):
    from Cython.Build import cythonize

    ext_modules = cythonize(
        [Extension("qatbe._core", ["qatbe/_core.pyx"], extra_compile_args=["-O3"]),
         Extension("qatbe._segment", ["qatbe/_segment.pyx"], extra_compile_args=["-O3"]),
         Extension("qatbe.segmentation.lexbor_nodes", ["qatbe/segmentation/lexbor_nodes.pyx"],
                   extra_compile_args=["-O3"]),
         Extension("qatbe.segmentation.html_fastwalk", ["qatbe/segmentation/html_fastwalk.pyx"],
                   extra_compile_args=["-O3"]),
         Extension("qatbe.segmentation.lexbor_dom", ["qatbe/segmentation/lexbor_dom.pyx"],
                   extra_compile_args=["-O3"])],
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
    # annotation_typing=False: the .py's type hints are for mypy (``int`` there may hold a bool); the C types
    # come from the .pxd only, so the compiled module keeps Python semantics.
    ext_modules += cythonize(
        [Extension(f"qatbe.{name}", [f"qatbe/{name.replace('.', '/')}.py"], extra_compile_args=["-O3"])
         for name in _COMPILED_PY],
        compiler_directives={"language_level": "3", "annotation_typing": False},
    )



def _sanitized(modules: list[Extension]) -> list[Extension]:
    """With QATBE_SANITIZE=1, ``modules`` compiled and linked with ASan and UBSan (-O1 -g: readable reports)."""
    if not _flag("QATBE_SANITIZE"):
        return modules
    for ext in modules:
        ext.extra_compile_args = [a for a in ext.extra_compile_args if not a.startswith("-O")] + [
            "-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
        ext.extra_link_args = [*ext.extra_link_args, "-fsanitize=address,undefined"]
    return modules


setup(ext_modules=_sanitized(ext_modules), cmdclass={"build_ext": _OptionalBuildExt})
