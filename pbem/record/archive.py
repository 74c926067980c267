"""The archive of a game: one self-contained HTML page and a plain-text version.

:func:`archive_model` reads a game's setup and event log (no I/O: the daemon's store, a
``pbem simulate`` table or a bot game all give the same) and returns what the templates under
``templates/<lang>/archive/`` show: the cast and their cards, a timeline of every phase (the
actions, what the night loop's trace says became of each intent and which hook stopped it,
the notices the rules sent, the votes with their tally, the deaths and card changes), the
winners, and the deal's reveal (pbem/record/deal.py). The HTML is rendered with autoescaping on
(every name and text in it was written by a player) and needs no JavaScript: CSS inline,
the tallies as inline SVG.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import jinja2

from pbem.core.events import (
    ActionCleared,
    DealCommitted,
    Event,
    GameCreated,
    GameEnded,
    Notice,
    PhaseStarted,
    PlayerDied,
    Resolved,
    RoleChanged,
    RolesDealt,
    Substituted,
    VoteSet,
)
from pbem.mail.grammar import agree
from pbem.mail.render import Renderer, join_names, shared_renderer, templates_root
from pbem.record.deal import reveal
from pbem.table import Table

# Private notices that are prompts, chats or reminders: the archive keeps results, not chatter.
_QUIET = re.compile(r"(_prompt|_chat|_relay|^role|^status|^defaults|_reminder|^telepathy)$")
# Bookkeeping events that say nothing a reader wants (who posted, when a tally was posted).
_NOISE = frozenset({"Posted", "TallyPosted"})
BAR_WIDTH = 220
"""The width in px of the longest bar of a tally chart."""


def archive_model(table: Table, lang: str | None = None) -> dict[str, Any]:
    """What the archive templates render, from a table's setup and log (pure)."""
    lang = lang or table.setup.lang
    rules = table.rules
    renderer = table.renderer
    summary = table.summary()
    keywords = {s.verb: s.keyword(lang) for s in rules.all_commands}
    role = _namer(renderer, rules.templates, lang, ("role",))
    side = _namer(renderer, rules.templates, lang, ("team_short", "side", "team"))
    condition = _namer(renderer, rules.templates, lang, ("cond",))
    initial: dict[str, str] = {}
    changes: list[dict[str, str]] = []
    deaths: dict[str, dict[str, Any]] = {}
    phases: list[dict[str, Any]] = []
    opening: dict[str, Any] = _phase("setup", 0, None)
    current = opening
    rounds = "round" in summary  # Dracula: a game of rounds, each counting its days from 1
    round_number = 1 if rounds else 0
    ended: GameEnded | None = None
    for event in table.ruled:
        if isinstance(event, PhaseStarted):
            _close(current)
            if rounds and phases and event.number < phases[-1]["number"]:
                round_number += 1  # the days count from 1 again: a new round
            current = _phase(event.phase, event.number, _first(event.deadlines), round_number)
            phases.append(current)
            continue
        if isinstance(event, GameCreated | DealCommitted):
            continue
        if isinstance(event, RolesDealt):
            initial.update({p: role(r) for p, r in event.roles.items()})
            continue
        if isinstance(event, VoteSet):
            current["ballots"].setdefault(event.ballot, {})[event.voter] = event.target
            continue
        if isinstance(event, ActionCleared):
            current["entries"].append(
                {
                    "kind": "cleared",
                    "actor": event.actor,
                    "verb": keywords.get(event.verb, event.verb),
                }
            )
            continue
        if isinstance(event, PlayerDied):
            deaths[event.player] = {
                "cause": event.cause,
                "phase": current["phase"],
                "number": current["number"],
                "round": current["round"],
            }
            current["entries"].append(
                {"kind": "death", "player": event.player, "cause": event.cause}
            )
            continue
        if isinstance(event, RoleChanged):
            new_role = role(event.role)
            changes.append(
                {
                    "player": event.player,
                    "role": new_role,
                    "phase": current["phase"],
                    "number": current["number"],
                    "round": current["round"],
                }
            )
            current["entries"].append({"kind": "card", "player": event.player, "role": new_role})
            continue
        if isinstance(event, Resolved):
            for entry in event.trace:
                current["entries"].append(
                    {
                        "kind": "intent",
                        "intent": str(entry.get("kind", "")),
                        "target": str(entry.get("target", "")),
                        "cause": str(entry.get("cause", "")),
                        "actors": list(entry.get("actors") or []),
                        "vetoed_by": entry.get("vetoed_by"),
                    }
                )
            continue
        if isinstance(event, GameEnded):
            ended = event
            continue
        if isinstance(event, Notice):
            item = _notice(event, table, renderer, lang)
            if item is not None:
                current["entries"].append(item)
            continue
        if type(event).__name__ in _NOISE:
            continue
        actor, verb = getattr(event, "actor", None), getattr(event, "verb", None)
        if isinstance(actor, str) and isinstance(verb, str):  # ActionSet, Dracula's Order
            current["entries"].append(
                {
                    "kind": "action",
                    "actor": actor,
                    "verb": keywords.get(verb, verb),
                    "targets": list(getattr(event, "targets", ()) or ()),
                    "word": getattr(event, "word", None) or "",
                }
            )
            continue
        current["entries"].append(
            {"kind": "fact", "name": _words(type(event).__name__), "fields": _fields(event)}
        )
    _close(current)
    handed = _hand_overs(table.events, rounds)
    cast = []
    for seat in summary.get("players", []):
        name = seat["name"]
        cast.append(
            {
                "name": name,
                "initial": initial.get(name, role(str(seat.get("role", "—")))),
                "role": role(str(seat.get("role", "—"))),
                "team": side(str(seat.get("team", "—"))),
                "alive": bool(seat.get("alive")),
                "death": deaths.get(name),
                "conditions": [condition(str(c)) for c in seat.get("conditions", [])],
                "score": summary.get("scores", {}).get(name),
                "holders": handed.get(name, []),
            }
        )
    shown = reveal(table.ruled, rules.codec.encode, rules.id)
    return {
        "lang": lang,
        "genders": {str(p.name): p.gender for p in table.setup.players if p.gender},
        "game": rules.title,
        "game_id": table.game_id,
        "rules_id": rules.id,
        "players": len(cast),
        "cast": cast,
        "has_scores": "scores" in summary,
        "setup": opening,
        "phases": phases,
        "changes": changes,
        "days": summary.get("day"),
        "ended": ended is not None,
        "termination": ended.termination.value if ended else None,
        "side": side(ended.side) if ended and ended.side else None,
        "winners": list(ended.winners) if ended else [],
        "reveal": shown.to_json() if shown else None,
        "verifies": shown.verifies if shown else None,
        "recipe": shown.recipe if shown else None,
        "leftover": [role(str(r)) for r in summary.get("leftover", [])],
    }


def _hand_overs(events: Sequence[Event], rounds: bool) -> dict[str, list[dict[str, Any]]]:
    """Per seat, who took it over and in which phase (issue 13: ``Substituted``, a kernel
    event the rules never fold), so the cast says « Bob (remplacé par Carole, Jour 2) »
    rather than showing the first holder alone. ``rounds``: as :func:`archive_model` counts
    Dracula's rounds (the days count from 1 again)."""
    out: dict[str, list[dict[str, Any]]] = {}
    phase, number, round_ = "setup", 0, 1 if rounds else 0
    for event in events:
        if isinstance(event, PhaseStarted):
            if rounds and phase != "setup" and event.number < number:
                round_ += 1
            phase, number = event.phase, event.number
        elif isinstance(event, Substituted):
            entry = {"name": event.name, "phase": phase, "number": number, "round": round_}
            out.setdefault(str(event.seat), []).append(entry)
    return out


def _namer(
    renderer: Renderer, folder: str, lang: str, macros: Sequence[str]
) -> Callable[[str], str]:
    """An id as the game's own templates name it (``seer`` -> ``Voyant``), with the first of
    ``macros`` its ``_names.jinja`` defines; the id itself when it has none or no name for it."""
    try:
        module = renderer.envs[lang].get_template(f"{folder}/_names.jinja").module
    except jinja2.TemplateError:
        return str
    macro = next((m for m in (getattr(module, n, None) for n in macros) if m is not None), None)
    if macro is None:
        return str

    def name(value: str) -> str:
        try:
            return str(macro(value)).strip() or value
        except (jinja2.TemplateError, KeyError, TypeError):
            return value

    return name


def _phase(phase: str, number: int, deadline: datetime | None, round_: int = 0) -> dict[str, Any]:
    """A phase of the timeline; ``round_``: its round in a game of rounds (Dracula), else 0.
    The templates name it as players read it (``archive/_phases.jinja``: « Nuit 2 »)."""
    return {
        "phase": phase,
        "number": number,
        "round": round_,
        "deadline": deadline,
        "entries": [],
        "ballots": {},
        "votes": [],
    }


def _first(deadlines: Mapping[str, datetime]) -> datetime | None:
    return max(deadlines.values()) if deadlines else None


def _close(phase: dict[str, Any]) -> None:
    """Turn the phase's ballots (last vote of each voter) into tables and tally bars."""
    for ballot, cast in phase["ballots"].items():
        rows = sorted((v, t) for v, t in cast.items() if t is not None)
        counts: dict[str, int] = {}
        for _voter, target in rows:
            counts[target] = counts.get(target, 0) + 1
        tally = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        top = tally[0][1] if tally else 1
        bars = [
            {"name": n, "count": c, "width": max(4, round(BAR_WIDTH * c / top)), "y": 22 * i}
            for i, (n, c) in enumerate(tally)
        ]
        phase["votes"].append(
            {
                "ballot": ballot,
                "rows": [{"voter": v, "target": t} for v, t in rows],
                "tally": bars,
                "height": 22 * len(bars) + 4,
            }
        )


def _notice(event: Notice, table: Table, renderer: Renderer, lang: str) -> dict[str, Any] | None:
    """A notice as one line: a public post's subject; a private result's first line."""
    base = event.template.rpartition("/")[2]
    if not event.public and (_QUIET.search(base) or not event.to):
        return None
    params = {"game": table.rules.title, "name": event.to[0] if event.to else "", **event.params}
    try:
        subject, body = renderer.mail(event.template, lang, params)
    except jinja2.TemplateError:
        return None
    if event.public:
        return {"kind": "public", "text": _strip_tag(subject)}
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    return {
        "kind": "private",
        "to": list(event.to),
        "subject": _strip_tag(subject),
        "text": first[:240],
    }


def _strip_tag(subject: str) -> str:
    """``[Lupus in Tabula] Day 2: dawn`` -> ``Day 2: dawn``."""
    return re.sub(r"^\[[^\]]*\]\s*", "", subject)


def _words(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name)


def _fields(event: Event) -> list[dict[str, str]]:
    out = []
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if value in (None, (), {}, [], ""):
            continue
        out.append({"key": field.name.replace("_", " "), "value": _value(value)})
    return out


def _value(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_value(v)}" for k, v in value.items() if v is not None) or "—"
    if isinstance(value, tuple | list):
        return ", ".join(_value(v) for v in value) or "—"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return str(value)


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
    env.filters["names"] = lambda value: join_names(value, lang)
    env.filters["g"] = agree  # agreement with a player's gender (pbem/mail/grammar.py)
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


def render_index(
    games: Sequence[Mapping[str, Any]],
    stats: Mapping[str, Any],
    lang: str,
    renderer: Renderer | None = None,
) -> str:
    """The archive index page: every finished game with links to its archive, and the stats.

    ``games``: ``{"id", "game", "players", "side", "winners", "html", "text"}`` each.
    """
    renderer = renderer or shared_renderer()
    template = _env(lang, True, renderer).get_template("index.html")
    return template.render(games=games, stats=stats, lang=lang)
