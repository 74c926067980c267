"""The mails of a seat changing hands (issue 13): the hand-over packet, the list's notice, the
goodbye to the old address.

The packet is re-rendered from the log, never guessed: every private notice the seat received
(its role card, partners, results, prompts, potions and objects as the rules told them), in the
order they were sent, leaving out what a rollback voided; then what the seat is awaited to do
now, until when. It is written in the newcomer's language, with the seat shown by its new name.
Pure: the Table calls :func:`handover_mails` when it turns a ``Substituted`` event into mail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pbem.core.events import Event, Notice, Substituted, voided
from pbem.core.ids import PlayerId
from pbem.core.roster import Roster

if TYPE_CHECKING:
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Outgoing


def received(seat: str, history: Sequence[Event]) -> list[Notice]:
    """The private notices ``seat`` received in ``history``, in order, none a rollback voided."""
    void = voided(history)
    return [
        e
        for i, e in enumerate(history)
        if i not in void and isinstance(e, Notice) and not e.public and seat in e.to
    ]


def packet_sections(
    table: AnsweringTable, roster: Roster, seat: str, lang: str, history: Sequence[Event]
) -> list[dict[str, str]]:
    """Each private mail of the seat, rendered again for the newcomer: subject and body."""
    return [notice_section(table, roster, n, lang, seat) for n in received(seat, history)]


def notice_section(
    table: AnsweringTable, roster: Roster, notice: Notice, lang: str, seat: str | None = None
) -> dict[str, str]:
    """A notice rendered again as its reader got it, in ``lang``: subject and body; ``seat``:
    the reader of a private one (named in it), None for a public post. Also a player's
    history (pbem.judge.history)."""
    genders = {h.seat: h.gender for h in roster.holders if h.gender}
    params: dict[str, Any] = roster.show(
        {"game": table.rules.title, "genders": genders, "thread": notice.thread, **notice.params}
    )
    if seat is not None:
        params = {"name": roster.shown(seat), **params}
    subject, body = table.renderer.mail(notice.template, lang, params)
    return {"subject": subject, "body": body}


def situation(table: AnsweringTable, roster: Roster, seat: PlayerId, lang: str) -> str:
    """The seat's ``STATUT``/``STATUS`` now, as its newcomer would get it (the potions left, the
    objects held, the orders standing: what the rules tell the seat of itself)."""
    genders = {h.seat: h.gender for h in roster.holders if h.gender}
    from pbem.table.wording import status_params  # the table imports this module

    params = {**status_params(table, table.state, seat, lang), "genders": genders}
    return table.renderer.text(f"{table.rules.templates}/status", lang, roster.show(params))


def awaited(table: AnsweringTable, seat: PlayerId, lang: str) -> dict[str, Any]:
    """What the seat may send now, whether the rules wait for it, and until when."""
    deadlines = table.deadlines()
    return {
        "commands": [table.syntax(c, lang) for c in table.rules.available(table.state, seat)],
        "awaited": seat in table.awaiting(),
        "deadline": min(deadlines.values()).isoformat() if deadlines else None,
        "folder": table.rules.templates,
    }


def handover_mails(
    table: AnsweringTable, event: Substituted, history: Sequence[Event], key: str
) -> list[Outgoing]:
    """The list's notice, the newcomer's packet and the old holder's goodbye."""
    from pbem.table.step import Outgoing  # late: pbem.table's __init__ loads the Table first

    roster = Roster.of(table.setup.players, [*history, event])  # names and agreement only
    game = table.rules.title
    thread = f"{table.game_id}/desk"
    common = {"game": game, "old": event.old_name, "name": event.name, "seat": event.seat}
    subject, body = table.renderer.mail("common/substituted", table.setup.lang, common)
    # each with its HTML alternative, as every mail of the game (issue 22): the packet's
    # with a quick action per command the seat may send now, so the newcomer has buttons
    html = table.pages.page(subject, body, table.setup.lang)
    mails = [
        Outgoing(
            f"{key}/list", (table.setup.list_address,), True, subject, body, None, thread, html=html
        )
    ]
    params = {
        **common,
        "genders": {event.name: event.gender} if event.gender else {},
        "sections": packet_sections(table, roster, event.seat, event.lang, history),
        "situation": situation(table, roster, event.seat, event.lang),
        **awaited(table, event.seat, event.lang),
    }
    subject, body = table.renderer.mail("common/handover", event.lang, params)
    html = table.pages.prompt(
        subject, body, event.lang, table.state, (PlayerId(event.seat),), public=False
    )
    mails.append(
        Outgoing(f"{key}/handover", (event.email,), False, subject, body, None, thread, html=html)
    )
    old_lang = Roster.of(table.setup.players, history).by_seat(event.seat).lang
    subject, body = table.renderer.mail("common/seat_farewell", old_lang, common)
    html = table.pages.page(subject, body, old_lang)
    mails.append(
        Outgoing(
            f"{key}/farewell", (event.old_email,), False, subject, body, None, thread, html=html
        )
    )
    return mails
