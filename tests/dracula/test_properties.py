"""Hypothesis play-outs of whole games by the random bots (DRA-003, DRA-026, scoring)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.events import Event, GameEnded, Notice, PhaseStarted
from pbem.games.dracula.events import RoundScored, RoundStarted
from pbem.games.dracula.state import DraculaState
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.support.examples import examples

# Private templates that may tell a vampire something about another player's side: the
# mechanisms DRA-003 lists (DRA-116, DRA-141, DRA-143, DRA-292, DRA-322/325, AMB-060) and the
# round-start own-role notice.
SIDE_REVEALING = {
    "dracula/bit_vampire",
    "dracula/bitten_too",
    "dracula/converted",
    "dracula/candle_report",
    "dracula/stake_scene",
    "dracula/bite_succeeded",
    "dracula/crucifix_biter",
    "dracula/role",
}
# Public templates allowed to name a vampire before the round ends: garlic (DRA-283),
# stake deaths (DRA-184), the final phase (DRA-461), the end of the round (AMB-069).
PUBLIC_REVEALING = {
    "dracula/morning",
    "dracula/final_start",
    "dracula/flame_prompt",  # a fighter's prompt repeats final_start's public sides (DRA-461)
    "dracula/final_result",
    "dracula/round_end",
    "dracula/game_end",
}


def play_game(seed: int, rounds: int, options: dict[str, Any] | None = None) -> Table:
    setup = demo_setup("dracula", 13, seed, "fr")
    setup["options"] = {"rounds": rounds, **(options or {})}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    play(table, random.Random(seed), max_phases=2000)
    return table


def expected_points(before: DraculaState, ending: str) -> dict[str, int]:
    """The scoring table of section 20, recomputed independently."""
    s = before
    dracula = s.dracula()
    out = {p: 0 for p in s.order}
    if ending == "all_bitten":  # DRA-441, DRA-442, DRA-443, DRA-444
        for p in s.order:
            if s.seat(p).alive:
                out[p] = len(s.seat(p).credits)
        return out
    fled = [p for p, c in s.choices.items() if c.choice == "flee"]
    fighters = [p for p, c in s.choices.items() if c.choice == "fight"]
    for p in fled:
        out[p] = 1
    if ending == "burned":
        killers = [f for f in fighters if (o := s.order_of(f, "flame")) and dracula in o.targets]
        for f in fighters:
            out[f] = 5 if len(killers) == 1 and f in killers else 2
        return out
    for p in s.order:
        seat = s.seat(p)
        if not seat.human and seat.alive:
            out[p] = max(1, len(seat.credits))
    return out


def check_log(table: Table) -> None:
    rules = table.rules
    state: Any = rules.new_state()
    ended = 0
    vampires_now: set[str] = set()
    events: list[Event] = table.events
    for event in events:
        if isinstance(event, RoundScored):
            assert dict(event.points) == expected_points(state, event.ending), event
            assert sum(event.points.values()) >= 0
        if isinstance(event, GameEnded):
            ended += 1
        if isinstance(event, Notice):
            if not event.public and event.template not in SIDE_REVEALING:
                # DRA-003: nothing else ever tells a vampire another player's side
                text = repr(dict(event.params))
                for v in vampires_now:
                    for p in event.to:
                        if p != v and p in vampires_now:
                            assert f"'{v}': 'vampire'" not in text and "dracula'" not in text
            if event.template not in SIDE_REVEALING | PUBLIC_REVEALING:
                # no other notice carries anybody's side
                assert not {"side", "role", "vampires", "humans", "dracula"} & set(event.params)
            if event.public and event.template not in PUBLIC_REVEALING:
                assert "dracula" not in {str(k) for k in event.params}
        previous = state
        state = rules.evolve(state, event)
        if isinstance(event, RoundStarted):
            vampires_now = {event.dracula}
        elif previous.seats:
            for p in state.order:
                was = previous.seats.get(p)
                now = state.seats[p]
                if was is not None and not isinstance(event, RoundStarted):
                    assert not (was.side == "vampire" and now.side == "human")  # DRA-026
                if not now.human:
                    vampires_now.add(p)
        if isinstance(event, PhaseStarted) and state.seats:
            assert sum(1 for p in state.order if state.seat(p).dracula) == 1  # DRA-007
            assert len(state.designated) <= 3  # DRA-016
            for p in state.order:  # DRA-256: vampires hold no normal object
                if not state.seat(p).human:
                    assert not set(state.seat(p).hand) - {
                        "manual",
                        "grimoire",
                        "paintkit",
                        "phonograph",
                    }
    assert ended == 1  # exactly one outcome


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "early_close": st.booleans(),
        "fill_empty_seats": st.sampled_from(["random", "none"]),
        "final_default": st.sampled_from(["flee", "fight"]),
        "missed_bite": st.sampled_from(["random", "none"]),
        "curse_enforcement": st.sampled_from(["bounce", "flag"]),
        # section 22's alternatives (AMB-007, AMB-015, AMB-041, AMB-043, AMB-046, AMB-049)
        "private_orders_final": st.booleans(),
        "publish_tally": st.booleans(),
        "running_tally": st.booleans(),
        "room_objects_in_sanctuary": st.booleans(),
        "garlic_vampires_see_occupants": st.booleans(),
        "candle_shows_magnifier": st.booleans(),
        "staked_orders_apply": st.booleans(),
    },
).filter(  # AMB-007: setup refuses changeable orders with an early close
    lambda o: not (o.get("early_close") and o.get("private_orders_final") is False)
)


@settings(max_examples=examples(4, soak=12), deadline=None)
@given(seed=st.integers(0, 10**6), options=OPTIONS)
def test_bots_play_whole_rounds(seed: int, options: dict[str, Any]) -> None:
    """DRA-003, DRA-026, DRA-256, scores as section 20 says, exactly one outcome."""
    table = play_game(seed, rounds=2, options=options)
    assert table.finished
    summary = table.summary()
    assert summary["round"] == 2 and summary["status"] == "finished"
    assert sum(summary["scores"].values()) >= 0
    check_log(table)


def smart_game(seed: int, options: dict[str, Any]) -> Table:
    from tests.dracula.smartbots import smart_mails

    setup = demo_setup("dracula", 13, seed, "fr")
    setup["options"] = {"rounds": 2, **options}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    rng = random.Random(seed)
    now = EPOCH
    for _ in range(2000):
        if table.finished or not table.deadlines():
            break
        for msg, channel in list(smart_mails(table, rng)):
            table.apply(table.receive(msg, channel=channel, now=now))  # type: ignore[arg-type]
            if table.finished:
                break
        if table.finished or not table.deadlines():
            break
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        table.apply(table.on_deadline(key, now))
    return table


@pytest.mark.slow(5)
@settings(max_examples=examples(5, soak=15), deadline=None)
@given(seed=st.integers(0, 10**6), options=OPTIONS)
def test_informed_bots_play_whole_games(seed: int, options: dict[str, Any]) -> None:
    """DRA-003, DRA-016, DRA-026, DRA-256, section 20: bots that use their objects, bite
    those present, stake, dance, curse and burn; every invariant holds, one outcome."""
    table = smart_game(seed, options)
    assert table.finished
    check_log(table)
    state: Any = table.rules.new_state()
    for event in table.events:
        state = table.rules.evolve(state, event)
        if isinstance(event, PhaseStarted) and event.phase == "bites":
            assert len(state.present("sanctuary")) <= 4  # DRA-016
            assert sum(1 for p in state.living() if state.order_of(p, "key")) <= 1
            assert all(len([*v]) == len(set(v)) for v in [state.designated])
