"""``pbem simulate``: the daemon's pipeline on a virtual clock, from a JSON Lines transcript.

Input lines (blank and ``#`` lines skipped): one ``setup``, then ``mail`` and ``deadline``
lines. Output: one JSON line per mail sent, then a ``state`` line (DESIGN.md). A phase closes
only at a ``deadline`` line (or early when the setup's options turn early closing on).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

from pbem.core.errors import PbemError, SetupError, TranscriptError
from pbem.judge.digest import digest_step
from pbem.judge.observer import (
    graveyard_address,
    graveyard_members,
    graveyard_welcomes,
    observer_addresses,
)
from pbem.mail.inbound import parse_once_policy
from pbem.signup.table import SignupTable
from pbem.table import Outgoing, Step, Table

EPOCH = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
"""The virtual clock's start unless the setup gives ``start``."""


def read_transcript(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each meaningful line; TranscriptError on bad JSON."""
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"line {number}: malformed JSON ({exc.msg})") from None
        if not isinstance(item, dict) or len(item) != 1:
            raise TranscriptError(
                f'line {number}: expected one of {{"setup"}}, {{"mail"}}, {{"deadline"}}, '
                f'{{"digest"}}'
            )
        yield number, item


def make_mail(
    data: Any, number: int, moderator: str, list_address: str
) -> tuple[EmailMessage, str]:
    """An EmailMessage from a transcript ``mail`` object, and its channel."""
    if not isinstance(data, dict) or not isinstance(data.get("from"), str):
        raise TranscriptError(f"line {number}: a mail needs a 'from' address")
    to = data.get("to", "moderator")
    if to not in ("moderator", "list", "graveyard", moderator, list_address):
        raise TranscriptError(f'line {number}: \'to\' must be "moderator" or "list", not {to!r}')
    channel = "list" if to in ("list", list_address) else "private"
    if to == "graveyard":  # the dead's and the observers' list (issue 25)
        channel = "graveyard"
    for field in ("from", "subject", "body", "html"):
        value = str(data.get(field, ""))
        if field in ("from", "subject") and any(c in value for c in "\r\n"):
            # a header holds one line: a CR or LF would start another header (injection)
            raise TranscriptError(f"line {number}: {field!r} must not contain CR or LF")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # JSON lets a lone surrogate through ("\ud800")
            raise TranscriptError(f"line {number}: {field!r} is not valid Unicode") from None
    # the daemon's parsing policy: a malformed From ("frank@") is data, read as the daemon
    # reads it from a mailbox, not an exception (issue 10, item 8)
    msg = EmailMessage(policy=parse_once_policy())
    msg["From"] = data["from"]
    msg["To"] = {"list": list_address, "graveyard": "graveyard"}.get(channel, moderator)
    msg["Subject"] = str(data.get("subject", ""))
    msg["Message-ID"] = f"<transcript-{number}@pbem.invalid>"
    body = data.get("body", "")
    html = data.get("html")
    if not isinstance(body, str) or (html is not None and not isinstance(html, str)):
        raise TranscriptError(f"line {number}: 'body' and 'html' must be strings")
    if html is not None and not body:
        msg.set_content(html, subtype="html")
    else:
        msg.set_content(body)
        if html is not None:
            msg.add_alternative(html, subtype="html")
    return msg, channel


def simulate(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Run a transcript; yields the output objects. Raises PbemError on a bad transcript."""
    items = read_transcript(lines)
    first = next(items, None)
    if first is None or "setup" not in first[1]:
        raise TranscriptError("line 1: the transcript must start with a setup line")
    number, item = first
    setup = item["setup"]
    if not isinstance(setup, dict):
        raise TranscriptError(f"line {number}: setup must be an object")
    now = EPOCH
    if "start" in setup:
        try:
            now = datetime.fromisoformat(str(setup["start"]))
        except ValueError:
            raise SetupError(f"setup: start {setup['start']!r} is not an ISO date") from None
        if now.tzinfo is None:
            now = now.replace(tzinfo=UTC)
    # the daemon's list mode (issue 25): "relay": pbem is the list (observers, held posts);
    # "graveyard": true adds the dead's and the observers' list (to: "graveyard")
    setup = dict(setup)
    relay = setup.pop("list_mode", "external") == "relay"
    graveyard = ""
    if setup.pop("graveyard", False) and relay:
        graveyard = graveyard_address(str(setup.get("list", ""))) or "graveyard"
    table: Table | SignupTable
    if "signup" in setup:  # opened for sign-ups (pbem.signup): joins and leaves, then the start
        table, step = SignupTable.open(setup, now)
    else:
        table, step = Table.new(setup, now)
        table.code_source = transcript_codes(setup)
    moderator = str(setup.get("moderator", "moderator"))
    list_address = str(setup.get("list", "list"))
    yield from _commit(table, step, now)
    for number, item in items:
        kind, value = next(iter(item.items()))
        if kind == "mail":
            msg, channel = make_mail(value, number, moderator, list_address)
            if channel == "graveyard" and not graveyard:
                raise TranscriptError(f'line {number}: no graveyard (setup "graveyard": true)')
            step = table.receive(
                msg,
                channel=channel,  # type: ignore[arg-type]
                now=now,
                relay=relay,
                graveyard=graveyard,
            )
            if channel == "graveyard" and step.post == "relay":
                yield from _graveyard_copy(table, msg)
        elif kind == "deadline":
            if value is not True:  # only true advances the clock
                raise TranscriptError(f'line {number}: a deadline line is {{"deadline": true}}')
            pending = table.deadlines()
            if not pending:
                raise TranscriptError(f"line {number}: no deadline is pending (the game is over)")
            key, when = min(pending.items(), key=lambda kv: kv[1])
            now = max(now, when)
            step = table.on_deadline(key, now)
        elif kind == "digest":  # the daily digest the daemon would send now (issue 25)
            if value is not True or not isinstance(table, Table):
                raise TranscriptError(f'line {number}: a digest line is {{"digest": true}}')
            day = now.astimezone(ZoneInfo(table.setup.timezone)).date().isoformat()
            step = digest_step(table, day)
        elif kind == "setup":
            raise TranscriptError(f"line {number}: a second setup line")
        else:
            raise TranscriptError(f"line {number}: unknown line type {kind!r}")
        yield from _commit(table, step, now, graveyard)
    # the holders' names (issue 13); a lobby that never started has no seats to show
    shown = getattr(table, "shown_summary", None)
    state = shown() if shown is not None else table.summary()
    game = getattr(table, "game", None) or table
    if relay and isinstance(game, Table) and observer_addresses(game):
        state["observers"] = observer_addresses(game)
    yield {"state": state}


def transcript_codes(setup: dict[str, Any]) -> Callable[[], str]:
    """The codes a transcript's commands mail (issue 25, ADRESSE), drawn from the setup's
    seed rather than :mod:`secrets`: a dry run plays the same twice, so a transcript may send
    back the code it will be given (``sha256(seed|n)``, its first 32 hex digits)."""
    numbers = itertools.count(1)
    seed = str(setup.get("seed", ""))
    return lambda: hashlib.sha256(f"{seed}|code|{next(numbers)}".encode()).hexdigest()[:32]


def _graveyard_copy(table: Table | SignupTable, msg: EmailMessage) -> Iterator[dict[str, Any]]:
    """A graveyard post as the daemon relays it: to the dead, observers and game masters."""
    game = getattr(table, "game", None) or table
    if isinstance(game, Table):
        body = msg.get_body(("plain",))
        text = body.get_content() if body is not None else ""
        subject = str(msg["Subject"] or "")
        out = {"to": graveyard_members(game), "public": False, "subject": subject, "body": text}
        yield {"mail": out}


def _commit(
    table: Table | SignupTable, step: Step, now: datetime, graveyard: str = ""
) -> Iterator[dict[str, Any]]:
    archive = archive_lines(table, step, now)  # decided before the step is applied
    game = getattr(table, "game", None) or table
    welcomes = graveyard_welcomes(game, step, graveyard) if isinstance(game, Table) else []
    table.apply(step)
    for mail in (*step.outgoing, *welcomes):
        yield mail_line(mail)
    yield from archive


def archive_lines(table: Table | SignupTable, step: Step, now: datetime) -> list[dict[str, Any]]:
    """The archive mails the daemon sends when ``step`` ends the game (pbem.record.mail), as
    output objects: a dry run shows every mail, the archive too (its text body, and the name
    of the HTML page attached)."""
    from pbem.record.mail import archive_mails, ends_game  # only a game that ends needs it

    game = getattr(table, "game", None) or table  # a game started from sign-ups
    if not isinstance(game, Table) or not ends_game(game, step):
        return []
    moderator = game.setup.moderator
    out = []
    for _mid, raw, rcpts in archive_mails(game, step, sender=moderator, now=now, id_key=b"s"):
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        body = msg.get_body(("plain",))
        files = [str(part.get_filename()) for part in msg.iter_attachments()]
        mail = {
            "to": list(rcpts),
            "public": False,
            "subject": str(msg["Subject"]),
            "body": body.get_content().replace("\r\n", "\n") if body is not None else "",
            "attachments": files,
        }
        out.append({"mail": mail})
    return out


def mail_line(mail: Outgoing) -> dict[str, Any]:
    """The output object of one sent mail."""
    return {
        "mail": {
            "to": list(mail.to),
            "public": mail.public,
            "subject": mail.subject,
            "body": mail.body,
        }
    }


__all__ = ["EPOCH", "PbemError", "simulate"]
