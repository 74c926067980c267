"""The copy of a list post a relaying daemon distributes (``pbem.mail.relay.relay_copy``), pure.

Issue 10 item 10: no copy pbem sends may carry a player's secret code, in any part or header:
the SECRET line of the text part, the same line in the HTML alternative that Gmail, Apple
Mail, Outlook and Thunderbird all add (written with tags, ``&nbsp;``, quoted-printable soft
breaks splitting the code, upper case), the Subject, an attachment.
Issue 10 item 13: a copy's Message-ID carries no guessable information, and its
In-Reply-To/References keep only pbem's public mail (a reference to a private mail would tell
everyone who got it).
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import re
from datetime import UTC, datetime
from email.message import EmailMessage, Message
from pathlib import Path

import pytest

from pbem.mail.envelope import TEST_ID_KEY, build, id_kind, message_id
from pbem.mail.relay import relay_copy
from pbem.mail.scrub import without_codes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mail"
CODE = "7c4e2a91f03b5d68e1a94c07b2f6d835"  # alice's code in the fixtures
CLIENTS = [
    "relay-gmail-secret.eml",
    "relay-apple-mail-secret.eml",  # the code in the Subject too, and split by a QP soft break
    "relay-outlook-secret.eml",  # upper case, split by a soft break inside a <span>
    "relay-thunderbird-secret.eml",  # "Code : ..." and format=flowed
]
DATE = datetime(2026, 1, 5, 18, 10, tzinfo=UTC)
KEY = b"k" * 32  # a daemon's key


def _copy(raw: bytes, **kw: object) -> tuple[str, bytes]:
    args: dict[str, object] = {
        "key": "0" * 64,
        "poster": "alice",
        "game_tag": "r1",
        "list_address": "game@lists.example.test",
        "list_id": "<game.lists.example.test>",
        "moderator": "moderator@example.test",
        "date": DATE,
        "id_key": KEY,
        **kw,
    }
    return relay_copy(raw, **args)  # type: ignore[arg-type]


def everything(raw: bytes) -> str:
    """All a reader can see of a mail: each header decoded, each part decoded (attached mails
    and attachments included), and the raw bytes without quoted-printable soft breaks."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    seen = [raw.decode("latin-1").replace("=\r\n", "")]

    def walk(part: Message) -> None:
        seen.extend(f"{k}: {v}" for k, v in part.items())
        if part.is_multipart():
            for sub in part.get_payload():
                walk(sub)
            return
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            seen.append(payload.decode("latin-1"))  # a code is ASCII: whatever the charset
            with contextlib.suppress(LookupError):
                seen.append(payload.decode(part.get_content_charset() or "latin-1", "replace"))

    walk(msg)
    return re.sub(r"\s+", "", "\n".join(seen)).lower()


def _parts(raw: bytes) -> dict[str, str]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return {p.get_content_type(): str(p.get_content()) for p in msg.walk() if not p.is_multipart()}


@pytest.mark.parametrize("fixture", CLIENTS)
def test_relayed_copy_carries_no_secret_code_in_any_part_or_header(fixture: str) -> None:
    raw = (FIXTURES / fixture).read_bytes()
    assert CODE in everything(raw)  # the fixture does show it
    _mid, copy = _copy(raw)
    assert CODE not in everything(copy)
    parts = _parts(copy)
    text = parts["text/plain"]
    assert "Bonsoir à tous, je vote contre" in text and "CMD vote1" in text
    assert "SECRET" not in text.upper() and "CODE :" not in text.upper()
    if "text/html" in parts:  # a cleaned HTML, still showing the bold vote
        assert "<b>Bob</b>" in parts["text/html"]
    msg = email.message_from_bytes(copy, policy=email.policy.default)
    assert "[r1]" in str(msg["Subject"]) and "bat" in str(msg["Subject"])


def test_every_client_keeps_its_cleaned_html_alternative() -> None:
    """The HTML goes out cleaned rather than dropped when the code can be taken out of it."""
    for fixture in CLIENTS:
        _mid, copy = _copy((FIXTURES / fixture).read_bytes())
        assert "text/html" in _parts(copy), fixture


def test_code_hidden_in_html_entities_drops_the_html_and_an_attachment_showing_it_goes() -> None:
    """Where the HTML cannot be cleaned (a code written with character entities) it is
    dropped and the cleaned text goes alone; an attachment carrying the code is left out."""
    msg = EmailMessage()
    msg["From"] = "alice@example.test"
    msg["To"] = "game@lists.example.test"
    msg["Subject"] = "notes"
    msg.set_content(f"My notes\nSECRET {CODE}\n")
    entities = "".join(f"&#{ord(c)};" for c in CODE)
    msg.add_alternative(f"<p>My notes</p><p>SECRET {entities}</p>", subtype="html")
    mixed = EmailMessage()
    for name in ("From", "To", "Subject"):
        mixed[name] = msg[name]
    mixed.make_mixed()
    mixed.attach(msg)
    mixed.add_attachment(f"code: {CODE}\n".encode(), "application", "octet-stream")
    mixed.add_attachment(b"\x89PNG photo", "image", "png", filename="village.png")
    raw = mixed.as_bytes(policy=email.policy.SMTP)
    _mid, copy = _copy(raw)
    assert CODE not in everything(copy)
    out = email.message_from_bytes(copy, policy=email.policy.default)
    types = [p.get_content_type() for p in out.walk() if not p.is_multipart()]
    assert types == ["text/plain", "image/png"]


def test_a_post_without_code_goes_byte_for_byte() -> None:
    raw = (FIXTURES / "relay-gmail-secret.eml").read_bytes()
    plain = re.sub(rb"SECRET [0-9a-f]+", b"Bonne nuit", raw)
    assert without_codes(plain) == plain
    assert plain.split(b"\r\n\r\n", 1)[1] in _copy(plain)[1]


def test_relayed_copy_keeps_references_to_public_mail_only() -> None:
    """Issue 10 item 13: alice answers her role mail (private) on the list, quoting the day's
    result (public) in References: the copy refers to the result only; a stranger's
    Message-ID is dropped too (the other members never got that mail)."""
    _mid, role = build(
        key="r1/3/alice",
        sender="moderator@example.test",
        to=("alice@example.test",),
        subject="Your role",
        body="You are a werewolf.\n",
        date=DATE,
        id_key=KEY,
    )
    role_id = str(email.message_from_bytes(role)["Message-ID"])
    result_id, _raw = build(
        key="r1/7",
        sender="moderator@example.test",
        to=("game@lists.example.test",),
        subject="Day 1",
        body="The vote is open.\n",
        date=DATE,
        public=True,
        thread="r1/day1",
        id_key=KEY,
    )
    assert id_kind(role_id, KEY) == "private" and id_kind(result_id, KEY) == "public"
    post = EmailMessage()
    post["From"] = "alice@example.test"
    post["To"] = "game@lists.example.test"
    post["Subject"] = "Re: Your role"
    post["In-Reply-To"] = role_id
    post["References"] = f"{result_id} <CAK123@mail.gmail.com> {role_id}"
    post.set_content("Nothing to see here.\n")
    mid, copy = _copy(post.as_bytes())
    out = email.message_from_bytes(copy, policy=email.policy.default)
    assert out["In-Reply-To"] is None
    assert str(out["References"]) == result_id
    assert role_id not in copy.decode("latin-1")
    assert id_kind(mid, KEY) == "public"  # a relayed copy may itself be referred to


def test_message_ids_are_keyed_stable_and_tell_nothing_without_the_key() -> None:
    """Same key, same id (a resent mail keeps it); another key, another id; neither the
    unkeyed hash of the mail's key nor the public test key finds it."""
    import hashlib

    key = "r1/3/alice"
    mid = message_id(key, "example.test", KEY)
    assert mid == message_id(key, "example.test", KEY)
    assert mid != message_id(key, "example.test", b"x" * 32)
    assert hashlib.sha256(key.encode()).hexdigest()[:32] not in mid
    assert mid != message_id(key, "example.test", TEST_ID_KEY)
    assert id_kind(mid, b"x" * 32) is None and id_kind("<CAK123@mail.gmail.com>", KEY) is None


def test_a_code_in_a_broken_mime_structure_never_goes_out() -> None:
    """A boundary the parser cannot match leaves the text part in the preamble, out of every
    part: the bytes are read too, and what cannot be cleaned part by part goes as cleaned
    text; undecodable charsets and 8-bit headers do not stop the cleaning."""
    raw = (FIXTURES / "relay-gmail-secret.eml").read_bytes()
    broken = raw.replace(
        b"--000000000000a1b2c3d4e5f60718\r\nContent-Type: text/plain",
        b"--0000000000a1b2c3\r\nContent-Type: text/plain",
        1,
    )
    assert CODE in everything(broken)
    for post in (
        broken,
        raw.replace(b'charset="UTF-8"', b'charset="utf-9"'),
        raw.replace(
            b"Subject: =?UTF-8?Q?Re=3A_=5Br1=5D_Le_d=C3=A9bat?=", "Subject: Re: débat".encode()
        ),
    ):
        _mid, copy = _copy(post)
        assert CODE not in everything(copy)
