"""The package's modules are reachable by their dotted names, as tools that patch or import by string expect."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

import qatbe


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(qatbe.__path__, "qatbe.") if "._" not in m.name)


def test_every_module_is_the_attribute_its_dotted_name_names() -> None:
    # `import qatbe.x.y as m` and `mock.patch("qatbe.x.y.f")` walk attributes from `qatbe`: a public function
    # named like a subpackage (qatbe.segment, the function, once shadowed qatbe/segment/) breaks both.
    names = _modules()
    assert "qatbe.segmentation.html_decide" in names and "qatbe.score.bm25" in names
    for name in names:
        module = importlib.import_module(name)
        assert functools.reduce(getattr, name.split(".")[1:], qatbe) is module, name


def test_the_public_segment_function_and_the_stage_package_are_distinct() -> None:
    assert callable(qatbe.segment)
    assert Path(importlib.import_module("qatbe.segmentation").__file__ or "").parent.name == "segmentation"
