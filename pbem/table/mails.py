"""The mails of a step: a player's receipt, the mails of the rules' notices, the hand-over
of a seat, the deal's commitment under the opening post; and the :class:`Step` that carries
them with its encoded events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pbem.core.events import (
    AddressChanged,
    Event,
    Notice,
    ObserverJoined,
    ObserverLeft,
    Substituted,
    rolls_back,
)
from pbem.core.game import ADMIN
from pbem.core.ids import PlayerId
from pbem.desk.kernel import is_kernel
from pbem.judge import observer
from pbem.judge.address import changed_mails
from pbem.mail.html import with_paragraph
from pbem.mail.plain_text import plain_text
from pbem.record.deal import deal_commitment
from pbem.record.seed import commitment as seed_commitment
from pbem.seats.handover import handover_mails
from pbem.table.mailpages import MailPages
from pbem.table.step import Encoding, Outgoing, PostVerdict, Receipt, Reply, Step

if TYPE_CHECKING:
    from pbem.table.ports import HubTable


def reply_mail(
    table: HubTable,
    to: str,
    lang: str,
    reply: Reply,
    key: str,
    message_id: str | None,
    threaded: bool = True,
) -> Outgoing:
    """The receipt of one mail: what was accepted, rejected, ignored, and the texts asked."""
    # plain data (the receipt's lines, deadlines as ISO text): kept, most receipts recur
    title, topic = table.rules.title, "" if reply.accepted or reply.rejected else reply.topic
    subject, body = table.renderer.mail_kept(
        "common/reply",
        lang,
        {
            "game": title,
            "accepted": reply.accepted,
            "rejected": reply.rejected,
            "ignored": reply.ignored,
            "hints": reply.hints,
            "extra": reply.extra,
            "topic": topic,
        },
        receipt_content(title, reply, topic),
    )
    # a player's receipt belongs to his thread of the phase in play (issue 15); the answers
    # to AIDE and REGLES alone, and the game master's, keep a Subject of their own
    topic_only = reply.topic and not (reply.accepted or reply.rejected)
    thread = table.thread if threaded and not topic_only else ""
    pages, state, helped = table.pages, table.state, (PlayerId(reply.helped),)
    return Outgoing(
        f"{table.game_id}/reply/{key}",
        (to,),
        False,
        subject,
        plain_text(body) if reply.markdown else body,
        message_id,
        f"{table.game_id}/{thread or 'replies'}",
        "auto-replied",
        # made when first read (pbem.table.step.LazyPage), from the table as it is now
        (lambda: pages.prompt(subject, body, lang, state, helped, public=False))
        if reply.helped
        else (lambda: pages.page(subject, body, lang)),
    )


def receipt_content(title: str, reply: Reply, topic: str) -> tuple[Any, ...]:
    """What tells a receipt's params apart (:meth:`Renderer.mail_kept`): each line's entry as
    its (key, value) pairs, in order. Their values are str, None and bool (:class:`Accepted`,
    :class:`Rejected`), which compare equal only when their ``repr`` is the same."""
    return (
        title,
        topic,
        tuple([tuple(entry.items()) for entry in reply.accepted]),
        tuple([tuple(entry.items()) for entry in reply.rejected]),
        tuple(reply.ignored),
        tuple(reply.hints.items()),
        tuple(reply.extra),
    )


_OBSERVERS = (ObserverJoined, ObserverLeft)
"""The game master's decisions on observers (a tuple: ``isinstance`` with a union is slower,
and every event of a step is asked)."""

_MAILING = (Notice, Substituted, AddressChanged, *_OBSERVERS)
"""The events :func:`step_of` makes mails of."""

_MAILED: dict[type, bool] = {}
"""Event class -> whether its events are :data:`_MAILING` (bounded: the event classes)."""


def step_of(
    table: HubTable,
    events: Sequence[Event],
    reply: Receipt | None,
    post: PostVerdict | None = None,
    deferred: tuple[str, ...] = (),
    after: Any = None,
    replied: Sequence[str] = (),
) -> Step:
    """The step that appends ``events`` to ``table``: their encoding, the receipt's mail, the
    mails of their notices and hand-overs. ``after``: the rules' state ``events`` lead to from
    the table's, when the caller folded them (else it is folded here if a notice needs it).
    ``replied``: the addresses the caller answers himself (the game master's reply): like the
    receipt's, they get no game master's copy of a notice, their answer says it already."""
    base = len(table.events)
    outgoing: list[Outgoing] = []
    if reply is not None:
        player, body, key, message_id = reply
        outgoing.append(reply_mail(table, player.email, player.lang, body, key, message_id))
        outgoing += body.mails
        replied = (*replied, player.email.lower())  # a game master who plays a seat
    # the state the step leads to: the one its prompts' quick actions are for
    for index, event in enumerate(events):
        cls = type(event)
        mailed = _MAILED.get(cls)
        if mailed is None:  # once per event class
            mailed = _MAILED[cls] = issubclass(cls, _MAILING)
        if not mailed:  # most of a step's events (an order, a vote): no mail of their own
            continue
        if isinstance(event, Notice):
            if after is None and not rolls_back(events):
                after = table.rules.fold((e for e in events if not is_kernel(e)), table.state)
            key = f"{table.game_id}/{base + index}"
            outgoing += notice_mails(table, event, key, after, replied)
        elif isinstance(event, Substituted):  # issue 13: the list, the packet, a goodbye
            history = [*table.events, *events[:index]]
            outgoing += handover_mails(table, event, history, f"{table.game_id}/{base + index}")
        elif isinstance(event, AddressChanged):  # issue 25: the old address told, the new one
            outgoing += changed_mails(table, event, f"{table.game_id}/{base + index}")
        elif isinstance(event, _OBSERVERS):  # the game master decided
            outgoing += observer.event_mails(table, event, f"{table.game_id}/{base + index}")
    facts = tuple(events)
    folded = None if after is None else (table.state, after)
    # encoded when first read (pbem.table.step.LazyEvents): by whoever stores the step; the
    # table folds it from its facts
    encoded = Encoding(table.rules.codec.encode, facts)
    return Step(encoded, tuple(outgoing), facts, post, deferred, folded)


def notice_mails(
    table: HubTable, notice: Notice, key: str, after: Any = None, replied: Sequence[str] = ()
) -> list[Outgoing]:
    """The mails of a notice; ``after``: the state its quick actions are checked on
    (None: no quick actions). ``replied``: addresses answered in the same step (the game
    master who acted, or who holds the seat that did): no game master's copy to them, one
    mail and not two saying the same."""
    thread = f"{table.game_id}/{notice.thread}"
    # a seat that changed hands is shown by its newcomer's name (the option
    # substitute_name, issue 13): the rules' params name seats
    params = table.roster.show(
        {
            "game": table.rules.title,
            "genders": table.genders,
            "thread": notice.thread,
            **notice.params,
        }
    )
    lang = table.setup.lang
    pages = table.pages  # the pages are made when first read (pbem.table.step.LazyPage)
    if notice.public:
        subject, body = table.renderer.mail(notice.template, lang, params)
        to = (table.setup.list_address,)
        html = _prompt(pages, subject, body, lang, after, table.setup.seats, public=True)
        return [Outgoing(key, to, True, subject, body, None, thread, html=html)]
    mails = []
    # one text per language when the template never reads its reader's ``name`` (or the
    # notice's own params set it): the same words to each wolf of the pack
    several, renderer = len(notice.to) > 1, table.renderer
    texts: dict[str, tuple[str, str]] = {}
    for name in notice.to:
        if name == ADMIN:  # the game's administrators, in the game's language
            subject, body = table.renderer.mail(notice.template, lang, params)
            page = _Once(pages.page, subject, body, lang)  # one page for every admin
            mails += [
                Outgoing(f"{key}/admin/{i}", (a,), False, subject, body, None, thread, html=page)
                for i, a in enumerate(table.setup.admins)
                if a not in replied
            ]
            continue
        player = table.by_name[name]
        alike = several and (
            "name" in params or not renderer.reads(notice.template, player.lang, "name")
        )
        text = texts.get(player.lang) if alike else None
        if text is None:
            text = table.renderer.mail(
                notice.template, player.lang, {"name": table.roster.shown(name), **params}
            )
            if alike:
                texts[player.lang] = text
        subject, body = text
        html = _prompt(pages, subject, body, player.lang, after, (name,), public=False)
        mails.append(
            Outgoing(
                f"{key}/{name}", (player.email,), False, subject, body, None, thread, html=html
            )
        )
    return mails


def _prompt(
    pages: MailPages,
    subject: str,
    body: str,
    lang: str,
    state: Any,
    readers: tuple[PlayerId, ...],
    *,
    public: bool,
) -> Callable[[], str]:
    """A notice's page, made when first read."""
    return lambda: pages.prompt(subject, body, lang, state, readers, public=public)


class _Once:
    """A page made once for several mails (the same notice to each administrator)."""

    def __init__(self, make: Callable[..., str], *args: Any) -> None:
        self.make, self.args = make, args
        self.page: str | None = None

    def __call__(self) -> str:
        if self.page is None:
            self.page = self.make(*self.args)
        return self.page


def committed(table: HubTable, events: list[Event], salt: str) -> Step:
    """The opening step with the deal's commitment: a :class:`DealCommitted` event after
    the opening ones (their mails keep their keys) and its digest under the opening post."""
    commitment = deal_commitment(events, table.rules.codec.encode, table.rules.id, salt)
    step = step_of(table, [*events, commitment], reply=None)
    outgoing = list(step.outgoing)
    first = next((i for i, o in enumerate(outgoing) if o.public), None)
    if first is not None:
        _subject, line = table.renderer.mail(
            "common/deal_commitment", table.setup.lang, {"digest": commitment.digest}
        )
        # every later draw derives from the seed (pbem/record/seed.py): committed here too
        _subject, seed_line = table.renderer.mail(
            "common/seed_commitment",
            table.setup.lang,
            {"digest": seed_commitment(table.setup.seed)},
        )
        line = f"{line}\n{seed_line}"
        opening = outgoing[first]
        outgoing[first] = replace(
            opening,
            body=f"{opening.body.rstrip()}\n\n{line}",
            html=lambda: with_paragraph(opening.html, line),
        )
    return replace(step, outgoing=tuple(outgoing))


def chained(table: HubTable, step: Step) -> Step:
    """A phase's close with its link of the hash chain (pbem/record/chain.py): ``H_n`` added
    under the step's first public mail (the result post), in one short line. Only a game
    whose opening committed to its seed (a sealed game) has a chain to publish."""
    if table.setup.deal_salt is None or not step.events:
        return step
    _cursor, found = table.chain_cursor().fed(step.events)
    first = next((i for i, o in enumerate(step.outgoing) if o.public), None)
    if not found or first is None:
        return step
    link = found[-1]
    _subject, line = table.renderer.mail(
        "common/chain_line", table.setup.lang, {"n": link.n, "digest": link.digest}
    )
    outgoing = list(step.outgoing)
    post = outgoing[first]
    outgoing[first] = replace(
        post, body=f"{post.body.rstrip()}\n\n{line}", html=with_paragraph(post.html, line)
    )
    return replace(step, outgoing=tuple(outgoing))
