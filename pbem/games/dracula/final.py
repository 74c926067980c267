"""The final phase (section 19) and scoring (sections 18 and 20)."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from pbem.core.events import PhaseStarted, PlayerDied, private, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.games.dracula.events import FinalChoice, FlamesSettled
from pbem.games.dracula.night import iso
from pbem.games.dracula.state import DraculaState

ENDING_ALL_BITTEN, ENDING_DRACULA_BURNED, ENDING_DRACULA_SURVIVES = (
    "all_bitten",
    "burned",
    "survives",
)


def scores_all_bitten(s: DraculaState) -> dict[str, int]:
    """Ending A: DRA-441 … DRA-444 (dead vampires 0, AMB-068; no bonus, DRA-444)."""
    return {p: len(s.seats[p].credits) if s.seats[p].alive else 0 for p in s.order}


def open_final(b: Batch[DraculaState], now: datetime) -> None:
    """DRA-460 … DRA-463, NTF-41: every living player's side, not who Dracula is (DRA-462)."""
    s = b.state
    end = now + s.options.final_choice
    b.add(PhaseStarted("final_choice", 5, {"final_choice": end}))
    b.note(
        public(
            "dracula/final_start",
            f"round-{s.round}-final",
            round=s.round,
            humans=s.humans(),
            vampires=s.vampires(),
            deadline=iso(end),
        )
    )


def _flame_destination(
    s: DraculaState, start: PlayerId, fighters: list[PlayerId], rng: random.Random
) -> PlayerId | None:
    """AMB-063: follow the flee designations to a fighter; a cycle loses the flame."""
    seen = {start}
    current = start
    while True:
        recipient = s.choices[current].recipient
        if recipient is None or recipient not in s.choices:
            return rng.choice(fighters) if fighters else None
        if s.choices[recipient].choice == "fight":
            return recipient
        if recipient in seen:
            return None
        seen.add(recipient)
        current = recipient


def close_final_choice(b: Batch[DraculaState], now: datetime, rng: random.Random) -> list[Any]:
    """DRA-460 … DRA-469: the final choice closes: the configured default for whoever chose
    nothing (AMB-064), each fighter's flame (DRA-463); ``[ending, points]`` when nobody
    fights (the round ends), else ``[]`` (the flames step opens, DRA-470)."""
    s = b.state
    b.add(  # AMB-064: no choice -> the configured default (folded at once)
        *[
            FinalChoice(h, s.options.final_default, None, default=True)
            for h in s.humans()
            if h not in s.choices
        ]
    )
    s = b.state
    fighters = [h for h in s.humans() if s.choices[h].choice == "fight"]
    flames: dict[str, int] = {f: 1 for f in fighters}  # DRA-463
    for h in s.humans():
        if s.choices[h].choice == "flee":  # DRA-467
            dest = _flame_destination(s, h, fighters, rng)
            if dest is not None:
                flames[dest] += 1
    b.add(FlamesSettled(flames))
    end = now + s.options.flames
    fled = [h for h in s.humans() if s.choices[h].choice == "flee"]
    b.note(
        public(
            "dracula/final_recap",
            f"round-{s.round}-final",
            fighters=[{"name": f, "flames": flames[f]} for f in fighters],
            fled=fled,
            deadline=iso(end) if fighters else None,
        )
    )  # DRA-469, NTF-42
    if fighters:
        b.add(PhaseStarted("flames", 5, {"flames": end}))
        for f in fighters:  # DRA-470, AMB-065: each fighter's own prompt, with one-tap links
            b.note(
                private(
                    "dracula/flame_prompt",
                    [f],
                    f"round-{s.round}-final",
                    round=s.round,
                    flames=flames[f],
                    vampires=s.vampires(),
                    deadline=iso(end),
                )
            )
        return []
    return close_flames(b, now)


def close_flames(b: Batch[DraculaState], now: datetime) -> list[Any]:
    """DRA-470 … DRA-475; returns [ending, points] for the round end."""
    s = b.state
    dracula = s.dracula()
    fighters = [h for h in s.humans() if s.choices[h].choice == "fight"]
    fled = [h for h in s.humans() if s.choices[h].choice == "flee"]
    designations: dict[PlayerId, list[PlayerId]] = {}
    for f in fighters:
        order = s.order_of(f, "flame")
        designations[f] = list(order.targets[: s.flames.get(f, 0)]) if order else []
    burned = sorted({v for targets in designations.values() for v in targets}, key=s.order.index)
    killers = [f for f, targets in designations.items() if dracula in targets]
    points: dict[str, int] = {p: 0 for p in s.order}
    for h in fled:
        points[h] = s.options.default_flee_points if s.choices[h].default else 1  # DRA-466
    b.add(*[PlayerDied(v, "burned") for v in burned])  # DRA-471
    killed_fighters: list[PlayerId] = []
    if dracula in burned:
        ending = ENDING_DRACULA_BURNED
        # DRA-472: all the vampires die
        b.add(*[PlayerDied(v, "dracula_dead") for v in b.state.vampires()])
        for f in fighters:
            points[f] = 5 if len(killers) == 1 and f in killers else 2  # DRA-472, DRA-473
    else:
        ending = ENDING_DRACULA_SURVIVES
        b.add(*[PlayerDied(f, "fight") for f in fighters])  # DRA-474
        killed_fighters += fighters
        after = b.state
        for v in s.order:
            seat = after.seats[v]
            if seat.human:
                continue
            if seat.alive or (seat.cause == "burned" and s.options.burned_vampires_score):
                points[v] = max(1, len(seat.credits))  # DRA-474, DRA-475, AMB-067
    b.note(
        public(
            "dracula/final_result",
            f"round-{s.round}-final",
            burned=burned,
            dracula_burned=dracula in burned,
            designations=[{"name": f, "targets": t} for f, t in designations.items()]
            if s.options.reveal_flame_targets
            else [],
            killers=killers,
            killed=killed_fighters,
            points={p: n for p, n in points.items() if n},
        )
    )  # NTF-43, AMB-069
    return [ending, points]
