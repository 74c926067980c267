"""Chasse aux sorcières' night commands, each checked against the sub-phase before it is
recorded."""

from __future__ import annotations

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow
from pbem.core.events import ActionCleared, ActionSet, Event, private
from pbem.core.ids import PlayerId
from pbem.core.roles import action_of
from pbem.games.chasse import nightfall
from pbem.games.chasse.roles import CARD_OF, COUNCIL_KILL, ROLE_TABLE
from pbem.games.chasse.state import ChasseState
from pbem.games.chasse.subphases import NIGHT_PHASES


def decide_night(state: ChasseState, actor: PlayerId, command: Command) -> list[Event]:
    """A night command of a card (or of the council), checked against its sub-phase."""
    verb = command.verb
    seat = state.seat(actor)
    thread = f"night-{state.number}"
    # The actor's own card first: a refusal never tells him anything he does not know.
    if verb == "kill":
        if actor not in state.council():
            raise IllegalNow("not_your_role")
    elif seat.role != CARD_OF[verb]:
        raise IllegalNow("not_your_role")
    action = COUNCIL_KILL if verb == "kill" else action_of(ROLE_TABLE, verb)
    assert action is not None  # every night verb is a card's or the council's
    if action.once_per_game and seat.role in state.spent:
        raise IllegalNow("power_used")  # CAS-345, CAS-355
    if verb == "swap" and not state.cole_active():
        raise IllegalNow("power_used")  # CAS-394
    if state.phase != action.phase or (action.nights and state.number not in action.nights):
        raise IllegalNow("subphase_only", when=action.phase)  # CAS-604
    if verb == "take":  # CAS-610, CAS-361
        assert command.word is not None
        if command.word not in state.leftover:
            raise IllegalNow("not_a_leftover", leftover=list(state.leftover))
        cleared = [ActionCleared(actor, "keep")] if state.action(actor, "keep") else []
        return [*cleared, ActionSet(actor, "take", (), command.word)]
    if verb == "keep":  # CAS-611, CAS-362, CAS-363
        if nightfall.leo_forced(state):
            raise IllegalNow("leo_must_take")
        cleared = [ActionCleared(actor, "take")] if state.action(actor, "take") else []
        return [*cleared, ActionSet(actor, "keep")]
    if verb == "heal":  # CAS-618, CAS-D15
        if state.victim is None:
            raise IllegalNow("no_victim_tonight")
        if command.targets and command.targets[0] != state.victim:
            raise IllegalNow("not_demons_victim", name=command.targets[0])
        return [ActionSet(actor, "heal", (state.victim,))]
    for target in command.targets:
        if not state.alive(target):
            raise IllegalNow("target_not_living", name=target)  # CAS-605
    if verb == "lovers":  # CAS-612, CAS-331
        return [ActionSet(actor, "lovers", command.targets)]
    target = command.targets[0]
    if target == actor:
        raise IllegalNow("not_yourself")  # CAS-613, CAS-614, CAS-616, CAS-617
    if verb == "burn" and target == state.victim:
        raise IllegalNow("target_is_victim", name=target)  # CAS-617, CAS-D14
    events: list[Event] = [ActionSet(actor, verb, (target,))]
    if verb == "kill":  # CAS-714, CAS-D09: relayed to the other council members
        # (alone in the council: to nobody, no mail, but logged, as the log's length seeds
        # the game's draws, pbem.core.draws)
        others = [p for p in state.council() if p != actor]
        events.append(private("chasse/council_relay", others, thread, sender=actor, target=target))
    return events


def decide_council(state: ChasseState, actor: PlayerId, command: Command) -> list[Event]:
    """CAS-615, CAS-D28: the council's relay, open during the night only."""
    if actor not in state.council():
        raise IllegalNow("not_your_role")
    if state.phase not in NIGHT_PHASES or state.phase in ("L", "C"):
        raise IllegalNow("subphase_only", when="W")
    others = [p for p in state.council() if p != actor]
    if not others:
        return []
    return [
        private(
            "chasse/council_chat",
            others,
            f"night-{state.number}",
            sender=actor,
            text=command.text,
        )
    ]
