"""Bad input gets a typed error or a sane result: never a crash, a hang or a silent wrong answer."""

from __future__ import annotations

import pytest

import qatbe
from qatbe import ConfigError, InputError, QatbeError

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8


@pytest.mark.parametrize("source", ["", b"", "   \n\n  ", "<html></html>", "<p></p>"])
def test_empty_input_gives_an_empty_result(source: str | bytes) -> None:
    r = qatbe.extract(source, "anything")
    assert r.text == "" and r.total_tokens == 0 and r.segments == ()


def test_binary_input_is_refused_with_a_clear_error() -> None:
    with pytest.raises(InputError, match="binary"):
        qatbe.extract(PNG, "query")
    with pytest.raises(ValueError):
        qatbe.extract(PNG.decode("latin-1"), "query")


def test_nul_bytes_are_dropped() -> None:
    r = qatbe.extract("Fee is\x00 92 crowns.\n\nOther\x00 text.", "fee")
    assert "\x00" not in r.text and "92 crowns" in r.text


def test_broken_html_still_yields_its_text() -> None:
    html = "<html><body><div><p>Renewal fee is 92 crowns<table><tr><td>cell one<td>cell two</div><p>tail text"
    r = qatbe.extract(html, "renewal fee", budget=1000)
    assert "92 crowns" in r.text and "cell one" in r.text


def test_deeply_nested_html_does_not_hit_the_recursion_limit() -> None:
    depth = 200_000
    html = "<div>" * depth + "<p>deep answer 42</p>" + "</div>" * depth
    r = qatbe.extract(html, "deep answer", budget=100)
    assert "deep answer 42" in r.text


def test_ten_megabyte_paragraph() -> None:
    big = ("lorem ipsum dolor sit amet " * 400_000)[:10_000_000] + " the passport fee is 92 crowns."
    r = qatbe.extract(big, "passport fee", budget=200)
    assert r.total_tokens <= 200 and "92 crowns" in r.text


def test_ten_megabyte_word_without_spaces() -> None:
    r = qatbe.extract("x" * 10_000_000, "x", budget=50)
    assert r.total_tokens <= 50


@pytest.mark.parametrize("value", ["a" * 1_100_000, "nav " + "b" * 1_100_000, "x y " * 300_000])
def test_an_enormous_class_attribute_is_read_safely(value: str) -> None:
    # Longer than the walk's 1 MB table of class names seen (whole, one name, or a value of many names): it is
    # judged and not kept, and the page after it is read as usual.
    page = f'<main><div class="{value}"><p>Inside the huge class.</p></div><p>After it.</p></main>'
    texts = [s.text for s in qatbe.segment(page)]
    assert texts[-1] == "After it."
    assert qatbe.segment(page) == qatbe.segment(page)


def test_undecodable_bytes_do_not_crash() -> None:
    data = "Gebühr für den Reisepass: 92 Kronen. ".encode() + b"\xff\xfe\xfa broken \xc3 tail."
    r = qatbe.extract(data, "Reisepass", budget=200)
    assert "Reisepass" in r.text


@pytest.mark.parametrize("bad", [-1, -1000, 1.5, "100", True])
def test_bad_budgets(bad: object) -> None:
    with pytest.raises(ConfigError) as info:
        qatbe.extract("text", "q", budget=bad)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and "budget" in str(info.value)


def test_zero_budget_is_an_empty_result() -> None:
    r = qatbe.extract("# Title\n\nSome text.", "text", budget=0)
    assert r.text == "" and r.total_tokens == 0 and r.dropped_count == 2


def test_unknown_tier() -> None:
    with pytest.raises(ConfigError, match="unknown tier 'bogus'"):
        qatbe.extract("text", "q", tier="bogus")


def test_unknown_option() -> None:
    with pytest.raises(ConfigError, match="unknown option 'bugdet'"):
        qatbe.extract("text", "q", bugdet=5)


@pytest.mark.parametrize("source", [None, 42, ["a"], {"a": 1}])
def test_wrong_source_type(source: object) -> None:
    with pytest.raises(InputError, match="source must be str or bytes"):
        qatbe.extract(source, "q")  # type: ignore[arg-type]


def test_wrong_query_type() -> None:
    with pytest.raises(InputError, match="query must be"):
        qatbe.extract("text", 42)


def test_bad_estimator() -> None:
    with pytest.raises(ConfigError):
        qatbe.extract("text", "q", estimator="tokens_by_magic")
    with pytest.raises(ConfigError, match="non-negative int"):
        qatbe.extract("some text", "q", estimator=lambda s: -1)


def test_bad_format_and_weights() -> None:
    with pytest.raises(ConfigError):
        qatbe.extract("text", "q", format="pdf")
    with pytest.raises(ConfigError, match="unknown segment kind"):
        qatbe.extract("text", "q", weights={"video": 1.0})
    with pytest.raises(ConfigError):
        qatbe.extract("text", "q", weights={"code": -1})


def test_every_error_is_a_qatbe_error() -> None:
    for call in (lambda: qatbe.extract(PNG, "q"), lambda: qatbe.extract("t", "q", budget=-1),
                 lambda: qatbe.extract(3, "q")):  # type: ignore[arg-type]
        with pytest.raises(QatbeError):
            call()


def test_input_over_the_size_limit() -> None:
    with pytest.raises(InputError, match="max_input_chars"):
        qatbe.extract("a" * 101, "q", max_input_chars=100)
