"""No option is accepted and then ignored: each one works, or is refused with a ConfigError that says why."""

from __future__ import annotations

import pytest

import qatbe
from qatbe import ConfigError, Settings

PAGE = "\n\n".join(f"Paragraph {k} says the ferry number {k} leaves the harbour at {k} o'clock sharp." for k in range(40))


def test_partial_note_on_extract_says_what_was_left_out() -> None:
    r = qatbe.extract(PAGE, "ferry 7 harbour", budget=120, partial_note=True, format="text")
    first, _, rest = r.text.partition("\n\n")
    assert first.startswith("Note: this context is partial;") and f"of {r.dropped_count + len(r.segments)}" in first
    assert f"{r.dropped_count} of" in first
    assert r.total_tokens <= 120 and rest
    plain = qatbe.extract(PAGE, "ferry 7 harbour", budget=120, format="text")
    assert not plain.text.startswith("Note:")


def test_partial_note_is_absent_when_everything_fits() -> None:
    r = qatbe.extract("One short paragraph about ferries.", "ferry", budget=1000, partial_note=True)
    assert r.text == "One short paragraph about ferries."


@pytest.mark.parametrize("budget", [40, 60, 90, 200, 400])
def test_partial_note_keeps_the_budget(budget: int) -> None:
    for est in ("chars_div4", "words"):
        r = qatbe.extract(PAGE, "ferry harbour", budget=budget, partial_note=True, estimator=est)
        assert r.total_tokens <= budget


@pytest.mark.parametrize("option", [{"ranking": "recency"}, {"citations": False}, {"citation_buffer": 10},
                                    {"max_document_tokens": 50}, {"dedupe": False}])
def test_extract_refuses_options_of_extract_many(option: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="applies to extract_many"):
        qatbe.extract(PAGE, "ferry", **option)  # type: ignore[arg-type]
    qatbe.extract_many([PAGE], "ferry", **option)  # type: ignore[arg-type]  # where it does something


@pytest.mark.parametrize(("budget", "reserve"), [(100, 100), (100, 150), (1, 1)])
def test_a_reserve_that_takes_the_whole_budget_is_refused(budget: int, reserve: int) -> None:
    with pytest.raises(ConfigError, match="reserve_tokens"):
        qatbe.extract(PAGE, "ferry", budget=budget, reserve_tokens=reserve)
    with pytest.raises(ConfigError, match="reserve_tokens"):
        Settings(tier="key_facts", reserve_tokens=200)
    assert qatbe.extract(PAGE, "ferry", budget=budget + reserve + 50, reserve_tokens=reserve).text


def test_unknown_language_is_refused_with_the_way_to_list_codes() -> None:
    with pytest.raises(ConfigError, match=r"'klingon' is not supported; qatbe.supported_languages\(\)"):
        qatbe.extract(PAGE, "ferry", language="klingon")
    with pytest.raises(ConfigError, match="not supported"):
        Settings(language="xx")
    codes = qatbe.supported_languages()
    assert codes["en"] == "english" and codes["de"] == "german" and codes["zh"] is None
    for code in ("en", "en-GB", "PT_br", "no", "nn", "zh", "ja"):
        assert Settings(language=code).language == code


def test_a_language_without_a_stemmer_says_so() -> None:
    assert qatbe.supported_languages()["uk"] is None
    with pytest.warns(UserWarning, match="no stemmer"):
        Settings(language="uk")


def test_a_page_may_declare_any_language() -> None:
    page = '<html lang="tlh"><body><p>The ferry leaves the harbour at nine.</p></body></html>'
    assert "ferry" in qatbe.extract(page, "ferry").text


def test_extract_many_budget_under_the_citation_buffer_is_refused() -> None:
    with pytest.raises(ConfigError, match="citation_buffer=64"):
        qatbe.extract_many([PAGE], "ferry", budget=60)
    with pytest.raises(ConfigError, match="citation_buffer=20"):
        qatbe.extract_many([PAGE], "ferry", budget=100, reserve_tokens=80, citation_buffer=20)
    assert qatbe.extract_many([PAGE], "ferry", budget=60, citation_buffer=0).text
    assert qatbe.extract_many([PAGE], "ferry", budget=60, citations=False).text
