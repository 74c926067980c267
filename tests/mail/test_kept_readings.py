"""What recurs is worked out once (issue 23) and reads as worked out afresh: a short mail's
text, a command line's parse, a refusal's reason."""

from __future__ import annotations

from email.message import Message
from typing import Any
from unittest import mock

import pytest

from pbem.core.commands import parse_line
from pbem.core.errors import CommandError
from pbem.games import rules_for
from pbem.mail import inbound, mime
from pbem.mail.inbound import MailText, _plain, extract
from pbem.mail.parse_once import parse_bytes
from pbem.mail.render import Renderer
from pbem.tools.bots import plain_mail
from tests.support.renders import count_renders

BODY = "VOTE **Bruno**\n\nmerci\n> cité\nPASSE\n-- \nAlice\n"


def test_a_short_mail_read_again_reads_as_read_afresh() -> None:
    first = extract(plain_mail("alice@v.example", "mj@v.example", BODY))
    again = extract(plain_mail("bruno@v.example", "mj@v.example", BODY))
    fresh = _plain(BODY, 60)
    assert (first.lines, first.bold, first.truncated, first.breaks) == fresh
    assert again == first
    assert first.lines == ("VOTE **Bruno**", "merci", "PASSE") and first.breaks == (1, 2)


def test_a_line_parsed_again_gives_the_same_command_and_a_refusal_each_time() -> None:
    specs = rules_for("lupus-in-tabula").all_commands
    names = ["Alice", "Bruno", "Chloé"]
    first = parse_line("VOTE Bruno", specs, names, debate=True)
    assert first is not None and parse_line("VOTE Bruno", specs, names, debate=True) == first
    assert parse_line("VOTE Bruno", specs, [*names, "Brunehilde"], debate=True) == first
    assert parse_line("bonjour à tous", specs, names) is None
    assert parse_line("bonjour à tous", specs, names) is None
    errors = []
    for _ in range(2):
        with pytest.raises(CommandError) as caught:
            parse_line("VOTE Zoé", specs, names)
        errors.append(caught.value)
    assert errors[0] is not errors[1] and errors[0].reason == errors[1].reason


def test_a_plain_reason_is_rendered_once_and_others_each_time() -> None:
    renderer = Renderer()
    rendered = count_renders(renderer)
    params = {"genders": {"Alice": "f"}, "reader": "Alice"}
    first = renderer.text_kept("reasons/no_vote_to_withdraw", "fr", params)
    again = renderer.text_kept("reasons/no_vote_to_withdraw", "fr", dict(params))
    assert first == again == Renderer().text("reasons/no_vote_to_withdraw", "fr", params)
    assert rendered == ["reasons/no_vote_to_withdraw"]

    class Opaque:  # its repr does not tell its content: never kept by it
        pass

    odd = {**params, "thing": Opaque()}
    renderer.text_kept("reasons/no_vote_to_withdraw", "fr", odd)
    renderer.text_kept("reasons/no_vote_to_withdraw", "fr", odd)
    assert len(rendered) == 3


def _single(headers: list[tuple[str, str]], payload: str | bytes | None) -> Message:
    msg = Message()
    for name, value in headers:
        msg[name] = value
    if isinstance(payload, bytes):
        msg.set_payload(payload, None)
    elif payload is not None:
        msg._payload = payload  # a str payload as a parser leaves it
    return msg


SINGLE_PARTS = [
    ([("Content-Type", 'text/plain; charset="utf-8"')], "VOTE Bérénice\n".encode()),
    ([("Content-Type", "TEXT/PLAIN ; charset=latin-1")], "VOTE Bérénice\n".encode("latin-1")),
    ([("Content-Type", "text/html; charset=utf-8")], b"<p><b>VOTE Chlo\xc3\xa9</b></p>"),
    ([("Content-Type", "text/plain")], b"   \n"),  # blank: no text
    ([("Content-Type", "image/png")], b"VOTE Bruno"),
    ([("Content-Type", "text")], b"VOTE Bruno"),  # no subtype: text/plain, as the stdlib reads
    ([], b"VOTE Bruno\n"),  # no Content-Type
    ([("Content-Type", "text/plain; charset=bogus-x")], b"VOTE Bruno\xe9\n"),
    ([("Content-Disposition", "attachment; filename=a.txt")], b"VOTE Bruno"),
    ([("Content-Disposition", "inline")], b"VOTE Bruno"),
    ([("Content-Transfer-Encoding", "base64")], b"Vk9URSBCcnVubw==\n"),
    ([("Content-Transfer-Encoding", "quoted-printable")], b"VOTE Br=C3=A9sil\n"),
    ([("Content-Transfer-Encoding", " 8bit ")], b"VOTE Bruno\n"),
    ([("Content-Type", "text/plain; charset=utf-8"), ("Content-Type", "text/html")], b"VOTE"),
    ([("Content-Type", "text/plain; charset=utf-8")], "VOTE Ærø\n"),  # non-ASCII str payload
    ([("Content-Type", "text/plain; charset=\udce9")], b"VOTE Bruno\n"),  # 8-bit header
    ([("Content-Type", "text/plain")], None),
]


@pytest.mark.parametrize(("headers", "payload"), SINGLE_PARTS)
def test_a_single_part_is_read_as_the_stdlib_reads_it(
    headers: list[tuple[str, str]], payload: str | bytes | None
) -> None:
    """The one-pass reading of a single part's MIME headers (issue 23) gives what
    the stdlib's reading gives, or leaves the part to it."""
    quick = _single(headers, payload)
    slow = _single(headers, payload)

    def stdlib(msg: Message) -> Any:
        with mock.patch.object(mime, "_single_text_source", lambda _m: mime._UNUSUAL):
            return mime.text_source(msg)

    def outcome(read: Any, msg: Message) -> Any:
        try:
            found = read(msg)
        except Exception as exc:  # the stdlib's own failure, the same both ways
            return type(exc)
        return None if found is None else (found[0] is msg, found[1], found[2])

    assert outcome(mime.text_source, quick) == outcome(stdlib, slow)


def test_a_bots_mail_is_read_without_the_stdlibs_header_reads() -> None:
    msg = plain_mail("alice@v.example", "mj@v.example", "VOTE Bérénice\n")
    # its Content-Type's charset is read by the stdlib once per value, and kept: read here
    # first, so that what follows does not depend on an earlier test of the same worker
    mime.text_source(plain_mail("bob@v.example", "mj@v.example", "VOTE Bruno\n"))
    with mock.patch.object(Message, "get", side_effect=AssertionError("Message.get")):
        found = mime.text_source(msg)
    assert found is not None and found[1:] == ("VOTE Bérénice\n", False)


SUBJECTS = [
    [("Subject", "Re: [village] VOTE Bruno")],
    [("Subject", "TR: Réf. tr: VOTE Bruno"), ("Subject", "second")],
    [("Subject", "=?utf-8?q?VOTE_B=C3=A9r=C3=A9nice?=")],
    [("Subject", "VOTE\n  Bruno  ")],
    [("SUBJECT", "VOTE Bruno"), ("content-TYPE", "text/plain; charset=utf-8"), ("X-Ray", "1")],
]


@pytest.mark.parametrize(
    ("headers", "payload"),
    SINGLE_PARTS + [(s, b"SONDER Bruno\n") for s in SUBJECTS],
)
def test_a_short_single_part_mail_read_again_reads_as_read_afresh(
    headers: list[tuple[str, str]], payload: str | bytes | None
) -> None:
    """A short single-part mail's whole reading is kept, by what is read of it (issue 23): a
    mail like it, read again, reads as the general reading of the mail itself."""

    def outcome(read: Any) -> Any:
        try:
            return read(_single(headers, payload))
        except Exception as exc:  # the same failure both ways
            return type(exc).__name__

    fresh = outcome(lambda msg: inbound._extract(msg, 60))
    first, again = outcome(extract), outcome(extract)
    assert first == again == (fresh if isinstance(fresh, MailText) else "MailError")
    assert inbound._kept_reading.cache_info().maxsize == 1024  # bounded


def _parsed(headers: list[tuple[str, str]], payload: str | bytes | None) -> bytes:
    """The raw mail of ``headers`` and ``payload``, for the daemon's parse."""
    head = "".join(
        f"{name}: {value.replace(chr(10), chr(13) + chr(10))}\r\n" for name, value in headers
    )
    body = payload.encode() if isinstance(payload, str) else payload
    return head.encode("utf-8", "surrogateescape") + (b"" if body is None else b"\r\n" + body)


@pytest.mark.parametrize(
    ("headers", "payload"),
    SINGLE_PARTS
    + [(s, b"SONDER Bruno\n") for s in SUBJECTS]
    + [
        ([("Content-Type", 'text/plain; charset="utf-8"; format="flowed"')], b"VOTE Bruno\n"),
        ([("Content-Type", "text/plain; charset=UTF-8; format=flowed")], b"VOTE Bruno\n"),
        ([("Content-Type", "text/plain (a comment); charset=utf-8")], b"VOTE Bruno\n"),
        ([("Content-Type", 'text/plain; name="=?utf-8?q?=C3=A9?="')], b"VOTE Bruno\n"),
        ([("Content-Type", 'text/html; charset="utf-8"')], b"<p><b>VOTE Bruno</b></p>"),
        (
            [("Content-Type", 'text/plain; charset="utf-8"'), ("Content-Disposition", "inline")],
            b"x",
        ),
        ([("Content-Transfer-Encoding", "7bit"), ("Content-Type", "image/png")], b"VOTE Bruno"),
        ([("Content-Transfer-Encoding", "x-weird")], b"VOTE Bruno\n"),
    ],
)
def test_a_parsed_short_single_part_reads_as_its_general_reading(
    headers: list[tuple[str, str]], payload: str | bytes | None
) -> None:
    """The daemon's parse of a short single-part mail (the modern policy) is read through the
    kept reading when its MIME headers read as their raw values (issue 23), and reads as the
    general reading of the mail itself."""
    raw = _parsed(headers, payload)

    def outcome(read: Any) -> Any:
        try:
            return read(parse_bytes(raw))
        except Exception as exc:  # the same failure both ways
            return type(exc).__name__

    fresh = outcome(lambda msg: inbound._extract(msg, 60))
    first, again = outcome(extract), outcome(extract)
    assert first == again == (fresh if isinstance(fresh, MailText) else "MailError")


def test_a_players_order_parsed_by_the_daemon_is_a_kept_reading() -> None:
    plain = b'Subject: x\r\nContent-Type: text/plain; charset="utf-8"\r\n\r\nVOTE Bruno\r\n'
    assert inbound._short_single(parse_bytes(plain)) is not None
    unquoted = plain.replace(b'"utf-8"', b"utf-8")  # rendered with quotes: the stdlib's reading
    assert inbound._short_single(parse_bytes(unquoted)) is None
    encoded = plain.replace(b"\r\n\r\n", b"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
    assert inbound._short_single(parse_bytes(encoded)) is None
