"""Hypothesis play-outs with the random legal bots: one outcome; the dead never act; nothing
secret published before the end (CAS-013, CAS-301, CAS-316, CAS-382, CAS-D28)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.events import ActionSet, GameEnded, Notice, VoteSet
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.support.examples import examples


def _pairs(value: Any) -> Iterator[tuple[str, str]]:
    """Every (name, role) a notice's parameters mention."""
    if isinstance(value, dict):
        if "name" in value and "role" in value:
            yield str(value["name"]), str(value["role"])
        for v in value.values():
            yield from _pairs(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _pairs(v)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "lovers_if_missing": st.sampled_from(["none", "random"]),
        "lovers_told_partner_role": st.booleans(),
        "mixed_lovers_victory": st.sampled_from(["survive_to_end", "last_two"]),
        "council_submission": st.sampled_from(["last", "first"]),
        "prue_revenge_triggers": st.sampled_from(["demons,lynch", "any"]),
        "penny_public": st.booleans(),
        "tie_order": st.sampled_from(
            ["penny,last_lynched,random", "last_lynched,random", "random"]
        ),
        "everyone_dead": st.sampled_from(["good", "draw"]),
        "attribute_piper_kill": st.booleans(),
        "early_close": st.booleans(),
    },
)


@settings(max_examples=examples(12, soak=40), deadline=None)
@given(seed=st.integers(0, 10**6), lang=st.sampled_from(["fr", "en"]), options=OPTIONS)
def test_random_legal_play_ends_once_and_keeps_secrets(
    seed: int, lang: str, options: dict[str, object]
) -> None:
    setup = demo_setup("chasse-aux-sorcieres", 0, seed, lang)
    setup["options"] = options
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    sent = list(step.outgoing) + play(table, random.Random(seed))
    rules = table.rules
    # Exactly one outcome, and nothing after it.
    ended = [i for i, e in enumerate(table.events) if isinstance(e, GameEnded)]
    assert len(ended) == 1 and rules.outcome(table.state) is not None
    assert all(not isinstance(e, ActionSet | VoteSet) for e in table.events[ended[0] :])
    assert rules.deadlines(table.state) == {}
    state = rules.new_state()
    for event in table.events[: ended[0]]:
        # CAS-005, CAS-606, CAS-D28: the dead never act.
        if isinstance(event, ActionSet | VoteSet):
            actor = event.actor if isinstance(event, ActionSet) else event.voter
            assert state.alive(actor)
        # CAS-013, CAS-301, CAS-316, CAS-382: a public notice names only dead players' cards.
        if isinstance(event, Notice) and event.public and event.template != "chasse/victory":
            for name, _role in _pairs(dict(event.params)):
                if name in state.seats:
                    assert not state.alive(name), (event.template, name)
        state = rules.evolve(state, event)
    # The same on the rendered mails: "X, who was"/"X, qui était" only for the dead at the end.
    public = [m for m in sent if m.public and "victory" not in m.key]
    final = table.summary()
    for p in final["players"]:
        if p["alive"]:
            for m in public:
                assert (
                    f"{p['name']}, who was" not in m.body
                    and f"{p['name']}, qui était" not in m.body
                )


@settings(max_examples=examples(4, soak=10), deadline=None)
@given(seed=st.integers(0, 10**6))
def test_replay_from_the_log_gives_the_same_state(seed: int) -> None:
    """The event log is the source of truth: reloading never calls the RNG (DESIGN.md)."""
    table, step = Table.new(demo_setup("chasse-aux-sorcieres", 0, seed, "fr"), EPOCH)
    table.apply(step)
    play(table, random.Random(seed))
    encoded = [table.rules.codec.encode(e) for e in table.events]
    again = Table.load(demo_setup("chasse-aux-sorcieres", 0, seed, "fr"), encoded)
    assert again.summary() == table.summary()
