"""Loup-Garou's nights: the council closed at T_A, then the night's steps in the order of section
4.3 (NIGHT_STEPS), which lead to the dawn (the night falls in :mod:`pbem.games.loupgarou.nightfall`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import datetime

from pbem.core.events import Event, PlayerDied, private
from pbem.core.ids import PlayerId
from pbem.core.resolve import Intent, Veto, resolve
from pbem.games.loupgarou import dawn, deaths
from pbem.games.loupgarou.dawn import Night
from pbem.games.loupgarou.roles import (
    ELDER,
    GIRL,
    MASTER,
    NIGHT_ORDER,
    NIGHT_STEPS,
    THIEF,
    VILLAGERS,
    WITCH,
    WOLVES,
)
from pbem.games.loupgarou.state import (
    Charmed,
    CouncilClosed,
    ElderProtectionUsed,
    LoupGarouState,
    PotionUsed,
    TeamChanged,
    evolve,
    iso,
)
from pbem.games.village.events import LoversFormed
from pbem.games.village.voting import weighted_plurality


def close_council(state: LoupGarouState, rng: random.Random) -> list[Event]:
    """LG-214, LG-512..LG-516, LG-D07..LG-D09, LG-713, LG-714."""
    o = state.options
    thread = f"night-{state.number}"
    council = list(state.council)
    votes = {a.actor: a.targets[0] for a in state.actions_of("kill") if a.actor in council}
    weights = {
        p: o.thief_vote_weight
        for p in council
        if state.seat(p).role == THIEF and (o.thief_weight_when_bitten or state.young_wolf != p)
    }
    top, _ = weighted_plurality(votes, weights)
    drawn: tuple[PlayerId, ...] = ()
    victim: PlayerId | None = None
    how = "none"
    if len(top) == 1:
        victim, how = top[0], "majority"
    elif top:
        master_vote = next(
            (votes[m] for m in council if state.seat(m).role == MASTER and m in votes), None
        )
        if master_vote in top:  # LG-513, LG-318
            victim, how = master_vote, "master"
        elif o.wolves_tie_fallback == "random":  # LG-514, LG-D08
            drawn = tuple(p for p in state.order if p in top)
            victim, how = rng.choice(drawn), "draw"
        else:
            how = "tie_no_victim"
    closed = CouncilClosed(victim, how, drawn)
    events: list[Event] = [closed]
    if council:
        events.append(  # LG-713
            private(
                "loupgarou/council_result",
                council,
                thread,
                victim=victim,
                how=how,
                drawn_among=list(drawn),
            )
        )
    for witch in state.holders(WITCH):  # LG-351, LG-714, LG-D14 (1)
        if state.powered(witch) and not (state.life_used and state.death_used):
            events.append(
                private(
                    "loupgarou/witch_victim",
                    [witch],
                    thread,
                    victim=victim,
                    life=not state.life_used,
                    death=not state.death_used,
                    end=iso(state.deadlines.get("night")),
                )
            )
    return events


def resolve_night(state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
    """LG-215, LG-220..LG-229: the steps of NIGHT_STEPS in order, then the dawn (LG-230)."""
    night = Night(state, rng)
    steps: Mapping[str, Callable[[Night], None]] = {
        "lovers": night_lovers,
        "charm": night_charm,
        "scan": night_scan,
        "ask": night_ask,
        "attacks": night_attacks,
        "grief": night_grief,
        "become": night_become,
    }
    for step in NIGHT_STEPS:
        steps[step](night)
    return dawn.dawn(night, now)


def night_lovers(night: Night) -> None:
    """Step 1 (LG-220, LG-368, LG-D23): the Lovers, Night 2 only, before any death."""
    s = night.s
    if s.number != 2 or s.lovers:
        return
    pick = next(iter(s.actions_of("lovers")), None)
    if pick is not None:
        night.emit(LoversFormed(pick.targets))
    elif s.options.lovers_if_missing == "random":
        girls = [g for g in s.holders(GIRL) if s.powered(g)]
        if girls and len(s.living()) >= 2:
            drawn = sorted(night.rng.sample(s.living(), 2), key=s.order.index)
            night.emit(LoversFormed(tuple(drawn), "random"))
    night.lovers_formed = bool(night.s.lovers)


def night_charm(night: Night) -> None:
    """Step 2 (LG-221, LG-D25): charms; re-charming has no new effect."""
    charm = next(iter(night.s.actions_of("charm")), None)
    night.charm_targets = charm.targets if charm else ()
    night.newly_charmed = tuple(t for t in night.charm_targets if t not in night.s.charmed)
    if night.newly_charmed:
        night.emit(Charmed(night.newly_charmed))


def night_scan(night: Night) -> None:
    """Step 3 (LG-222, LG-341): the seer's result is the scanned player's card."""
    night.scan = next(iter(night.s.actions_of("scan")), None)


def night_ask(night: Night) -> None:
    """Step 4 (LG-223, LG-D21): the little girl's answer, with the night's final choices."""
    night.question = next(iter(night.s.actions_of("ask")), None)
    if night.question is not None:
        scanned = night.scan.targets[0] if night.scan else None
        night.answer, night.spied = dawn.answer_question(
            night.s, night.question, scanned, night.charm_targets
        )


def night_attacks(night: Night) -> None:
    """Steps 5 and 6 (LG-224, LG-225, LG-D15): the kernel's loop with two veto hooks."""
    s = night.s
    save = next(iter(s.actions_of("save")), None)
    poison = next(iter(s.actions_of("poison")), None)
    poisoned = poison.targets[0] if poison else None
    victim = s.victim
    if save is not None:
        night.emit(PotionUsed("life"))
    if poison is not None:
        night.emit(PotionUsed("death"))
    intents: list[Intent] = []
    # LG-510, LG-214: the council's members who named the victim fixed at T_A, and the
    # Witch who poured the death potion (LG-353), for the archive's « (par …) »
    council = set(s.council)
    pack = tuple(
        a.actor for a in s.actions_of("kill") if a.actor in council and a.targets[0] == victim
    )
    witch = (poison.actor,) if poison is not None else ()
    if victim is not None:
        cause = "wolves_and_poison" if victim == poisoned else "wolves"
        actors = (*pack, *witch) if victim == poisoned else pack
        intents.append(Intent("kill", victim, cause, NIGHT_ORDER["wolves"], actors))
    if poisoned is not None and poisoned != victim:
        intents.append(Intent("kill", poisoned, "poison", NIGHT_ORDER["poison"], witch))

    def life_potion(st: LoupGarouState, intent: Intent) -> Veto | None:
        # LG-224, LG-352: the life potion saves the Wolves' victim (LG-357: first).
        saved = save is not None and intent.target == victim and intent.cause == "wolves"
        return Veto("life_potion") if saved else None

    def elder(st: LoupGarouState, intent: Intent) -> Veto | None:
        # LG-380, LG-383: only the Wolves' attack, only once.
        seat = st.seat(intent.target)
        if intent.cause == "wolves" and seat.role == ELDER and not st.elder_used:
            return Veto("elder", (ElderProtectionUsed(),))
        return None

    def die(st: LoupGarouState, intent: Intent) -> list[Event]:
        return [PlayerDied(intent.target, intent.cause)] if st.seat(intent.target).alive else []

    result = resolve(night.s, f"night-{s.number}", intents, [life_potion, elder], die, evolve)
    night.events += result.events
    night.s = result.state
    for intent, hook in result.vetoed.items():
        if hook == "elder":
            night.elder_escaped.append(intent.target)
        elif hook == "life_potion" and night.s.seat(intent.target).role == ELDER:
            night.elder_saved_by_witch.append(intent.target)  # LG-357, LG-D17


def night_grief(night: Night) -> None:
    """Step 7 (LG-226, LG-422): Lovers die of grief."""
    night.emit(*deaths.grief_deaths(night.s))


def night_become(night: Night) -> None:
    """Step 8 (LG-227, LG-324..LG-327, LG-D37): the thief's change, if he is alive."""
    for request in night.s.actions_of("become"):
        s = night.s
        thief = request.actor
        if not s.seat(thief).alive:
            continue
        if request.word == "wolf" and s.seat(thief).team == VILLAGERS:
            night.emit(TeamChanged(thief, WOLVES))
            night.thief_result = (thief, "wolf")
        elif request.word == "villager" and s.seat(thief).team == WOLVES:
            if s.team(WOLVES) == [thief]:
                night.thief_result = (thief, "last_wolf")
            else:
                night.emit(TeamChanged(thief, VILLAGERS))
                night.thief_result = (thief, "villager")
