"""Build the compiled kernel (qatbe/_core.pyx and its .pxi/.h parts), the Segment constructors
(qatbe/_segment.pyx), the Lexbor walks, and the Python modules in ``_COMPILED_PY``.

The modules in ``_COMPILED_PY`` are compiled as they are, those with a .pxd beside them with its C types (Cython's
"augmenting .pxd"): one source, so the pure-Python fallback and the compiled module cannot disagree. Only the
modules where compiling measurably pays are listed (docs/BUILD.md has each one's measured gain); every other
module runs as plain Python. The walk over Lexbor's nodes (lexbor_nodes.pyx, html_fastwalk.pyx) and the metadata
walk (lexbor_dom.pyx) exist only compiled; without them the Python walk and the CSS-selector metadata reader are
used.

Extensions are cythonized and compiled in parallel (one job per CPU unless ``build_ext -j N`` says otherwise).
Compiler flags are computed in one place, ``_compile_args``.

Build options are environment variables, read strictly:
  QATBE_NO_EXTENSION=1  skip the extension (the pure-Python twin is then used, with a warning at import).
  QATBE_OPTIONAL_EXTENSION=1  a compiler failure falls back to the twin instead of failing the install.
  QATBE_SANITIZE=1  every extension built with AddressSanitizer and UndefinedBehaviorSanitizer, for fuzz/ (never
                    for a release; fuzz/README.md says how to run Python with the sanitizer runtime preloaded).
  QATBE_SANITIZE=fuzzer  the same plus libFuzzer's coverage hooks (-fsanitize=fuzzer-no-link; clang only), so
                    atheris is guided by the native code's coverage too (fuzz/README.md).
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


def _sanitize() -> str:
    """QATBE_SANITIZE: "" (a release build), "1" (ASan + UBSan) or "fuzzer" (ASan + UBSan + coverage hooks)."""
    value = os.environ.get("QATBE_SANITIZE", "").strip()
    if value in ("", "0"):
        return ""
    if value in ("1", "fuzzer"):
        return value
    raise SystemExit(f"QATBE_SANITIZE must be '0', '1' or 'fuzzer', not {value!r}")


def _sanitize_flags() -> list[str]:
    """ASan and UBSan; UBSan's pointer-overflow check recovers (instead of aborting) so that fuzz/ubsan.supp can
    silence the one report in Cython's generated argument parsing (NULL + 0 for a call without arguments)."""
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fsanitize-recover=pointer-overflow"]
    return [*flags, "-fsanitize=fuzzer-no-link"] if _sanitize() == "fuzzer" else flags


def _compile_args(compiler_type: str, native: bool) -> list[str]:
    """Extra compiler flags for one extension (after Python's own CFLAGS, so these win).

    GCC and Clang: -g0, since a release build carries no debug information and generating it is about a third of
    the compile time of Cython's output; -O3 for the native kernels (``_NATIVE``), whose loops are written for
    its vectoriser and inliner, and -O2 for the compiled Python modules, whose code is calls into the CPython API
    that -O3 makes larger and slower to compile without making faster (docs/BUILD.md has the figures).
    MSVC keeps its release defaults (/O2)."""
    if compiler_type == "msvc":
        return []
    if _sanitize():  # -O1 -g: reports that name lines
        return ["-O1", "-g", "-fno-omit-frame-pointer", *_sanitize_flags()]
    return ["-O3" if native else "-O2", "-g0"]


# Python modules compiled as they are (see the module docstring), a literal that tests/test_kernel_backend.py reads.
# Each is here because compiling it measurably speeds up extract, or because a native module cimports its
# classes (html_walk: html_fastwalk; builder: html_emit), or because the BM25 bench's scoring path runs through
# it (score.*); docs/BUILD.md has the figures. Every other module runs as plain Python.
_COMPILED_PY = (
    "segmentation.html_walk", "segmentation.builder", "segmentation.html_emit", "segmentation.html_decide",
    "segmentation.html_boilerplate", "segmentation.html_metadata",
    "score.bm25", "score.analyze", "score.languages",
)

# The native modules: name -> sources (the .pxi and .h files they include are found by Cython and the compiler).
_NATIVE = {
    "qatbe._core": "qatbe/_core.pyx",
    "qatbe._segment": "qatbe/_segment.pyx",
    "qatbe.segmentation.lexbor_nodes": "qatbe/segmentation/lexbor_nodes.pyx",
    "qatbe.segmentation.html_fastwalk": "qatbe/segmentation/html_fastwalk.pyx",
    "qatbe.segmentation.lexbor_dom": "qatbe/segmentation/lexbor_dom.pyx",
}

_NATIVE_DIRECTIVES = {"language_level": "3", "boundscheck": False, "wraparound": False, "cdivision": True,
                      "initializedcheck": False}
# annotation_typing=False: the .py's type hints are for mypy (``int`` there may hold a bool); the C types come from
# the .pxd only, so the compiled module keeps Python semantics.
_PY_DIRECTIVES = {"language_level": "3", "annotation_typing": False}


class _BuildExt(build_ext):
    """Cythonizes when the extensions are built (so that egg_info and sdist need no Cython and ship the sources,
    not generated C) and compiles in parallel by default, with the flags of ``_compile_args``; with
    QATBE_OPTIONAL_EXTENSION=1 a compiler failure becomes a loud warning."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        for ext in self.extensions:
            ext.extra_compile_args = [*ext.extra_compile_args,
                                      *_compile_args(self.compiler.compiler_type, ext.name in _NATIVE)]
            if _sanitize() and self.compiler.compiler_type != "msvc":
                ext.extra_link_args = [*ext.extra_link_args, *_sanitize_flags()]
        super().build_extensions()

    def run(self) -> None:
        try:
            self._cythonize()
            super().run()
        except Exception as exc:
            if not _flag("QATBE_OPTIONAL_EXTENSION"):
                raise
            print(f"WARNING: qatbe._core could not be compiled ({exc}); the pure-Python twin will be used",
                  file=sys.stderr)

    def _cythonize(self) -> None:
        """.pyx/.py -> .c, in worker processes (the Cython compiler is Python: threads would not overlap). The
        extensions are updated in place: setuptools has annotated them already."""
        from Cython.Build import cythonize

        jobs = 0 if os.name == "nt" else int(self.parallel or 1)  # no worker processes where they are spawned
        native = [ext for ext in self.extensions if ext.name in _NATIVE]
        compiled_py = [ext for ext in self.extensions if ext.name not in _NATIVE]
        done = (cythonize(native, compiler_directives=_NATIVE_DIRECTIVES, nthreads=jobs, quiet=True)
                + cythonize(compiled_py, compiler_directives=_PY_DIRECTIVES, nthreads=jobs, quiet=True))
        by_name = {ext.name: ext for ext in done}
        for ext in self.extensions:
            ext.sources, ext.include_dirs = by_name[ext.name].sources, by_name[ext.name].include_dirs


def _extensions() -> list[Extension]:
    if _flag("QATBE_NO_EXTENSION"):
        return []
    return ([Extension(name, [source]) for name, source in _NATIVE.items()]
            + [Extension(f"qatbe.{name}", [f"qatbe/{name.replace('.', '/')}.py"]) for name in _COMPILED_PY])


setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildExt})
