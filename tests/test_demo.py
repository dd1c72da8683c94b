"""``qatbe extract --demo`` answers its own question at every tier (issue 44)."""

from __future__ import annotations

import re

import pytest

from qatbe.cli import DEMO_QUERY, main

STEPS = ("Get a digital photo", "Sign in or create a Citizen Services account", "Answer the questions about yourself",
         "Pay the fee by credit or debit card", "Post your old passport to the address")


def _demo(tier: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["extract", "--demo", "--tier", tier]) == 0
    return capsys.readouterr().out


def test_the_demo_question_asks_how_to_renew_and_what_it_costs() -> None:
    assert DEMO_QUERY == "how do I renew my passport and what does it cost?"


@pytest.mark.parametrize("tier", ["key_facts", "summary", "detailed"])
def test_the_demo_keeps_the_cost_and_how_to_renew(tier: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every tier keeps the fee and the ways to renew (the overview says both in two sentences)."""
    out = _demo(tier, capsys)
    assert "It costs 92.50 crowns to renew online" in out
    assert "You can renew your adult passport online, by post, or at a passport counter" in out


@pytest.mark.parametrize("tier", ["summary", "detailed"])
def test_the_demo_keeps_the_steps_under_how_to_renew(tier: str, capsys: pytest.CaptureFixture[str]) -> None:
    """With room for it, the step list under "How to renew online" is kept whole, right under its heading: it
    is how one renews, though it names neither "renew" nor the cost."""
    out = _demo(tier, capsys)
    assert all(step in out for step in STEPS)
    heading = out.index("## How to renew online")
    assert heading < out.index(STEPS[0]) < out.index(STEPS[-1])
    assert out[heading:].split("\n\n", 2)[1].startswith("1. Get a digital photo")


def _blocks(out: str) -> list[str]:
    return [b for b in out.strip().split("\n\n") if b.strip()]


@pytest.mark.parametrize("tier", ["key_facts", "summary", "detailed"])
def test_a_kept_lead_in_is_followed_by_what_it_leads_into(tier: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No kept text ending with ":" ("You can renew online if all of the following apply:") is the last thing
    before a heading or the end: a lead-in is kept with what it leads into, or not at all."""
    blocks = _blocks(_demo(tier, capsys))
    for k, text in enumerate(blocks):
        if text.rstrip().endswith(":"):
            assert k + 1 < len(blocks), f"{tier}: the output ends with the lead-in {text!r}"
            assert not blocks[k + 1].startswith("#"), f"{tier}: the lead-in {text!r} is followed by a heading"


@pytest.mark.parametrize("tier", ["key_facts", "summary", "detailed"])
def test_the_steps_under_how_to_renew_start_at_step_one(tier: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The step list under "How to renew online", when kept at all, starts at step 1: a later part of the split
    list ("5. Post your old passport ...") comes only with the first part."""
    out = _demo(tier, capsys)
    if "## How to renew online" not in out:
        return
    section = out.split("## How to renew online", 1)[1].split("\n#", 1)[0]
    steps = [line for line in section.splitlines() if re.match(r"\d+\. ", line)]
    if steps:
        assert steps[0].startswith("1. Get a digital photo"), steps
