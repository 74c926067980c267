"""pbem.mail.partial: which parts of a large mail are its text (issue 10 item 5). The structures
are imapclient's parse of Dovecot's BODYSTRUCTURE answers; tests/daemon/test_large_mail.py
runs the whole path against Dovecot."""

from __future__ import annotations

import email
import email.policy

from pbem.mail.partial import Part, assemble, sections, text_plan, text_size

PLAIN = (b"text", b"plain", (b"charset", b"utf-8"), None, None, b"7bit", 40, 2, None, None)
HTML = (b"TEXT", b"HTML", (b"CHARSET", b"utf-8"), None, None, b"quoted-printable", 90, 3)
JPEG = (b"image", b"jpeg", (b"name", b"a.jpg"), None, None, b"base64", 4_000_000, None)
LOG = (b"text", b"plain", None, None, None, b"base64", 900_000, 10, None, (b"attachment", None))
FORWARD = (b"message", b"rfc822", None, None, None, b"7bit", 5000, None, PLAIN, 80)


def test_text_parts_kept_photo_attachment_and_forward_left_out() -> None:
    outer = ([PLAIN, ([HTML, JPEG, LOG, FORWARD, HTML], b"mixed", (b"boundary", b"in"))],)
    plan = text_plan((*outer, b"alternative", (b"BOUNDARY", b"out")))
    assert plan == Part(
        "",
        boundary=b"out",
        children=(
            Part("1", size=40),
            Part("2", boundary=b"in", children=(Part("2.1", size=90), Part("2.5", size=90))),
        ),
    )
    assert text_size(plan) == 220
    assert sections(plan) == ["1.MIME", "1", "2.MIME", "2.1.MIME", "2.1", "2.5.MIME", "2.5"]


def test_no_text_part_no_plan() -> None:
    assert text_plan(([JPEG, LOG], b"mixed", (b"boundary", b"b"))) is None
    assert text_plan(JPEG) is None
    assert text_plan(None) is None


def test_a_single_part_mail_is_its_text() -> None:
    plan = text_plan(PLAIN)
    assert plan == Part("", size=40)
    assert sections(plan) == ["TEXT"]
    raw = assemble(b"From: a@example.test\r\nSubject: x\r\n\r\n", plan, {"TEXT": b"CMD a\r\n"})
    assert raw == b"From: a@example.test\r\nSubject: x\r\n\r\nCMD a\r\n"


def test_assembled_mail_parses_with_its_boundaries() -> None:
    plan = text_plan(([PLAIN, JPEG], b"mixed", (b"boundary", b"XyZ")))
    assert plan is not None
    header = b'From: a@example.test\r\nContent-Type: multipart/mixed; boundary="XyZ"\r\n\r\n'
    parts = {"1.MIME": b"Content-Type: text/plain; charset=utf-8\r\n\r\n", "1": b"CMD a"}
    msg = email.message_from_bytes(assemble(header, plan, parts), policy=email.policy.default)
    assert [p.get_content_type() for p in msg.walk()] == ["multipart/mixed", "text/plain"]
    body = msg.get_body(("plain",))
    assert body is not None and body.get_content().strip() == "CMD a"
