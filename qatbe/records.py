"""``Segment`` records on the hot paths: the compiled constructors of ``qatbe/_segment.pyx`` when built, else
their pure-Python twin (same records, tests/test_records.py).

``new_segment`` is ``Segment(...)`` with all 15 fields positional; ``with_outcome`` is
``dataclasses.replace(seg, tokens=..., score=..., matched=...)``, and ``outcomes`` is that for many slots at
once. The segment builder makes one record per unit of every document and ``extract`` one per chosen or pending
segment; the dataclass's own ``__init__`` costs about 2.1 us a record, the compiled constructor about 0.35 us.
``COMPILED`` says whether the compiled one is in use (chosen by ``qatbe._backend``).
"""

from __future__ import annotations

from ._backend import COMPILED as _COMPILED_NAME
from ._backend import records

_impl, _name = records()
COMPILED = _name == _COMPILED_NAME
new_segment = _impl.new_segment
outcomes = _impl.outcomes
with_outcome = _impl.with_outcome

__all__ = ["COMPILED", "new_segment", "outcomes", "with_outcome"]
