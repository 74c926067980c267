"""pbem.daemon.diskfull without servers (issue 10 item 17): what counts as a full disk, the sender's
failed removal of a sent row pausing the daemon like the writer's, and one alert per episode
across resumes that fail again. The real full tmpfs is in test_store.py."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbem.adapters.smtp import SendResult
from pbem.adapters.store import StoreError
from pbem.daemon.diskfull import FIRST_WAIT, DiskFullEpisode, is_disk_full
from pbem.daemon.outbox import OutboxSender, make_row
from tests.support.inproc_daemon import make_cfg

FULL = OSError(errno.ENOSPC, "No space left on device")


def test_what_counts_as_a_full_disk() -> None:
    assert is_disk_full(FULL)
    assert is_disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    try:
        try:
            raise FULL
        except OSError as exc:
            raise StoreError("commit failed") from exc
    except StoreError as wrapped:
        assert is_disk_full(wrapped)
    assert not is_disk_full(OSError(errno.EIO, "I/O error"))
    assert not is_disk_full(StoreError("checksum mismatch"))


class FullStore:
    """An outbox whose removal of a sent row cannot be written."""

    def __init__(self) -> None:
        self.rows = [
            make_row(
                message_id="<m1@example.test>",
                raw=b"Subject: x\r\n\r\nx\r\n",
                rcpts=["alice@example.test"],
                mail_from="moderator@example.test",
                now=datetime.now(UTC),
                kind="reply",
            )
        ]

    def outbox(self) -> list[dict[str, Any]]:
        return self.rows

    def outbox_done(self, message_id: str) -> None:
        raise FULL

    def outbox_update(self, message_id: str, changes: dict[str, Any]) -> None:
        raise FULL

    def commit(self, **kw: Any) -> None:
        raise FULL


class Accept:
    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        return SendResult(sent=list(rcpts))


def test_the_senders_failed_write_is_reported() -> None:
    seen: list[BaseException] = []

    async def go() -> None:
        store = FullStore()
        sender = OutboxSender(
            transport=Accept(),
            stores=lambda: [store],
            alert_store=store,
            clock=lambda: datetime.now(UTC),
            moderator="moderator@example.test",
            admins=(),
            bounce_address="moderator@example.test",
        )

        def failed(exc: BaseException) -> None:
            seen.append(exc)
            sender.stop()

        sender.on_error = failed
        await asyncio.wait_for(sender.run(), 10)

    asyncio.run(go())
    assert len(seen) == 1 and is_disk_full(seen[0])


def test_one_alert_per_episode_and_longer_waits_after_a_failed_resume(tmp_path: Path) -> None:
    cfg = make_cfg(tmp_path)
    cfg.data_dir.mkdir()
    sent: list[str] = []
    waits: list[float] = []

    async def send(_cfg: Any, template: str, params: dict[str, object], key: str) -> bool:
        sent.append(template)
        return True

    async def ping(seconds: float) -> None:
        waits.append(seconds)

    async def go() -> None:
        episode = DiskFullEpisode(cfg, send=send)
        assert await episode.hold(FULL, ping)  # the data directory has room: resume
        assert await episode.hold(FULL, ping)  # that resume failed again: same episode
        await episode.resumed()
        assert await episode.hold(FULL, ping)  # a new episode
        episode.stop.set()
        assert not await episode.hold(FULL, ping)

    asyncio.run(go())
    assert sent == [
        "daemon/alert_disk_full",
        "daemon/alert_disk_resumed",
        "daemon/alert_disk_full",
    ]
    assert waits == [FIRST_WAIT, 2 * FIRST_WAIT, FIRST_WAIT]
