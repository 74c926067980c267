"""Loup-Garou's dawn: the private results, the public deaths and the lovers' grief
(:mod:`pbem.games.loupgarou.deaths`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbem.core.events import ActionSet, Event, PhaseStarted, PlayerDied, private, public
from pbem.core.ids import PlayerId
from pbem.games.loupgarou import victory
from pbem.games.loupgarou.deaths import reveal_params
from pbem.games.loupgarou.roles import ELDER, PIPER, POWERED, SEER, VILLAGERS
from pbem.games.loupgarou.state import LoupGarouState, PowersLost, SashOpened, evolve, iso


@dataclass
class Night:
    """A night being resolved (:mod:`pbem.games.loupgarou.night`): the state as its steps change
    it, and what the dawn reports."""

    start: LoupGarouState
    rng: random.Random
    s: LoupGarouState = field(init=False)
    events: list[Event] = field(default_factory=list)
    lovers_formed: bool = False
    charm_targets: tuple[PlayerId, ...] = ()
    newly_charmed: tuple[PlayerId, ...] = ()
    scan: ActionSet | None = None
    question: ActionSet | None = None
    answer: dict[str, Any] | None = None
    spied: list[PlayerId] = field(default_factory=list)
    elder_escaped: list[PlayerId] = field(default_factory=list)
    elder_saved_by_witch: list[PlayerId] = field(default_factory=list)
    thief_result: tuple[PlayerId, str] | None = None

    def __post_init__(self) -> None:
        self.s = self.start

    def emit(self, *new: Event) -> None:
        """Fold each event into the night's state and record it."""
        for event in new:
            self.s = evolve(self.s, event)
            self.events.append(event)


def dawn(night: Night, now: datetime) -> list[Event]:
    """LG-230..LG-235: private notices first, the announcement, the Ancien, checkpoint (a)."""
    state, o, n = night.start, night.start.options, night.start.number
    thread = f"day-{n}"
    events = night.events
    dead = [e.player for e in events if isinstance(e, PlayerDied)]  # LG-D16: in order
    # Step 9: the Ancien's death strips the Villagers at the start of the debates (LG-228).
    elder = next((p for p in dead if state.seat(p).role == ELDER), None)
    elder_dead = elder is not None
    # named only when dead (« l'Ancienne n'est plus »): every other notice stays as logged before
    named = {"elder": elder} if elder is not None else {}
    s = night.s

    def reached(who: Sequence[PlayerId]) -> list[PlayerId]:
        return [p for p in who if o.send_results_to_dead or s.seat(p).alive]  # LG-D12

    scan = night.scan
    if scan is not None and o.seer_result_timing == "dawn":
        to = reached([scan.actor])
        if to:  # LG-720, LG-343
            target = scan.targets[0]
            role = state.seat(target).role
            events.append(private("loupgarou/seer_result", to, thread, target=target, role=role))
    question, answer = night.question, night.answer
    if question is not None and answer is not None:
        to = reached([question.actor])
        if to:  # LG-721
            events.append(private("loupgarou/girl_answer", to, thread, **answer))
        empty = not answer["names"] and answer["question"] != "conditions"
        # LG-D21: never the girl herself; LG-722, LG-366, LG-367: one text for all.
        subjects = [p for p in night.spied if s.seat(p).alive and p != question.actor]
        if subjects and (o.notify_spied_when_empty or not empty):
            events.append(private("loupgarou/spied", subjects, thread))
    charmed_now = [p for p in night.newly_charmed if s.seat(p).alive]
    if charmed_now and not o.charmed_know_each_other:  # LG-723, LG-425, LG-D26
        events.append(private("loupgarou/charmed", charmed_now, thread, others=[]))
    for p in charmed_now if o.charmed_know_each_other else []:
        others = [q for q in s.order if q in s.charmed and q != p and s.seat(q).alive]
        events.append(private("loupgarou/charmed", [p], thread, others=others))
    if night.lovers_formed:  # LG-724, LG-D24
        for lover in s.lovers:
            other = s.lover_of(lover)
            if s.seat(lover).alive and other is not None:
                role = s.seat(other).role
                events.append(private("loupgarou/lovers", [lover], thread, other=other, role=role))
    told = night.elder_escaped + (
        night.elder_saved_by_witch if o.elder_told_when_witch_saves else []
    )
    for escaped in told:  # LG-725, LG-381, LG-D17
        if s.seat(escaped).alive:
            events.append(private("loupgarou/elder_escaped", [escaped], thread))
    if night.thief_result is not None:  # LG-726
        thief, result = night.thief_result
        events.append(private("loupgarou/thief_result", [thief], thread, result=result))
    lost: list[PlayerId] = []
    if elder_dead:  # LG-727, LG-D19
        lost = [p for p in s.team(VILLAGERS) if s.powered(p)]
        affected = [p for p in lost if s.seat(p).role in POWERED]
        if affected:
            events.append(private("loupgarou/powers_lost", affected, thread, when="today", **named))
    # The dawn announcement (LG-730) opens the debates (LG-240): the loss happens now.
    t_day = now + o.day_duration
    mayor_died = s.mayor is not None and s.mayor in dead
    ending = victory.checkpoint_events(s, "dawn")  # LG-235
    events.append(
        public(
            "loupgarou/dawn",
            thread,
            day=n,
            dead=[reveal_params(s, p) for p in dead],
            elder_dead=elder_dead,
            mayor_dead=s.mayor if mayor_died else None,
            deadline=None if ending else iso(t_day),
            **named,
        )
    )
    if lost:
        night.emit(PowersLost(tuple(lost)))  # LG-234, LG-386
    if ending:
        return events + ending
    if mayor_died and s.mayor is not None:  # LG-233, LG-D31
        due = max(min(now + o.sash_window, t_day - timedelta(hours=1)), now)
        night.emit(SashOpened(s.mayor, due))
        events.append(private("loupgarou/sash_prompt", [s.mayor], thread, deadline=iso(due)))
    events.append(PhaseStarted("day", n, {"day": t_day}))
    return events


def answer_question(
    s: LoupGarouState,
    question: ActionSet,
    scanned: PlayerId | None,
    charm_targets: Sequence[PlayerId],
) -> tuple[dict[str, Any], list[PlayerId]]:
    """LG-361..LG-366, LG-D21: the answer and who is spied on."""
    kind = question.word or ""
    if kind == "wolves":  # LG-361: the victim fixed at T_A, never the Wolves' names
        names = [s.victim] if s.victim else []
        return {"question": kind, "names": names, "conditions": []}, list(s.council)
    if kind == "seer":  # LG-362
        seers = s.holders(SEER, alive=False)
        names = [scanned] if scanned else []
        return {"question": kind, "names": names, "conditions": []}, [
            p for p in seers if s.seat(p).alive
        ]
    if kind == "piper":  # LG-363
        pipers = s.holders(PIPER, alive=False)
        return {"question": kind, "names": list(charm_targets), "conditions": []}, [
            p for p in pipers if s.seat(p).alive
        ]
    target = question.targets[0]  # LG-364: after this night's lovers and charms
    return {"question": kind, "names": [target], "conditions": s.conditions(target)}, [target]
