"""Loup-Garou's night commands, each checked against the rules before it is recorded."""

from __future__ import annotations

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow, InvalidSyntax
from pbem.core.events import ActionSet, Event, private
from pbem.core.ids import PlayerId
from pbem.games.loupgarou.roles import MASTER, THIEF_NIGHTS, VILLAGERS, WOLVES
from pbem.games.loupgarou.state import LoupGarouState, iso


def living_target(state: LoupGarouState, target: PlayerId) -> None:
    """LG-607: a command may only name a living player."""
    if not state.seat(target).alive:
        raise IllegalNow("target_not_living", name=target)  # LG-607


def decide_bite(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-610, LG-311, LG-D03."""
    if state.seat(actor).role != MASTER:
        raise IllegalNow("not_your_role")
    if state.phase != "bite":
        raise IllegalNow("bite_closed")
    target = command.targets[0]
    living_target(state, target)
    if target == actor:
        raise IllegalNow("not_yourself")
    return [ActionSet(actor, "bite", (target,))]


def decide_council(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-612, LG-613, LG-712: the council's votes and chat, relayed to the other members."""
    if actor not in state.council:
        raise IllegalNow("not_in_council")  # LG-510
    thread = f"night-{state.number}"
    if command.verb == "pack":
        others = [w for w in state.council if w != actor]
        if not others:
            raise IllegalNow("alone_in_council")
        return [private("loupgarou/pack_chat", others, thread, sender=actor, text=command.text)]
    if state.council_closed:
        raise IllegalNow("council_closed")  # LG-213, LG-516
    target = command.targets[0]
    living_target(state, target)  # LG-511, LG-D10: any living player
    # LG-612, LG-712: relayed to the other members (the voter has his acknowledgement); a
    # lone wolf's relay reaches nobody, no mail, but stays in the log: the log's length seeds
    # the game's draws (pbem.core.draws), which a lone wolf's vote did not change before
    others = [w for w in state.council if w != actor]
    return [
        ActionSet(actor, "kill", (target,)),
        private("loupgarou/kill_relay", others, thread, voter=actor, target=target),
    ]


def decide_scan(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-614, LG-340, LG-D13, LG-D11 (``seer_result_timing``)."""
    target = command.targets[0]
    living_target(state, target)
    if target == actor:
        raise IllegalNow("not_yourself")
    if state.options.seer_result_timing == "immediate":
        if state.action(actor, "scan") is not None:
            raise IllegalNow("already_final")
        return [
            ActionSet(actor, "scan", (target,)),
            private(
                "loupgarou/seer_result",
                [actor],
                f"night-{state.number}",
                target=target,
                role=state.seat(target).role,
            ),
        ]
    return [ActionSet(actor, "scan", (target,))]


def decide_save(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-615, LG-352, LG-D14 (2)."""
    if state.life_used:
        raise IllegalNow("potion_used")
    if not state.council_closed:
        raise IllegalNow("victim_not_known", opens=iso(state.deadlines.get("council")))
    if state.victim is None:
        raise IllegalNow("no_victim")
    if command.targets and command.targets[0] != state.victim:
        raise IllegalNow("not_the_victim", name=command.targets[0])
    poisoned = state.action(actor, "poison")
    if poisoned is not None and poisoned.targets[0] == state.victim:
        raise IllegalNow("save_and_poison")
    return [ActionSet(actor, "save", (state.victim,))]


def decide_poison(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-616, LG-353, LG-D14 (3)."""
    if state.death_used:
        raise IllegalNow("potion_used")
    target = command.targets[0]
    living_target(state, target)
    if target == actor and not state.options.witch_self_poison:
        raise IllegalNow("not_yourself")
    saved = state.action(actor, "save")
    if saved is not None and saved.targets[0] == target:
        raise IllegalNow("save_and_poison")
    return [ActionSet(actor, "poison", (target,))]


def decide_ask(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-617, LG-618, LG-360, LG-D22: one question a night, the last one counts."""
    if command.word == "conditions":
        if not command.targets:
            raise InvalidSyntax("missing_name")
        living_target(state, command.targets[0])
    elif command.targets:
        raise InvalidSyntax("question_no_name")
    return [ActionSet(actor, "ask", command.targets, command.word)]


def decide_lovers(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-619, LG-368, LG-D23."""
    if state.number != 2:
        raise IllegalNow("night2_only")
    for target in command.targets:
        living_target(state, target)
    return [ActionSet(actor, "lovers", command.targets)]


def decide_charm(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-620, LG-390, LG-391, LG-D25."""
    for target in command.targets:
        living_target(state, target)
        if target == actor:
            raise IllegalNow("not_yourself")
    others = [p for p in state.living() if p != actor]
    if len(command.targets) < min(2, len(others)):
        raise InvalidSyntax("missing_names", count=2)
    return [ActionSet(actor, "charm", command.targets)]


def decide_become(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-621, LG-321..LG-323, LG-316, LG-331, LG-D37."""
    if state.young_wolf == actor:
        raise IllegalNow("thief_bitten")  # LG-316, LG-D37 (3)
    if state.number not in THIEF_NIGHTS:
        raise IllegalNow("thief_nights")  # LG-323
    word = command.word or ""
    if word not in THIEF_NIGHTS[state.number]:
        raise IllegalNow("thief_night2_wolf")  # LG-321: Night 2 is for becoming a Wolf
    team = state.seat(actor).team
    if word == "wolf" and team == WOLVES:
        raise IllegalNow("already_wolf")
    if word == "villager" and team == VILLAGERS:
        raise IllegalNow("already_villager")
    return [ActionSet(actor, "become", (), word)]
