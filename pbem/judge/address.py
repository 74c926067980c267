"""``ADRESSE nouvelle@adresse`` / ``ADDRESS new@address``: a seat's new address (issue 25,
njudge's SET ADDRESS), confirmed by a code mailed to it.

From the seat's registered address:

- ``ADRESSE new@example.org`` mails a code to the new address (:data:`CODE_TTL` to confirm
  it); a second request replaces a pending one; nothing changes until it is confirmed;
- ``ADRESSE ANNULER`` / ``ADDRESS CANCEL`` drops the pending request;
- ``ADRESSE`` alone says which address plays, and what is pending.

From the new address, the line ``ADRESSE <code>`` (a plain Reply to the code's mail does: its
Subject carries that line) moves the seat there: :func:`confirmation`. The roster folds
:class:`~pbem.core.events.AddressChanged` (pbem/core/roster.py), so routing, the daemon's
authentication, the relayed list's members and the bounces follow at once; the old address gets
a notice and is refused from then on (``address_moved``), the game masters are told.

Decisions: the code is :func:`pbem.adapters.codes.new_code`'s (128 bits from :mod:`secrets`),
kept in the log only scrypt-hashed (:func:`pbem.adapters.codes.hash_secret`), valid 48 hours
(long enough for a weekend away from one mailbox, short enough that a forgotten request dies);
the seat keeps its name, role, language and secret code (the same player); no address that
plays, steers (a game master), waits on the bench or is the game's own may be taken; a seat
asks at most :data:`MAX_ASKED` codes a day (each is a mail to an address nobody vouched for
yet). The game master sets an address at once with the desk's ``ADRESSE`` (pbem/desk/address.py).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from pbem.adapters.codes import hash_secret, verify_secret
from pbem.core.commands import ADDRESS, parse_line
from pbem.core.errors import CommandError, IllegalNow, InvalidSyntax, MailError, NotAPlayer
from pbem.core.events import (
    AddressAsked,
    AddressChanged,
    AddressDropped,
    Event,
    Substituted,
)
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.mail.address import is_mailable
from pbem.mail.inbound import extract
from pbem.mail.threads import plus_address
from pbem.seats.substitution import replaced_refusal

if TYPE_CHECKING:
    from pbem.core.commands import Command
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Outgoing, Reply, Step

CODE_TTL = timedelta(hours=48)
"""How long a code mailed to a new address may be sent back."""
MAX_ASKED = 5
"""Codes a seat may have mailed in a day: a mistyped address or two, never a mail cannon."""
_CANCEL = {"annuler", "cancel"}


def run(
    table: AnsweringTable,
    state: Any,
    player: PlayerSpec,
    command: Command,
    line: str,
    now: datetime,
    events: list[Event],
    reply: Reply,
) -> Any:
    """A seat holder's ``ADRESSE``: ask for a new address, cancel the request, or see both."""
    words = command.text.split()
    seat, lang = player.name, player.lang
    log = [*table.events, *events]
    pending = pending_request(log, seat)
    try:
        if not words:
            live = pending is not None and pending.expires > now
            params = {
                "address": player.email,
                "pending": pending.email if pending is not None and live else None,
                "until": pending.expires.isoformat() if pending is not None and live else None,
            }
            reply.extra.append(table.renderer.text("judge/address_status", lang, params))
            return state
        if fold(words[0]) in _CANCEL and len(words) == 1:
            if pending is None or pending.expires <= now:
                raise IllegalNow("address_nothing_pending")
            events.append(AddressDropped(seat, pending.email))
            params = {"address": pending.email}
            reply.extra.append(table.renderer.text("judge/address_cancelled", lang, params))
            return state
        if len(words) > 1 or "@" not in words[0]:
            raise InvalidSyntax("address_syntax")
        email = words[0].strip("<>").lower()
        if email == player.email.lower():
            raise IllegalNow("address_same", address=email)
        check_free(table, email)
        since = now - timedelta(days=1)
        asked = [e for e in log if isinstance(e, AddressAsked) and e.seat == seat]
        if sum(1 for e in asked if e.expires - CODE_TTL > since) >= MAX_ASKED:
            raise IllegalNow("address_too_many", count=MAX_ASKED)
    except CommandError as exc:
        reply.rejected.append({"line": line, "reason": table.reason(exc, lang, seat)})
        return state
    code = table.code_source()
    asked_event = AddressAsked(seat, email, hash_secret(code), now + CODE_TTL)
    events.append(asked_event)
    replaced = pending.email if pending is not None and pending.expires > now else None
    params = {"address": email, "until": asked_event.expires.isoformat(), "replaced": replaced}
    # said in the texts, not as an accepted order: the log's stamp of a mail's orders
    # (OrdersReceived) goes into the open record, which never shows an address
    reply.extra.append(table.renderer.text("judge/address_asked", lang, params))
    reply.mails.append(_code_mail(table, player, asked_event, code, len(log)))
    return state


def moves_seat(command: Command) -> bool:
    """Whether ``command`` asks to move a seat to a new address: the stronger authentication
    the game master chose for irreversible commands (``[auth] final_methods``) is asked of it
    too, since a forged request confirmed from the forger's mailbox would take the seat."""
    return command.verb == "address" and "@" in command.text


def pending_request(log: Iterable[Event], seat: str) -> AddressAsked | None:
    """The seat's last request still standing in ``log`` (expired or not): none once it was
    cancelled, confirmed, or the seat changed hands (the newcomer never asked for it)."""
    found: AddressAsked | None = None
    for event in log:
        if isinstance(event, AddressAsked) and event.seat == seat:
            found = event
        elif isinstance(event, AddressDropped | AddressChanged | Substituted) and (
            event.seat == seat
        ):
            found = None
    return found


_REQUESTS: weakref.WeakKeyDictionary[Any, tuple[int, dict[str, AddressAsked]]] = (
    weakref.WeakKeyDictionary()
)


def awaited(table: Any, address: str) -> AddressAsked | None:
    """The standing request (expired or not) that ``address`` is waiting to confirm: the
    daemon routes such an address's untagged mail to its game, whose answer says how to
    confirm. The log is folded once per table, then only its new events (asked of every game
    for a stranger's mail)."""
    events: Sequence[Event] = getattr(table, "events", ())
    try:
        seen, by_seat = _REQUESTS.get(table, (0, {}))
    except TypeError:  # a table that cannot be a weak key (a test's double): no cache
        seen, by_seat = 0, {}
    if seen > len(events):  # a rollback rewrote the log
        seen, by_seat = 0, {}
    if seen < len(events):
        by_seat = dict(by_seat)
        for event in events[seen:]:
            if isinstance(event, AddressAsked):
                by_seat[event.seat] = event
            elif isinstance(event, AddressDropped | AddressChanged | Substituted):
                by_seat.pop(event.seat, None)
        with contextlib.suppress(TypeError):
            _REQUESTS[table] = (len(events), by_seat)
    wanted = address.lower()
    return next((a for a in by_seat.values() if a.email == wanted), None)


def awaiting_refusal(
    table: AnsweringTable, sender: str, now: datetime
) -> tuple[CommandError, str] | None:
    """Why a mail from an address waiting for its code does nothing yet, and the seat's
    language: where the code went and how to send it back (or that it expired); None when
    ``sender`` waits for no code."""
    asked = awaited(table, sender)
    if asked is None or table.roster.by_email(sender) is not None:
        return None
    holder = table.roster.by_seat(asked.seat)
    why = NotAPlayer(
        "address_awaiting",
        game=table.rules.title,
        address=asked.email,
        name=table.roster.shown(asked.seat),
        sent=(asked.expires - CODE_TTL).isoformat(),
        until=asked.expires.isoformat(),
        expired=asked.expires <= now,
    )
    return why, holder.lang


def check_free(table: AnsweringTable, email: str, admins: Sequence[str] = ()) -> None:
    """Refuse an address nobody could be mailed at, or one that plays (another seat), steers
    (a game master), waits on the bench, or is the game's own (the moderator, the list)."""
    if table.finished:
        raise IllegalNow("game_over")
    if not is_mailable(email):
        raise InvalidSyntax("seat_bad_address", address=email)
    holder = table.roster.by_email(email)
    if holder is not None:
        raise IllegalNow("seat_address_playing", address=email, name=holder.seat)
    if email.lower() in {a.lower() for a in (*table.setup.admins, *admins)}:
        raise IllegalNow("seat_address_admin", address=email)
    if table.roster.on_bench(email):
        raise IllegalNow("address_on_bench", address=email)
    setup = table.setup
    ours = {setup.moderator, setup.list_address, plus_address(setup.moderator, table.game_id)}
    local, _, domain = setup.moderator.lower().partition("@")
    e_local, _, e_domain = email.lower().partition("@")
    if email.lower() in {a.lower() for a in ours} or (
        e_domain == domain and e_local.startswith(f"{local}+")
    ):
        raise IllegalNow("address_ours", address=email)


def _code_mail(
    table: AnsweringTable, player: PlayerSpec, asked: AddressAsked, code: str, index: int
) -> Outgoing:
    """The code, to the new address, in the seat's language; its Subject carries the line to
    send back, so that a plain Reply confirms."""
    lang = player.lang
    params = {
        "game": table.rules.title,
        "name": table.roster.shown(player.name),
        "old": player.email,
        "address": asked.email,
        "code": code,
        "keyword": ADDRESS.keyword(lang),
        "until": asked.expires.isoformat(),
        "write_to": plus_address(table.setup.moderator, table.game_id),
    }
    key = f"{table.game_id}/address/{player.name}/{index}"
    return _mail(table, key, asked.email, "judge/address_code", lang, params)


def confirmation(
    table: AnsweringTable,
    msg: EmailMessage,
    sender: str,
    key: str,
    message_id: str | None,
    now: datetime,
    *,
    relay: bool,
    admins: Sequence[str] = (),
) -> Step | None:
    """A non-player's private mail with an ``ADRESSE``/``ADDRESS`` line: the code that moves a
    seat to ``sender`` (or the reason it does not); None when the mail holds no such line (the
    table answers it as a stranger's)."""
    from pbem.table.step import Reply  # late: pbem.table's __init__ loads the Table first

    try:
        text = extract(msg)
    except MailError:
        return None
    found = None
    for line in (text.subject, *text.lines):
        try:
            command = parse_line(line, [ADDRESS], [])
        except CommandError:
            continue
        if command is not None:
            found = (line, command)
            break
    if found is None:
        return None
    line, command = found
    lang = "en" if fold(line.split()[0]) == "address" else "fr"
    try:
        event, holder_lang = _confirmed(table, sender, command.text.split(), now, admins)
    except CommandError as exc:
        refused = Reply(rejected=[{"line": line, "reason": table.reason(exc, lang)}])
        return table.step([], (PlayerSpec(PlayerId(""), sender, lang), refused, key, message_id))
    holder = table.roster.by_seat(event.seat)
    params = {
        "game": table.rules.title,
        "name": holder.name,
        "old": event.old_email,
        "address": event.email,
        "relay": relay,
        "list": table.setup.list_address,
    }
    done = table.renderer.text("judge/address_confirmed", holder_lang, params)
    shown = f"{line.split()[0]} {command.text.split()[0]}"  # not the Subject's other words
    reply = Reply(accepted=[{"line": shown, "deadline": None, "final": True}], extra=[done])
    spec = PlayerSpec(event.seat, sender, holder_lang, holder.gender)
    step = table.step([event], (spec, reply, key, message_id))
    return _tell_masters(table, step, event, admins, relay)


def _confirmed(
    table: AnsweringTable, sender: str, words: list[str], now: datetime, admins: Sequence[str]
) -> tuple[AddressChanged, str]:
    """The change ``sender``'s code confirms, and its seat's language; a CommandError why not."""
    if words and "@" in words[0]:  # a request, from an address that holds no seat
        raise NotAPlayer("address_not_a_player", address=sender)
    waiting = [
        p
        for seat in table.roster.holders
        if (p := pending_request(table.events, seat.seat)) is not None
        and p.email.lower() == sender.lower()
    ]
    if not waiting:  # an address whose seat moved or changed hands is told so
        raise replaced_refusal(table, sender) or NotAPlayer("address_not_awaited", address=sender)
    if not words:  # the rest of a line is the Subject's words after the code: not read
        raise InvalidSyntax("address_code_missing")
    code = words[0].strip("<>").rstrip(":;,.!").lower()  # "ADDRESS <code>: confirm ..."
    matching = [p for p in waiting if verify_secret(code, p.code)]
    live = [p for p in matching if now < p.expires]
    if not live:
        raise IllegalNow("address_code_expired" if matching else "address_code_wrong")
    asked = live[-1]
    check_free(table, sender, admins)  # taken meanwhile by another seat, or made a master
    holder = table.roster.by_seat(asked.seat)
    return AddressChanged(asked.seat, holder.email, sender.lower()), holder.lang


def _tell_masters(
    table: AnsweringTable, step: Step, event: AddressChanged, admins: Sequence[str], relay: bool
) -> Step:
    """The game masters told of a seat's new address (the game's, else the daemon's)."""
    from dataclasses import replace

    masters = table.setup.admins or tuple(a.lower() for a in admins)
    # a game master who held the seat has the old address's notice (changed_mails): not both
    masters = tuple(a for a in masters if a != event.old_email.lower())
    lang = table.setup.lang
    params = {
        "game": table.rules.title,
        "name": table.roster.shown(event.seat),
        "old": event.old_email,
        "address": event.email,
        "relay": relay,
        "list": table.setup.list_address,
    }
    told = tuple(
        _mail(
            table,
            f"{table.game_id}/address-gm/{len(table.events)}/{i}",
            a,
            "judge/address_masters",
            lang,
            params,
        )
        for i, a in enumerate(masters)
    )
    return replace(step, outgoing=(*step.outgoing, *told))


def changed_mails(table: AnsweringTable, event: AddressChanged, key: str) -> list[Outgoing]:
    """The notices of a seat's new address (:func:`pbem.table.mails.step_of`): to the old
    address (it no longer plays), and, when the game master set it, to the new one (a seat
    that confirmed its code has its receipt)."""
    holder = table.roster.by_seat(event.seat)
    lang = holder.lang
    params = {
        "game": table.rules.title,
        "name": holder.name,
        "old": event.old_email,
        "address": event.email,
        "by_master": bool(event.by),
        "list": table.setup.list_address,
    }
    mails = [_mail(table, f"{key}/old", event.old_email, "judge/address_left", lang, params)]
    if event.by:
        mails.append(_mail(table, f"{key}/new", event.email, "judge/address_set", lang, params))
    return mails


def _mail(
    table: AnsweringTable, key: str, to: str, template: str, lang: str, params: dict[str, Any]
) -> Outgoing:
    """One private mail of a template, in the seat's thread of the desk, with its HTML
    alternative like every mail of the game (made when first read)."""
    from pbem.table.step import Outgoing  # late: pbem.table's __init__ loads the Table first

    subject, body = table.renderer.mail(template, lang, params)
    pages = table.pages
    return Outgoing(
        key,
        (to,),
        False,
        subject,
        body,
        None,
        f"{table.game_id}/desk",
        html=lambda: pages.page(subject, body, lang),
    )
