"""Route conditions in CEL (Common Expression Language), compiled once when the router is built.

The library is ``common-expression-language`` (the ``cel`` module: Rust's cel-interpreter behind a Python
binding), chosen over the pure-Python ``cel-python`` for speed: ten routes must take under 0.1 ms, which only the
former meets (``benchmarks/router.py`` times both; the README has the figures). Nothing is ever passed to
Python's ``eval``.

An expression sees ``text``, ``agent``, ``tags`` (a list), ``metadata`` (a map), each key of the query's
metadata as a name of its own, and the config's ``variables`` (which win over a metadata key of the same name, so
that a caller cannot redefine what the config fixed). A name the query does not give makes the condition false,
as does any evaluation error or a result that is not a boolean: a route matches only when its condition says
``true``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._optional import require
from ..errors import ConfigError
from ..query import Query

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Condition:
    """One compiled route condition; an empty one always matches."""

    route: str
    source: str
    program: Any  # cel.Program, or None for the empty condition

    def matches(self, activation: Any) -> bool:
        if self.program is None:
            return True
        try:
            value = self.program.execute(activation)
        except (RuntimeError, TypeError, ValueError) as exc:  # an unknown name, a type mismatch, ...
            log.debug("route %r: condition not met (%s)", self.route, type(exc).__name__)
            return False
        return value is True


def compile_condition(route: str, where: str, source: str) -> Condition:
    """Compile ``source``; a syntax error is a ``ConfigError`` at ``where`` naming the route."""
    if not source:
        return Condition(route, source, None)
    cel = require("cel", "router", "route conditions (CEL)")
    try:
        program = cel.compile(source)
    except (ValueError, RuntimeError) as exc:
        detail = str(exc).splitlines()
        reason = next((line for line in detail if "ERROR" in line), detail[0] if detail else "syntax error")
        raise ConfigError(f"{where}: route {route!r} has a bad condition {source!r}: {reason.strip()}") from None
    return Condition(route, source, program)


def check_variables(variables: Mapping[str, Any]) -> None:
    """Each config variable must be a value CEL can hold (a YAML date, for one, is not)."""
    if not variables:
        return
    cel = require("cel", "router", "route conditions (CEL)")
    context = cel.Context()
    for name, value in variables.items():
        try:
            context.add_variable(name, value)
        except (TypeError, ValueError, RuntimeError):
            raise ConfigError(f"variables.{name}: {type(value).__name__} is not a value a condition can use "
                              "(use strings, numbers, booleans, lists and mappings of them)") from None


def activation(query: Query, variables: Mapping[str, Any]) -> Any:
    """The names an expression sees for ``query`` (see the module's docstring for the precedence), as one
    ``cel.Context``: its values are converted to CEL's types once for all the conditions (a plain dict would be
    converted again for each, which was most of the time of ten routes). A metadata value CEL cannot hold is
    left out (a condition that names it is then false)."""
    cel = require("cel", "router", "route conditions (CEL)")
    names: dict[str, Any] = {k: v for k, v in query.metadata.items() if isinstance(k, str)}
    names.update(variables)
    names["text"] = query.text
    names["agent"] = query.agent
    names["tags"] = list(query.tags)
    names["metadata"] = dict(query.metadata)
    try:
        return cel.Context(names)
    except (TypeError, ValueError, RuntimeError):
        context = cel.Context()
        for key, value in names.items():
            try:
                context.add_variable(key, value)
            except (TypeError, ValueError, RuntimeError):
                log.debug("query metadata %r: a value CEL cannot hold; left out", key)
        return context
