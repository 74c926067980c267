"""Pure parts of issue 10 items 2 and 6: who wrote a rewritten list post, and which keys all the
copies of one mail share (:mod:`pbem.mail.listpost`, :mod:`pbem.daemon.dedup`)."""

from __future__ import annotations

import base64
import email
import email.policy
from email.message import EmailMessage

from pbem.daemon.dedup import copy_keys
from pbem.mail.listpost import attribute, rewrite_from

LIST = "game@lists.example.test"


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def sig(domain: str, value: bytes) -> str:
    b = base64.b64encode(value).decode()
    return f"v=1; a=rsa-sha256; d={domain}; s=sel; h=from:to:subject;\r\n bh=AAAA; b={b[:20]}\r\n {b[20:]}"


def test_copy_keys_shared_by_the_list_copy_and_skip_the_list_signature() -> None:
    """The direct copy and the list's copy (another Received, the list's own signature on
    top, a footer) share the Message-ID key and the author's b= key; the list's b= is not
    the author's and keys nothing."""
    direct = (
        b"DKIM-Signature: " + sig("example.test", b"author-signature").encode() + b"\r\n"
        b"From: Alice <alice@example.test>\r\nTo: game@lists.example.test\r\n"
        b"Message-ID: <abc@example.test>\r\nSubject: vote\r\n\r\nCMD one\r\n"
    )
    listed = (
        b"Received: from lists.example.test by mx.example.test; Tue, 1 Dec 2026 17:00:00 +0000\r\n"
        b"DKIM-Signature: " + sig("lists.example.test", b"list-signature").encode() + b"\r\n"
        b"List-Id: <game.lists.example.test>\r\n" + direct + b"-- \r\nfooter\r\n"
    )
    a = copy_keys(parse(direct), "alice@example.test")
    b = copy_keys(parse(listed), "alice@example.test")
    assert a == b and len(a) == 2
    assert {k.split(":")[0] for k in a} == {"mid", "dkim"}
    # another sender with the same (published) Message-ID is another mail
    assert not set(copy_keys(parse(direct), "mallory@evil.test")) & set(a)


def test_copy_keys_none_without_message_id_or_signature() -> None:
    raw = b"From: alice@example.test\r\nMessage-ID: <>\r\nSubject: x\r\n\r\nCMD one\r\n"
    assert copy_keys(parse(raw), "alice@example.test") == ()


def test_attribute_keeps_a_players_own_from_and_reads_the_list_rewriting() -> None:
    """A player's own From on the list is never second-guessed; the list's address in From
    with the author in Reply-To is the author's; with no author, the name the list showed."""
    own = parse(
        b"From: Alice via Ferrata <alice@example.test>\r\nReply-To: bob@example.test\r\n\r\nx\r\n"
    )
    assert attribute(own, {LIST}, {"alice@example.test"}, ()) is None
    munged = parse(
        b"From: Bob via Game <game@lists.example.test>\r\nReply-To: game@lists.example.test,"
        b" Bob <Bob@Example.test>\r\nCc: moderator@example.test\r\n\r\nx\r\n"
    )
    got = attribute(munged, {LIST}, set(), {"moderator@example.test"})
    assert got is not None and got.author == "bob@example.test"
    bare = parse(b"From: \"'Zoe' via Game\" <game@lists.example.test>\r\n\r\nx\r\n")
    got = attribute(bare, {LIST}, set(), ())
    assert got is not None and got.author is None and got.label == "Zoe"


def test_rewrite_from_replaces_a_folded_from_and_keeps_the_rest() -> None:
    raw = (
        b'Subject: s\r\nFrom: "Carol via Game"\r\n <game@lists.example.test>\r\n'
        b"Cc: carol@example.test\r\n\r\nFrom: not a header\r\n"
    )
    out = rewrite_from(raw, "carol@example.test")
    msg = parse(out)
    assert msg["From"].addresses[0].addr_spec == "carol@example.test"
    assert "game@lists.example.test" in str(msg["X-Pbem-List-From"])
    assert out.endswith(b"\r\n\r\nFrom: not a header\r\n")
