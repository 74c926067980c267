"""The archive mailed to everyone when a game ends.

One mail per player (in his language) and per administrator (in the game's): the plain-text
archive as the body, the HTML archive as an attachment (``GAME.html``), and the game's open
record (``GAME.record.json``, pbem/record/export.py: what ``pbem verify`` checks and what
``pbem stats`` reads) as a second one, in compact JSON. An attachment rather
than a ``multipart/alternative`` HTML part, because the HTML part of an alternative is what
webmail shows, and Gmail and Outlook strip inline SVG and rewrite ``<style>`` there: the
charts would vanish and the layout break. As an attachment the page opens in a browser
exactly as designed (and is a file to keep), and every client shows the text body.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Sequence
from datetime import datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from pbem.core.events import GameEnded
from pbem.judge.observer import observers
from pbem.mail.envelope import build, domain_of, thread_root
from pbem.mail.threads import Addressing, addressed, headed, phase_of, thread_subject
from pbem.record.archive import archive_files
from pbem.record.export import record_json, record_name
from pbem.table import Table

if TYPE_CHECKING:
    from pbem.daemon.outbox import OutboxRow


def ends_game(table: Table, step: Any) -> bool:
    """Whether ``step`` (not yet applied to ``table``) ends the game."""
    if table.finished:
        return False
    return any(e.get("type") == GameEnded.__name__ for e in getattr(step, "events", ()))


def archive_mails(
    table: Table,
    step: Any,
    *,
    sender: str,
    now: datetime,
    id_key: bytes,
    how: Addressing | None = None,
) -> list[tuple[str, bytes, tuple[str, ...]]]:
    """``(message_id, bytes, recipients)`` of the archive mails for a step that ends the game.

    ``how``: the game's addressing (pbem.mail.threads), so that the archive comes as the
    game's other mail does, ``From: "MJ village1"`` with the game's Reply-To, and is filed in
    the thread of the phase the game ended in (its Subject and References: the last word of
    the conversation the players read); without it, a bare From and the archive's own title."""
    events = [*table.events, *(table.rules.codec.decode(e) for e in step.events)]
    final = Table(table.setup, table.rules, events, table.renderer)
    how = how or Addressing(table.game_id, sender, "", from_name="")
    phase = phase_of(final.thread)
    by_lang: dict[str, dict[str, str]] = {}
    record = record_json(final, compact=True)  # one language-free document for everyone
    out: list[tuple[str, bytes, tuple[str, ...]]] = []
    # who holds each seat at the end (the roster), and whoever held one before (issue 13)
    recipients: list[tuple[str, str, str]] = [
        (str(h.seat), h.email, h.lang) for h in final.roster.holders
    ]
    recipients += [(f"former/{a}", a, table.setup.lang) for a in final.roster.former]
    recipients += [(f"admin{i}", a, table.setup.lang) for i, a in enumerate(table.setup.admins)]
    # the game's observers (issue 25), each in the language he asked in
    recipients += [(f"observer/{a}", a, lang) for a, lang in observers(final).joined.items()]
    for who, address, lang in recipients:
        if lang not in by_lang:
            by_lang[lang] = archive_files(final, lang)
        files = by_lang[lang]
        # the title once, underlined, above the story (issue 22: it came twice in a thread)
        title, _, rest = files["text"].partition("\n")
        subject, body = title, headed(title, rest.lstrip("\n"))
        headers = addressed(how, public=False) if how.from_name else {}
        if phase is not None and how.from_name:
            subject = thread_subject(table.renderer, lang, how.game, phase, private=False)
            # the root every post of that phase refers to (envelope.build: its thread key)
            thread = f"{table.game_id}/{final.thread}"
            root = thread_root(thread, domain_of(sender), id_key, game=how.game)
            headers["references"] = (root,)
        mid, raw = build(
            key=f"{table.game_id}/archive/{who}",
            sender=sender,
            to=(address,),
            subject=subject,
            body=body,
            html="",  # its HTML is the attached archive, not an alternative (see above)
            date=now,
            id_key=id_key,
            **headers,
        )
        attached = with_attachments(
            raw, files["html"], f"{table.game_id}.html", record, record_name(table.game_id)
        )
        out.append((mid, attached, (address,)))
    return out


def with_attachments(raw: bytes, html: str, html_name: str, record: str, record_file: str) -> bytes:
    """The text/plain message ``raw`` made multipart/mixed with ``html`` and the JSON
    ``record`` attached. The record goes in base64: JSON's quotes and long lines cost more in
    quoted-printable (measured: 1.7 times its size against base64's 1.37)."""
    msg = email.message_from_bytes(raw, policy=email.policy.SMTP)
    assert isinstance(msg, EmailMessage)
    msg.add_attachment(html, subtype="html", filename=html_name, cte="quoted-printable")
    msg.add_attachment(
        record.encode(), maintype="application", subtype="json", filename=record_file
    )
    return msg.as_bytes(policy=email.policy.SMTP)


def attachment_names(raw: bytes) -> Sequence[str]:
    """The attachments' file names of a message (for tests and the status)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return [str(part.get_filename()) for part in msg.iter_attachments()]


def archive_rows(
    table: Any,
    step: Any,
    *,
    sender: str,
    mail_from: str,
    now: datetime,
    first_seq: int,
    id_key: bytes,
    how: Addressing | None = None,
) -> list[OutboxRow]:
    """Outbox rows of the archive mails if ``step`` ends ``table``'s game, else none
    (``how``: see :func:`archive_mails`).

    Kind ``archive``: never coalesced into a digest of replies (a digest keeps text only).
    """
    from pbem.daemon.outbox import make_row

    table = getattr(table, "game", None) or table  # a game started from sign-ups (pbem.signup)
    if not isinstance(table, Table) or not ends_game(table, step):
        return []
    return [
        make_row(
            message_id=mid,
            raw=raw,
            rcpts=rcpts,
            mail_from=mail_from,
            now=now,
            kind="archive",
            game=table.game_id,
            seq=first_seq + i,
        )
        for i, (mid, raw, rcpts) in enumerate(
            archive_mails(table, step, sender=sender, now=now, id_key=id_key, how=how)
        )
    ]
