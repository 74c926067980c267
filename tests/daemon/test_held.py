"""Whom a held mail's notice goes to (pbem.daemon.held, issue 16): registered players only, never an
automatic mail, never from a header block that cannot be read."""

from __future__ import annotations

from pbem.daemon.held import HeldSender, held_sender

PLAYERS = {"alice@example.test"}
OURS = {"moderator@example.test"}


def _raw(headers: str, body: str = "CMD x\n") -> bytes:
    return (headers.strip("\n").replace("\n", "\r\n") + "\r\n\r\n" + body).encode()


def test_a_registered_player_is_told() -> None:
    raw = _raw(
        """
From: "Alice" <Alice@Example.test>
To: moderator@example.test
Subject: =?utf-8?q?ordres_de_nuit?=
Message-ID: <a1@example.test>
"""
    )
    assert held_sender(raw, PLAYERS, OURS) == HeldSender(
        "alice@example.test", "ordres de nuit", "<a1@example.test>"
    )


def test_a_stranger_is_not_told_no_backscatter() -> None:
    raw = _raw("From: mallory@example.test\nSubject: x\n")
    assert held_sender(raw, PLAYERS, OURS) is None


def test_an_automatic_mail_from_a_player_is_not_answered() -> None:
    raw = _raw("From: alice@example.test\nAuto-Submitted: auto-replied\nSubject: Absent\n")
    assert held_sender(raw, PLAYERS, OURS) is None


def test_unreadable_or_hostile_bytes_tell_nobody() -> None:
    assert held_sender(b"\xff\xfe\x00garbage", PLAYERS, OURS) is None
    assert held_sender(b"", PLAYERS, OURS) is None
    huge = b"X-Pad: " + b"a" * 100_000 + b"\r\nFrom: alice@example.test\r\n\r\nbody"
    assert held_sender(huge, PLAYERS, OURS) is None, "only the first 16 KB are read"
