"""Issue 10 item 5: a mail with a photo (over ``imap.max_size``) is read through its text parts,
without downloading the photo, and processed like any other; when even its text is too large,
its sender is told, and the admins alerted.

The mail is shaped like iOS Mail's (``tests/fixtures/mail/iphone-photo.eml``: an alternative of
a plain part and a mixed part holding the HTML, the JPEG inline and the HTML signature), with a
real JPEG grown to 3 MB by comment segments of random bytes (as incompressible as a photo).
"""

from __future__ import annotations

import base64
import os
import re
from email.message import EmailMessage
from pathlib import Path

from pbem.adapters.imap import ImapMailbox, ImapSettings
from tests.support.daemon_process import Daemon, game_state, new_fake_game, wait_for, write_config
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, MODERATOR, Dovecot, MailStack

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mail" / "iphone-photo.eml"
PHOTO_BYTES = 3_000_000


def big_jpeg(small: bytes, size: int) -> bytes:
    """A valid JPEG of about ``size`` bytes: ``small`` with COM segments of random bytes."""
    assert small[:2] == b"\xff\xd8"
    chunks = []
    while sum(map(len, chunks)) < size:
        chunks.append(b"\xff\xfe" + (65_535).to_bytes(2, "big") + os.urandom(65_533))
    return small[:2] + b"".join(chunks) + small[2:]


def iphone_photo_mail(photo_size: int = PHOTO_BYTES) -> bytes:
    """The iOS Mail fixture with its JPEG grown to ``photo_size`` bytes."""
    raw = FIXTURE.read_bytes()
    m = re.search(
        rb"filename=IMG_0421\.jpeg\nContent-Transfer-Encoding: base64\n\n(.*?)\n--", raw, re.S
    )
    assert m is not None
    jpeg = big_jpeg(base64.b64decode(m.group(1)), photo_size)
    return raw[: m.start(1)] + base64.encodebytes(jpeg).rstrip(b"\n") + raw[m.end(1) :]


def long_text_mail(text_bytes: int) -> bytes:
    """A mail whose inline text alone is over the caps (a pasted log, say)."""
    m = EmailMessage()
    m["From"] = "Bob <bob@example.test>"
    m["To"] = MODERATOR
    m["Subject"] = "mon journal"
    m["Message-ID"] = "<journal-1@example.test>"
    m.set_content("CMD journal\n" + ("bla " * (text_bytes // 4)))
    return bytes(m)


def _out_bytes(dovecot: Dovecot) -> list[int]:
    """What each of the moderator's IMAP sessions sent, as Dovecot logs it at logout."""
    return [
        int(n) for n in re.findall(r"imap\(moderator@example.test\).*? out=(\d+)", dovecot.log())
    ]


def _count(stack: MailStack, folder: str) -> int:
    """Messages in one of the moderator's folders, without fetching them (their bytes would
    count in the session sizes the tests check)."""
    from imapclient import IMAPClient

    with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=30) as c:
        c.login(MODERATOR, Dovecot.password(MODERATOR))
        if not c.folder_exists(folder):
            return 0
        c.select_folder(folder, readonly=True)
        return len(c.search("ALL"))


def test_a_photo_mail_is_read_without_its_photo(stack: MailStack) -> None:
    raw = iphone_photo_mail()
    assert len(raw) > 4_000_000  # 3 MB of JPEG, base64
    stack.inject(raw, MODERATOR, sender="alice@example.test")
    box = ImapMailbox(
        ImapSettings(
            host="127.0.0.1",
            port=stack.dovecot.imap_port,
            user=MODERATOR,
            password=Dovecot.password(MODERATOR),
            tls="none",
        )
    )
    box.connect()
    (f,) = box.fetch(box.pending_uids())
    box.close()
    assert f.size > len(raw) and f.text_only  # (LMTP adds its trace headers)
    assert f.raw is not None and len(f.raw) < 4_000
    import email
    import email.policy

    msg = email.message_from_bytes(f.raw, policy=email.policy.default)
    assert [p.get_content_type() for p in msg.walk()] == [
        "multipart/alternative",
        "text/plain",
        "multipart/mixed",
        "text/html",
        "text/html",
    ]
    assert msg["Message-Id"] == "<8B3C1E2F-4A5D-4E6F-9A0B-1C2D3E4F5A6B@example.test>"
    plain = msg.get_body(("plain",))
    assert plain is not None and "Voilà la preuve" in plain.get_content()
    # Dovecot logs a session's size at its logout, a moment after ours: wait for the line
    sent = wait_for(lambda: _out_bytes(stack.dovecot), what="the session's size in Dovecot's log")
    assert max(sent) < 100_000, sent  # the 4 MB photo never left the server


def test_a_photo_mail_is_applied_and_answered(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    new_fake_game(cfg, "g1", ["alice", "bob"])
    data = tmp_path / "data"
    stack.inject(iphone_photo_mail(), MODERATOR, sender="alice@example.test")
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: (
                [e.get("word") for e in game_state(data, "g1")[0] if e["type"] == "cmd"]
                == ["photo-vote"]
            ),
            what="the order under the photo applied",
            log=d.log,
        )
        wait_for(
            lambda: any(
                "accepted: photo-vote" in str(text_of(m))
                for m in stack.messages("alice@example.test")
            ),
            what="the reply to the sender",
            log=d.log,
        )
        wait_for(lambda: _count(stack, "Processed") >= 1, what="moved", log=d.log)
        assert _count(stack, "Quarantine") == 0
        assert not any("quarantined" in str(m["Subject"]) for m in stack.messages(ADMIN))
        assert d.stop() == 0
        sent = wait_for(lambda: _out_bytes(stack.dovecot), what="the sessions' sizes logged")
        assert max(sent) < 100_000, sent
    finally:
        d.kill()


def test_a_mail_whose_text_is_too_large_is_answered(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    new_fake_game(cfg, "g1", ["alice", "bob"])
    data = tmp_path / "data"
    stack.inject(long_text_mail(2_500_000), MODERATOR, sender="bob@example.test")
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: [
                m
                for m in stack.messages("bob@example.test")
                if "was not read" in str(text_of(m)) and "n'a pas été lu" in str(text_of(m))
            ],
            what="the sender told his mail was not read",
            log=d.log,
        )
        wait_for(
            lambda: any("quarantined" in str(m["Subject"]) for m in stack.messages(ADMIN)),
            what="the admin alert",
            log=d.log,
        )
        wait_for(lambda: _count(stack, "Quarantine") == 1, what="quarantined", log=d.log)
        assert [e for e in game_state(data, "g1")[0] if e["type"] == "cmd"] == []
        assert d.stop() == 0
    finally:
        d.kill()
