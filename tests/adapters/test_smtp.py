"""SMTP adapter + outbox sender against aiosmtpd in modes ok / 451 / 550 / hang / down-then-up (F5)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.adapters.smtp import SmtpClient, SmtpSettings
from pbem.adapters.store import DaemonStore
from pbem.daemon.limits import GlobalCap
from pbem.daemon.outbox import OutboxSender, SenderPolicy, make_row
from pbem.mail.envelope import TEST_ID_KEY, build
from pbem.mail.render import bilingual, shared_renderer
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, MODERATOR, MailStack, SmtpServer

ALICE = "alice@example.test"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _row(key: str, now: datetime, to: str = ALICE) -> dict[str, object]:
    mid, raw = build(
        key=key,
        sender=MODERATOR,
        to=(to,),
        subject=f"subject {key}",
        body="corps é\n",
        date=now,
        id_key=TEST_ID_KEY,
    )
    return make_row(message_id=mid, raw=raw, rcpts=[to], mail_from=MODERATOR, now=now, kind="reply")


def _sender(
    stack: MailStack, tmp_path: Path, clock: Clock, timeout: float = 5.0, cap: int = 200
) -> tuple[OutboxSender, DaemonStore, SmtpClient]:
    store = DaemonStore(tmp_path)
    client = SmtpClient(SmtpSettings("127.0.0.1", stack.smtp.port, tls="none", timeout=timeout))
    sender = OutboxSender(
        transport=client,
        stores=lambda: [store],
        alert_store=store,
        clock=clock,
        moderator=MODERATOR,
        admins=[ADMIN],
        bounce_address=MODERATOR,
        policy=SenderPolicy(base=timedelta(seconds=10)),
        cap=GlobalCap(cap),
        coalesce=False,  # these tests count transactions; coalescing has its own test
    )
    return sender, store, client


def test_ok_reuses_connection_and_headers(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    store.commit(outbox=[_row(f"k{i}", clock.now) for i in range(5)])

    async def go() -> None:
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    assert store.outbox() == []
    got = stack.messages(ALICE)
    assert len(got) == 5
    m = got[0]
    assert m["Auto-Submitted"] == "auto-generated"
    assert m["X-Loop"] == MODERATOR
    assert m["X-Auto-Response-Suppress"] == "OOF, AutoReply"
    assert m["Precedence"] is None
    assert text_of(m).strip() == "corps é"


def test_451_retried_with_backoff_then_sent(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    store.commit(outbox=[_row("k", clock.now)])
    stack.handler.mode = "451"

    async def go() -> None:
        await sender.drain_once()
        (row,) = store.outbox()
        assert row["attempts"] == 1 and "451" in row["last_error"]
        assert datetime.fromisoformat(row["next_try"]) == clock.now + timedelta(seconds=10)
        await sender.drain_once()  # not due yet: nothing happens
        assert store.outbox()[0]["attempts"] == 1
        clock.now += timedelta(seconds=10)
        await sender.drain_once()
        assert store.outbox()[0]["attempts"] == 2
        assert datetime.fromisoformat(store.outbox()[0]["next_try"]) == clock.now + timedelta(
            seconds=20
        )
        stack.handler.mode = "ok"
        clock.now += timedelta(seconds=20)
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    assert store.outbox() == []
    assert len(stack.messages(ALICE)) == 1


def test_550_dead_lettered_with_admin_alert(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    store.commit(outbox=[_row("k", clock.now)])
    stack.handler.mode = "550"

    async def go() -> None:
        await sender.drain_once()
        stack.handler.mode = "ok"
        await sender.drain_once()  # the alert
        await client.close()

    asyncio.run(go())
    rows = store.outbox()
    assert [r["status"] for r in rows] == ["dead"]
    assert "550" in rows[0]["last_error"]
    (alert,) = stack.messages(ADMIN)
    # French first, then English (templates/*/daemon/alert_dead_letter.txt)
    subject = str(alert["Subject"]).strip()
    assert subject == f"[pbem] non distribuable : {ALICE} / [pbem] undeliverable: {ALICE}"
    body = text_of(alert)
    assert body.index("n'a pas pu être distribué") < body.index("could not be delivered")
    assert body.count(rows[0]["message_id"].partition("#")[0]) == 2, "the Message-ID, twice"
    # the kind of mail in words (issue 22), never the outbox's « reply »
    assert "Nature du message : réponse privée à un joueur" in body
    assert "Kind of mail: a private reply to a player" in body
    assert stack.messages(ALICE) == []


def test_hang_is_a_timeout_and_retried(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock, timeout=1.0)
    store.commit(outbox=[_row("k", clock.now)])
    stack.handler.mode = "hang"

    async def go() -> None:
        await sender.drain_once()
        assert store.outbox()[0]["attempts"] == 1
        stack.handler.mode = "ok"
        clock.now += timedelta(seconds=10)
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    assert store.outbox() == []
    # an ambiguous timeout may deliver twice; the copies share one Message-ID (§7.3)
    got = stack.messages(ALICE)
    assert 1 <= len(got) <= 2 and len({m["Message-ID"] for m in got}) == 1


async def _until(done: Callable[[], object], timeout: float = 30) -> None:
    """Wait on the event loop until ``done()`` holds (bounded: a busy machine is slow)."""
    end = asyncio.get_running_loop().time() + timeout
    while not done():
        assert asyncio.get_running_loop().time() < end, "timed out"
        await asyncio.sleep(0.02)


def test_down_then_up_and_processing_not_blocked(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    store.commit(outbox=[_row("k", clock.now)])
    port = stack.smtp.port
    stack.smtp.stop()

    async def go() -> None:
        task = asyncio.create_task(sender.run())
        # the first attempt failed (not a guessed 0.3 s: a busy machine may take longer)
        await _until(lambda: store.outbox()[0]["attempts"] >= 1)
        # the loop is free while SMTP is down: a commit goes through at once
        store.commit(outbox=[_row("k2", clock.now)])
        stack.smtp = SmtpServer(stack.handler)
        stack.smtp.port = port
        stack.smtp.start()
        clock.now += timedelta(minutes=5)
        sender.wake()
        await _until(lambda: not store.outbox())
        sender.stop()
        await task
        await client.close()

    asyncio.run(go())
    assert store.outbox() == []
    assert len(stack.messages(ALICE)) == 2


def test_global_cap_pauses_and_alarms(stack: MailStack, tmp_path: Path) -> None:
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock, cap=3)
    store.commit(outbox=[_row(f"k{i}", clock.now) for i in range(6)])

    async def go() -> None:
        await sender.drain_once()
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    assert len(stack.messages(ALICE)) == 3
    (alarm,) = stack.messages(ADMIN)
    assert str(alarm["Subject"]).strip() == (
        "[pbem] plafond d'envoi atteint : envois suspendus / "
        "[pbem] outbound cap reached: sending paused"
    )
    body = text_of(alarm)
    assert "a envoyé 3 messages en une heure" in body and "sent 3 messages within an hour" in body
    assert len(store.outbox()) == 3


def test_non_ascii_address_without_smtputf8_is_dead_lettered_and_the_next_mail_goes(
    stack: MailStack, tmp_path: Path
) -> None:
    """A server without SMTPUTF8 can never take chloé@…: dead letter, and the connection is
    not left mid-transaction (the next mail is delivered, no 'nested MAIL command')."""
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    store.commit(outbox=[_row("utf8", clock.now, to="chloé@example.test"), _row("k", clock.now)])

    async def go() -> None:
        await sender.drain_once()
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    statuses = {r["rcpts"][0]: r["status"] for r in store.outbox()}
    assert statuses["chloé@example.test"] == "dead"
    assert len(stack.messages(ALICE)) == 1


def test_verp_row_is_split_per_recipient_with_its_own_envelope(
    stack: MailStack, tmp_path: Path
) -> None:
    """RELIABILITY §2.4: with VERP each player's copy has its own envelope sender (same bytes,
    same Message-ID); a 550 for one recipient dead-letters that one only."""
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    bob, ghost = "bob@example.test", "ghost@example.test"
    sender.verp = lambda row, rcpt: None if rcpt == bob else f"moderator+b-{rcpt[:3]}@example.test"
    mid, raw = build(
        key="v",
        sender=MODERATOR,
        to=(ALICE, bob),
        subject="s",
        body="b\n",
        date=clock.now,
        id_key=TEST_ID_KEY,
    )
    row = make_row(
        message_id=mid,
        raw=raw,
        rcpts=[ALICE, bob, ghost],
        mail_from=MODERATOR,
        now=clock.now,
        kind="reply",
        game="g1",
    )
    store.commit(outbox=[row])

    async def go() -> None:
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    envelopes = [(f, r) for f, r, _ in stack.handler.received]
    assert envelopes[:2] == [
        ("moderator+b-ali@example.test", [ALICE]),
        (MODERATOR, [bob]),
    ]
    (dead,) = [r for r in store.outbox() if r["status"] == "dead"]
    assert dead["rcpts"] == [ghost]
    assert stack.messages(ALICE)[0]["Message-ID"] == stack.messages(bob)[0]["Message-ID"] == mid


def test_replies_due_together_are_coalesced_into_one_digest(
    stack: MailStack, tmp_path: Path
) -> None:
    """RELIABILITY §2.5 (receipt coalescing): four replies to alice queued together (a burst,
    or the backlog of an SMTP outage) reach her as ONE mail holding every reply in order,
    answering every command (In-Reply-To + References); bob's reply and an alert go alone;
    the digest's Message-ID derives from its parts, so a resend is the same message."""
    clock = Clock()
    sender, store, client = _sender(stack, tmp_path, clock)
    sender.coalesce = True
    rows = []
    for i in range(4):
        mid, raw = build(
            key=f"r{i}",
            sender=MODERATOR,
            to=(ALICE,),
            subject="[g] Your commands",
            body=f"accepted: CMD w{i}\n",
            date=clock.now,
            auto="auto-replied",
            in_reply_to=f"<cmd{i}@example.test>",
            id_key=TEST_ID_KEY,
        )
        rows.append(
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[ALICE],
                mail_from=MODERATOR,
                now=clock.now,
                kind="reply",
                game="g",
                seq=i,
            )
        )
    rows.append({**_row("bob", clock.now, to="bob@example.test"), "game": "g"})
    store.commit(outbox=rows)
    again = sender._digest_row([r for r in rows[:4]])

    async def go() -> None:
        await sender.drain_once()
        await client.close()

    asyncio.run(go())
    assert store.outbox() == []
    got = stack.messages(ALICE)
    assert len(got) == 1
    body = str(text_of(got[0]))
    assert [line for line in body.splitlines() if line.startswith("accepted")] == [
        f"accepted: CMD w{i}" for i in range(4)
    ]
    assert got[0]["In-Reply-To"] == "<cmd3@example.test>"
    assert str(got[0]["References"]).split() == [f"<cmd{i}@example.test>" for i in range(4)]
    # one Subject in all its parts: the digest keeps it, so it stays in the thread (issue 15)
    assert str(got[0]["Subject"]) == "[g] Your commands"
    assert got[0]["Auto-Submitted"] == "auto-replied"
    assert got[0]["Message-ID"] == again["message_id"]
    assert len(stack.messages("bob@example.test")) == 1


@pytest.mark.parametrize(
    "kind", ["reply", "public", "relay", "reminder", "notice", "confirm", "alert", "odd"]
)
def test_the_dead_letter_alert_words_each_kind_of_mail(kind: str) -> None:
    """Issue 22: « Type : reply » was a machine word in a French alert."""
    params = {"message_id": "<m@x>", "rcpts": [ALICE], "game": "g1", "kind": kind, "error": "550"}
    _subject, body = bilingual(shared_renderer(), "daemon/alert_dead_letter", params)
    french, english = body.split("----- English -----")
    assert "Nature du message : " in french and "Kind of mail: " in english
    assert not re.search(rf"\b{kind}\b", french), french  # English words are fine in English
    assert "dead letter" not in french
