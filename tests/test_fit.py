"""fit_budget: the context that fits a model's window beside the prompt and the answer (seed 004)."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

import qatbe
from qatbe import ConfigError, ContextWindowWarning
from qatbe.fit import context_window, context_windows


def test_known_model_leaves_window_minus_prompt_output_and_margin() -> None:
    window = context_windows()["gpt-4o"]
    got = qatbe.fit_budget(model="gpt-4o", prompt_tokens=1000, max_output_tokens=2000)
    assert got == window - 1000 - 2000 - 100


def test_output_never_gets_less_than_its_floor() -> None:
    window = context_windows()["gpt-4"]
    assert qatbe.fit_budget(model="gpt-4", prompt_tokens=100, max_output_tokens=10) == window - 100 - 500 - 100
    assert qatbe.fit_budget(model="gpt-4", prompt_tokens=100, max_output_tokens=10, min_output_tokens=0,
                            safety_margin=0) == window - 110


def test_dated_snapshots_and_provider_prefixes_resolve_to_the_longest_known_name() -> None:
    table = context_windows()
    assert context_window("gpt-4o-2024-08-06") == table["gpt-4o"]
    assert context_window("gpt-4-0613") == table["gpt-4"]
    assert context_window("openai/GPT-4o-mini") == table["gpt-4o-mini"]
    assert context_window("claude-3-5-sonnet-20241022") == table["claude-3-5-sonnet"]
    assert context_window("gpt-4oz") is None


def test_unknown_model_gets_the_conservative_default_with_a_warning() -> None:
    with pytest.warns(ContextWindowWarning, match="unknown model"):
        got = qatbe.fit_budget(model="my-local-model", prompt_tokens=0, max_output_tokens=0)
    assert got == 8192 - 500 - 100
    with pytest.warns(ContextWindowWarning):
        assert qatbe.fit_budget(model="x", default_window=4000, min_output_tokens=0, safety_margin=0) == 4000


def test_table_is_data_and_overridable() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert qatbe.fit_budget(model="mine", windows={"mine": 3000}, min_output_tokens=0, safety_margin=0) == 3000
    from importlib import resources
    raw = json.loads(resources.files("qatbe.data").joinpath("context_windows.json").read_text("utf-8"))
    assert raw["default"] == 8192 and dict(raw["models"]) == dict(context_windows())


def test_no_room_returns_zero_with_a_warning() -> None:
    with pytest.warns(ContextWindowWarning, match="no room"):
        assert qatbe.fit_budget(model="gpt-4", prompt_tokens=9000) == 0


@pytest.mark.parametrize("kwargs", [{"model": ""}, {"model": 3}, {"model": "gpt-4", "prompt_tokens": -1},
                                    {"model": "gpt-4", "safety_margin": 1.5},
                                    {"model": "gpt-4", "windows": {"gpt-4": -3}}])
def test_bad_arguments_are_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        qatbe.fit_budget(**kwargs)  # type: ignore[arg-type]


@given(st.integers(0, 300_000), st.integers(0, 50_000), st.integers(0, 1000), st.integers(0, 5000))
def test_fitted_budget_plus_everything_else_fits_the_window(prompt: int, output: int, margin: int,
                                                          floor: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWindowWarning)
        got = qatbe.fit_budget(model="claude-3-opus", prompt_tokens=prompt, max_output_tokens=output,
                               safety_margin=margin, min_output_tokens=floor)
    window = context_windows()["claude-3-opus"]
    assert got >= 0
    assert got == 0 or got + prompt + max(output, floor) + margin == window
