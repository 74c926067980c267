"""Tests for pbem.mail.bounce: failed recipients, hard or soft, and the VERP token.

The corpus in tests/bounces/ is hand-written after real MTAs' output (RELIABILITY §2.5).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.errors import MailError
from pbem.mail import bounce
from pbem.mail.bounce import Bounce, parse_bounce, verp_address, verp_token, verp_token_of
from pbem.mail.inbound import automatic_reason, parse_bytes

CORPUS = Path(__file__).parents[1] / "bounces"
BOUNCE = "moderator+bounce@example.test"


def parsed(name: str) -> Bounce:
    msg = parse_bytes((CORPUS / name).read_bytes())
    return parse_bounce(msg, bounce_address=BOUNCE)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.eml")))
def test_every_corpus_mail_is_recognised_as_a_bounce(name: str) -> None:
    """RELIABILITY §2.5: each of them is 'automatic' (never parsed nor answered)."""
    msg = parse_bytes((CORPUS / name).read_bytes())
    assert automatic_reason(msg, our_addresses=["moderator@example.test", BOUNCE]) == "bounce"


def test_rfc3464_hard_bounce_5_1_1_and_the_delivered_recipient_is_left_out() -> None:
    """RELIABILITY §2.5: multipart/report with Final-Recipient, Action failed, Status 5.1.1."""
    b = parsed("rfc3464-hard.eml")
    assert b.standard
    assert [(f.address, f.status, f.action, f.hard) for f in b.failures] == [
        ("alice@example.test", "5.1.1", "failed", True)
    ]
    assert "User unknown" in b.failures[0].diagnostic
    assert b.token == "abcdefghijklmnop"  # addressed to the VERP form of the bounce address


def test_rfc3464_delayed_is_soft() -> None:
    """RELIABILITY §2.5: Action delayed, Status 4.4.1: a warning, not a hard bounce."""
    b = parsed("rfc3464-delayed.eml")
    assert b.standard and b.token is None
    assert [(f.address, f.status, f.action, f.hard) for f in b.failures] == [
        ("carol@example.test", "4.4.1", "delayed", False)
    ]
    assert b.hard == ()


def test_postfix_text_bounce() -> None:
    """RELIABILITY §2.5: non-standard '<addr>: host ... said: 550 5.1.1' text."""
    b = parsed("postfix-text.eml")
    assert not b.standard
    assert [(f.address, f.status, f.hard) for f in b.failures] == [
        ("dave@example.test", "5.1.1", True)
    ]


def test_exim_text_bounce_reads_the_failed_block_not_the_quoted_copy() -> None:
    """RELIABILITY §2.5: Exim's 'The following address(es) failed:' block."""
    b = parsed("exim-text.eml")
    assert [(f.address, f.status, f.hard) for f in b.failures] == [
        ("erin@example.test", "5.7.1", True)
    ]
    assert "Mailbox disabled" in b.failures[0].diagnostic


def test_gmail_text_bounce() -> None:
    """RELIABILITY §2.5: Gmail's "Your message wasn't delivered to X because ..."."""
    b = parsed("gmail-text.eml")
    assert [(f.address, f.status, f.hard) for f in b.failures] == [
        ("frank@example.test", "5.1.1", True)
    ]


def test_mailer_daemon_text_falls_back_to_the_quoted_original_recipient() -> None:
    """RELIABILITY §2.5: a mailer-daemon text naming no address: the quoted original's To."""
    b = parsed("mailer-daemon-quoted.eml")
    assert [(f.address, f.hard) for f in b.failures] == [("grace@example.test", True)]


def test_hostile_report_gives_nothing_and_does_not_raise() -> None:
    """RELIABILITY §2.5: broken parts, junk recipients, a bad token: no address, no exception."""
    b = parsed("hostile.eml")
    assert {f.address for f in b.failures} == {""} and b.token is None


def test_exim_deferred_and_gmail_temporary_are_soft() -> None:
    """RELIABILITY §2.5: delays are only logged, never counted."""
    exim = parse_bytes(
        b"From: Mailer-Daemon@mx.example.org\r\nSubject: Warning: message delayed\r\n\r\n"
        b"This message was created automatically by mail delivery software.\r\n"
        b"A message that you sent has not yet been delivered to one or more of its\r\n"
        b"recipients after more than 24 hours on the queue.\r\n\r\n"
        b"The following address(es) deferred:\r\n\r\n"
        b"  heidi@example.test\r\n    Connection timed out\r\n"
    )
    b = parse_bounce(exim)
    assert [(f.address, f.action, f.hard) for f in b.failures] == [
        ("heidi@example.test", "delayed", False)
    ]
    gmail = parse_bytes(
        b"From: mailer-daemon@googlemail.com\r\nSubject: Delivery Status Notification (Delay)\r\n"
        b"\r\nThere was a temporary problem delivering your message to heidi@example.test. "
        b"Gmail will retry for 46 more hours.\r\n"
    )
    assert [(f.address, f.hard) for f in parse_bounce(gmail).failures] == [
        ("heidi@example.test", False)
    ]


def test_x_failed_recipients_header_alone() -> None:
    msg = parse_bytes(
        b"From: Mailer-Daemon@mx.example.org\r\nX-Failed-Recipients: ivan@example.test\r\n"
        b"Subject: Mail delivery failed\r\n\r\nSorry.\r\n"
    )
    assert [(f.address, f.hard) for f in parse_bounce(msg).failures] == [
        ("ivan@example.test", True)
    ]


def test_not_a_bounce_and_an_mdn_give_no_failures() -> None:
    human = parse_bytes(b"From: alice@example.test\r\nSubject: hi\r\n\r\nCMD one\r\n")
    assert parse_bounce(human).failures == ()
    mdn = parse_bytes(
        b"From: bob@example.test\r\nContent-Type: multipart/report; "
        b'report-type=disposition-notification; boundary="M"\r\n\r\n--M\r\n'
        b"Content-Type: message/disposition-notification\r\n\r\n"
        b"Final-Recipient: rfc822; bob@example.test\r\nDisposition: manual-action/MDN-sent-manually;"
        b" displayed\r\n\r\n--M--\r\n"
    )
    assert parse_bounce(mdn).failures == ()


def test_verp_address_token_round_trip() -> None:
    """RELIABILITY §2.4: moderator+bounce-<token>@ when the bounce address already has a '+'."""
    token = verp_token(b"k" * 32, "g1", "Alice@Example.test")
    assert token == verp_token(b"k" * 32, "G1", "alice@example.test")
    assert token != verp_token(b"x" * 32, "g1", "alice@example.test")
    assert token != verp_token(b"k" * 32, "g2", "alice@example.test")
    assert len(token) == 16 and token.isalnum() and token == token.lower()
    assert verp_address(BOUNCE, token) == f"moderator+bounce-{token}@example.test"
    assert verp_address("bounces@example.test", token) == f"bounces+{token}@example.test"
    for to in (verp_address(BOUNCE, token), verp_address(BOUNCE, token).upper()):
        msg = parse_bytes(f"Delivered-To: {to}\r\nFrom: x@y.z\r\n\r\n".encode())
        assert verp_token_of(msg, BOUNCE) == token
    other = parse_bytes(f"To: moderator+bounce-{token}@elsewhere.test\r\n\r\n".encode())
    assert verp_token_of(other, BOUNCE) is None
    plain = parse_bytes(b"To: moderator+bounce@example.test\r\n\r\n")
    assert verp_token_of(plain, BOUNCE) is None


def test_a_very_long_report_is_capped() -> None:
    blocks = "".join(
        f"Final-Recipient: rfc822; p{i}@example.test\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        for i in range(500)
    )
    raw = (
        'Content-Type: multipart/report; report-type=delivery-status; boundary="Z"\r\n\r\n'
        "--Z\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; x\r\n\r\n"
        f"{blocks}--Z--\r\n"
    ).encode()
    assert 0 < len(parse_bounce(parse_bytes(raw)).failures) <= 50


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_raise_nothing_but_mail_error(data: bytes) -> None:
    head = (
        b"From: MAILER-DAEMON@x.example\r\nContent-Type: multipart/report; "
        b'report-type=delivery-status; boundary="R"\r\n\r\n--R\r\n'
        b"Content-Type: message/delivery-status\r\n\r\n"
    )
    for raw in (data, head + data):
        try:
            msg = parse_bytes(raw)
        except MailError:
            continue
        with contextlib.suppress(MailError):
            parse_bounce(msg, bounce_address=BOUNCE)


def test_a_report_without_recipient_keeps_the_failure_for_the_verp_token() -> None:
    """RELIABILITY §2.5: no Final-Recipient, but Action failed / 5.1.1 to a VERP address: the
    failure has no address, and the token says whose it is."""
    raw = (
        f"From: MAILER-DAEMON@mx.example.net\r\nTo: moderator+bounce-{'a' * 16}@example.test\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="N"\r\n\r\n'
        "--N\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; x\r\n\r\n"
        "Action: failed\r\nStatus: 5.1.1\r\n\r\n--N--\r\n"
    ).encode()
    b = parse_bounce(parse_bytes(raw), bounce_address=BOUNCE)
    assert [(f.address, f.status, f.hard) for f in b.failures] == [("", "5.1.1", True)]
    assert b.token == "a" * 16


# ---- formats Mailman's detectors (flufl.bounce) recognise, pbem's own readers do not --------


@pytest.mark.parametrize(
    "name, address",
    [
        ("exchange-text.eml", "judy@corp.example.test"),  # Microsoft Exchange IMS
        ("smtp32-text.eml", "kim@example.test"),  # IMail SMTP32
        ("yahoo-html.eml", "leo@yahoo.example.test"),  # Yahoo, text/html only
        ("mailbox-full-text.eml", "mia@example.test"),  # a "simple" phrasing
        ("forwarded-report.eml", "noah@corp.example.test"),  # a DSN forwarded as an attachment
    ],
)
def test_flufl_bounce_detectors_read_the_formats_pbem_has_no_reader_for(
    name: str, address: str
) -> None:
    """RELIABILITY §2.5: the failed recipient of a non-RFC 3464 bounce found by flufl.bounce's
    detectors; a failure it calls permanent is hard."""
    b = parsed(name)
    assert not b.standard
    assert [(f.address, f.action, f.hard) for f in b.failures] == [(address, "failed", True)]


def test_flufl_bounce_detectors_keep_the_verp_token() -> None:
    assert parsed("exchange-text.eml").token == "judyjudyjudyjudy"


def test_detected_address_keeps_the_status_pbem_reads_for_it() -> None:
    """qmail: flufl.bounce names the recipient, pbem's own reader gives its 5.1.1 and words."""
    b = parsed("qmail-text.eml")
    assert [(f.address, f.status, f.hard) for f in b.failures] == [
        ("quinn@example.de", "5.1.1", True)
    ]
    assert "User unknown" in b.failures[0].diagnostic


def test_detected_permanent_failure_with_a_4xx_code_in_its_paragraph_is_soft() -> None:
    """Unknown or contradicted severity never counts: a 4.x.x next to the address wins over the
    detector's permanent verdict."""
    msg = parse_bytes(
        (CORPUS / "mailbox-full-text.eml")
        .read_bytes()
        .replace(b"Unable to deliver mail.", b"452 4.2.2 Unable to deliver mail.")
    )
    b = parse_bounce(msg)
    assert [(f.address, f.status, f.action, f.hard) for f in b.failures] == [
        ("mia@example.test", "4.2.2", "delayed", False)
    ]


def test_detectors_that_find_someone_replace_pbem_text_guesses() -> None:
    """When the detectors name the recipient, a quoted-original guess of pbem's own readers
    (here the To of the quoted copy) is not added to it."""
    raw = (CORPUS / "smtp32-text.eml").read_bytes().replace(b"To: kim@", b"To: other@")
    b = parse_bounce(parse_bytes(raw))
    assert [f.address for f in b.failures] == ["kim@example.test"]


@pytest.mark.parametrize(
    "name, address, status",
    [
        ("opensmtpd-error.eml", "olga@example.net", "5.0.0"),  # Action: error
        ("report-merged-block.eml", "paul@example.be", "553"),  # Action: failure, no blank line
    ],
)
def test_rfc3464_deviant_actions_and_a_merged_first_block_are_read(
    name: str, address: str, status: str
) -> None:
    """RELIABILITY §2.5: OpenSMTPD's "Action: error", an MTA's "Action: failure", and a report
    with no blank line between its per-message and per-recipient fields."""
    b = parsed(name)
    assert b.standard
    assert [(f.address, f.status, f.action, f.hard) for f in b.failures] == [
        (address, status, "failed", True)
    ]


def test_detectors_get_a_bounded_copy_of_a_huge_bounce() -> None:
    """Mailman's detectors run some fifty patterns over every line (about 10 s for a megabyte
    of short lines): they are given the first parts and the first 16 KB of text only, on a
    copy, and the bounce's own recipient is still found at its top."""
    parts = b"".join(
        b"--B\r\nContent-Type: text/plain\r\n\r\n" + b"x@y z\n" * 200 + b"\r\n" for _ in range(1000)
    )
    raw = (
        b"From: MAILER-DAEMON@x.example\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n"
        b"--B\r\nContent-Type: text/plain\r\n\r\nUser's mailbox is full: <mia@example.test>\r\n"
        b"Unable to deliver mail.\r\n" + parts + b"--B--\r\n"
    )
    msg = parse_bytes(raw)
    cut = bounce._trimmed(msg)
    texts = [p.get_payload() for p in cut.walk() if isinstance(p.get_payload(), str)]
    assert len(list(cut.walk())) <= bounce._DETECTED_PARTS + 1
    assert sum(len(t) for t in texts) <= bounce._DETECTED_TEXT
    assert len(list(msg.walk())) == 1002  # the original is left whole
    assert [f.address for f in parse_bounce(msg).failures] == ["mia@example.test"]
