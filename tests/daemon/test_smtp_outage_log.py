"""An SMTP outage is one warning and a count, not a line per queued mail per retry (issue 21,
item 14: 40 lines in 3 s before)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.adapters.servers import SendResult
from pbem.adapters.store import DaemonStore
from pbem.daemon.outbox import OutboxSender, SenderPolicy, make_row
from pbem.mail.envelope import TEST_ID_KEY, build

MODERATOR = "mj@example.test"


class Server:
    """SMTP down (connection refused) until ``up``."""

    def __init__(self) -> None:
        self.up = False

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        if self.up:
            return SendResult(sent=list(rcpts))
        return SendResult(retry=list(rcpts), detail="ConnectionRefusedError: [Errno 111]")


def test_an_outage_is_one_warning_then_one_line_with_the_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    now = [datetime(2026, 1, 1, 12, 0, tzinfo=UTC)]
    store = DaemonStore(tmp_path)
    server = Server()
    sender = OutboxSender(
        transport=server,
        stores=lambda: [store],
        alert_store=store,
        clock=lambda: now[0],
        moderator=MODERATOR,
        admins=[],
        bounce_address=MODERATOR,
        policy=SenderPolicy(base=timedelta(seconds=10)),
        coalesce=False,
    )
    rows = []
    for i in range(20):
        mid, raw = build(
            key=f"k{i}",
            sender=MODERATOR,
            to=(f"p{i}@example.test",),
            subject="s",
            body="b\n",
            date=now[0],
            id_key=TEST_ID_KEY,
        )
        rows.append(
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[f"p{i}@example.test"],
                mail_from=MODERATOR,
                now=now[0],
                kind="reply",
            )
        )
    store.commit(outbox=rows)
    caplog.set_level(logging.INFO, logger="pbem.daemon.outbox")
    for _retry in range(2):  # two rounds of 20 failed sends
        asyncio.run(sender.drain_once())
        now[0] += timedelta(minutes=5)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and warned[0].startswith("SMTP: sending fails"), warned
    server.up = True
    asyncio.run(sender.drain_once())
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 2, warned
    assert warned[1] == "SMTP: sending works again after 10 min 0 s: 40 send(s) deferred meanwhile"
    assert store.outbox() == []
