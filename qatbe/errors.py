"""The exception tree.

Everything qatbe raises on purpose is a ``QatbeError``. Errors about what the caller passed also subclass
``ValueError`` so that code written against the standard library's conventions keeps working.
"""

from __future__ import annotations


class QatbeError(Exception):
    """Base class of every error qatbe raises on purpose."""


class InputError(QatbeError, ValueError):
    """The document or the query cannot be used (wrong type, unreadable bytes, ...)."""


class ConfigError(QatbeError, ValueError):
    """An option is out of range or unknown (negative budget, unknown tier, ...)."""


class DataError(QatbeError, ValueError):
    """A dataset file given to the benchmark loaders is malformed; the message names the file and line."""


class FetchError(QatbeError):
    """A URL could not be fetched: refused address, timeout, too large, unsupported content type, HTTP error."""


class FetchTimeoutError(FetchError):
    """A fetch did not complete within its total ``timeout`` (connects, redirects and reads together)."""


class BlockedAddressError(FetchError):
    """A URL's host resolves to an address the SSRF guard refuses (loopback, private, link-local, reserved)."""


class MissingExtraError(QatbeError, ImportError):
    """An optional part of qatbe was used without the extra that installs what it needs; the message names it."""
