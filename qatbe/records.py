"""``Segment`` records on the hot paths: the compiled constructors of ``qatbe/_segment.pyx`` when built, else
their pure-Python twin (same records, tests/test_records.py).

``new_segment`` is ``Segment(...)`` with all 15 fields positional; ``with_outcome`` is
``dataclasses.replace(seg, tokens=..., score=..., matched=...)``, and ``outcomes`` is that for many slots at
once. The segment builder makes one record per unit of every document and ``extract`` one per chosen or pending
segment; the dataclass's own ``__init__`` costs about 2.1 us a record, the compiled constructor about 0.35 us.
``COMPILED`` says which one is in use.
"""

from __future__ import annotations

try:
    from ._segment import new_segment, outcomes, with_outcome

    COMPILED = True
except ImportError:  # not built, or Segment changed in a way the compiled constructor cannot follow
    from ._segment_py import new_segment, outcomes, with_outcome

    COMPILED = False

__all__ = ["COMPILED", "new_segment", "outcomes", "with_outcome"]
