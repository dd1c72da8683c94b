"""The router's configuration: read (YAML or a mapping), interpolated, validated once, into frozen records.

Every error is a ``ConfigError`` whose message starts with the key at fault (``routes[1].when: ...``,
``sources.handbook.root: ...``). ``${VAR}`` in any string is replaced by the environment variable's value (an
unset variable stays as written); every value substituted is a secret, and ``Redactor`` writes it back as
``${VAR}`` in anything the router shows (errors, logs, results, cache).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._optional import require
from ..errors import ConfigError
from ..many import check_budget_room
from ..pipeline import resolve_settings
from ..settings import Settings

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_TOP_KEYS = ("version", "variables", "default_access", "sources", "routes", "permissions", "deny_paths", "cache",
             "budget")
# Names the route expressions always see; config variables may not take them.
BUILTIN_NAMES = ("text", "agent", "tags", "metadata")
ACCESS = ("allow", "deny")
DEFAULT_TIMEOUT = 10.0


class Redactor:
    """Writes every interpolated value back as its ``${VAR}`` placeholder (longest value first).

    ``content`` is the variant for document text: it hides only values of ``CONTENT_MIN`` characters or more, so
    that a short, ordinary value (``${TEAM}`` = "docs") does not rewrite every "docs" of a page, while a token an
    API echoes back is still hidden."""

    CONTENT_MIN = 8

    def __init__(self, secrets: Mapping[str, str]) -> None:
        # Value -> placeholder; empty values hide nothing and are skipped.
        self._pairs = sorted(((v, f"${{{k}}}") for k, v in secrets.items() if v), key=lambda p: -len(p[0]))
        self._long = [(v, p) for v, p in self._pairs if len(v) >= self.CONTENT_MIN]

    def content(self, text: str | bytes) -> str | bytes:
        for value, placeholder in self._long:
            if isinstance(text, str):
                text = text.replace(value, placeholder)
            else:  # a file's bytes: its UTF-8 form (the encoding an environment variable's value has)
                text = text.replace(value.encode(), placeholder.encode())
        return text

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def __call__(self, text: str) -> str:
        for value, placeholder in self._pairs:
            if value in text:
                text = text.replace(value, placeholder)
        return text

    def deep(self, value: Any) -> Any:
        """``value`` with every string inside it (keys included) redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self.deep(k): self.deep(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.deep(v) for v in value]
        return value


def interpolate(value: Any, environ: Mapping[str, str], used: dict[str, str]) -> Any:
    """``value`` with ``${VAR}`` replaced in every string; ``used`` collects the variables replaced."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in environ:
                return m.group(0)
            used[name] = environ[name]
            return environ[name]

        return _VAR.sub(sub, value)
    if isinstance(value, Mapping):
        return {k: interpolate(v, environ, used) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, environ, used) for v in value]
    return value


class Options:
    """Reads one mapping of options, each error naming its key (``where.key``); ``done`` refuses the rest."""

    def __init__(self, where: str, raw: object) -> None:
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{where}: must be a mapping, not {type(raw).__name__}")
        for key in raw:
            if not isinstance(key, str):
                raise ConfigError(f"{where}: keys must be strings, not {key!r}")
        self.where = where
        self.raw: Mapping[str, Any] = raw
        self._seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def get(self, name: str, default: Any = None) -> Any:
        self._seen.add(name)
        return self.raw.get(name, default)

    def has(self, name: str) -> bool:
        return name in self.raw

    def string(self, name: str, default: str | None = None, *, required: bool = False) -> str:
        value = self.get(name, default)
        if value is None and required:
            raise ConfigError(f"{self.key(name)}: is required")
        if not isinstance(value, str):
            raise ConfigError(f"{self.key(name)}: must be a string, not {type(value).__name__}")
        return value

    def opt_str(self, name: str) -> str | None:
        value = self.get(name)
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{self.key(name)}: must be a string, not {type(value).__name__}")
        return value

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        value = self.string(name, default)
        if value not in choices:
            raise ConfigError(f"{self.key(name)}: must be one of {', '.join(choices)}, not {value!r}")
        return value

    def number(self, name: str, default: float, low: float = 0.0, *, above: bool = False) -> float:
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{self.key(name)}: must be a number, not {value!r}")
        if value < low or (above and value == low):
            raise ConfigError(f"{self.key(name)}: must be {'>' if above else '>='} {low}, not {value!r}")
        return float(value)

    def integer(self, name: str, default: int, low: int = 0) -> int:
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{self.key(name)}: must be an integer, not {value!r}")
        if value < low:
            raise ConfigError(f"{self.key(name)}: must be >= {low}, not {value}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self.get(name, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{self.key(name)}: must be true or false, not {value!r}")
        return value

    def str_list(self, name: str, default: Iterable[str] = ()) -> tuple[str, ...]:
        value = self.get(name, None)
        if value is None:
            return tuple(default)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{self.key(name)}: must be a list of strings")
        return tuple(value)

    def str_map(self, name: str) -> Mapping[str, str]:
        value = self.get(name, None) or {}
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise ConfigError(f"{self.key(name)}: must be a mapping of strings to strings")
        return MappingProxyType(dict(value))

    def done(self) -> None:
        extra = sorted(set(self.raw) - self._seen)
        if extra:
            raise ConfigError(f"{self.key(extra[0])}: unknown key (known: {', '.join(sorted(self._seen))})")


def check_globs(where: str, patterns: tuple[str, ...]) -> tuple[str, ...]:
    """Globs relative to a root: no absolute path, no ``..`` part, no negation (each must only narrow)."""
    for k, pattern in enumerate(patterns):
        key = f"{where}[{k}]"
        if not pattern.strip():
            raise ConfigError(f"{key}: an empty pattern")
        if pattern.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", pattern):
            raise ConfigError(f"{key}: {pattern!r} is an absolute path; patterns are relative to the root")
        if ".." in re.split(r"[\\/]", pattern):
            raise ConfigError(f"{key}: {pattern!r} has a '..' part; patterns may not leave the root")
        if pattern.startswith("!"):
            raise ConfigError(f"{key}: {pattern!r} is a negation; list what to match instead")
    return patterns


@dataclass(frozen=True)
class SourceSpec:
    """One configured source: its name, type, fetch timeout (seconds), whether the cache keeps it, and its own
    options (interpolated) as ``options``; ``fingerprint`` is its options as written (no secret in it)."""

    name: str
    type: str
    timeout: float
    cache: bool
    options: Mapping[str, Any]
    fingerprint: str


@dataclass(frozen=True)
class RouteSpec:
    name: str
    when: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class PermissionRule:
    """Who (``agent``, or ``*``), allowed and denied sources, a default (None: this rule sets none), and path
    globs hidden from that agent on top of the global ``deny_paths``."""

    agent: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    default: str | None
    deny_paths: tuple[str, ...]


@dataclass(frozen=True)
class CacheSpec:
    dir: Path
    ttl_seconds: float
    max_entries: int


@dataclass(frozen=True)
class RouterConfig:
    """The validated configuration. ``base_dir`` is where relative paths start (the config file's folder)."""

    version: int
    variables: Mapping[str, Any]
    default_access: str
    sources: Mapping[str, SourceSpec]
    routes: tuple[RouteSpec, ...]
    permissions: tuple[PermissionRule, ...]
    deny_paths: tuple[str, ...]
    cache: CacheSpec | None
    budget: Mapping[str, Any]
    settings: Settings
    base_dir: Path
    redact: Redactor = field(repr=False, compare=False)


def load_yaml(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """The YAML mapping in ``path`` (safe loader)."""
    yaml = require("yaml", "router", "qatbe.Router")
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the router config {str(file)!r}: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ConfigError(f"{file.name}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{file.name}: the router config must be a YAML mapping, not {type(data).__name__}")
    return data


def _fingerprint(raw: Mapping[str, Any]) -> str:
    import hashlib
    import json

    blob = json.dumps(raw, sort_keys=True, default=repr, ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def parse_config(raw_in: Mapping[str, Any], base_dir: Path, environ: Mapping[str, str] | None = None
                 ) -> RouterConfig:
    """Validate ``raw_in`` (a parsed YAML mapping) into a ``RouterConfig``; relative paths start at ``base_dir``."""
    if not isinstance(raw_in, Mapping):
        raise ConfigError(f"the router config must be a mapping, not {type(raw_in).__name__}")
    used: dict[str, str] = {}
    raw = interpolate(raw_in, os.environ if environ is None else environ, used)
    redact = Redactor(used)
    try:
        return _parse(raw, raw_in, base_dir, redact)
    except ConfigError as exc:
        raise ConfigError(redact(str(exc))) from None


def _parse(raw: Mapping[str, Any], written: Mapping[str, Any], base_dir: Path, redact: Redactor) -> RouterConfig:
    top = Options("", raw)
    for key in raw:
        if key not in _TOP_KEYS:
            raise ConfigError(f"{key}: unknown top-level key (known: {', '.join(_TOP_KEYS)})")
    version = top.get("version", 1)
    if version != 1:
        raise ConfigError(f"version: only version 1 is known, not {version!r}")

    variables = top.get("variables") or {}
    if not isinstance(variables, Mapping):
        raise ConfigError(f"variables: must be a mapping, not {type(variables).__name__}")
    for name in variables:
        if not isinstance(name, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise ConfigError(f"variables.{name}: a variable name is a letter or _ then letters, digits, _")
        if name in BUILTIN_NAMES:
            raise ConfigError(f"variables.{name}: {name!r} is given by the query; choose another name")

    raw_sources = top.get("sources") or {}
    written_sources = written.get("sources") or {}
    if not isinstance(raw_sources, Mapping):
        raise ConfigError("sources: must be a mapping of source names to their settings")
    sources: dict[str, SourceSpec] = {}
    for name, body in raw_sources.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigError(f"sources.{name}: a source name is letters, digits, '_', '-' or '.'")
        opts = Options(f"sources.{name}", body)
        kind = opts.string("type", required=True)
        timeout = opts.number("timeout", DEFAULT_TIMEOUT, 0.0, above=True)
        keep = opts.boolean("cache", True)
        own = {k: v for k, v in opts.raw.items() if k not in ("type", "timeout", "cache")}
        sources[name] = SourceSpec(name, kind, timeout, keep, MappingProxyType(own),
                                   _fingerprint(written_sources.get(name, {})))

    raw_routes = top.get("routes") or []
    if not isinstance(raw_routes, list):
        raise ConfigError("routes: must be a list of routes")
    routes: list[RouteSpec] = []
    seen: set[str] = set()
    for k, body in enumerate(raw_routes):
        opts = Options(f"routes[{k}]", body)
        name = opts.string("name", required=True)
        if name in seen:
            raise ConfigError(f"routes[{k}].name: {name!r} is used by another route")
        seen.add(name)
        when = opts.get("when")
        if when is None:
            when = ""
        if not isinstance(when, str):
            raise ConfigError(f"routes[{k}].when: must be a CEL expression (a string), not {type(when).__name__}")
        names = opts.str_list("sources")
        if not names:
            raise ConfigError(f"routes[{k}].sources: a route needs at least one source")
        for j, s in enumerate(names):
            if s not in sources:
                raise ConfigError(f"routes[{k}].sources[{j}]: no source named {s!r}")
        opts.done()
        routes.append(RouteSpec(name, when.strip(), names))

    raw_perms = top.get("permissions")
    default_access = top.choice("default_access", ACCESS, "allow" if raw_perms is None else "deny")
    if raw_perms is None:
        raw_perms = []
    if not isinstance(raw_perms, list):
        raise ConfigError("permissions: must be a list of rules")
    rules: list[PermissionRule] = []
    for k, body in enumerate(raw_perms):
        opts = Options(f"permissions[{k}]", body)
        agent = opts.string("agent", required=True)
        lists = {}
        for key in ("allow", "deny"):
            lists[key] = opts.str_list(key)
            for j, s in enumerate(lists[key]):
                if s not in sources:
                    raise ConfigError(f"permissions[{k}].{key}[{j}]: no source named {s!r}")
        default = opts.get("default")
        if default is not None and default not in ACCESS:
            raise ConfigError(f"permissions[{k}].default: must be allow or deny, not {default!r}")
        paths = check_globs(f"permissions[{k}].deny_paths", opts.str_list("deny_paths"))
        opts.done()
        rules.append(PermissionRule(agent, lists["allow"], lists["deny"], default, paths))

    deny_paths = top.get("deny_paths") or []
    if isinstance(deny_paths, str):
        deny_paths = [deny_paths]
    if not isinstance(deny_paths, list) or not all(isinstance(p, str) for p in deny_paths):
        raise ConfigError("deny_paths: must be a list of globs")
    check_globs("deny_paths", tuple(deny_paths))

    cache = None
    if top.get("cache") is not None:
        opts = Options("cache", top.get("cache"))
        directory = Path(opts.string("dir", ".qatbe-cache"))
        cache = CacheSpec(directory if directory.is_absolute() else base_dir / directory,
                          opts.number("ttl_seconds", 600.0, 0.0, above=True), opts.integer("max_entries", 1000, 1))
        opts.done()

    budget = top.get("budget") or {}
    if not isinstance(budget, Mapping):
        raise ConfigError("budget: must be a mapping of extract_many options")
    if "settings" in budget:
        raise ConfigError("budget.settings: give the options themselves (budget, ranking, ...)")
    try:
        settings = resolve_settings(None, dict(budget))
        check_budget_room(settings)  # what extract_many would refuse at query time, refused at load
    except ConfigError as exc:
        raise ConfigError(f"budget: {exc}") from None
    if settings.nested:
        raise ConfigError("budget.nested: applies to one document, not to the router's many")
    return RouterConfig(1, MappingProxyType(dict(variables)), default_access, MappingProxyType(sources),
                        tuple(routes), tuple(rules), tuple(deny_paths), cache, MappingProxyType(dict(budget)),
                        settings, base_dir, redact)
