"""The kernels the kernel tests run on: the Python twin, the compiled kernel where the build has it, and the
compiled kernel with its AVX2 scans off (the SSE2 loops the processors without AVX2 run)."""

from __future__ import annotations

from types import ModuleType

from qatbe import _core_py

try:
    from qatbe import _core as _compiled
except ImportError:
    _compiled = None  # type: ignore[assignment]


class _WithoutAvx2:
    """The compiled kernel with its AVX2 scans turned off for each call (``_core.use_avx2``); on this machine the
    default is the AVX2 path, tested as ``_core``."""

    __name__ = "_core-sse2"

    def __getattr__(self, name: str) -> object:
        assert _compiled is not None
        function = getattr(_compiled, name)

        def call(*args: object) -> object:
            assert _compiled is not None
            _compiled.use_avx2(False)
            try:
                return function(*args)
            finally:
                _compiled.use_avx2(True)

        return call


KERNELS: list[ModuleType] = [_core_py] + ([_compiled] if _compiled is not None else [])
# The page-wide scans have a vector path per width: each is tested on every path there is.
SCANS: list[ModuleType] = KERNELS + ([_WithoutAvx2()] if _compiled is not None else [])  # type: ignore[list-item]
