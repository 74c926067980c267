"""The fast path's shortcuts in Lupus's rules (issue 23) answer as the full readings they skip:
a living voter's checks on the list (LUP-607, LUP-617..LUP-620, LUP-408, LUP-D18, LUP-D22), a
PASS's fold (LUP-603), a ghost's ballot (LUP-D22), the night's verbs (LUP-380), a night without the Owl's pick (LUP-D11), a bold vote (LUP-617)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.commands import Command
from pbem.core.events import ActionSet, Notice, PhaseStarted, private, public
from pbem.core.ids import PlayerId
from pbem.core.moments import iso
from pbem.games.lupus import day
from pbem.games.lupus.nightfall import _prompt, prompted
from pbem.games.lupus.roles import SEER, WOLF
from pbem.games.lupus.rules import _night_verbs, _probes
from pbem.games.lupus.state import LupusState, NightResolved, evolve, phase_started
from pbem.games.village.state import record_action
from pbem.tools.bots import BotMove
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH

A, B, C = PlayerId("Ana"), PlayerId("Bea"), PlayerId("Cid")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ghost_variant": True, "vote_changes_allowed": False, "self_vote_allowed": False},
    ],
)
def test_the_quick_readings_answer_as_the_full_ones_after_every_move(
    options: dict[str, Any],
) -> None:
    """After every move of two games, for every player, name, verb and channel."""
    checked, ghosts_offered, refused = 0, 0, set()
    nights: set[tuple[str, int]] = set()

    def check(state: LupusState) -> None:
        nonlocal checked, ghosts_offered
        names = list(state.order)
        commands = [Command("unvote"), *(Command("vote", (n,)) for n in names)]
        for actor in names:
            seat = state.seats[actor]
            if state.phase == "night" and seat.alive:  # LUP-380, LUP-614: kept per night
                seers = seat.role == SEER and len(state.holders(SEER)) > 1
                pack = seat.role == WOLF and len(state.holders(WOLF)) > 1  # LUP-613
                probes = _probes(state, actor) if seat.role == SEER else "open"  # LUP-D04
                # LUP-603: CANCEL while an order of his stands (LUP-D04: not a final probe)
                standing = probes != "mine" and any(who == actor for who, _ in state.actions)
                fresh = _night_verbs(seat.role, state.number, seers, pack, probes, standing)
                assert game.rules.available_verbs(state, actor) == fresh
                nights.add((seat.role, state.number))
            if state.phase == "round1":  # LUP-D22: the living and the ghosts vote in round 1
                offered = "vote" in (game.rules.available_verbs(state, actor) or ())
                voter = state.seats[actor].alive or actor in state.ghosts()
                final = actor in state.votes and not state.options.vote_changes_allowed
                assert offered == (voter and not final)  # LUP-D18: a final vote
                ghosts_offered += offered and not state.seats[actor].alive
            for command in commands:
                for channel in ("list", "private"):
                    expected = day.refused_in_order(state, actor, command, channel)
                    assert day.vote_refused(state, actor, command, channel) == expected
                    refused.add(expected)
                    checked += 1

    game: RulesGame
    for seed in range(2):
        game = RulesGame.new({**demo_setup("lupus-in-tabula", 9, seed, "fr"), "options": options})
        move = game.move

        def checked_move(bot: BotMove, now: datetime, move: Any = move, game: Any = game) -> None:
            move(bot, now)
            check(game.state)

        game.move = checked_move  # type: ignore[method-assign,assignment]
        assert play_rules(game, random.Random(seed)).finished
    assert checked > 10_000
    assert {(WOLF, 1), (WOLF, 2), (SEER, 2)} <= nights and len(nights) > 10
    assert {None, "target_not_living", "not_a_nominee", "nominee_no_vote"} <= refused
    assert {"vote_on_list", "no_vote_to_withdraw", "no_vote_now"} <= refused
    if options:
        assert {"vote_final", "not_yourself", "ghost_vote_private", "ghost_round2"} <= refused
        assert ghosts_offered
    else:
        assert "dead" in refused and not ghosts_offered


def test_a_pass_withdraws_its_actors_actions_only_and_keeps_the_others_order() -> None:
    """LUP-603: PASS records "no action", replacing every action of its actor."""
    actions = {
        (A, "kill"): (1, ActionSet(A, "kill", (C,))),
        (B, "protect"): (2, ActionSet(B, "protect", (C,))),
        (A, "scan"): (3, ActionSet(A, "scan", (B,))),
        (C, "nominate"): (4, ActionSet(C, "nominate", (A,))),
    }
    passed = ActionSet(A, "pass")
    after = record_action(actions, 5, passed)
    assert list(after.items()) == [
        ((B, "protect"), (2, actions[B, "protect"][1])),
        ((C, "nominate"), (4, actions[C, "nominate"][1])),
        ((A, "pass"), (5, passed)),
    ]
    assert actions[A, "kill"][1] is not None  # the state's own mapping is left as it was
    assert len(actions) == 4


def test_a_night_without_the_owls_pick_folds_to_the_very_state() -> None:
    """LUP-D11: the Owl's pick is cleared at nightfall; a night without one changes nothing,
    and a night with one records it."""
    state = LupusState(order=(A, B, C))
    assert evolve(state, NightResolved(None, (), None, None)) is state
    picked = evolve(state, NightResolved(None, (), None, B))
    assert picked.owl_pick == B and picked == LupusState(order=(A, B, C), owl_pick=B)
    assert evolve(picked, NightResolved(None, (), None, None)).owl_pick is None


def test_a_bold_vote_is_one_command_for_every_post_naming_him() -> None:
    """LUP-617: a name in bold on the list is a vote for him, however it is spelt."""
    data = demo_setup("lupus-in-tabula", 8, 0, "fr")
    game = RulesGame.new(data)
    rules, state = game.rules, game.state
    name = state.order[0]
    vote = rules.bold_command(state, state.order[1], (name,))
    assert vote == Command("vote", (name,))
    assert rules.bold_command(state, state.order[2], (f" {name.upper()} ",)) is vote
    assert rules.bold_command(state, state.order[1], ("nobody at all",)) is None
    assert state.options.tally_min_interval == timedelta(minutes=15)  # votes in a burst


def test_a_pass_is_one_event_for_every_night_its_player_passes() -> None:
    """LUP-603: PASS records "no action": the same frozen event each time he passes."""
    game = RulesGame.new(demo_setup("lupus-in-tabula", 8, 0, "fr"))
    rules, state = game.rules, game.state
    actor = next(p for p in state.order if state.seats[p].alive)
    first = rules.decide(state, actor, Command("pass"), EPOCH, "private")
    again = rules.decision(state, actor, Command("pass"), EPOCH, "private")
    assert first == again == [ActionSet(actor, "pass")]
    assert first[0] is again[0]


def test_a_phase_opened_at_the_same_time_is_one_event() -> None:
    """LUP-604: each phase opens with its one deadline; games opening it at the same time
    share the event, equal to the one built afresh."""
    end = EPOCH + timedelta(hours=18)
    night = phase_started("night", 1, end)
    assert night == PhaseStarted("night", 1, {"night": end})
    assert phase_started("night", 1, end) is night
    later = phase_started("night", 1, end + timedelta(hours=1))
    assert later != night and later.deadlines == {"night": end + timedelta(hours=1)}
    assert phase_started("round1", 1, end) == PhaseStarted("round1", 1, {"round1": end})


def test_a_nightfalls_notices_are_those_built_afresh_and_shared_by_games_alike() -> None:
    """LUP-604, LUP-711: the night's public notice and each card's prompt are the notices
    built afresh; those saying the deadline alone are one object for every game falling into
    that night at that time (a prompt with more to say, the pack's list, is built per game)."""
    nightfalls = []
    for seed in range(6):
        game = RulesGame.new(demo_setup("lupus-in-tabula", 16, seed, "fr"))
        state = game.state
        deadline = iso(state.deadlines["night"])
        built = [e for e in game.events if isinstance(e, Notice) and e.thread == "night-1"]
        expected = [public("lupus/night_start", "night-1", number=1, deadline=deadline)]
        for card, prompt, params_of in prompted(1):
            holders = state.holders(card)
            for holder in holders:
                more = params_of(state, holder, holders) if params_of else {}
                expected.append(private(prompt, [holder], "night-1", deadline=deadline, **more))
        assert built[: len(expected)] == expected
        nightfalls.append(built)
    first, *others = nightfalls
    for notice in first:
        if notice.public or notice.params.keys() == {"deadline"}:
            assert all(n is notice for night in others for n in night if n == notice)
    # a card dealt to the same name in two games: its very prompt (seldom in six deals)
    ana, deadline = PlayerId("Ana"), "2026-01-06T12:00:00+00:00"
    kept = _prompt("lupus/bodyguard_prompt", ana, "night-1", deadline)
    assert kept is _prompt("lupus/bodyguard_prompt", ana, "night-1", deadline)
    assert kept == private("lupus/bodyguard_prompt", [ana], "night-1", deadline=deadline)
