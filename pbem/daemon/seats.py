"""The daemon's side of a seat changing hands (issue 13): a new secret code for the newcomer,
a clean bounce record for the seat.

The Table records the ``Substituted`` event and mails the packet (pbem/seats/handover.py); what
needs the daemon's randomness and its store is here, called for every step the daemon is
about to commit (``Replies.rows``, pbem/daemon/replies.py). The code's hash is stored
just before the step's commit: a crash between them leaves a hash whose code was never
mailed, for a seat whose substitution was not committed; the request (a spool file, or the
admin's mail, both applied again after a crash) then issues another code, so the window
heals itself.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pbem.adapters.codes import hash_secret, new_code
from pbem.core.events import AddressChanged, Substituted
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.judge.address import awaited
from pbem.mail.envelope import build
from pbem.mail.html import alternative

log = logging.getLogger(__name__)


def substitutions(step: Any) -> list[Substituted]:
    """The seats that change hands in ``step``."""
    return [e for e in getattr(step, "facts", ()) if isinstance(e, Substituted)]


def shown_name(table: Any, seat: str) -> str:
    """The name a seat is shown by (its newcomer's after a substitution: the option
    ``substitute_name``); the seat itself for a table without a roster."""
    roster = getattr(table, "roster", None)
    return str(roster.shown(seat)) if roster is not None else str(seat)


def replaced_in(table: Any, address: str) -> bool:
    """Whether ``address`` held a seat of this running game before it changed hands (the
    daemon routes its untagged mail there, to be refused politely)."""
    roster = getattr(table, "roster", None)
    return roster is not None and not table.finished and roster.replaced_name(address) is not None


def waits_for_code(table: Any, address: str) -> bool:
    """Whether ``address`` is a running game's new address waiting for its confirmation code
    (``ADRESSE``, issue 25): its untagged mail goes there, to be told how to confirm."""
    return not table.finished and awaited(table, address) is not None


def _clear_bounces(game: Any, seat: str, now: datetime, why: str) -> None:
    """The seat's bounce record cleared: its address changed, its bounces were the old one's."""
    record: Mapping[str, Any] | None = game.store.bounce_states().get(seat)
    if record is not None and (record.get("count") or record.get("unreachable")):
        cleared = {**record, "count": 0, "unreachable": False, "cleared_at": now.isoformat()}
        game.store.commit(bounces=[{**cleared, "cleared_by": why}])


def seat_rows(service: Any, game: Any, step: Any, now: datetime) -> list[OutboxRow]:
    """For each substitution of ``step`` (and each new address, issue 25): the seat's bounce
    record cleared (the old address's bounces are not the new one's), and, in a game whose players have secret codes, a new
    code stored hashed for the seat and mailed to the newcomer (the old holder's stops
    working: the seat is one code)."""
    rows: list[OutboxRow] = []
    for moved in (e for e in getattr(step, "facts", ()) if isinstance(e, AddressChanged)):
        _clear_bounces(game, moved.seat, now, "address")  # issue 25: the old address's bounces
    for event in substitutions(step):
        _clear_bounces(game, event.seat, now, "substitution")
        if not game.store.meta.get("secrets"):  # the players have no codes in this game
            continue
        code = new_code()
        game.store.set_secret(event.seat, hash_secret(code))
        subject, body = service.texts.mail(
            "daemon/seat_code", event.lang, {"game": game.id, "name": event.name, "code": code}
        )
        mid, raw = build(
            key=f"seat-code:{game.id}:{event.seat}:{event.email}",
            sender=service.cfg.moderator,
            to=(event.email,),
            subject=subject,
            body=body,
            html=alternative(subject, body, enabled=service.cfg.html_mail, lang=event.lang),
            date=now,
            id_key=service.id_key,
        )
        rows.append(
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[event.email],
                mail_from=service.cfg.bounce,
                now=now,
                kind="reply",
                game=game.id,
            )
        )
        log.info("game %s: seat %s: a new secret code mailed to its newcomer", game.id, event.seat)
    return rows
