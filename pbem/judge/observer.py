"""Observers and the graveyard (issue 25, item 5): ``OBSERVER``/``SPECTATE`` from a non-player,
and the second relayed list where the dead and the observers talk.

Pure over the Table's port (:class:`~pbem.table.ports.AnsweringTable`); the daemon
(pbem/daemon/relay.py) asks who reads what.

Decisions (docs/season.md, "Observers and the graveyard"):

- only when pbem relays the list (``[list] mode = relay``): on an external list the list's
  own subscription is the way in, and the reply names the list;
- the game's option ``observers``: ``approve`` (default: the game master accepts or refuses
  each request, desk command ``OBSERVATEURS``/``OBSERVERS``), ``open``, ``closed``;
- an observer receives what the list receives (results, relayed posts, the game master's
  notices), the graveyard when the daemon keeps one, and the archive at the end; he never
  posts on the living's list (refused with the reason), ``OBSERVER STOP`` ends it;
- a player of the game, or an address whose seat changed hands (it knows the seat's secrets),
  cannot observe it; :data:`OBSERVERS_MAX` observers and requests at most (each is an event
  and a mail to the game masters, so forged requests cannot flood either);
- the graveyard (``[list] graveyard = true``) is ``<list>+cimetiere@<list's domain>``: a
  server with a recipient delimiter delivers it where the list goes, no new alias needed. Its
  posts reach the dead, the observers and the game masters, never a living player. Who
  among the dead (the rules' own silence): a Lupus ghost may neither post there nor read it
  (LUP-502, LUP-505: his round-1 vote is his only act, and the dead's pooled knowledge would
  steer it); a dead player the rules still offer an act (Prue's revenge, CAS-321; the dead Mayor's
  sash, LG-404) waits until he has acted; LUP-005, LG-241, LG-D36, CAS-005/CAS-232 and DRA-326
  keep the dead out of the living's debate, which the graveyard never reaches. In Dracula a
  new round brings the dead back to play (AMB-075): they leave the graveyard with it. Once the
  game is over everyone may talk there.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from pbem.core.commands import COMMON_COMMANDS, CommandSpec, Text
from pbem.core.errors import CommandError, IllegalNow, NotAPlayer
from pbem.core.events import (
    KERNEL_EVENTS,
    Event,
    ObserverAsked,
    ObserverJoined,
    ObserverLeft,
    PlayerDied,
)
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.mail.inbound import first_command

if TYPE_CHECKING:
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Outgoing, Reply, Step

OBSERVE = CommandSpec(
    "observe",
    ("OBSERVER", "SPECTATEUR", "SPECTATRICE"),
    ("OBSERVE", "SPECTATE"),
    (Text(optional=True),),
)
"""A non-player's request to follow a game (his first such line); ``STOP`` after it ends it."""

OBSERVERS_MAX = 50
"""Observers and pending requests a game keeps at most."""

_GENERIC = {c.verb for c in COMMON_COMMANDS}
"""What every player may send whatever his state: no act of the game."""
_STOP = {"stop", "arret", "arreter", "fin", "end", "quit"}
GRAVEYARD_TAIL = "cimetiere"
"""The graveyard's address: the list's, with ``+cimetiere`` after its local part."""


@dataclass(frozen=True)
class Observers:
    """Who follows a game: ``joined`` and ``pending`` (address -> language)."""

    joined: Mapping[str, str]
    pending: Mapping[str, str]


_CACHE: weakref.WeakKeyDictionary[Any, tuple[int, dict[str, str], dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)


def observers(table: AnsweringTable) -> Observers:
    """The game's observers, read from its log (folded once, then only its new events: a
    public post asks it on every mail it sends)."""
    events: Sequence[Event] = getattr(table, "events", ())
    try:
        seen, joined, pending = _CACHE.get(table, (0, {}, {}))
    except TypeError:  # a table that cannot be a weak key (a test's double): no cache
        seen, joined, pending = 0, {}, {}
    if seen > len(events):
        seen, joined, pending = 0, {}, {}
    if seen < len(events):
        joined, pending = dict(joined), dict(pending)
        for event in events[seen:]:
            if isinstance(event, ObserverAsked):
                pending[event.email] = event.lang
            elif isinstance(event, ObserverJoined):
                pending.pop(event.email, None)
                joined[event.email] = event.lang
            elif isinstance(event, ObserverLeft):
                pending.pop(event.email, None)
                joined.pop(event.email, None)
        with contextlib.suppress(TypeError):
            _CACHE[table] = (len(events), joined, pending)
    # an observer given a seat since (REMPLACER ... par his address) is a player now: the
    # graveyard must not reach him while he lives
    players: Mapping[str, Any] = getattr(table, "by_email", {})
    if any(a in players for a in (*joined, *pending)):
        joined = {a: lang for a, lang in joined.items() if a not in players}
        pending = {a: lang for a, lang in pending.items() if a not in players}
    return Observers(joined, pending)


def observer_addresses(table: AnsweringTable) -> list[str]:
    """The addresses that follow the game (none for a table without a log, a lobby's)."""
    return sorted(observers(table).joined)


def lang_of(table: AnsweringTable, address: str) -> str | None:
    """The language an observer (or a pending one) asked in; None for anyone else."""
    seen = observers(table)
    return seen.joined.get(address) or seen.pending.get(address)


def option(table: AnsweringTable) -> str:
    """The game's ``observers`` option: ``approve`` (default), ``open`` or ``closed``."""
    return str(getattr(getattr(table.state, "options", None), "observers", "approve"))


def graveyard_address(list_address: str) -> str:
    """The graveyard of the list ``list_address`` (``village+cimetiere@lists.example``)."""
    local, at, domain = list_address.partition("@")
    return f"{local}+{GRAVEYARD_TAIL}@{domain}" if at else ""


# -- OBSERVER / SPECTATE -------------------------------------------------------------------


def request(
    table: AnsweringTable,
    msg: EmailMessage,
    sender: str,
    key: str,
    message_id: str | None,
    *,
    relay: bool,
    graveyard: str = "",
    admins: Sequence[str] = (),
) -> Step | None:
    """A non-player's private ``OBSERVER``/``SPECTATE [STOP]``: he follows the game, waits
    for the game master, stops, or is told why not; None when the mail holds no such line."""
    from pbem.table.step import Reply  # late: pbem.table's __init__ loads the Table first

    found = first_command(msg, OBSERVE)
    if found is None:
        return None
    line, command = found
    first = fold(line.split()[0]).upper()
    lang = "en" if first in OBSERVE.en else table.setup.lang
    stop = fold(command.text).strip() in _STOP
    spec = PlayerSpec(PlayerId(""), sender, lang)
    email = sender.lower()
    try:
        events = _decide(table, email, lang, stop, relay)
    except CommandError as exc:
        refused = Reply(rejected=[{"line": line, "reason": table.reason(exc, lang)}])
        return table.step([], (spec, refused, key, message_id))
    event = events[0]
    template = {
        ObserverJoined: "common/observer_joined",
        ObserverAsked: "common/observer_asked",
        ObserverLeft: "common/observer_left",
    }[type(event)]
    params = {"game": table.rules.title, "graveyard": graveyard if relay else ""}
    text = table.renderer.text(template, lang, params)
    reply = Reply(accepted=[{"line": line, "deadline": None, "final": True}], extra=[text])
    step = table.step(events, (spec, reply, key, message_id))
    if not isinstance(event, ObserverAsked):
        return step
    return replace(step, outgoing=(*step.outgoing, *_ask_masters(table, email, key, admins)))


def _decide(table: AnsweringTable, email: str, lang: str, stop: bool, relay: bool) -> list[Event]:
    if not relay:  # the list is someone else's: its own subscription is the way in
        raise IllegalNow("observer_external", list=table.setup.list_address)
    seen = observers(table)
    if stop:
        if email in seen.joined or email in seen.pending:
            return [ObserverLeft(email)]
        raise IllegalNow("observer_not")
    if table.finished:
        raise IllegalNow("game_over")
    if table.roster.replaced_name(email) is not None:  # he knows his old seat's secrets
        raise IllegalNow("observer_player")
    if option(table) == "closed":
        raise IllegalNow("observers_closed")
    if email in seen.joined:
        raise IllegalNow("observer_already")
    if email in seen.pending:
        raise IllegalNow("observer_pending")
    if len(seen.joined) + len(seen.pending) >= OBSERVERS_MAX:
        raise IllegalNow("observers_full", count=OBSERVERS_MAX)
    if option(table) == "open":
        return [ObserverJoined(email, lang)]
    return [ObserverAsked(email, lang)]


def _ask_masters(
    table: AnsweringTable, email: str, key: str, admins: Sequence[str]
) -> list[Outgoing]:
    """The game masters asked to accept or refuse a request (the daemon's when the game has
    none of its own: a request nobody reads would strand its sender)."""
    from pbem.table.step import Outgoing

    masters = table.setup.admins or tuple(a.lower() for a in admins)
    params = {"game": table.rules.title, "address": email}
    subject, body = table.renderer.mail("desk/observer_request", table.setup.lang, params)
    html = table.pages.page(subject, body, table.setup.lang)
    return [
        Outgoing(
            f"{table.game_id}/observer/{key}/{i}",
            (a,),
            False,
            subject,
            body,
            None,
            f"{table.game_id}/desk",
            html=html,
        )
        for i, a in enumerate(masters)
    ]


def explain_to_player(table: AnsweringTable, reply: Reply, lang: str, reader: str) -> None:
    """A player's own ``OBSERVER`` line: he plays this game, he cannot observe it (the reason
    replaces the "unknown command" his rules gave it, told to ``reader``, his seat). Reads
    only the refused lines."""
    for rejected in reply.rejected:
        words = rejected["line"].split()
        if words and fold(words[0]).upper() in {*OBSERVE.fr, *OBSERVE.en}:
            exc = IllegalNow("observer_player")
            rejected["reason"] = table.reason(exc, lang, reader)


def list_refusal(table: AnsweringTable, sender: str, channel: str) -> CommandError | None:
    """Why an observer's mail is refused: his post on the living's list, or a private mail
    holding no command for him (None for anyone else)."""
    seen = observers(table)
    if sender in seen.joined or sender in seen.pending:
        template = "observer_no_post" if channel == "list" else "observer_private"
        return NotAPlayer(template, address=sender)
    return None


def open_to(table: AnsweringTable, relay: bool) -> str:
    """How a stranger may follow the game, for his "not a player" reply: ``approve`` (he asks,
    the game master answers) or ``open``; empty where OBSERVER would be refused (an external
    list, the option ``closed``, a game over)."""
    kind = option(table)
    return kind if relay and kind != "closed" and not table.finished else ""


def event_mails(table: AnsweringTable, event: Event, key: str) -> list[Outgoing]:
    """The mail an observer gets when the game master decided for him (accepted, refused or
    removed); none for his own requests (his reply says it)."""
    from pbem.table.step import Outgoing

    if not isinstance(event, ObserverJoined | ObserverLeft) or not event.by:
        return []
    lang = table.setup.lang
    if isinstance(event, ObserverJoined):
        lang, template = event.lang, "common/observer_accepted"
    else:
        template = "common/observer_refused"
    subject, body = table.renderer.mail(template, lang, {"game": table.rules.title})
    html = table.pages.page(subject, body, lang)
    out = Outgoing(
        key, (event.email,), False, subject, body, None, f"{table.game_id}/observer", html=html
    )
    return [out]


# -- the graveyard -------------------------------------------------------------------------


def _dead(table: AnsweringTable, state: Any = None) -> list[PlayerId]:
    """The seats dead now (Dracula's new round brings its dead back, AMB-075)."""
    players = table.rules.summary(table.state if state is None else state).get("players", ())
    return [PlayerId(str(p["name"])) for p in players if not p.get("alive", True)]


def _silent(table: AnsweringTable, state: Any = None) -> set[str]:
    """The dead kept out of the graveyard: Lupus ghosts (LUP-502, LUP-505), whose round-1 vote
    the dead's talk would steer; a dead player the rules still offer an act (CAS-321 Prue's
    revenge, LG-404 the dead Mayor's sash) until he has made it."""
    state = table.state if state is None else state
    ghosts = getattr(state, "ghosts", None)
    out = {str(g) for g in ghosts()} if callable(ghosts) else set()
    return out | {str(s) for s in _dead(table, state) if _acting(table, state, s)}


def _acting(table: AnsweringTable, state: Any, seat: PlayerId) -> bool:
    """Whether the rules offer ``seat`` an act of the game (not AIDE, STATUT, a service...)."""
    return any(c.verb not in _GENERIC for c in table.rules.available(state, seat))


def graveyard_members(table: AnsweringTable, admins: Sequence[str] = ()) -> list[str]:
    """Who a graveyard post reaches: the dead (but the silent), the observers and the game
    masters; never a living player while the game runs, everyone once it is over."""
    emails = table.player_emails
    if table.finished:
        seats = list(emails)
    else:
        silent = _silent(table)
        seats = [s for s in _dead(table) if s not in silent]
    members = {emails[s].lower() for s in seats if s in emails}
    members |= set(observers(table).joined)
    members |= {a.lower() for a in (*table.setup.admins, *admins)}
    return sorted(members)


def graveyard_post(
    table: AnsweringTable,
    msg: EmailMessage,
    sender: str,
    key: str,
    message_id: str | None,
    admins: Sequence[str] = (),
) -> Step:
    """A post to the graveyard: relayed to its members, or refused with its reason."""
    from pbem.table.step import Reply, Step

    if sender in {a.lower() for a in (*table.setup.admins, *admins)}:
        return Step(post="relay")
    player = table.by_email.get(sender)
    why = _graveyard_refusal(table, sender, player)
    if why is None:
        return Step(post="relay")
    lang = player.lang if player is not None else lang_of(table, sender) or table.setup.lang
    spec = player or PlayerSpec(PlayerId(""), sender, lang)
    # told to the player when he plays: « une joueuse vivante » agrees with her
    reason = table.reason(why, lang, player.name if player is not None else None)
    refused = Reply(rejected=[{"line": "", "reason": reason}])
    return replace(table.step([], (spec, refused, key, message_id)), post="refused")


def _graveyard_refusal(
    table: AnsweringTable, sender: str, player: PlayerSpec | None
) -> CommandError | None:
    if table.finished:  # the game is over: everyone may talk there
        ok = player is not None or sender in observers(table).joined
        return None if ok else NotAPlayer("graveyard_not_member", address=sender)
    if player is not None:
        if player.name not in _dead(table):
            return IllegalNow("graveyard_living")
        ghosts = getattr(table.state, "ghosts", None)
        if callable(ghosts) and player.name in ghosts():
            return IllegalNow("graveyard_ghost")  # LUP-505
        if _acting(table, table.state, player.name):
            return IllegalNow("graveyard_acting")  # CAS-321, LG-404
        return None
    seen = observers(table)
    if sender in seen.joined:
        return None
    if sender in seen.pending:
        return NotAPlayer("observer_pending", address=sender)
    return NotAPlayer("graveyard_not_member", address=sender)


def graveyard_welcomes(table: AnsweringTable, step: Step, address: str) -> list[Outgoing]:
    """The graveyard's welcome to whoever joins it with ``step`` (not yet applied to
    ``table``): each player it kills (but the silent: a Lupus ghost is told why he is not
    welcome) and each observer the game master admits."""

    facts = step.facts
    deaths = [e.player for e in facts if isinstance(e, PlayerDied)]
    # an observer the game let in at once read the address in his reply already
    joined = [e for e in facts if isinstance(e, ObserverJoined) and e.by]
    if not address or not (deaths or joined) or table.finished:
        return []
    ghosts: set[str] = set()
    if deaths:
        after = table.rules.fold(
            (e for e in facts if not isinstance(e, KERNEL_EVENTS)), table.state
        )
        ghost_list = getattr(after, "ghosts", None)
        ghosts = {str(g) for g in ghost_list()} if callable(ghost_list) else set()
    out: list[Outgoing] = []
    title = table.rules.title
    for seat in deaths:
        holder = table.roster.by_seat(seat)
        template = "common/graveyard_ghost" if seat in ghosts else "common/graveyard_welcome"
        params = {"game": title, "graveyard": address, "name": holder.name}
        out.append(_mail(table, f"grave/{seat}", holder.email, holder.lang, template, params))
    for event in joined:
        params = {"game": title, "graveyard": address, "name": ""}
        template = "common/graveyard_welcome"
        out.append(_mail(table, f"grave/{event.email}", event.email, event.lang, template, params))
    return out


def _mail(
    table: AnsweringTable, key: str, to: str, lang: str, template: str, params: dict[str, Any]
) -> Outgoing:
    from pbem.table.step import Outgoing

    subject, body = table.renderer.mail(template, lang, params)
    html = table.pages.page(subject, body, lang)
    return Outgoing(
        f"{table.game_id}/{key}/{len(table.events)}",
        (to,),
        False,
        subject,
        body,
        None,
        f"{table.game_id}/graveyard",
        html=html,
    )
