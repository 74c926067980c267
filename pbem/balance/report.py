"""What many games say (:func:`analyse`), as a dict (``--json``) and as text (:func:`render`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import mean, median
from typing import Any

from pbem.balance.run import GameResult, Setup
from pbem.figures.wilson import wilson


def rate(wins: int, total: int) -> dict[str, Any]:
    """A proportion with its 95 % Wilson interval."""
    low, high = wilson(wins, total)
    return {
        "wins": wins,
        "of": total,
        "rate": round(wins / total, 4) if total else 0.0,
        "low": round(low, 4),
        "high": round(high, 4),
    }


def analyse(setup: Setup, results: Sequence[GameResult]) -> dict[str, Any]:
    """Win rate per camp, per role (win rate, survival, when they die), game length, first
    deaths by role."""
    sides = Counter(side for r in results for side in r.sides)
    rounds = sum(len(r.sides) for r in results)
    roles: dict[str, dict[str, Any]] = {}
    seats: Counter[str] = Counter()
    won: Counter[str] = Counter()
    alive: Counter[str] = Counter()
    death_days: dict[str, list[int]] = {}
    for r in results:
        for seat in r.seats:
            seats[seat.role] += 1
            won[seat.role] += seat.won
            if seat.died is None:
                alive[seat.role] += 1
            else:
                death_days.setdefault(seat.role, []).append(seat.died)
    for role in sorted(seats, key=lambda x: (-seats[x], x)):
        days = death_days.get(role, [])
        roles[role] = {
            "seats": seats[role],
            "win": rate(won[role], seats[role]),
            "survival": rate(alive[role], seats[role]),
            "death_day_median": float(median(days)) if days else None,
            "death_day_mean": round(mean(days), 2) if days else None,
        }
    lengths = [r.days for r in results]
    firsts = Counter(r.first_death or "none" for r in results)
    return {
        "game": setup.game,
        "players": setup.count,
        "options": dict(setup.options),
        "bots": setup.bots,
        "games": len(results),
        "rounds": rounds,
        "camps": {side: rate(n, rounds) for side, n in sides.most_common()},
        "roles": roles,
        "days": {
            "mean": round(mean(lengths), 2) if lengths else None,
            "median": float(median(lengths)) if lengths else None,
            "min": min(lengths, default=None),
            "max": max(lengths, default=None),
            "histogram": {str(d): n for d, n in sorted(Counter(lengths).items())},
        },
        "first_deaths": {role: n for role, n in firsts.most_common()},
    }


def pct(r: Mapping[str, Any]) -> str:
    """A rate and its 95 % Wilson interval, as the terminal report prints them."""
    return f"{100 * r['rate']:5.1f} % [{100 * r['low']:4.1f}–{100 * r['high']:4.1f}]"


def render(report: Mapping[str, Any]) -> str:
    """The report as a reader wants it on a terminal."""
    per = "rounds" if report["rounds"] != report["games"] else "games"
    lines = [
        f"{report['game']}, {report['players']} players, {report['games']} games, "
        f"{report['bots']} bots" + (f", options {report['options']}" if report["options"] else ""),
        "",
        f"Camp wins (of {report['rounds']} {per}, 95 % Wilson interval)",
    ]
    for side, r in report["camps"].items():
        lines.append(f"  {side:<14} {pct(r)}")
    lines += ["", f"  {'role':<16} {'seats':>7}  {'win':<22} {'survival':<22} died (median day)"]
    for role, r in report["roles"].items():
        died = r["death_day_median"]
        lines.append(
            f"  {role:<16} {r['seats']:>7}  {pct(r['win']):<22} {pct(r['survival']):<22} "
            f"{'-' if died is None else died}"
        )
    d = report["days"]
    lines += [
        "",
        f"Length: {d['mean']} days on average (median {d['median']}, {d['min']} to {d['max']})",
        "First to die: "
        + ", ".join(
            f"{role} {100 * n / report['games']:.0f} %"
            for role, n in list(report["first_deaths"].items())[:6]
        ),
    ]
    return "\n".join(lines) + "\n"


def render_vary(option: str, reports: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """``--vary``: the camps' win rates for each value of one option."""
    sides = sorted({side for _, r in reports for side in r["camps"]})
    lines = [f"Sensitivity to {option} ({reports[0][1]['games']} games each)", ""]
    lines.append(f"  {option:<20} " + " ".join(f"{s:<24}" for s in sides) + " days")
    for value, r in reports:
        cells = []
        for side in sides:
            cell = r["camps"].get(side)
            cells.append(f"{pct(cell) if cell else '-':<24}")
        lines.append(f"  {value:<20} " + " ".join(cells) + f" {r['days']['mean']}")
    return "\n".join(lines) + "\n"
