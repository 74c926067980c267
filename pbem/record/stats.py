"""Statistics across finished games (``pbem stats``), from their event logs only (pure).

- games per game type;
- win rate per side (a side "played" a game when a seat of that team was dealt or ended in it)
  and per role (the card dealt: how often its holder was among the winners);
- average length: phases opened and days;
- on-time rate per player: of the phases in which the game expected a command from him (the
  rules' ``awaiting`` list when the phase opened, the list reminders go to), the share in which
  one of his commands was accepted. A command after the deadline is refused and leaves no
  event, so an accepted command is one sent in time. A phase counts for whoever held the seat
  when it closed (a seat may change hands, issue 13).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from pbem.core.events import GameEnded, PhaseStarted, RolesDealt, Substituted, voided
from pbem.core.roster import Roster
from pbem.desk.kernel import is_kernel
from pbem.table import Table


def game_stats(tables: Iterable[Table]) -> dict[str, Any]:
    """The statistics of the finished games among ``tables`` (JSON-able)."""
    per_game: Counter[str] = Counter()
    side_played: Counter[tuple[str, str]] = Counter()
    side_won: Counter[tuple[str, str]] = Counter()
    role_held: Counter[tuple[str, str]] = Counter()
    role_won: Counter[tuple[str, str]] = Counter()
    phases: dict[str, list[int]] = defaultdict(list)
    days: dict[str, list[int]] = defaultdict(list)
    expected: Counter[str] = Counter()
    in_time: Counter[str] = Counter()
    names: dict[str, str] = {}
    for table in tables:
        ended = next((e for e in table.ruled if isinstance(e, GameEnded)), None)
        if ended is None:
            continue
        game = table.rules.id
        per_game[game] += 1
        winners = set(ended.winners)
        summary = table.summary()
        teams = {str(p["team"]) for p in summary.get("players", []) if p.get("team")}
        for team in teams:
            side_played[(game, team)] += 1
        if ended.side:
            side_won[(game, ended.side)] += 1
            if ended.side not in teams:
                side_played[(game, ended.side)] += 1
        dealt = next((e for e in table.ruled if isinstance(e, RolesDealt)), None)
        for player, role in dealt.roles.items() if dealt else ():
            role_held[(game, role)] += 1
            role_won[(game, role)] += player in winners
        phases[game].append(sum(isinstance(e, PhaseStarted) for e in table.ruled))
        day = summary.get("day")
        if isinstance(day, int):
            days[game].append(day)
        for address, name, was_expected, acted in _punctuality(table):
            names.setdefault(address, name)
            if not was_expected:
                continue
            expected[address] += 1
            in_time[address] += acted
    return {
        "games": dict(sorted(per_game.items())),
        "sides": [
            {
                "game": g,
                "side": s,
                "played": n,
                "won": side_won[(g, s)],
                "rate": _rate(side_won[(g, s)], n),
            }
            for (g, s), n in sorted(side_played.items())
        ],
        "roles": [
            {
                "game": g,
                "role": r,
                "held": n,
                "won": role_won[(g, r)],
                "rate": _rate(role_won[(g, r)], n),
            }
            for (g, r), n in sorted(role_held.items())
        ],
        "length": {
            g: {
                "phases": round(sum(phases[g]) / len(phases[g]), 1),
                "days": round(sum(days[g]) / len(days[g]), 1) if days[g] else None,
            }
            for g in sorted(per_game)
        },
        "on_time": [
            {
                "player": names[k],
                "email": k,
                "expected": n,
                "in_time": in_time[k],
                "rate": _rate(in_time[k], n),
            }
            for k, n in sorted(expected.items(), key=lambda kv: names[kv[0]].lower())
        ],
    }


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _punctuality(table: Table) -> list[tuple[str, str, bool, bool]]:
    """(address, name, expected, acted) for every phase of a game and every player concerned:
    the address and name of whoever held the seat when the phase closed (the roster)."""
    rules = table.rules
    state = rules.new_state()
    out: list[tuple[str, str, bool, bool]] = []
    waiting: frozenset[str] = frozenset()
    acted: set[str] = set()
    roster = Roster.of(table.setup.players)

    def close() -> None:
        holders = [roster.by_seat(p) for p in sorted(waiting)]
        out.extend((h.email.lower(), h.name, True, h.seat in acted) for h in holders)

    void = voided(table.events)
    for index, event in enumerate(table.events):  # the rules' events, and who held each seat
        if isinstance(event, Substituted):
            roster = roster.evolve(event)
        if is_kernel(event) or index in void:
            continue
        if isinstance(event, PhaseStarted):
            close()
            state = rules.evolve(state, event)
            waiting, acted = frozenset(rules.awaiting(state)), set()
            continue
        state = rules.evolve(state, event)
        for attr in ("actor", "voter"):
            who = getattr(event, attr, None)
            if isinstance(who, str):
                acted.add(who)
    close()
    return out


def render_text(stats: dict[str, Any]) -> str:
    """``pbem stats`` as text."""
    lines = ["Games per type:"]
    lines += [f"  {g}: {n}" for g, n in stats["games"].items()] or ["  (no finished game)"]
    lines.append("Win rate per side:")
    lines += [
        f"  {s['game']} / {s['side']}: {s['won']}/{s['played']} ({s['rate']:.0%})"
        for s in stats["sides"]
    ]
    lines.append("Win rate per role (card dealt):")
    lines += [
        f"  {r['game']} / {r['role']}: {r['won']}/{r['held']} ({r['rate']:.0%})"
        for r in stats["roles"]
    ]
    lines.append("Average length:")
    lines += [
        f"  {g}: {v['phases']} phases" + (f", {v['days']} days" if v["days"] is not None else "")
        for g, v in stats["length"].items()
    ]
    lines.append("On-time rate (commands expected / sent before the deadline):")
    lines += [
        f"  {p['player']} <{p['email']}>: {p['in_time']}/{p['expected']} ({p['rate']:.0%})"
        for p in stats["on_time"]
    ]
    return "\n".join(lines) + "\n"
