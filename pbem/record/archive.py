"""The archive of a game: the story a game master posts at the end, as one self-contained
HTML page and a plain-text version, in the reader's language.

:func:`archive_model` reads a game's setup and event log (no I/O: the daemon's store, a
``pbem simulate`` table or a bot game all give the same) and returns what the templates under
``templates/<lang>/archive/`` tell: the cast with their cards, deaths and winners; every
phase with what happened in it (deaths as the game's own words say them, card changes, what
each night power aimed at and what stopped it, the orders players sent, every public post and
every private exchange in full); a vote timeline per ballot (each vote and change with its
time, the moment a majority formed, the final tally); the game master's acts (pause,
extension, rollback, removal, replacement); and the deal's reveal (pbem/record/deal.py).

Nothing in the model is an event class name, an internal id or an ISO timestamp: ids are
named through the game's own ``_names.jinja`` macros, times are formatted by the templates
(``when``), and an event the archive has no words for is left to the posts that tell it.
The HTML is rendered with autoescaping on (every name and text in it was written by a
player) and needs no JavaScript: CSS inline, private mails in ``<details>``, charts as inline
SVG with the same figures in a table beside them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import jinja2

from pbem.core.commands import Word
from pbem.core.events import (
    ActionCleared,
    DeadlineMoved,
    DeskNotice,
    Event,
    GameEnded,
    Notice,
    Paused,
    PhaseClosed,
    PhaseStarted,
    PlayerDied,
    Resolved,
    Resumed,
    RoleChanged,
    RolesDealt,
    RolledBack,
    SeatRemoved,
    Substituted,
    VoteSet,
    voided,
)
from pbem.mail.dates import MONTHS, day_of_month
from pbem.mail.grammar import agree, agree_all
from pbem.mail.render import Renderer, join_names, shared_renderer, templates_root
from pbem.record.deal import reveal
from pbem.record.story import DAY_PHASES, NIGHT_PHASES, RUNNING_POSTS, phase_marks
from pbem.table import Table

# Private notices that are prompts, reminders or the deal's cards: the archive keeps results
# and exchanges (the pack's chat, the council's, telepathy), not what a player was asked.
_QUIET = re.compile(r"(_prompt|_reminder|^role|^status|^defaults|^idle_\w+|^your_orders)$")
_VERDICTS = frozenset({"lynch", "burned"})
"""Deaths the village's vote decided (the Idiot's pyre included, LG-D18)."""
# The header counts the nights and days that actually began (a game stopped in night 1 had no
# day): NIGHT_PHASES and DAY_PHASES (pbem.record.story); Dracula counts its rounds instead.
BAR_WIDTH = 200
"""The width in px of the longest bar of a tally chart."""
ROW = 40
"""The height in px of one row of a tally chart: the name's line, and its bar under it."""


def archive_model(table: Table, lang: str | None = None) -> dict[str, Any]:
    """What the archive templates render, from a table's setup and log (pure)."""
    lang = lang or table.setup.lang
    rules = table.rules
    renderer = table.renderer
    summary = table.summary()
    genders = dict(table.genders)
    names = GameNames(renderer, rules.templates, lang, genders)
    keywords = {s.verb: s.keyword(lang) for s in rules.all_commands}
    words = {  # how a reply restates a word a player chose (« SALLE DE BAL », never ballroom)
        (s.verb, value): arg.label(value, lang)
        for s in rules.all_commands
        for arg in s.args
        if isinstance(arg, Word)
        for value in arg.labels
    }
    initial: dict[str, str] = {}
    changes: list[dict[str, Any]] = []
    deaths: dict[str, dict[str, Any]] = {}
    phases: list[dict[str, Any]] = []
    opening = _phase("setup", 0, None)
    current = opening
    rounds_game = "round" in summary  # Dracula: a game of rounds, each counting its days from 1
    round_number = 1 if rounds_game else 0
    alive = {str(p.name) for p in table.setup.players}
    ended: GameEnded | None = None
    void = voided(table.events)
    in_force: dict[tuple[str, datetime], datetime] = {}  # a deadline the game master moved
    paused = False  # a CLORE in a pause pauses the phase it opens: the game stays paused
    orders = _Orders(keywords, rules.id in _PASS_WITHDRAWS)
    events = table.events
    for index, event in enumerate(events):
        if index in void:  # a rolled-back resolution; the game master's close stays told
            if isinstance(event, PhaseClosed) and event.at is not None:
                current["entries"].append({"kind": "desk", "act": "closed", "at": event.at})
            continue
        if isinstance(event, PhaseStarted):
            _close(current)
            orders.standing.clear()  # a phase's orders end with it
            if rounds_game and phases and event.number < phases[-1]["number"]:
                round_number += 1  # the days count from 1 again: a new round
            current = _phase(event.phase, event.number, _last(event.deadlines), round_number)
            current["due"] = dict(event.deadlines)
            current["living"] = len(alive)  # a majority counts those alive as the phase opens
            phases.append(current)
        elif isinstance(event, RolesDealt):
            initial.update({p: names.role(r) for p, r in event.roles.items()})
        elif isinstance(event, VoteSet):
            _vote(current, event)
        elif isinstance(event, ActionCleared):
            left = event.actor not in alive  # a removed seat's orders, withdrawn with it
            orders.withdraw(current, event.actor, (event.verb,), events, index + 1, left)
        elif isinstance(event, PlayerDied):
            alive.discard(str(event.player))
            death = {
                "cause": event.cause,
                "phase": current["phase"],
                "number": current["number"],
                "round": current["round"],
            }
            deaths[event.player] = death
            fate = names.death(event.player, event.cause, death)
            current["entries"].append(
                {"kind": "death", "player": event.player, "fate": fate, "cause": event.cause}
            )
        elif isinstance(event, RoleChanged):
            new_role = names.role(event.role)
            change = {"player": event.player, "role": new_role, **_when(current)}
            changes.append(change)
            current["entries"].append({"kind": "card", "player": event.player, "role": new_role})
        elif isinstance(event, Resolved):
            # what each power aimed at, told before the deaths and cards it caused (logged
            # just before the resolution's trace)
            told = current["entries"]
            at = len(told)
            while at and told[at - 1]["kind"] in _AFTERMATH:
                at -= 1
            told[at:at] = [_intent(entry, names) for entry in event.trace]
        elif isinstance(event, GameEnded):
            ended = event
        elif isinstance(event, DeskNotice):
            if event.template == "absence/extended":  # the moves just before it: an absence's
                _for_absence(current["entries"], event.params.get("players", ()))
            act = _desk_notice(event)
            if act is not None:
                current["entries"].append(act)
        elif isinstance(event, Notice):
            item = _notice(event, table, renderer, lang)
            if item is not None:
                current["entries"].append(item)
        elif isinstance(event, Paused | Resumed | DeadlineMoved | RolledBack | PhaseClosed):
            act = _desk_act(event, in_force)
            if isinstance(event, Paused | Resumed):
                if isinstance(event, Paused) and paused and act is not None:
                    act["act"] = "still_paused"  # not a second pause the game master asked
                paused = isinstance(event, Paused)
            if isinstance(event, DeadlineMoved) and event.key in current.get("due", {}):
                current["due"][event.key] = event.to  # the phase ran to the deadline in force
                current["deadline"] = _last(current["due"])
            if act is not None:
                current["entries"].append(act)
        elif isinstance(event, SeatRemoved):
            by = "idle" if event.by == "idle" else "gm"
            current["entries"].append(
                {
                    "kind": "desk",
                    "act": "removed",
                    "player": event.player,
                    "reason": event.reason,
                    "by": by,
                }
            )
        elif isinstance(event, Substituted):
            current["entries"].append(
                {"kind": "desk", "act": "replaced", "player": event.old_name, "by_name": event.name}
            )
        elif _withdrawn_verbs(event):  # Dracula's ANNULER, or a new order replacing (AMB-007)
            actor = str(getattr(event, "actor", ""))
            verbs = _withdrawn_verbs(event)
            orders.withdraw(current, actor, verbs, events, index + 1, False)
        else:
            action = _action(event, keywords, words, names)
            if action is not None:
                orders.sent(current, action)
            elif orders.pass_withdraws and getattr(event, "verb", None) == "pass":
                orders.passed(current, str(getattr(event, "actor", "")))
    _close(current)
    handed = _hand_overs(table.events, rounds_game)
    winners = list(ended.winners) if ended else []
    first_genders = {str(p.name): p.gender for p in table.setup.players if p.gender}
    said = {str(name): gender for name, gender in genders.items()}  # the seats' holders now
    cast = []
    for seat in summary.get("players", []):
        name = seat["name"]
        fell = deaths.get(name)
        cast.append(
            {
                "name": name,
                # a game dealt anew each round (Dracula) tells its last deal in the summary
                "initial": initial.get(
                    name, names.role(str(seat.get("dealt", seat.get("role", "—"))), said.get(name))
                ),
                "role": names.role(str(seat.get("role", "—")), said.get(name)),
                "team": names.side(str(seat.get("team", "—"))),
                "alive": bool(seat.get("alive")),
                "fate": names.death(name, fell["cause"], fell) if fell else None,
                "winner": name in winners,
                "conditions": [names.condition(str(c)) for c in seat.get("conditions", [])],
                "score": summary.get("scores", {}).get(name),
                "holders": handed.get(name, []),
                # who was replaced agrees with the first holder, the seat with its newcomer
                "first_gender": first_genders.get(name),
            }
        )
    shown = reveal(table.ruled, rules.codec.encode, rules.id)
    nights = {max(ph["number"], 1) for ph in phases if ph["phase"] in NIGHT_PHASES}
    days = {ph["number"] for ph in phases if ph["phase"] in DAY_PHASES}
    return {
        "lang": lang,
        "genders": genders,
        "game": rules.title,
        "game_id": table.game_id,
        "rules_id": rules.id,
        "players": len(cast),
        "cast": cast,
        "has_scores": "scores" in summary,
        "setup": opening,
        "phases": phases,
        "changes": changes,
        "rounds": round_number if rounds_game else 0,
        "days": 0 if rounds_game else len(days),
        "nights": 0 if rounds_game else len(nights),
        "last_phase": _when(phases[-1]) if phases else None,
        "ended": ended is not None,
        "termination": ended.termination.value if ended else None,
        "side": names.side(ended.side) if ended and ended.side else None,
        "winners": winners,
        "reveal": shown.to_json() if shown else None,
        "verifies": shown.verifies if shown else None,
        "recipe": shown.recipe if shown else None,
        "leftover": [names.role(str(r)) for r in summary.get("leftover", [])],
    }


def named_summary(table: Table, lang: str | None = None) -> dict[str, Any]:
    """The table's summary with each role and side named as the game's templates name them
    in ``lang`` (« Voyante » for a woman, « les Villageois », never ``seer``): for a summary an
    operator reads (the demos)."""
    lang = lang or table.setup.lang
    genders = dict(table.genders)
    names = GameNames(table.renderer, table.rules.templates, lang, genders)
    summary = table.summary()
    players = [
        {
            **seat,
            "role": names.role(str(seat.get("role", "—")), genders.get(str(seat.get("name")))),
            "team": names.side(str(seat.get("team", "—"))),
        }
        for seat in summary.get("players", [])
    ]
    side = summary.get("side")
    return {**summary, "players": players, "side": names.side(str(side)) if side else side}


_PASS_WITHDRAWS = frozenset({"lupus-in-tabula", "chasse-aux-sorcieres"})
"""The games whose ``RIEN``/``PASS`` takes back the actor's orders of the night (LUP-603,
CAS-603: pbem.games.village.state.record_action); Loup-Garou keeps it beside them (LG-603)."""
_AFTERMATH = frozenset({"death", "card", "public", "private"})
"""What a resolution logs before its trace: the deaths and cards it caused, their mails."""
_FOLLOWING = frozenset({"Moved"})
"""Events a withdrawal logs with it before an order that replaces the withdrawn one (Dracula:
the objects it consumed go back to the hand)."""


class _Orders:
    """Which of a phase's orders stood at its end (LUP-603, LG-603, CAS-603, AMB-007): each
    order a player sent is kept in the story's log, and one that a later order of the same
    kind replaced, or that ANNULER withdrew, is marked so (``void``): the reader sees what
    counted without losing what was sent."""

    def __init__(self, keywords: Mapping[str, str], pass_withdraws: bool) -> None:
        self.keywords = keywords
        self.pass_withdraws = pass_withdraws
        self.standing: dict[tuple[str, str], dict[str, Any]] = {}

    def sent(self, phase: dict[str, Any], action: dict[str, Any]) -> None:
        """An order sent: it replaces the actor's standing order of that kind."""
        key = (action["actor"], action["order"])
        earlier = self.standing.get(key)
        if earlier is not None:
            earlier["void"] = "replaced"
        if self.pass_withdraws:  # an order after RIEN: the RIEN is replaced (LUP-603)
            passed = self.standing.pop((action["actor"], ""), None)
            if passed is not None:
                passed["void"] = "replaced"
        self.standing[key] = action
        phase["entries"].append(action)

    def passed(self, phase: dict[str, Any], actor: str) -> None:
        """``RIEN`` where it takes back the actor's orders: told when it took one back."""
        mine = [key for key in self.standing if key[0] == actor]
        if not mine:
            return
        for key in mine:
            self.standing.pop(key)["void"] = "replaced"
        line: dict[str, Any] = {"kind": "action", "actor": actor, "verb": self.keywords["pass"]}
        line |= {"targets": [], "word": "", "text": "", "default": False}
        line |= {"order": "pass", "void": None}
        self.standing[(actor, "")] = line
        phase["entries"].append(line)

    def withdraw(
        self,
        phase: dict[str, Any],
        actor: str,
        verbs: Sequence[str],
        events: Sequence[Event],
        after: int,
        left: bool,
    ) -> None:
        """``actor``'s orders ``verbs`` withdrawn: replaced when an order of his follows at
        once in the log (Chasse's PRENDRE for GARDER, CAS-603; Dracula's new order, AMB-007),
        else cancelled (his ANNULER, told as he sent it), or gone with his seat (``left``)."""
        while after < len(events) and type(events[after]).__name__ in _FOLLOWING:
            after += 1
        following = events[after] if after < len(events) else None
        then = getattr(following, "verb", None)
        replaced = (  # by an order the story shows: never RIEN, which replaces nothing here
            getattr(following, "actor", None) == actor
            and isinstance(then, str)
            and then != "pass"
            and then.partition("#")[0] in self.keywords
        )
        for verb in verbs:
            order = self.standing.pop((actor, verb), None)
            if order is not None:
                order["void"] = "replaced" if replaced else "left" if left else "cancelled"
        shown = [self.keywords[v] for v in verbs if v in self.keywords]
        if shown and not (replaced or left):
            # as he sent it: « ANNULER TUER », the line a reader can match with the receipt
            verb = f"{self.keywords.get('cancel', '')} {shown[0]}".strip()
            phase["entries"].append({"kind": "cleared", "actor": actor, "verb": verb, "void": None})


def _withdrawn_verbs(event: Event) -> tuple[str, ...]:
    """The verbs a withdrawal event takes back (Dracula's ``Withdrawn``, AMB-007), read by
    its fields: the record imports no game."""
    verbs = getattr(event, "verbs", None)
    if isinstance(verbs, tuple) and isinstance(getattr(event, "actor", None), str):
        return verbs
    return ()


class GameNames:
    """The game's ids as its own templates name them (``seer`` -> « Voyant »), through the
    macros of its ``_names.jinja``, with the players' genders for the death wording."""

    def __init__(self, renderer: Renderer, folder: str, lang: str, genders: Mapping[str, str]):
        try:
            template = renderer.envs[lang].get_template(f"{folder}/_names.jinja")
            self.module: Any = template.make_module({"genders": genders})
        except jinja2.TemplateError:
            self.module = None

    def _call(self, macros: Sequence[str], *args: Any) -> str | None:
        for name in macros:
            macro = getattr(self.module, name, None)
            if macro is None:
                continue
            try:
                text = str(macro(*args)).strip()
            except (jinja2.TemplateError, KeyError, TypeError, AttributeError):
                continue
            if text and text != str(args[0]):
                return text
        return None

    def role(self, value: str, gender: str | None = None) -> str:
        """The card's name; agreeing with ``gender`` where the game's macro takes one
        (« humaine »), its plain name otherwise."""
        if gender is not None and (agreed := self._call(("role",), value, gender)) is not None:
            return agreed
        return self._call(("role",), value) or value

    def side(self, value: str) -> str:
        """The side's short name in the game's words, or ``value`` where it has none."""
        return self._call(("team_short", "side", "team"), value) or value

    def condition(self, value: str) -> str:
        """A condition's name (a lover, Penny) in the game's words, or ``value``."""
        return self._call(("cond",), value) or value

    def thing(self, value: str) -> str | None:
        """A role, an object or a room by its name in the game; None when it has none."""
        return self._call(("role", "object", "room", "side", "power"), value)

    def obstacle(self, value: str) -> str | None:
        """What stopped a night power (a card, an object), with its article where the game
        has one (« l'Ancien », « le crucifix »)."""
        return self._call(("le", "object", "role", "room"), value)

    def stopped(self, value: str, target: str) -> str | None:
        """Why a night power aimed at ``target`` failed, said whole where the game has words
        for it (Dracula: a bite on a vampire is wasted, DRA-115); None: name the obstacle."""
        return self._call(("stopped",), value, target)

    def death(self, player: str, cause: str, death: Mapping[str, Any]) -> str:
        """How ``player`` died, said in the game's words; empty where it has none."""
        seat = {"name": player, "cause": cause, "death": dict(death)}
        return self._call(("death",), seat) or ""


def _phase(phase: str, number: int, deadline: datetime | None, round_: int = 0) -> dict[str, Any]:
    """A phase of the story; ``round_``: its round in a game of rounds (Dracula), else 0.
    The templates name it as players read it (``archive/_phases.jinja``: « Nuit 2 »)."""
    return {
        "phase": phase,
        "number": number,
        "round": round_,
        "deadline": deadline,
        "entries": [],
        "ballots": {},
        "votes": [],
        "living": 0,
    }


def _when(phase: Mapping[str, Any]) -> dict[str, Any]:
    return {"phase": phase["phase"], "number": phase["number"], "round": phase["round"]}


def _last(deadlines: Mapping[str, datetime]) -> datetime | None:
    return max(deadlines.values()) if deadlines else None


def _vote(phase: dict[str, Any], event: VoteSet) -> None:
    """One line of the ballot's timeline: the vote, the one it replaced, its time."""
    ballot = phase["ballots"].setdefault(event.ballot, {"standing": {}, "moves": []})
    previous = ballot["standing"].get(event.voter)
    ballot["standing"][event.voter] = event.target
    ballot["moves"].append(
        {"at": event.at, "voter": event.voter, "target": event.target, "previous": previous}
    )


def _close(phase: dict[str, Any]) -> None:
    """The phase's ballots as timelines (each move with the tally after it and the moment a
    majority of the living formed) and final tallies (the last vote of each voter)."""
    living = phase["living"]
    for ballot, data in phase["ballots"].items():
        standing: dict[str, str | None] = {}
        timeline = []
        had_majority = False
        for move in data["moves"]:
            standing[move["voter"]] = move["target"]
            counts = _counts(standing)
            leader = counts[0] if counts else None
            majority = leader is not None and leader[1] * 2 > living
            timeline.append(
                {
                    **move,
                    "leader": leader[0] if leader else None,
                    "count": leader[1] if leader else 0,
                    "majority": majority and not had_majority,
                }
            )
            had_majority = majority
        tally = _counts(standing)
        top = tally[0][1] if tally else 1
        bars = [
            {"name": n, "count": c, "width": max(4, round(BAR_WIDTH * c / top)), "y": ROW * i}
            for i, (n, c) in enumerate(tally)
        ]
        rows = sorted(((v, t) for v, t in standing.items() if t is not None), key=_alpha)
        if ballot != "mayor":  # the village's verdict: its death line gives the tally
            for entry in phase["entries"]:
                if entry["kind"] == "death" and entry.get("cause") in _VERDICTS:
                    entry["tally"] = [{"name": n, "count": c} for n, c in tally]
        phase["votes"].append(
            {
                "ballot": "mayor"
                if ballot == "mayor"
                else ballot
                if ballot in ("round1", "round2")
                else "village",
                "timeline": timeline,
                "rows": [{"voter": v, "target": t} for v, t in rows],
                "tally": bars,
                "living": living,
                "height": ROW * len(bars) + 4,
            }
        )


def _alpha(row: tuple[str, Any]) -> tuple[str, str]:
    """Alphabetical as a reader sorts names: « Élodie » with the E's, not after « Zoé »."""
    bare = unicodedata.normalize("NFD", row[0].casefold())
    return "".join(c for c in bare if not unicodedata.combining(c)), row[0]


def _counts(standing: Mapping[str, str | None]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for target in standing.values():
        if target is not None:
            counts[target] = counts.get(target, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _intent(entry: Mapping[str, Any], names: GameNames) -> dict[str, Any]:
    """A night power's aim and its outcome (the resolution loop's trace), named."""
    vetoed = entry.get("vetoed_by")
    return {
        "kind": "intent",
        "intent": str(entry.get("kind", "")),
        "cause": str(entry.get("cause", "")),
        "target": str(entry.get("target", "")),
        "actors": list(entry.get("actors") or []),
        "stopped": vetoed is not None,
        "by": names.obstacle(str(vetoed)) if vetoed else None,
        "why": names.stopped(str(vetoed), str(entry.get("target", ""))) if vetoed else None,
    }


def _action(
    event: Event,
    keywords: Mapping[str, str],
    words: Mapping[tuple[str, str], str],
    names: GameNames,
) -> dict[str, Any] | None:
    """An order a player sent (``ActionSet``, Dracula's ``Order``), as he would type it in the
    reader's language; None for any other event (the posts tell those)."""
    actor, order = getattr(event, "actor", None), getattr(event, "verb", None)
    if not (isinstance(actor, str) and isinstance(order, str)):
        return None
    verb = order.partition("#")[0]  # Dracula's second reply to a waltz: « reply#2 » (AMB-058)
    if verb not in keywords:
        return None
    if verb == "pass":  # « RIEN »: nothing to tell
        return None
    word = getattr(event, "word", None)
    shown_word = (words.get((verb, str(word))) or names.thing(str(word)) or "") if word else ""
    return {
        "kind": "action",
        "actor": actor,
        "verb": keywords[verb],
        "targets": list(getattr(event, "targets", ()) or ()),
        "word": shown_word,
        "text": str(getattr(event, "text", "") or ""),
        "default": bool(getattr(event, "default", False)),
        "order": order,  # the order's kind: a later one of the same replaces it (LUP-603)
        "void": None,  # or why it did not stand at the phase's end (_Orders)
    }


def _desk_act(
    event: Event, in_force: dict[tuple[str, datetime], datetime]
) -> dict[str, Any] | None:
    """The game master's act on the clock or the log (kernel events). A moved deadline
    reads from the one in force before the move (``in_force``: the rules' deadline -> where
    earlier moves put it), never the rules' own after a second move."""
    if isinstance(event, Paused):
        return {"kind": "desk", "act": "paused", "at": event.at}
    if isinstance(event, Resumed):
        return {"kind": "desk", "act": "resumed", "at": event.at}
    if isinstance(event, DeadlineMoved):
        before = in_force.get((event.key, event.due), event.due)
        in_force[(event.key, event.due)] = event.to
        if event.to != before:  # a resume may move by 0
            return {"kind": "desk", "act": "moved", "due": before, "to": event.to, "absent": []}
        return None
    if isinstance(event, RolledBack):
        return {"kind": "desk", "act": "rolled_back", "count": event.end - event.start}
    if isinstance(event, PhaseClosed) and event.at is not None:
        return {"kind": "desk", "act": "closed", "at": event.at}
    return None


def _for_absence(entries: list[dict[str, Any]], players: Sequence[str]) -> None:
    """The deadline moves just logged were the declared absence's of ``players`` (issue 25,
    ``absence_mode = "extend"``), not the game master's own act: the archive says so."""
    for entry in reversed(entries):
        if entry.get("kind") != "desk" or entry.get("act") != "moved":
            break
        entry["absent"] = list(players)


def _desk_notice(event: DeskNotice) -> dict[str, Any] | None:
    """What the game master said with an act: why he paused, his announcements."""
    base = event.template.rpartition("/")[2]
    if base == "paused" and event.params.get("reason"):
        return {"kind": "desk", "act": "reason", "text": str(event.params["reason"])}
    if base == "announce":
        return {"kind": "desk", "act": "announce", "text": str(event.params.get("text", ""))}
    return None


def _notice(event: Notice, table: Table, renderer: Renderer, lang: str) -> dict[str, Any] | None:
    """A post to the list or a private mail, whole, as its readers got it."""
    base = event.template.rpartition("/")[2]
    if event.public and base in RUNNING_POSTS:
        return None
    if not event.public and (_QUIET.search(base) or not event.to):
        return None
    params = table.roster.show(
        {
            "game": table.rules.title,
            "genders": table.genders,
            "thread": event.thread,
            **event.params,
        }
    )
    if not event.public:
        params = {"name": table.roster.shown(event.to[0]), **params}
    try:
        subject, body = renderer.mail(event.template, lang, params)
    except jinja2.TemplateError:
        return None
    return {
        "kind": "public" if event.public else "private",
        "to": list(event.to),
        "subject": _strip_tag(subject),
        "body": body.strip("\n"),
    }


def _strip_tag(subject: str) -> str:
    """``[Lupus in Tabula] Day 2: dawn`` -> ``Day 2: dawn``."""
    return re.sub(r"^\[[^\]]*\]\s*", "", subject)


def _hand_overs(events: Sequence[Event], rounds: bool) -> dict[str, list[dict[str, Any]]]:
    """Per seat, who took it over and in which phase (issue 13: ``Substituted``, a kernel
    event the rules never fold), so the cast says « Bob (remplacé par Carole, Jour 2) »
    rather than showing the first holder alone. ``rounds``: as :func:`archive_model` counts
    Dracula's rounds (the days count from 1 again)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event, mark in zip(events, phase_marks(events, rounds), strict=True):
        if isinstance(event, Substituted):
            entry = {"name": event.name, "phase": mark.phase, "number": mark.number}
            out.setdefault(str(event.seat), []).append({**entry, "round": mark.round})
    return out


def _clock(renderer: Renderer, value: datetime | None, lang: str, html: bool = False) -> str:
    """A vote's time, short enough for a phone's table cell: « 9 janvier 18:04 » in the
    game's timezone; « — » when the log has none (a vote the rules withdrew). ``html``: the
    day and its month held together (a narrow cell wraps before the hour only)."""
    if value is None:
        return "—"
    local = value.astimezone(renderer.tz)
    clock = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"
    month = MONTHS[lang][local.month - 1]
    space = "\u00a0" if html else " "
    if lang == "fr":
        return f"{day_of_month(local.day, lang)}{space}{month} {clock}"
    return f"{month}{space}{local.day}, {clock}"


@functools.lru_cache(maxsize=16)
def _env(lang: str, html: bool, renderer: Renderer) -> jinja2.Environment:
    """The archive templates' environment (compiled once per renderer: its timezone)."""
    env = jinja2.Environment(
        # the language's texts, then the one copy of what no language changes (CSS, charts)
        loader=jinja2.FileSystemLoader(
            [templates_root() / lang / "archive", templates_root() / "shared" / "archive"]
        ),
        undefined=jinja2.StrictUndefined,
        autoescape=html,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = lambda value: renderer.when(value, lang)
    env.filters["clock"] = lambda value: _clock(renderer, value, lang, html)
    env.filters["names"] = lambda value: join_names(value, lang)
    env.filters["g"] = agree  # agreement with a player's gender (pbem/mail/grammar.py)
    env.filters["g_all"] = agree_all  # and with a group's (« Gagnantes »)
    return env


def render_html(model: Mapping[str, Any], renderer: Renderer | None = None) -> str:
    """The HTML archive (autoescaped: names and texts come from players)."""
    renderer = renderer or shared_renderer()
    return _env(model["lang"], True, renderer).get_template("archive.html").render(**model)


def render_text(model: Mapping[str, Any], renderer: Renderer | None = None) -> str:
    """The plain-text archive."""
    renderer = renderer or shared_renderer()
    text = _env(model["lang"], False, renderer).get_template("archive.txt").render(**model)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"


def archive_files(table: Table, lang: str | None = None) -> dict[str, str]:
    """``{"html": ..., "text": ..., "deal": ...}``: the archive's files for a table."""
    import json

    model = archive_model(table, lang)
    files = {"html": render_html(model, table.renderer), "text": render_text(model, table.renderer)}
    if model["reveal"] is not None:
        files["deal"] = json.dumps(model["reveal"], indent=1, ensure_ascii=False) + "\n"
    return files
