"""A code query keeps the lines that define what it names (issue 44: the neighbour bonus must not push the
matching chunk out)."""

from __future__ import annotations

import pytest

import qatbe


def _rockets(fence: bool) -> str:
    code = "\n".join(f"def rocket_{i}(x):\n    return x * {i}" for i in range(1, 41))
    return f"```python\n{code}\n```\n" if fence else code


@pytest.mark.parametrize("fence", [True, False], ids=["fenced", "plain"])
def test_a_code_query_keeps_the_definition_it_names(fence: bool) -> None:
    """40 definitions, no blank line: the block is split into parts, and the part holding "def rocket_33(x):"
    ends with that line. The next part ("return x * 33 ...") is a later part of the same unit; it must not
    inherit the defining part's score as a lead-in and outrank it."""
    r = qatbe.extract(_rockets(fence), "rocket_33", budget=60)
    assert "def rocket_33(x):" in r.text
    assert r.total_tokens <= 60
