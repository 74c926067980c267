"""What the desk's commands share: their result, their protocol, and generic views of a table
read from the common events (roles, deaths, pending orders) for any game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pbem.core.commands import Command, CommandSpec
from pbem.core.errors import IllegalNow
from pbem.core.events import (
    ActionCleared,
    ActionSet,
    DeadlineMoved,
    DeskNotice,
    Event,
    PhaseStarted,
    PlayerDied,
    RoleChanged,
    RolesDealt,
    VoteSet,
)
from pbem.core.ids import PlayerId

if TYPE_CHECKING:
    from pbem.table.ports import DeskTable


@dataclass(frozen=True)
class Result:
    """A desk command's effect: events to append, texts for the game master's reply."""

    events: tuple[Event, ...] = ()
    reply: tuple[str, ...] = ()


class DeskCommand(Protocol):
    """One desk command: its module, or for ``AIDE`` the object listing the others."""

    @property
    def NAME(self) -> str: ...
    @property
    def SPEC(self) -> CommandSpec: ...
    @property
    def HELP(self) -> Mapping[str, str]: ...
    @property
    def EXAMPLE(self) -> Mapping[str, str]: ...

    def run(
        self, table: DeskTable, command: Command, now: datetime, admin: str, lang: str
    ) -> Result: ...


def verb(name: str) -> str:
    """The verb of the desk command ``name`` (``desk.`` before it, apart from the players'
    verbs)."""
    return f"desk.{name}"


def running(table: DeskTable) -> None:
    """Refuse a command that needs a game still running."""
    if table.finished:
        raise IllegalNow("desk_over")


def earliest(table: DeskTable) -> tuple[str, datetime]:
    """The rules' pending deadline that comes first (in effect: moved, and ignoring a pause)."""
    ruled = table.rules.deadlines(table.state)
    if not ruled:
        raise IllegalNow("desk_no_deadline")
    moved = {k: table.desk.moves.get((k, d), d) for k, d in ruled.items()}
    key = min(moved, key=lambda k: moved[k])
    return key, moved[key]


def new_deadline(
    table: DeskTable, moves: Sequence[DeadlineMoved], lang: str, paused: bool | None = None
) -> str:
    """The game master's line of what his EXTEND or RESUME moved: the deadline in effect, in
    his ``lang``; ``paused``, whether the game stays paused once his command is applied (by
    default as it is now: RESUME says False, its own event not yet folded)."""
    when = min(m.to for m in moves).isoformat()
    still = table.paused if paused is None else paused
    return table.renderer.text("desk/new_deadline", lang, {"when": when, "paused": still})


def notice(template: str, to: Sequence[PlayerId] = (), **params: Any) -> DeskNotice:
    """A desk notice: public (on the list) when ``to`` is empty, else to those players."""
    return DeskNotice(f"desk/{template}", tuple(to), not to, params, "desk")


def phase_of(table: DeskTable) -> dict[str, Any]:
    """The current phase (the last ``PhaseStarted`` the rules folded)."""
    for event in reversed(table.ruled):
        if isinstance(event, PhaseStarted):
            return {"phase": event.phase, "number": event.number}
    return {"phase": "", "number": 0}


def cast(table: DeskTable) -> list[dict[str, Any]]:
    """Every seat: its card now, the card dealt, alive or not, its side where the game says, its
    conditions (Mayor, lover, charmed, cursed...) as the rules' summary lists them."""
    dealt: dict[str, str] = {}
    now: dict[str, str] = {}
    dead: dict[str, str] = {}
    for event in table.ruled:
        if isinstance(event, RolesDealt):
            dealt.update({str(k): v for k, v in event.roles.items()})
            now.update(dealt)
        elif isinstance(event, RoleChanged):
            now[event.player] = event.role
        elif isinstance(event, PlayerDied):
            dead[event.player] = event.cause
    seats = table.summary().get("players", [])
    conditions = {str(s.get("name")): [str(c) for c in s.get("conditions", [])] for s in seats}
    # the card the rules' summary shows when no deal event names it (Dracula's holder is
    # « Dracula », not his side « vampire »: DRA-007, issue 26 item 5)
    cards = {str(s.get("name")): str(s.get("role") or "") for s in seats}
    return [
        {
            "name": p,
            "conditions": conditions.get(p, []),
            "role": now.get(p, "") or cards.get(p, "") or table.rules.side_of(table.state, p) or "",
            "dealt": dealt.get(p, ""),
            "alive": p not in dead,
            "cause": dead.get(p, ""),
            "side": table.rules.side_of(table.state, p) or "",
        }
        for p in table.rules.names(table.state)
    ]


def deaths(table: DeskTable) -> dict[str, dict[str, Any]]:
    """Each dead seat's cause and the phase it died in (``phase``, ``number``: the last
    ``PhaseStarted`` before its ``PlayerDied``), for the game master's wording of a death."""
    out: dict[str, dict[str, Any]] = {}
    phase: dict[str, Any] = {"phase": "", "number": 0}
    for event in table.ruled:
        if isinstance(event, PhaseStarted):
            phase = {"phase": event.phase, "number": event.number}
        elif isinstance(event, PlayerDied):
            out[event.player] = {"cause": event.cause, **phase}
    return out


def pending_orders(
    events: Sequence[Event],
    specs: Sequence[CommandSpec] = (),
    lang: str = "en",
    shown: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """Each player's orders standing in the current phase (since its ``PhaseStarted``), its
    targets named as :func:`order_text` names them (``shown``)."""
    start = max((i for i, e in enumerate(events) if isinstance(e, PhaseStarted)), default=-1)
    actions: dict[tuple[str, str], str] = {}
    votes: dict[tuple[str, str], str] = {}
    for event in events[start + 1 :]:
        if is_order(event) and not isinstance(event, VoteSet):
            text = order_text(event, specs, lang, shown)
            actions[(event.actor, event.verb)] = text  # type: ignore[attr-defined]
        elif isinstance(event, ActionCleared):
            actions.pop((event.actor, event.verb), None)
        elif isinstance(event, VoteSet):
            if event.target is None:
                votes.pop((event.voter, event.ballot), None)
            else:
                votes[(event.voter, event.ballot)] = order_text(event, specs, lang, shown)
    out: dict[str, list[str]] = {}
    for (actor, _), text in [*actions.items(), *votes.items()]:
        out.setdefault(actor, []).append(text)
    return out


def is_order(event: Event) -> bool:
    """Whether ``event`` records a player's order: a vote, an ``ActionSet``, or a game's own
    event of the same shape (Dracula's ``Order``), unless the rules drew it by default."""
    if isinstance(event, VoteSet | ActionSet):
        return True
    return (
        isinstance(getattr(event, "actor", None), str)
        and isinstance(getattr(event, "verb", None), str)
        and isinstance(getattr(event, "targets", None), tuple)
        and not getattr(event, "default", False)
    )


def order_text(
    event: Event,
    specs: Sequence[CommandSpec] = (),
    lang: str = "en",
    shown: Mapping[str, str] | None = None,
) -> str:
    """An order as its author wrote it: the command's keyword in his language, its targets;
    ``shown``: the seats shown by another name (the roster's ``renamed``): a seat that changed
    hands is named as the players know it, never by the seat's own name (issue 13)."""
    names = shown or {}
    if isinstance(event, VoteSet):
        spec = next((s for s in specs if s.verb == "vote"), None)
        target = names.get(str(event.target), str(event.target))
        return f"{spec.keyword(lang) if spec else 'VOTE'} {target}"
    verb: str = getattr(event, "verb", "")
    kind = verb.partition("#")[0]  # Dracula's second curse of a night: « curse#2 » (AMB-053)
    spec = next((s for s in specs if s.verb == kind), None)
    words = [spec.keyword(lang) if spec else kind.upper()]
    words += [names.get(str(t), str(t)) for t in getattr(event, "targets", ())]
    word = getattr(event, "word", None)
    if word:
        words.append(str(word).upper())
    text = getattr(event, "text", "")
    if text:
        words.append(str(text))
    return " ".join(words)


def as_command(event: Event) -> tuple[PlayerId, Command] | None:
    """The command that gave an order (see :func:`is_order`), to give it again."""
    if isinstance(event, VoteSet):
        if event.target is None:
            return None
        return event.voter, Command("vote", (event.target,))
    if not is_order(event):
        return None
    command = Command(
        getattr(event, "verb", ""),
        tuple(getattr(event, "targets", ())),
        getattr(event, "word", None),
        str(getattr(event, "text", "") or ""),
    )
    return PlayerId(getattr(event, "actor", "")), command
