"""Hostile input against the real daemon: F8 (MIME corpus), F9 (huge mail), F10/F11 (non-UTF-8,
HTML-only, quoted old commands), poison mail → shunt → quarantine → retry, F12 (loops)."""

from __future__ import annotations

import contextlib
import os
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    outbox_empty,
    pbem,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, MODERATOR, Dovecot, MailStack

FAST = "idle_renew = 1"


class _FolderSizes:
    """The sizes of the mails in one of ``user``'s folders, from the server (``RFC822.SIZE``),
    none fetched nor parsed: the corpus's MIME bomb costs the test's parser a second or more
    per reading, and what the waits and counts below need is only how many mails are where,
    and how big."""

    def __init__(self, stack: MailStack, user: str) -> None:
        from imapclient import IMAPClient

        self.client = IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=30)
        self.client.login(user, Dovecot.password(user))

    def __call__(self, folder: str) -> list[int]:
        c = self.client
        if folder != "INBOX" and not c.folder_exists(folder):
            return []
        c.select_folder(folder, readonly=True)
        uids = c.search("ALL")
        got = c.fetch(uids, ["RFC822.SIZE"]) if uids else {}
        return [int(got[u][b"RFC822.SIZE"]) for u in sorted(got)]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.logout()


def _head(sender: str, extra: str = "", subject: str = "x") -> str:
    return (
        f"From: {sender}\r\nTo: {MODERATOR}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{time.monotonic_ns()}@example.test>\r\n{extra}"
    )


def corpus(sender: str) -> dict[str, bytes]:
    nested = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(2000)
    )
    return {
        "klingon": (
            _head(sender, "Content-Type: text/plain; charset=x-klingon\r\n") + "\r\nCMD k1\r\n"
        ).encode(),
        "nested": (_head(sender, "MIME-Version: 1.0\r\n") + nested + "CMD deep\r\n").encode(),
        "bad-base64": (
            _head(sender, "Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n")
            + "\r\nQ01EIGI2NA=!!@@==\r\n"
        ).encode(),
        "no-boundary": (
            _head(sender, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n")
            + "\r\n--x\r\nContent-Type: text/plain\r\n\r\nCMD nb\r\n--x--\r\n"
        ).encode(),
        "latin1-as-utf8": (
            _head(sender, "Content-Type: text/plain; charset=utf-8\r\n") + "\r\nCMD caf\xe9\r\n"
        ).encode("latin-1"),
        "cp1252": (
            _head(sender, "Content-Type: text/plain; charset=windows-1252\r\n")
            + "\r\nCMD \x93quoted\x94\r\n"
        ).encode("latin-1"),
        "nul-rtl": (_head(sender) + "\r\nCMD n\x00l\u202e\r\n").encode(),
        "html-only-quoted": (
            _head(sender, "Content-Type: text/html; charset=utf-8\r\n")
            + "\r\n<p>CMD h1</p><blockquote>CMD old</blockquote>\r\n"
        ).encode(),
        "quoted-reply": (
            _head(sender, "Content-Type: text/plain\r\n", "Re: orders")
            + "\r\nCMD fresh\r\n\r\nOn Mon, Bob wrote:\r\n> CMD stale\r\n> CMD stale2\r\n"
        ).encode(),
        "header-garbage": (
            f"From: {sender}\r\nTo: {MODERATOR}\r\nSubject: =?x-unknown?Q?=FF=FE?= \xff\xfe\r\n"
            "Date: not a date\r\nMessage-ID: <<<>>>\r\n\r\nCMD hg\r\n"
        ).encode("latin-1"),
    }


@pytest.mark.slow(20)
def test_f8_f10_f11_hostile_corpus_and_f9_huge(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_imap=FAST)
    new_fake_game(cfg, "g1", ["alice"])
    new_fake_game(cfg, "g2", ["bob"])
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    sizes = _FolderSizes(stack, MODERATOR)
    try:
        items = corpus("alice@example.test")
        for raw in items.values():
            stack.inject(raw, MODERATOR, sender="alice@example.test")
        stack.inject(_head("alice@example.test").encode() + b"\r\n" + b"x" * 10_000_000, MODERATOR)
        send(stack, mail("bob@example.test", "CMD other_game"))
        wait_for(lambda: not sizes("INBOX"), timeout=90, what="INBOX drained", log=d.log)
        assert d.alive(), d.log()
        words = [e["word"] for e in game_state(data, "g2")[0] if e["type"] == "cmd"]
        assert words == ["other_game"], "the other game proceeds"
        g1 = [e["word"] for e in game_state(data, "g1")[0] if e["type"] == "cmd"]
        assert g1.count("fresh") == 1 and "stale" not in g1 and "old" not in g1
        assert len(g1) == len(set(g1)), "nothing applied twice"
        quarantined = sizes("Quarantine")
        processed = sizes("Processed")
        assert len(quarantined) + len(processed) >= len(items) + 2
        # the 10 MB mail is quarantined unread, and the admins are told
        assert any(size > 9_000_000 for size in quarantined)
        wait_for(
            lambda: any(
                "message trop gros" in str(m["Subject"]) and "size cap" in str(m["Subject"])
                for m in stack.messages(ADMIN)
            ),
            what="size alert",
            log=d.log,
        )
        listing = pbem(cfg, "shunt", "list")
        assert listing.returncode == 0
        assert "quarantined" in listing.stdout
        assert d.stop() == 0
    finally:
        sizes.close()
        d.kill()


def test_poison_mail_shunted_quarantined_then_retried(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_imap=FAST)
    new_fake_game(cfg, "g1", ["alice", "bob"])
    data = tmp_path / "data"
    boom = tmp_path / "boom"
    boom.write_text("on")
    d = Daemon(cfg, FAKE_ENGINE_BOOM=str(boom)).start()
    try:
        send(stack, mail("alice@example.test", "CMD p1\nBOOM"), mail("bob@example.test", "CMD ok"))
        wait_for(
            lambda: stack.messages(MODERATOR, "Quarantine"),
            timeout=30,
            what="quarantine",
            log=d.log,
        )
        words = [e["word"] for e in game_state(data, "g1")[0] if e["type"] == "cmd"]
        assert words == ["ok"], "the poison is rolled back; others proceed"
        assert d.log().count("failed (") == 3, "quarantined after exactly 3 failures"
        (alert,) = wait_for(
            lambda: [m for m in stack.messages(ADMIN) if "quarantined" in str(m["Subject"])],
            what="admin notice",
            log=d.log,
        )
        # French, English, then the traceback once (the same in both languages)
        body = text_of(alert)
        assert "mis en quarantaine" in str(alert["Subject"])
        assert body.index("Erreur : RuntimeError") < body.index("Error: RuntimeError")
        assert body.count("Traceback (most recent call last)") == 1
        assert body.index("Error: RuntimeError") < body.index("Traceback")
        listing = pbem(cfg, "shunt", "list")
        key = listing.stdout.split()[0]
        show = pbem(cfg, "shunt", "show", key)
        assert "RuntimeError" in show.stdout and "BOOM" in show.stdout
        os.unlink(boom)  # the bug is "fixed"
        r = pbem(cfg, "shunt", "retry", key)
        assert r.returncode == 0, r.stderr
        wait_for(
            lambda: "p1" in [e["word"] for e in game_state(data, "g1")[0] if e["type"] == "cmd"],
            timeout=30,
            what="the retried mail applied",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()


def test_f12_loops_stop(stack: MailStack, tmp_path: Path) -> None:
    """Two daemons (moderator@ and admin@) that would answer each other, a vacation responder,
    a DSN and a mail storm from one unknown address."""
    heidi = "heidi@example.test"  # the second daemon's mailbox
    cfg_a = write_config(stack, tmp_path, extra_imap=FAST)
    cfg_b = write_config(stack, tmp_path, extra_imap=FAST, moderator=heidi, name="b")
    new_fake_game(cfg_a, "g1", ["alice"])
    a, b = Daemon(cfg_a).start(), Daemon(cfg_b).start()
    try:
        # a human-looking mail from B's address starts it: A answers B ("no game"), B must not
        # answer that, since it is auto-replied and carries A's X-Loop
        send(stack, mail(heidi, "hello A"))
        vacation = mail("grace@example.test", "I am away", Auto_Submitted="auto-replied")
        dsn = (
            f"From: MAILER-DAEMON@example.test\r\nTo: {MODERATOR}\r\nSubject: failure\r\n"
            "Return-Path: <>\r\nContent-Type: multipart/report; report-type=delivery-status; "
            'boundary="r"\r\n\r\n--r\r\nContent-Type: text/plain\r\n\r\nCMD x\r\n--r--\r\n'
        ).encode()
        stack.inject(dsn, MODERATOR)
        storm = [mail("frank@example.test", f"spam {i}") for i in range(15)]
        send(stack, vacation, *storm)
        wait_for(
            lambda: (
                not stack.messages(MODERATOR)
                and not stack.messages(heidi, "INBOX")
                and stack.messages(heidi, "Processed")
            ),
            timeout=30,
            what="quiet",
            log=a.log,
        )
        # and nothing left to send by either daemon while both INBOXes are empty: an answer,
        # were one due, would be queued with the commit that read its cause, then delivered
        wait_for(
            lambda: (
                outbox_empty(tmp_path / "data")
                and outbox_empty(tmp_path / "data-b")
                and not stack.messages(MODERATOR)
                and not stack.messages(heidi, "INBOX")
            ),
            timeout=30,
            what="both daemons idle",
            log=a.log,
        )
        to_b = [
            m
            for m in stack.messages(heidi, "Processed")
            if m["From"] == MODERATOR and m["List-Id"] is None
        ]
        to_a = [
            m
            for m in stack.messages(MODERATOR, "Processed")
            if m["From"] == heidi and m["List-Id"] is None
        ]
        assert len(to_b) == 1 and len(to_a) == 1, "the loop stops at 2 messages for the pair"

        def direct(user: str) -> list[EmailMessage]:
            return [m for m in stack.messages(user) if m["List-Id"] is None]

        assert not direct("grace@example.test"), "no answer to a vacation reply"
        assert len(direct("frank@example.test")) == 1, "≤ 1 error reply per hour"
        assert "ignored: bounce" in a.log() or "ignored: null-sender" in a.log()
        assert a.stop() == 0 and b.stop() == 0
    finally:
        a.kill()
        b.kill()
