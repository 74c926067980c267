"""Loup-Garou's opening and its Mayor: the secret Village idiot (LG-013), the Loup-garou maître's
bite, the election (LG-500..LG-505, LG-D02, LG-D05) and the sash passed on the Mayor's death
(LG-404, LG-D31)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow
from pbem.core.events import Event, PhaseStarted, private, public
from pbem.core.ids import PlayerId
from pbem.games.loupgarou import nightfall, orders
from pbem.games.loupgarou.nightfall import wolf_list
from pbem.games.loupgarou.roles import ELDER, MASTER, VILLAGER, VILLAGERS, WOLVES
from pbem.games.loupgarou.state import (
    BiteResolved,
    ElectionTied,
    IdiotChosen,
    LoupGarouState,
    MayorChanged,
    MayorElected,
    evolve,
    iso,
)
from pbem.games.village.voting import plurality, tally_params


def draw_idiot(
    roles: Mapping[str, str], rng: random.Random, pool: Sequence[PlayerId]
) -> IdiotChosen:
    """LG-013: the secret Village idiot, drawn among the Simple villageois of ``pool``."""
    simple = [p for p in pool if roles[p] == VILLAGER]
    return IdiotChosen(rng.choice(simple) if simple else None)  # LG-D01: maybe none


def close_bite(state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
    """LG-203, LG-204, LG-313..LG-317, LG-703, LG-704, then the election (LG-705)."""
    o = state.options
    events: list[Event] = []
    masters = state.holders(MASTER)
    chosen = next((a for m in masters if (a := state.action(m, "bite"))), None)
    target = chosen.targets[0] if chosen else None
    outcome = "none"
    if target is not None:
        seat = state.seat(target)
        if seat.team == WOLVES:
            outcome = "wolf"  # LG-313
        elif seat.role == ELDER:
            outcome = "elder"  # LG-317, LG-384
        else:
            outcome = "young_wolf"  # LG-314, LG-315, LG-316
    resolved = BiteResolved(target, outcome)
    events.append(resolved)
    after = evolve(state, resolved)
    if o.idiot_after_bite:  # LG-D30 alternative: among the Simple villageois still Villagers
        pool = [p for p in after.order if after.seat(p).team == VILLAGERS]
        idiot = draw_idiot({p: after.seat(p).role for p in after.order}, rng, pool)
        events.append(idiot)
        after = evolve(after, idiot)
    if outcome == "young_wolf" and target is not None:  # LG-703
        events.append(private("loupgarou/bitten", [target], "setup", role=state.seat(target).role))
    elif outcome == "elder" and target is not None:
        events.append(private("loupgarou/elder_bitten", [target], "setup"))
        events.append(private("loupgarou/master_elder", masters, "setup", elder=target))
    wolves = after.team(WOLVES)
    for wolf in wolves:  # LG-204, LG-704, LG-D04
        events.append(
            private(
                "loupgarou/wolves_list",
                [wolf],
                "setup",
                wolves=wolf_list(after, wolves),
                detail=o.wolves_list_detail,
            )
        )
    if o.election_concurrent_with_night1:  # LG-D02 alternative: during Night 1
        end = now + o.night_council_duration + o.night_witch_duration
        events.append(public("loupgarou/election_open", "setup", deadline=iso(end)))
        return events + nightfall.start_night(after, 1, now, {"election": end})
    end = now + o.election_window
    events.append(PhaseStarted("election", 0, {"election": end}))
    events.append(public("loupgarou/election_open", "setup", deadline=iso(end)))  # LG-705
    return events


def close_election(state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
    """LG-502..LG-506, LG-D05, LG-D06, then Night 1 (LG-207)."""
    o = state.options
    votes = dict(state.votes)
    top = plurality(votes)
    drawn: tuple[PlayerId, ...] = ()
    if state.phase == "runoff" and not top:
        top = list(state.tied)  # nobody voted again: draw among the tied
    if len(top) > 1 and o.mayor_election_tie == "runoff" and state.phase == "election":
        tied = tuple(p for p in state.order if p in top)
        end = now + o.election_window
        return [
            ElectionTied(tied),
            PhaseStarted("runoff", 0, {"runoff": end}),
            public(
                "loupgarou/election_runoff",
                "setup",
                votes=[{"voter": p, "target": votes.get(p)} for p in state.order],
                counts=tally_params(votes)["counts"],
                tied=list(tied),
                deadline=iso(end),
            ),
        ]
    if len(top) == 1:
        mayor = top[0]
    else:  # LG-D05: a tie, or no vote at all, is drawn
        pool = [p for p in state.order if p in top] if top else list(state.order)
        drawn = tuple(pool)
        mayor = rng.choice(pool)
    elected = MayorElected(mayor, {p: votes.get(p) for p in state.order}, drawn)
    after = evolve(state, elected)
    events: list[Event] = [
        elected,
        public(
            "loupgarou/election_result",
            "setup",
            votes=[{"voter": p, "target": votes.get(p)} for p in state.order],
            counts=tally_params(votes)["counts"],
            drawn_among=list(drawn),
            mayor=mayor,
        ),
    ]
    if state.phase == "night":  # LG-D02 alternative: the night goes on
        return events
    return events + nightfall.start_night(after, 1, now)


def draw_successor(state: LoupGarouState, rng: random.Random) -> list[Event]:
    """LG-D31: no sash sent in time: a random living player becomes Mayor."""
    living = state.living()
    if state.sash_holder is None or not living:
        return []
    chosen = rng.choice(living)
    return [
        MayorChanged(chosen, None),
        public(
            "loupgarou/new_mayor",
            f"day-{state.number}",
            mayor=chosen,
            by=None,
            former=state.sash_holder,
        ),
    ]


def election_open(state: LoupGarouState) -> bool:
    """Whether the Mayor's election (or its runoff) is collecting votes."""
    return state.phase in ("election", "runoff") or "election" in state.deadlines


def decide_sash(state: LoupGarouState, actor: PlayerId, command: Command) -> list[Event]:
    """LG-625, LG-404, LG-D31: the only command of a dead player (LG-606)."""
    if state.sash_holder != actor:
        raise IllegalNow("no_sash" if state.seat(actor).alive else "dead")
    target = command.targets[0]
    orders.living_target(state, target)
    return [
        MayorChanged(target, actor),
        public("loupgarou/new_mayor", f"day-{state.number}", mayor=target, by=actor, former=actor),
    ]
