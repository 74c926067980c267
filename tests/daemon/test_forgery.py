"""F13, forgery, through the real daemon (RELIABILITY §7.4 row F13, requirements 5 and 7).

Real Dovecot + aiosmtpd, ``pbem serve`` as a child process with the fake engine (each
``CMD <word>`` line of an accepted mail is one event), a game ``g1`` with alice and bob at
example.test, and a loopback DNS responder (:mod:`tests.support.dns_responder`) serving the DKIM keys
of example.test (alice's domain) and evil.test (the attacker's), reached through
``[auth] dns_server``. Mails are delivered by LMTP into the moderator's INBOX, as the border
MTA would, byte for byte (a DKIM signature survives).

Every forgery must be rejected (requirement 5: nothing applied) and the notice must go to the
REGISTERED address of the player the From names, never to the Reply-To the attacker set
(requirement 7): here bob's mailbox, a player of the game, stands for the attacker's Reply-To.

ARC: pbem does not evaluate ARC at all (no trusted sealer list), so an ``ARC-Seal`` /
``ARC-Message-Signature`` / ``ARC-Authentication-Results`` set claiming ``dkim=pass``, valid or
not, counts for nothing; neither is an ``ARC-Authentication-Results`` an
``Authentication-Results`` for the ``dkim`` method.

Replay (RELIABILITY §1.6 layer 4): the identical bytes fetched again are a no-op (content-hash
ledger); the same signed mail re-delivered by an MTA gets a new ``Received`` line, so new bytes
(see :func:`test_f13_replay_redelivered_by_the_mta_is_applied_once`). Freshness (a command for
a past phase) is the engine's: the fake engine has none; the real engines reject late
commands, covered by tests/lupus/test_mail_mapping.py::
test_late_night_commands_are_rejected_and_phases_announced (LUP-604) and
tests/chasse/test_mail.py::test_cas_604_late_commands_rejected (CAS-604).
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from imapclient import IMAPClient

from pbem.daemon.auth import AuthVerdict, check_sender
from pbem.daemon.config import AuthConfig
from pbem.mail import dkim
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    outbox_empty,
    pbem,
    wait_for,
    write_config,
)
from tests.support.dkim_signer import RsaKey, key_record, make_key, sign
from tests.support.dns_responder import Responder, txt_zone
from tests.support.mailparts import text_of
from tests.support.mailstack import MODERATOR, Dovecot, MailStack

ALICE = "alice@example.test"
BOB = "bob@example.test"  # the attacker's Reply-To: a mailbox that must receive nothing
ATTACKER = "mallory@evil.test"  # the envelope sender of forgeries
ALICE_KEY = make_key(1024, seed=13)  # example.test's key (selector "sel")
EVIL_KEY = make_key(1024, seed=14)  # evil.test's own key (selector "evil")
SIGNED = ("From", "To", "Subject", "Message-ID")
REJECTED = "pas de signature DKIM/DMARC valide"  # the no_dkim notice (fr: the fake engine's)


@pytest.fixture
def dns() -> Iterator[Responder]:
    r = Responder(
        txt_zone(
            {
                "sel._domainkey.example.test": key_record(ALICE_KEY),
                "evil._domainkey.evil.test": key_record(EVIL_KEY),
            }
        )
    )
    try:
        yield r
    finally:
        r.close()


def raw(body: str, subject: str, *, sender: str = ALICE, **headers: str) -> bytes:
    return mail(sender, body, subject=subject, **headers).as_bytes()


def signed(
    data: bytes, key: RsaKey = ALICE_KEY, domain: str = "example.test", length: int | None = None
) -> bytes:
    selector = "sel" if domain == "example.test" else "evil"
    return sign(data, key, domain=domain, selector=selector, headers=SIGNED, length=length)


def start(stack: MailStack, tmp_path: Path, auth: str) -> tuple[Daemon, Path]:
    cfg = write_config(
        stack,
        tmp_path,
        auth=auth,
        # one notice per forgery here (the default, 1 error reply an hour, would mute the rest)
        extra_daemon="errors_per_hour = 100\nautos_per_day = 100",
        extra_smtp="coalesce_replies = false",  # counted one by one, not as a digest
    )
    new_fake_game(cfg, "g1", ["alice", "bob"])
    return Daemon(cfg).start(), tmp_path / "data"


def words(data: Path) -> list[str]:
    return [e["word"] for e in game_state(data, "g1")[0] if e.get("type") == "cmd"]


def folder(stack: MailStack, name: str) -> list[bytes]:
    """The raw messages of the moderator's folder ``name``."""
    with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=30) as c:
        c.login(MODERATOR, Dovecot.password(MODERATOR))
        if not c.folder_exists(name):
            return []
        c.select_folder(name, readonly=True)
        got = c.fetch(c.search("ALL"), ["BODY.PEEK[]"])
        return [d[b"BODY[]"] for _, d in sorted(got.items()) if isinstance(d.get(b"BODY[]"), bytes)]


def done(stack: MailStack) -> int:
    """How many of the test's mails the daemon has processed (the list echoes of its own
    posts land in Processed too). Read through the stack's reader, which stays logged in and
    fetches only the new messages: the tests poll this ten times a second."""
    return sum(str(m["Subject"]).startswith("f13 ") for m in stack.messages(MODERATOR, "Processed"))


def direct(stack: MailStack, user: str) -> list[EmailMessage]:
    """Mail sent to ``user`` himself (list copies left out)."""
    return [m for m in stack.messages(user) if m["List-Id"] is None]


def notices(stack: MailStack) -> list[str]:
    """The bodies of the auth notices alice received."""
    return [
        str(text_of(m)).replace("\r\n", "\n")
        for m in direct(stack, ALICE)
        if "refusée" in str(m["Subject"])  # the player's language: fr (fake engine default)
    ]


def assert_reply_to_untouched(stack: MailStack) -> None:
    """Requirement 7: nothing ever went to the attacker's Reply-To (bob)."""
    assert all(BOB not in [r.lower() for r in rcpts] for _, rcpts, _ in stack.handler.received)
    assert direct(stack, BOB) == []


@pytest.mark.slow(15)
def test_f13_forgeries_rejected_with_dkim_verify_notice_to_registered_address(
    stack: MailStack, tmp_path: Path, dns: Responder
) -> None:
    """F13 with ``[auth] methods = ["registered", "dkim_verify"]`` (requirement 5): a genuine
    signed command is applied and receipted to alice; wrong From, the attacker's own aligned-
    to-nothing signature, a forged Authentication-Results, an ``l=`` append and an attacker's
    ARC set are all rejected, each with a notice to alice's registered address and nothing to
    the Reply-To (requirement 7)."""
    now = datetime.now(UTC)
    lookup = dns.resolver()
    control = signed(raw("CMD good", "f13 control"))
    assert dkim.aligned_pass(control, "example.test", lookup, now), "the key is served"
    # alice's genuine signature with l= covering her line; the attacker appends his own
    l_signed = signed(raw("CMD lgood", "f13 l-append", Reply_To=BOB), length=len(b"CMD lgood\r\n"))
    l_append = l_signed + b"CMD lappend\r\n"
    (res,) = dkim.verify(l_append, lookup, now)
    assert res.reason == "l_tag", "refused for its l=, not for a broken signature"
    arc = (
        b"ARC-Seal: i=1; a=rsa-sha256; cv=none; d=evil.test; s=evil; t=1700000000;\r\n"
        b"\tb=bm90IGEgc2lnbmF0dXJl\r\n"
        b"ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=evil.test;\r\n"
        b"\ts=evil; h=From:To:Subject; bh=bm90IGEgaGFzaA==; b=bm90IGEgc2lnbmF0dXJl\r\n"
        b"ARC-Authentication-Results: i=1; lists.evil.test;\r\n"
        b"\tdkim=pass header.d=example.test; dmarc=pass header.from=example.test\r\n"
    )
    forgeries = {
        # an unsigned mail From alice, from the attacker's envelope
        "f13 wrong-from": raw("CMD wrongfrom", "f13 wrong-from", Reply_To=BOB),
        # a valid signature, but by the attacker's own domain: not aligned with From
        "f13 evil-domain": signed(
            raw("CMD evildomain", "f13 evil-domain", Reply_To=BOB), EVIL_KEY, "evil.test"
        ),
        # a pass claimed in Authentication-Results, even by a plausible authserv-id: the daemon
        # verifies DKIM itself, so any A-R is irrelevant
        "f13 forged-ar": b"Authentication-Results: mx.example.test; dkim=pass header.d=exam"
        b"ple.test; dmarc=pass\r\n" + raw("CMD forgedar", "f13 forged-ar", Reply_To=BOB),
        "f13 l-append": l_append,
        "f13 arc": arc + raw("CMD arc", "f13 arc", Reply_To=BOB),
    }
    (evil,) = dkim.verify(forgeries["f13 evil-domain"], lookup, now)
    assert (evil.domain, evil.ok) == ("evil.test", True), "a valid signature, but not alice's"
    d, data = start(
        stack,
        tmp_path,
        f'[auth]\nmethods = ["registered", "dkim_verify"]\ndns_server = "127.0.0.1:{dns.port}"',
    )
    try:
        stack.inject(control, MODERATOR, sender=ALICE)
        for body in forgeries.values():
            stack.inject(body, MODERATOR, sender=ATTACKER)
        wait_for(
            lambda: done(stack) == 1 + len(forgeries),
            what="every mail processed",
            log=d.log,
        )
        assert words(data) == ["good"], "only the genuine command is applied"
        wait_for(lambda: len(notices(stack)) == len(forgeries), what="the notices", log=d.log)
        for subject in forgeries:
            (body,) = [n for n in notices(stack) if f"Sujet : {subject}\n" in n]
            assert REJECTED in body, body
        receipts = wait_for(
            lambda: [m for m in direct(stack, ALICE) if m["Subject"] == "Re: f13 control"],
            what="the receipt",
            log=d.log,
        )
        assert [str(text_of(m)).strip() for m in receipts] == ["accepted: good"]
        assert_reply_to_untouched(stack)
        assert d.stop() == 0
    finally:
        d.kill()
    # the configured resolver is the one asked (and check-config asks it too)
    assert "sel._domainkey.example.test" in dns.queries
    r = pbem(tmp_path / "pbem.toml", "check-config")
    assert r.returncode == 0 and f"DNS 127.0.0.1 port {dns.port}: answered" in r.stdout, r
    # and a resolver that does not answer fails it
    dns.close()
    r = pbem(tmp_path / "pbem.toml", "check-config")
    assert r.returncode == 1 and f"DNS 127.0.0.1 port {dns.port}: FAILED" in r.stderr, r


def test_f13_forged_authentication_results_lower_in_the_header_block(
    stack: MailStack, tmp_path: Path
) -> None:
    """F13 with ``[auth] methods = ["registered", "dkim"]`` (requirement 5): only the TOPMOST
    Authentication-Results, and only of our authserv-id, is trusted. The border MTA adds its
    own on top (and must strip incoming copies of it: docs/daemon.md); a forged pass placed
    lower, or in an ARC-Authentication-Results, is ignored. Notices to alice (requirement 7)."""
    ours_pass = b"Authentication-Results: mx.example.test; dkim=pass header.d=example.test\r\n"
    forged = (
        b"Authentication-Results: mx.example.test; dkim=pass header.d=example.test;\r\n"
        b"\tdmarc=pass header.from=example.test\r\n"
    )
    forgeries = {
        # the top one is another server's (a pass it may claim means nothing to us)
        "f13 ar-other-top": b"Authentication-Results: mx.other.test; dkim=pass header.d=exam"
        b"ple.test\r\n" + forged + raw("CMD arother", "f13 ar-other-top", Reply_To=BOB),
        # the top one is ours and says the truth; the forged pass below is ignored
        "f13 ar-ours-fail": b"Authentication-Results: mx.example.test; dkim=none; dmarc=none\r\n"
        + forged
        + raw("CMD arfail", "f13 ar-ours-fail", Reply_To=BOB),
        # our MTA's DMARC pass was for the attacker's domain: it read this From as
        # mallory@evil.test, pbem (Python's parser) reads alice: the pass is not alice's
        "f13 dmarc-other-from": b"Authentication-Results: mx.example.test; dmarc=pass heade"
        b"r.from=evil.test\r\n"
        + raw("CMD dmarcother", "f13 dmarc-other-from", Reply_To=BOB).replace(
            b"From: alice@example.test\n", b"From: alice@example.test <mallory@evil.test>\n"
        ),
        # no A-R of ours at all: an ARC-Authentication-Results with our id is not one
        "f13 arc-ar": b"ARC-Authentication-Results: i=1; mx.example.test; dkim=pass header.d=exa"
        b"mple.test\r\n" + raw("CMD arcar", "f13 arc-ar", Reply_To=BOB),
    }
    d, data = start(
        stack, tmp_path, '[auth]\nmethods = ["registered", "dkim"]\nauthserv_id = "mx.example.test"'
    )
    try:
        stack.inject(ours_pass + raw("CMD arok", "f13 ar control"), MODERATOR, sender=ALICE)
        for body in forgeries.values():
            stack.inject(body, MODERATOR, sender=ATTACKER)
        wait_for(
            lambda: done(stack) == 1 + len(forgeries),
            what="every mail processed",
            log=d.log,
        )
        assert words(data) == ["arok"]
        wait_for(lambda: len(notices(stack)) == len(forgeries), what="the notices", log=d.log)
        for subject in forgeries:
            assert any(f"Sujet : {subject}\n" in n for n in notices(stack)), subject
        assert_reply_to_untouched(stack)
        assert d.stop() == 0
    finally:
        d.kill()


def test_f13_replay_of_the_identical_bytes_is_a_no_op(
    stack: MailStack, tmp_path: Path, dns: Responder
) -> None:
    """F13 replay (RELIABILITY §1.6 layer 4): the exact stored bytes of an applied, signed
    command appended to the INBOX again are recognised by the content-hash ledger: applied
    once, one receipt (requirement 5 with requirement 1)."""
    d, data = start(
        stack,
        tmp_path,
        f'[auth]\nmethods = ["registered", "dkim_verify"]\ndns_server = "127.0.0.1:{dns.port}"',
    )
    try:
        stack.inject(signed(raw("CMD good", "f13 replay")), MODERATOR, sender=ALICE)
        wait_for(lambda: words(data) == ["good"], what="the command applied", log=d.log)
        wait_for(lambda: done(stack) == 1, what="moved", log=d.log)
        wait_for(
            lambda: [m for m in direct(stack, ALICE) if m["Subject"] == "Re: f13 replay"],
            what="the receipt",
            log=d.log,
        )
        (stored,) = [m for m in folder(stack, "Processed") if b"\nSubject: f13 " in m]
        with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=30) as c:
            c.login(MODERATOR, Dovecot.password(MODERATOR))
            c.append("INBOX", stored)
        wait_for(lambda: done(stack) == 2, what="the replay", log=d.log)
        # a receipt, were one made, would have been queued with the replay's commit
        wait_for(lambda: outbox_empty(data), what="every answer sent", log=d.log)
        assert words(data) == ["good"], "applied once"
        receipts = [m for m in direct(stack, ALICE) if m["Subject"] == "Re: f13 replay"]
        assert len(receipts) == 1
        assert d.stop() == 0
    finally:
        d.kill()


@pytest.mark.slow(25)
def test_f13_replay_redelivered_by_the_mta_is_applied_once(
    stack: MailStack, tmp_path: Path, dns: Responder
) -> None:
    """F13 replay, the attacker's way: alice's signed mail (a valid DKIM signature is
    replayable) delivered again through the MTA should be applied once (requirement 5,
    RELIABILITY §1.6 layer 4). Each delivery adds its own Received line, so the bytes and
    the content key differ: the ledger also keeps the verified signature's b= hash."""
    d, data = start(
        stack,
        tmp_path,
        f'[auth]\nmethods = ["registered", "dkim_verify"]\ndns_server = "127.0.0.1:{dns.port}"',
    )
    try:
        mail_bytes = signed(raw("CMD good", "f13 mta replay"))
        stack.inject(mail_bytes, MODERATOR, sender=ALICE)
        wait_for(lambda: words(data) == ["good"], what="the command applied", log=d.log)
        stack.inject(mail_bytes, MODERATOR, sender=ATTACKER)
        wait_for(lambda: done(stack) == 2, what="the replay", log=d.log)
        assert words(data) == ["good"], "applied once"
    finally:
        d.stop()
        d.kill()


def test_f13_replay_keys_survive_redelivery() -> None:
    """The pure half of the MTA-replay fix (requirement 5, RELIABILITY §1.6 layer 4): with
    ``dkim_verify`` the verdict carries a key per valid aligned signature, the same for the
    mail as first received and as re-delivered with new trace headers (new bytes), and
    different for another signed mail of alice's."""
    cfg = AuthConfig(("registered", "dkim_verify"))
    keys = {("sel", "example.test"): key_record(ALICE_KEY)}

    def lookup(selector: str, domain: str) -> str | None:
        return keys.get((selector, domain))

    def verdict(data: bytes) -> AuthVerdict:
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        players = {"alice": ALICE, "bob": BOB}
        return check_sender(msg, players, cfg, {}, raw=data, resolver=lookup, now=datetime.now(UTC))

    first = signed(raw("CMD good", "f13 keys"))
    again = b"Received: from mx.evil.test by mx.example.test; Sun, 29 Nov 2026 12:00:00 +0000\r\n"
    v1, v2 = verdict(first), verdict(again + first)
    assert v1.ok and v2.ok and len(v1.replay_keys) == 1
    assert v1.replay_keys == v2.replay_keys and v1.replay_keys[0].startswith("dkim:")
    other = verdict(signed(raw("CMD good", "f13 keys")))  # same text, a new Message-ID
    assert other.ok and other.replay_keys != v1.replay_keys
    assert verdict(raw("CMD good", "f13 keys")).replay_keys == ()  # unsigned: rejected, no key
