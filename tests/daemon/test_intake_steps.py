"""The inbound policy is a table of steps (issue 11): its order is one tuple, each step has a
name, a description and one check."""

from __future__ import annotations

from pbem.daemon.intake.inbound import Step
from pbem.daemon.intake.steps import CHAIN


def test_the_inbound_policy_order_is_the_chain_tuple() -> None:
    # automatic mail and bounces before anything is routed; authentication before any step that
    # trusts the sender; the rules last (RELIABILITY §3.4: one atomic write per mail)
    assert [step.name for step in CHAIN] == [
        "automatic-replies",
        "bounces",
        "routing",
        "authentication",
        "copies",
        "replay",
        "relay",
        "confirmation",
        "apply",
    ]


def test_each_step_is_named_and_described_once() -> None:
    assert all(isinstance(step, Step) and step.description for step in CHAIN)
    assert len({step.name for step in CHAIN}) == len(CHAIN)
