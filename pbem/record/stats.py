"""Statistics across finished games (``pbem stats``, the archive index), from their open
records only (pbem/record/export.py; pure): the records ``pbem export`` and ``pbem archive``
write, or the one each archive mail carries, give a player the same figures as the game
master's data directory, because the data directory's games are read through their records
too. docs/record.md documents the figures and the JSON shape (:data:`STATS_VERSION`).

- games per rule set;
- win rate per camp (a camp "played" a game when a seat ended in it, or it won) and per role
  (the card dealt: how often its seat was among the winners), each with its 95 % Wilson
  interval (pbem/figures/wilson.py), and the camps' by player count and by option (only the
  options whose value differs between games of a rule set: the others split nothing). A game
  the game master ended naming no side counts for neither (nobody won nor lost it); a game
  won on score (Dracula's last round) for the cards only (no camp won it);
- length: phases opened and days (a day is each day number a phase opened with, counted from
  1 again in each of Dracula's rounds; the opening's number 0 is not a day);
- per player (his name as seated: a record holds no address): games, wins, survivals, deaths,
  replacements (seats he left to a substitute, seats he took over) and the on-time rate. A
  seat's game counts for whoever held it when (the record's ``cast`` tenure): a substitute
  gets the seat's win, survival and later phases, the replaced player his own phases, no win,
  no survival, and one replacement;
- on time: of the phases in which the rules expected a command from a seat (their ``awaiting``
  list when the phase opened, the list reminders go to), the share in which one of its
  commands was accepted (a command after the deadline is refused and leaves no event), for
  whoever held the seat when the phase closed.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.core.events import Event, PhaseStarted, RolesDealt
from pbem.desk.kernel import is_kernel
from pbem.figures.wilson import wilson

STATS_VERSION = 1
"""The version of ``pbem stats --json``'s shape (docs/record.md, Statistics)."""


def record_stats(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The statistics of the finished games among ``records`` (JSON-able)."""
    per_game: Counter[str] = Counter()
    camps: _Tally = _Tally()
    roles: _Tally = _Tally()
    by_count: _Tally = _Tally()
    by_option: _Tally = _Tally()
    options_seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    per_option: list[tuple[str, dict[str, Any], set[str], str | None]] = []
    phases: dict[str, list[int]] = defaultdict(list)
    days: dict[str, list[int]] = defaultdict(list)
    people: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        result = record.get("result")
        if not result:
            continue  # a running game's record (a game master's --spoilers): not a result
        game = str(record["game"])
        per_game[game] += 1
        events = _decoded(record)
        void = _voided(record["events"])
        ruled = [e for i, e in enumerate(events) if e and i not in void and not is_kernel(e)]
        side = result.get("side")
        winners = set(result.get("winners", []))
        ending = result.get("termination")
        decided = ending != "admin" or bool(side)  # a game master's END with no side: no result
        teams = {str(p["team"]) for p in result.get("players", []) if p.get("team")}
        if side:
            teams.add(str(side))
        if not decided or ending == "match_end":  # Dracula's best score: no camp won
            teams = set()
        count = len(record["setup"]["players"])
        for team in teams:
            camps.add((game, team), team == side)
            by_count.add((game, count, team), team == side)
        options = _options(record)
        for key, value in options.items():
            options_seen[game][key].add(value)
        per_option.append((game, options, teams, side))
        dealt = next((e for e in ruled if isinstance(e, RolesDealt)), None)
        for seat, role in dealt.roles.items() if dealt and decided else ():
            roles.add((game, role), seat in winners)
        opened = [e for e in ruled if isinstance(e, PhaseStarted)]
        phases[game].append(len(opened))
        days[game].append(_days(opened))
        _people(record, events, ruled, people)
    for game, options, teams, side in per_option:  # the options that split this rule set
        for key, value in options.items():
            if len(options_seen[game][key]) > 1:
                for team in teams:
                    by_option.add((game, key, value, team), team == side)
    return {
        "stats_version": STATS_VERSION,
        "records": sum(per_game.values()),
        "games": dict(sorted(per_game.items())),
        "camps": [{"game": g, "camp": c, **figures} for (g, c), figures in camps.rows("played")],
        "roles": [{"game": g, "role": r, **figures} for (g, r), figures in roles.rows("held")],
        "by_players": [
            {"game": g, "players": n, "camp": c, **figures}
            for (g, n, c), figures in by_count.rows("played")
        ],
        "by_option": [
            {"game": g, "option": k, "value": json.loads(v), "camp": c, **figures}
            for (g, k, v, c), figures in by_option.rows("played")
        ],
        "length": {
            g: {
                "games": len(phases[g]),
                "phases": _mean(phases[g]),
                "days": _mean(days[g]),
                "min_days": min(days[g]),
                "max_days": max(days[g]),
                "days_count": {str(d): n for d, n in sorted(Counter(days[g]).items())},
            }
            for g in sorted(per_game)
        },
        "players": [_player(name, c) for name, c in sorted(people.items(), key=_by_name)],
    }


class _Tally:
    """Wins out of games per key, as rows with the rate and its 95 % Wilson interval."""

    def __init__(self) -> None:
        self.played: Counter[tuple[Any, ...]] = Counter()
        self.won: Counter[tuple[Any, ...]] = Counter()

    def add(self, key: tuple[Any, ...], won: bool) -> None:
        self.played[key] += 1
        self.won[key] += won

    def rows(self, total: str) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        return [
            (key, {total: n, "won": self.won[key], **_rate(self.won[key], n)})
            for key, n in sorted(self.played.items(), key=lambda kv: _sortable(kv[0]))
        ]


def _sortable(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, k, "") if isinstance(k, int) else (1, 0, str(k)) for k in key)


def _rate(part: int, whole: int) -> dict[str, float]:
    """``rate`` and its Wilson interval ``low``-``high``, rounded to 0.1 %."""
    low, high = wilson(part, whole)
    rate = part / whole if whole else 0.0
    return {"rate": round(rate, 3), "low": round(low, 3), "high": round(high, 3)}


def _mean(values: Sequence[int]) -> float:
    return round(sum(values) / len(values), 1) if values else 0.0


def _by_name(item: tuple[str, Any]) -> tuple[str, str]:
    """Alphabetical as a reader sorts names: « Élodie » with the E's, not after « Zoé »."""
    bare = unicodedata.normalize("NFD", item[0].casefold())
    return "".join(c for c in bare if not unicodedata.combining(c)), item[0]


_UNREAD = frozenset({"Notice", "DeskNotice", "OrdersReceived"})
"""What the players were told and the stamps of their mails: no figure reads them, and the
rules fold none (a third of a log: not decoding them, 40 bot games' records take 1.4 s
instead of 1.7)."""


def _decoded(record: Mapping[str, Any]) -> list[Event | None]:
    """The record's log as the rules' events, None in place of a notice (positions kept:
    the tenure and the rollbacks count in them); the addresses stay digests (no rule reads
    one)."""
    from pbem.games import rules_for

    codec = rules_for(str(record["game"])).codec
    return [None if e.get("type") in _UNREAD else codec.decode(e) for e in record["events"]]


def _voided(encoded: Sequence[Mapping[str, Any]]) -> set[int]:
    """Positions the log's rollbacks voided (as :func:`pbem.core.events.voided`, on the
    encoded log)."""
    out: set[int] = set()
    for event in encoded:
        if event.get("type") == "RolledBack":
            out.update(range(int(event["start"]), int(event["end"])))
    return out


def _options(record: Mapping[str, Any]) -> dict[str, str]:
    """Every option in force (the opening's, defaults included), each value as canonical
    JSON (a list or a table compares as a whole)."""
    created = next((e for e in record["events"] if e.get("type") == "GameCreated"), None)
    options = (created or {}).get("options") or record["setup"].get("options") or {}
    return {str(k): json.dumps(v, sort_keys=True) for k, v in options.items()}


def _days(opened: Sequence[PhaseStarted]) -> int:
    """The days a game lasted: each day number a phase opened with (Dracula's rounds each
    count theirs from 1 again), the opening's 0 left out."""
    seen: set[tuple[int, int]] = set()
    round_, last = 0, 0
    for event in opened:
        if event.number < last:
            round_ += 1
        last = event.number
        if event.number >= 1:
            seen.add((round_, event.number))
    return len(seen)


def _holders(record: Mapping[str, Any]) -> dict[str, list[tuple[int, str]]]:
    """Per seat, ``(from_index, name)`` of each holder in order (the record's tenure)."""
    return {
        str(seat["seat"]): [(int(h["from_index"]), str(h["name"])) for h in seat["holders"]]
        for seat in record["cast"]
    }


def _holder(tenure: Sequence[tuple[int, str]], index: int) -> str:
    """Who held the seat at log position ``index`` (the last holder who came before it)."""
    name = tenure[0][1]
    for start, who in tenure:
        if start <= index:
            name = who
    return name


def _people(
    record: Mapping[str, Any],
    events: Sequence[Event | None],
    ruled: Sequence[Event],
    people: dict[str, Counter[str]],
) -> None:
    """Add one record's figures per player to ``people`` (see the module's docstring)."""
    result = record["result"]
    seats = _holders(record)
    end = len(events)
    for held in seats.values():
        for i, (_, name) in enumerate(held):
            people[name]["seats"] += 1
            people[name]["substitute"] += i > 0
            people[name]["replaced"] += i < len(held) - 1
    for name in {n for held in seats.values() for _, n in held}:
        people[name]["games"] += 1
    for seated in record["setup"]["players"]:  # the gender he gave, the last one wins
        gender = {"m": 1, "f": 2}.get(str(seated.get("gender")), 0)
        people[str(seated["name"])]["gender"] = gender
    winners = set(result.get("winners", []))
    won: set[str] = set()
    alive: set[str] = set()  # a game counts once for a player who ended holding two seats
    for seat in result.get("players", []):
        tenure = seats.get(str(seat["name"]))
        if not tenure:
            continue
        last = _holder(tenure, end)
        if seat["name"] in winners:
            won.add(last)
        if seat.get("alive"):
            alive.add(last)
    for name in won:
        people[name]["wins"] += 1
    for name in alive:
        people[name]["survived"] += 1
    for death in record.get("deaths", []):
        tenure = seats.get(str(death["player"]))
        if tenure:
            people[_holder(tenure, int(death["index"]))]["died"] += 1
    for seat, expected, acted, index in _punctuality(record, events):
        tenure = seats.get(seat)
        if tenure and expected:
            name = _holder(tenure, index)
            people[name]["expected"] += 1
            people[name]["in_time"] += acted


def _punctuality(
    record: Mapping[str, Any], events: Sequence[Event | None]
) -> list[tuple[str, bool, bool, int]]:
    """``(seat, expected, acted, index)`` for every phase and every seat awaited in it;
    ``index``: where the phase closed in the log (who held the seat then)."""
    from pbem.games import rules_for

    rules = rules_for(str(record["game"]))
    state = rules.new_state()
    out: list[tuple[str, bool, bool, int]] = []
    waiting: frozenset[str] = frozenset()
    acted: set[str] = set()
    void = _voided(record["events"])
    for index, event in enumerate(events):
        if event is None or is_kernel(event) or index in void:
            continue
        if isinstance(event, PhaseStarted):
            out.extend((str(s), True, s in acted, index) for s in sorted(waiting))
            state = rules.evolve(state, event)
            waiting, acted = frozenset(rules.awaiting(state)), set()
            continue
        state = rules.evolve(state, event)
        for attr in ("actor", "voter"):
            who = getattr(event, attr, None)
            if isinstance(who, str):
                acted.add(who)
    out.extend((str(s), True, s in acted, len(events)) for s in sorted(waiting))
    return out


def _player(name: str, c: Counter[str]) -> dict[str, Any]:
    return {
        "player": name,
        "gender": {1: "m", 2: "f"}.get(c["gender"]),
        "games": c["games"],
        "wins": c["wins"],
        **_rate(c["wins"], c["games"]),
        "survived": c["survived"],
        "survival": round(c["survived"] / c["games"], 3) if c["games"] else 0.0,
        "died": c["died"],
        "replaced": c["replaced"],
        "substitute": c["substitute"],
        "expected": c["expected"],
        "in_time": c["in_time"],
        "on_time": round(c["in_time"] / c["expected"], 3) if c["expected"] else None,
    }


def render_text(stats: Mapping[str, Any]) -> str:
    """``pbem stats`` as text (ids as the records spell them; the HTML page names them)."""

    def pct(row: Mapping[str, Any]) -> str:
        return f"{row['rate']:.0%} [{row['low']:.0%}-{row['high']:.0%}]"

    if not stats["games"]:  # not seven empty headings
        return "No finished game yet: nothing to count.\n"
    lines = ["Games per rule set:"]
    lines += [f"  {g}: {n}" for g, n in stats["games"].items()]
    lines.append("Win rate per camp (95 % interval):")
    lines += [
        f"  {s['game']} / {s['camp']}: {s['won']}/{s['played']} {pct(s)}" for s in stats["camps"]
    ]
    lines.append("Win rate per camp and player count:")
    lines += [
        f"  {s['game']} / {s['players']} players / {s['camp']}: {s['won']}/{s['played']} {pct(s)}"
        for s in stats["by_players"]
    ]
    if stats["by_option"]:
        lines.append("Win rate per camp and option (options that differ between games):")
        lines += [
            f"  {s['game']} / {s['option']}={json.dumps(s['value'])} / {s['camp']}: "
            f"{s['won']}/{s['played']} {pct(s)}"
            for s in stats["by_option"]
        ]
    lines.append("Win rate per role (card dealt):")
    lines += [
        f"  {r['game']} / {r['role']}: {r['won']}/{r['held']} {pct(r)}" for r in stats["roles"]
    ]
    lines.append("Length (average):")
    lines += [
        f"  {g}: {v['phases']} phases, {v['days']} days ({v['min_days']}-{v['max_days']})"
        for g, v in stats["length"].items()
    ]
    lines.append("Per player (a replaced seat counts for whoever held it when):")
    for p in stats["players"]:
        on_time = f"{p['in_time']}/{p['expected']}" + (
            f" ({p['on_time']:.0%})" if p["on_time"] is not None else ""
        )
        seats = "".join(
            (
                f", replaced {p['replaced']}x" if p["replaced"] else "",
                f", took over {_n(p['substitute'], 'seat')}" if p["substitute"] else "",
            )
        )
        lines.append(
            f"  {p['player']}: {_n(p['games'], 'game')}, {p['wins']} won ({pct(p)}), "
            f"{p['survived']} alive at the end, {_n(p['died'], 'death')}{seats}, "
            f"on time {on_time}"
        )
    return "\n".join(lines) + "\n"


def _n(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
