"""The Maildir mailbox (``make demo``): the same contract as the IMAP adapter, on local files."""

from __future__ import annotations

import mailbox
import os
import threading
import time
from pathlib import Path

import pytest

from pbem.adapters.imap import ImapDown, ImapSettings
from pbem.adapters.maildir import INDEX, MaildirMailbox

SETTINGS = ImapSettings(host="", port=1, user="", password="", max_size=1000, poll_interval=5)


def _mail(i: int, body: str = "VOTE bob") -> bytes:
    return (
        f"From: alice@example.test\r\nTo: mj@example.test\r\nSubject: m{i}\r\n"
        f"Message-ID: <m{i}@example.test>\r\n\r\n{body}\r\n"
    ).encode()


def _deliver(root: Path, raw: bytes, mtime: float | None = None) -> str:
    md = mailbox.Maildir(root, create=True)
    key = md.add(raw)
    if mtime is not None:
        path = next(root.glob(f"*/{key}*"))
        os.utime(path, (mtime, mtime))
    return key


def _box(root: Path, **kw: object) -> MaildirMailbox:
    settings = ImapSettings(**{**SETTINGS.__dict__, **kw})  # type: ignore[arg-type]
    box = MaildirMailbox(root, settings, poll=0.01)
    box.connect()
    return box


def test_uids_in_arrival_order_fetch_size_cap_and_move(tmp_path: Path) -> None:
    root = tmp_path / "Maildir"
    box = _box(root)
    assert (root / ".Processed" / "new").is_dir() and (root / ".Quarantine" / "cur").is_dir()
    now = time.time()
    _deliver(root, _mail(2), now - 10)
    _deliver(root, _mail(1), now - 20)  # arrived first: smaller UID
    _deliver(root, _mail(3, "x" * 5000), now - 5)
    uids = box.pending_uids()
    assert uids == [1, 2, 3]
    got = box.fetch(uids)
    assert [f.uid for f in got] == [1, 2, 3]
    assert got[0].raw is not None and b"Subject: m1" in got[0].raw
    assert got[1].raw is not None and b"Subject: m2" in got[1].raw
    assert got[2].raw is None and got[2].size > 1000  # over the cap: never read
    assert abs(got[0].internaldate.timestamp() - (now - 20)) < 1
    assert {f.uidvalidity for f in got} == {box.uidvalidity}
    box.move([1, 2], "Processed")
    box.move([3], "Quarantine")
    box.move([3], "Quarantine")  # idempotent
    assert box.pending_uids() == []
    assert len(list((root / ".Processed" / "new").iterdir())) == 2
    assert len(list((root / ".Quarantine" / "new").iterdir())) == 1


def test_uids_are_stable_and_never_reused_across_reconnects(tmp_path: Path) -> None:
    root = tmp_path / "Maildir"
    box = _box(root)
    _deliver(root, _mail(1))
    _deliver(root, _mail(2))
    assert box.pending_uids() == [1, 2]
    validity = box.uidvalidity
    box.move([1], "Processed")
    box.close()
    with pytest.raises(ImapDown):
        box.pending_uids()
    again = _box(root)
    assert again.uidvalidity == validity
    assert again.pending_uids() == [2]  # the same UID for the same message
    _deliver(root, _mail(3))
    assert again.pending_uids() == [2, 3]  # 1 is never reused


def test_a_lost_index_is_a_uidvalidity_change(tmp_path: Path) -> None:
    root = tmp_path / "Maildir"
    box = _box(root)
    old = box.uidvalidity
    (root / INDEX).unlink()
    time.sleep(1.1)  # UIDVALIDITY is a time stamp in seconds
    assert _box(root).uidvalidity != old


def test_a_message_read_by_a_client_stays_pending(tmp_path: Path) -> None:
    """A mail user agent moving a message to cur/ (info ``:2,S``) does not change its UID."""
    root = tmp_path / "Maildir"
    box = _box(root)
    key = _deliver(root, _mail(1))
    assert box.pending_uids() == [1]
    os.rename(root / "new" / key, root / "cur" / f"{key}:2,S")
    assert box.pending_uids() == [1]
    [f] = box.fetch([1])
    assert f.raw is not None and b"m1" in f.raw
    box.move([1], "Processed")
    assert box.pending_uids() == []


def test_wait_wakes_on_arrival_or_interrupt_not_on_kept_mail(tmp_path: Path) -> None:
    root = tmp_path / "Maildir"
    box = _box(root)
    _deliver(root, _mail(1))
    assert box.wait(0.2) is True  # an arrival
    assert box.pending_uids() == [1]
    t = time.monotonic()
    assert box.wait(0.3) is False  # the kept message is not news: no spin
    assert time.monotonic() - t >= 0.25
    threading.Timer(0.1, lambda: _deliver(root, _mail(2))).start()
    t = time.monotonic()
    assert box.wait(5) is True
    assert time.monotonic() - t < 2
    assert box.pending_uids() == [1, 2]
    threading.Timer(0.1, box.interrupt.set).start()
    t = time.monotonic()
    assert box.wait(5) is False
    assert time.monotonic() - t < 2
    assert not box.interrupt.is_set()


def test_an_unreadable_mailbox_is_a_dropped_connection(tmp_path: Path) -> None:
    root = tmp_path / "Maildir"
    box = _box(root)
    (root / "new").rename(tmp_path / "gone")
    with pytest.raises(ImapDown):
        box.pending_uids()


def test_a_burst_written_within_one_clock_tick_keeps_its_order(tmp_path: Path) -> None:
    """Files written within one tick of the file system's clock share their mtime; their names
    then say which came first, read as numbers (unpadded microseconds compared as text put
    ``M120000`` before ``M98000``)."""
    root = tmp_path / "Maildir"
    box = _box(root)
    names = ["1796552302.M98000P7Q5.host", "1796552302.M120000P7Q6.host", "1796552303.M5P7Q7.host"]
    for i, name in enumerate(names):
        path = root / "new" / name
        path.write_bytes(_mail(i))
        os.utime(path, ns=(1_796_552_302_000_000_000, 1_796_552_302_000_000_000))
    fetched = box.fetch(box.pending_uids())
    assert [f.raw.split(b"Subject: ")[1][:2] for f in fetched] == [b"m0", b"m1", b"m2"]
