"""The Query record (seed 002) is accepted wherever a query string is."""

from __future__ import annotations

import json

import pytest

import qatbe
from qatbe import InputError, Query
from qatbe.query import query_text

PAGE = "# Fees\n\nThe renewal fee is 75 crowns.\n\n# History\n\nThe office opened in 1901."


def test_defaults_and_immutability() -> None:
    q = Query("renewal fee")
    assert (q.agent, q.tags, dict(q.metadata)) == ("default", (), {})
    meta = {"department": "travel"}
    q2 = Query("x", agent="hr", tags=["a", "b"], metadata=meta)
    meta["department"] = "changed"
    assert q2.tags == ("a", "b") and q2.metadata["department"] == "travel"
    with pytest.raises(TypeError):
        q2.metadata["department"] = "y"  # type: ignore[index]
    assert q2.to_dict() == {"text": "x", "agent": "hr", "tags": ["a", "b"], "metadata": {"department": "travel"}}
    assert str(q2) == "x"


@pytest.mark.parametrize("kwargs", [{"text": 3}, {"text": "x", "agent": None}, {"text": "x", "tags": [1]},
                                    {"text": "x", "metadata": [("a", 1)]}, {"text": "x", "tags": 5}])
def test_bad_fields_are_input_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(InputError):
        Query(**kwargs)  # type: ignore[arg-type]


def test_accepted_by_extract_and_extract_many() -> None:
    q = Query("renewal fee", agent="bot", tags=("t",))
    r = qatbe.extract(PAGE, q, budget=20)
    assert r.query is q and r.text == qatbe.extract(PAGE, "renewal fee", budget=20).text
    assert "75 crowns" in r.text
    m = qatbe.extract_many([PAGE], q, budget=200)
    assert m.query is q and "75 crowns" in m.text


def test_results_keep_the_full_query() -> None:
    q = Query("renewal fee", agent="hr-assistant", tags=["onboarding"], metadata={"department": "travel"})
    context = {"agent": "hr-assistant", "tags": ["onboarding"], "metadata": {"department": "travel"}}
    for result in (qatbe.extract(PAGE, q, budget=50), qatbe.extract_many([PAGE], q, budget=200),
                   qatbe.Extractor(budget=50).extract(PAGE, q)):
        assert result.query is q and result.query.agent == "hr-assistant"  # type: ignore[union-attr]
        d = result.to_dict()
        assert d["query"] == "renewal fee" and d["query_context"] == context
        json.dumps(d)


def test_a_string_query_stays_a_string() -> None:
    for result in (qatbe.extract(PAGE, "renewal fee", budget=50), qatbe.extract_many([PAGE], "renewal fee")):
        assert result.query == "renewal fee" and isinstance(result.query, str)
        d = result.to_dict()
        assert d["query"] == "renewal fee" and "query_context" not in d
    assert qatbe.extract(PAGE, None).to_dict()["query"] is None


def test_query_text_helper() -> None:
    assert query_text(None) is None and query_text("a") == "a" and query_text(Query("b")) == "b"
    with pytest.raises(InputError):
        query_text(42)
