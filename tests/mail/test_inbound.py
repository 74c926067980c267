"""Tests for pbem.mail.inbound: what text of a player's mail is read as commands."""

from __future__ import annotations

import base64
import contextlib
import quopri
from email.message import EmailMessage, Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.errors import MailError
from pbem.mail.inbound import (
    MailText,
    ParseOncePolicy,
    automatic_reason,
    extract,
    parse_bytes,
    subject_tag,
)
from tests.support.examples import examples

OURS = ("moderator@game.example",)


def raw(headers: str, body: bytes) -> EmailMessage:
    """A message parsed from raw bytes: headers as text (raw UTF-8), the body as given."""
    head = headers.strip().replace("\n", "\r\n").encode()
    return parse_bytes(head + b"\r\n\r\n" + body)


def plain(body: str, subject: str = "", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


def html(body: str) -> EmailMessage:
    msg = EmailMessage()
    msg.set_content(body, subtype="html")
    return msg


def lines(body: str, **kwargs: int) -> tuple[str, ...]:
    return extract(plain(body), **kwargs).lines


def reason(headers: str, body: bytes = b"hello\r\n") -> str | None:
    return automatic_reason(raw(headers, body), our_addresses=OURS)


# --- which part is read ---------------------------------------------------------------------


def test_text_plain_is_preferred_over_html_in_alternative() -> None:
    msg = plain("VOTE bob")
    msg.add_alternative("<p>VOTE <b>carol</b></p>", subtype="html")
    result = extract(msg)
    assert result.lines == ("VOTE bob",)
    # the lines are the text part's; bold is what readers see, the HTML's (issue 10, item 1)
    assert result.bold == ("carol",)
    assert not result.html_only


def test_html_is_read_when_there_is_no_text_plain() -> None:
    result = extract(html("<html><body><p>VOTE bob</p></body></html>"))
    assert result.lines == ("VOTE bob",)
    assert result.html_only


def test_html_blockquote_is_dropped_and_bold_is_recorded() -> None:
    body = (
        "<div>I vote <b>Bob</b></div><div>and <strong>Alice Smith</strong> is suspect</div>"
        "<blockquote>VOTE <b>Carol</b><br>KILL dave</blockquote><p>after the quote</p>"
    )
    result = extract(html(body))
    assert result.lines == ("I vote Bob", "and Alice Smith is suspect", "after the quote")
    assert result.bold == ("Bob", "Alice Smith")


def test_html_to_text_blocks_entities_scripts_and_styles() -> None:
    body = (
        "<html><head><title>Mail</title><style>p { color: red }</style></head><body>"
        "<h1>Day&nbsp;2</h1>VOTE bob<br>KILL carol<br/>"
        "<ul><li>one</li><li>two</li></ul>"
        "<table><tr><td>a</td><td>b</td></tr></table>"
        "<script>VOTE mallory</script><p>Tom &amp; Jerry &lt;3 &#233;t&eacute;</p>"
        "</body></html>"
    )
    assert extract(html(body)).lines == (
        "Day 2",
        "VOTE bob",
        "KILL carol",
        "one",
        "two",
        "a b",
        "Tom & Jerry <3 été",
    )


def test_html_signature_ends_the_text() -> None:
    result = extract(html("<p>VOTE <b>bob</b></p><div>--&nbsp;<br><b>Alice</b>, the baker</div>"))
    assert result.lines == ("VOTE bob",)
    assert result.bold == ("bob",)


def test_html_nested_blockquotes_and_stray_closing_tags() -> None:
    body = "<blockquote>a<blockquote>b</blockquote>c</blockquote></blockquote></b>VOTE <b>bob</b>"
    result = extract(html(body))
    assert result.lines == ("VOTE bob",)
    assert result.bold == ("bob",)


def test_html_bold_cut_by_a_line_break_counts_on_each_line() -> None:
    result = extract(html("<b>Bob<br>Alice</b> and <b></b>me"))
    assert result.lines == ("Bob", "Alice and me")
    assert result.bold == ("Bob", "Alice")


def test_html_gmail_reply_stops_at_the_attribution() -> None:
    body = (
        '<div dir="ltr">VOTE <b>bob</b></div><br><div class="gmail_quote">'
        '<div class="gmail_attr">Le lun. 3 janv. 2026 à 10:00, Alice &lt;a@x.org&gt; a écrit&nbsp;:'
        "<br></div><blockquote>VOTE <b>carol</b></blockquote></div>"
    )
    result = extract(html(body))
    assert result.lines == ("VOTE bob",)
    assert result.bold == ("bob",)


def test_html_outlook_reply_stops_at_the_header_block() -> None:
    body = (
        "<p>VOTE bob</p><hr><p><b>From:</b> Alice<br><b>Sent:</b> Monday<br>"
        "<b>Subject:</b> vote</p><p>VOTE <b>carol</b></p>"
    )
    result = extract(html(body))
    assert result.lines == ("VOTE bob",)
    assert result.bold == ()


def test_blank_text_plain_falls_back_to_html() -> None:
    msg = plain("  \n")
    msg.add_alternative("<p>VOTE bob</p>", subtype="html")
    result = extract(msg)
    assert result.lines == ("VOTE bob",)
    assert result.html_only


def test_text_attachment_is_not_read() -> None:
    msg = EmailMessage()
    msg.set_content("VOTE bob")
    msg.add_attachment("VOTE mallory", filename="notes.txt")
    assert extract(msg).lines == ("VOTE bob",)
    only_attachment = EmailMessage()
    only_attachment.add_attachment("VOTE mallory", filename="notes.txt")
    assert extract(only_attachment).lines == ()


def test_attached_message_is_not_read() -> None:
    forwarded = plain("VOTE mallory")
    msg = EmailMessage()
    msg.set_content("VOTE bob")
    msg.add_attachment(forwarded)
    assert extract(msg).lines == ("VOTE bob",)


def test_message_without_any_text_is_empty_not_an_error() -> None:
    msg = EmailMessage()
    msg["Subject"] = "VOTE bob"
    msg.add_attachment(b"\x89PNG", maintype="image", subtype="png", filename="a.png")
    assert extract(msg) == MailText(
        subject="VOTE bob", lines=(), bold=(), truncated=False, html_only=False
    )
    assert extract(EmailMessage()).lines == ()


def test_compat32_messages_are_read_too() -> None:
    msg = MIMEMultipart("alternative")
    msg["Subject"] = "=?utf-8?q?Re=3A_=C3=A9lise?="
    msg.attach(MIMEText("VOTE élise", "plain", "utf-8"))
    msg.attach(MIMEText("<p>VOTE carol</p>", "html", "utf-8"))
    result = extract(msg)
    assert result.subject == "élise"
    assert result.lines == ("VOTE élise",)


# --- where the command text ends ------------------------------------------------------------


@pytest.mark.parametrize("signature", ["-- ", "--"])
def test_signature_ends_the_text(signature: str) -> None:
    assert lines(f"VOTE bob\n{signature}\nAlice\nKILL carol\n") == ("VOTE bob",)


def test_dashes_that_are_not_a_signature_are_kept() -> None:
    assert lines("VOTE bob\n---\n-- x\nKILL carol") == ("VOTE bob", "---", "-- x", "KILL carol")


@pytest.mark.parametrize("marker", ["FIN", "fin", "Fin.", "END", "end.", "FÍN", "  End  "])
def test_end_line_ends_the_text(marker: str) -> None:
    assert lines(f"VOTE bob\n{marker}\nKILL carol") == ("VOTE bob",)


@pytest.mark.parametrize("line", ["FINAL", "THE END", "VOTE fin", "ending"])
def test_words_that_are_not_end_markers_are_kept(line: str) -> None:
    assert lines(f"VOTE bob\n{line}\nKILL carol") == ("VOTE bob", line, "KILL carol")


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 3 Jan 2026 at 10:00, Alice <a@x.org> wrote:",
        "Le 3 janv. 2026 à 10:00, Alice <a@x.org> a écrit :",
        "Le 3 janv. 2026 à 10:00, Alice <a@x.org> a\u00a0écrit\u00a0:",
        "le lun. 3 janv. 2026, Alice A ECRIT:",
        "On Mon, 3 Jan 2026 at 10:00, Alice <\na@x.org> wrote:",
        "Le lun. 3 janv. 2026 à 10:00, Alice Longname\n<alice@example.org> a écrit :",
    ],
)
def test_attribution_line_ends_the_text(attribution: str) -> None:
    body = f"VOTE bob\n\n{attribution}\n\nVOTE carol\n> VOTE dave\n"
    assert lines(body) == ("VOTE bob",)


def test_line_starting_with_on_or_le_is_kept_without_wrote() -> None:
    body = "On day 2 I vote bob\nLe loup est Carol\nVOTE dave"
    assert lines(body) == ("On day 2 I vote bob", "Le loup est Carol", "VOTE dave")


@pytest.mark.parametrize(
    "block",
    [
        "-----Original Message-----\nFrom: Alice",
        "----- Message d'origine -----\nDe : Alice",
        "-------- Message transféré --------",
        "---------- Forwarded message ---------\nFrom: Alice <a@x.org>",
        "Begin forwarded message:",
        "From: Alice <a@x.org>\nSent: Monday, 3 January 2026 10:00",
        "From: Alice <a@x.org>\nDate: Mon, 3 Jan 2026 10:00",
        "De : Alice <a@x.org>\nEnvoyé : lundi 3 janvier 2026 10:00",
    ],
)
def test_older_message_block_ends_the_text(block: str) -> None:
    body = f"VOTE bob\n{block}\nTo: list\nSubject: votes\n\nVOTE carol\n"
    assert lines(body) == ("VOTE bob",)


def test_from_line_alone_is_kept() -> None:
    assert lines("From: the village\nVOTE bob") == ("From: the village", "VOTE bob")


def test_quoted_lines_are_skipped_not_ending() -> None:
    body = "> VOTE carol\n  > > KILL dave\n>\nVOTE bob\n> more\nKILL eve\n"
    assert lines(body) == ("VOTE bob", "KILL eve")


def test_quoted_markers_do_not_end_the_text() -> None:
    assert lines("VOTE bob\n> --\n> FIN\nKILL eve") == ("VOTE bob", "KILL eve")


def test_blank_lines_are_dropped() -> None:
    assert lines("\n\n  VOTE bob  \n\t\n\nKILL eve\n\n") == ("VOTE bob", "KILL eve")


# --- line cap -------------------------------------------------------------------------------


def test_line_cap_truncates() -> None:
    body = "\n\n".join(f"line {i}" for i in range(61))
    result = extract(plain(body))
    assert result.lines == tuple(f"line {i}" for i in range(60))
    assert result.truncated


def test_line_cap_exactly_reached_is_not_truncated() -> None:
    body = "\n".join(f"line {i}" for i in range(60)) + "\n> quoted\n\n-- \nsig"
    result = extract(plain(body))
    assert len(result.lines) == 60
    assert not result.truncated


def test_custom_line_cap_and_bold_within_it() -> None:
    result = extract(plain("VOTE **bob**\nVOTE **carol**\nVOTE **dave**"), max_lines=2)
    assert result.lines == ("VOTE **bob**", "VOTE **carol**")
    assert result.bold == ("bob", "carol")
    assert result.truncated
    assert extract(plain("VOTE bob"), max_lines=0) == MailText("", (), (), True, False)


def test_negative_line_cap_is_a_mail_error() -> None:
    with pytest.raises(MailError):
        extract(plain("VOTE bob"), max_lines=-1)


# --- bold -----------------------------------------------------------------------------------


def test_plain_bold_markers_are_recorded_and_kept_in_lines() -> None:
    result = extract(plain("I vote *Alice* then **Bob Martin**\nVOTE ** spaced **"))
    assert result.lines == ("I vote *Alice* then **Bob Martin**", "VOTE ** spaced **")
    assert result.bold == ("Alice", "Bob Martin")


@pytest.mark.parametrize("line", ["* item one", "a * b", "2*3*4", "**", "* *", "5 * 3 = 15 *"])
def test_stars_that_are_not_bold(line: str) -> None:
    assert extract(plain(line)).bold == ()


def test_bold_outside_the_kept_lines_is_not_recorded() -> None:
    body = "VOTE **bob**\n> VOTE **carol**\n-- \n**Alice**, village idiot"
    assert extract(plain(body)).bold == ("bob",)
    assert extract(html("VOTE <b>bob</b><br>FIN<br><b>carol</b>")).bold == ("bob",)


# --- charsets and transfer encodings --------------------------------------------------------


def test_cp1252_smart_quotes_become_ascii() -> None:
    msg = raw("Content-Type: text/plain; charset=windows-1252", b"\x93VOTE bob\x94 \x96 ok\r\n")
    assert extract(msg).lines == ('"VOTE bob" - ok',)


def test_iso_8859_1_label_is_read_as_cp1252() -> None:
    msg = raw("Content-Type: text/plain; charset=iso-8859-1", b"VOTE \xc9lo\xefse \x93x\x94\r\n")
    assert extract(msg).lines == ('VOTE Éloïse "x"',)


def test_shift_jis() -> None:
    body = "投票 ボブ\n".encode("shift_jis")
    msg = raw("Content-Type: text/plain; charset=shift_jis", body)
    assert extract(msg).lines == ("投票 ボブ",)


def test_utf7_decodes_and_bad_utf7_does_not_raise() -> None:
    good = raw("Content-Type: text/plain; charset=utf-7", b"VOTE +AMk-lise\r\n")
    assert extract(good).lines == ("VOTE Élise",)
    bad = raw("Content-Type: text/plain; charset=utf-7", b"VOTE +\xff\xfe-lise\r\n")
    assert extract(bad).lines[0].startswith("VOTE +")


@pytest.mark.parametrize(
    ("charset", "body", "expected"),
    [
        ("x-klingon", "VOTE Élise".encode(), "VOTE Élise"),
        ("x-klingon", "VOTE Élise".encode("latin-1"), "VOTE Élise"),
        ("rot13", b"VOTE bob", "VOTE bob"),
        ('"utf\x00-8"', b"VOTE bob", "VOTE bob"),
    ],
)
def test_unknown_or_lying_charsets_fall_back(charset: str, body: bytes, expected: str) -> None:
    msg = raw(f"Content-Type: text/plain; charset={charset}", body)
    assert extract(msg).lines[0] == expected


def test_utf8_label_on_latin1_line_is_guessed_per_line() -> None:
    body = "VOTE Élise\n".encode() + "KILL Zoé".encode("latin-1")
    msg = raw("Content-Type: text/plain; charset=utf-8", body)
    assert extract(msg).lines == ("VOTE Élise", "KILL Zoé")


def test_bad_base64_does_not_raise() -> None:
    msg = raw(
        "Content-Type: text/plain\nContent-Transfer-Encoding: base64",
        b"Vk9URSBib2IK\r\nQ0hBSU4g*Ym9i!!\r\n%%%\r\n",
    )
    assert extract(msg).lines[0] == "VOTE bob"


def test_bad_quoted_printable_does_not_raise() -> None:
    msg = raw(
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable",
        b"VOTE =C3=A9lise=\r\nKILL =ZZbob=3\r\n",
    )
    # "=\r\n" is a soft line break: the two lines are one.
    assert extract(msg).lines == ("VOTE éliseKILL =ZZbob=3",)


def test_missing_boundary_gives_no_text() -> None:
    msg = raw(
        "MIME-Version: 1.0\nContent-Type: multipart/mixed",
        b"--x\r\nContent-Type: text/plain\r\n\r\nVOTE bob\r\n--x--\r\n",
    )
    assert extract(msg).lines == ()


# --- normalisation --------------------------------------------------------------------------


def test_nul_and_right_to_left_override_are_stripped() -> None:
    msg = raw("Content-Type: text/plain; charset=utf-8", "VO\x00TE \u202eb\u202cob\r\n".encode())
    assert extract(msg).lines == ("VOTE bob",)


def test_invisible_characters_are_removed() -> None:
    text = "\ufeffVOTE\u200b \u200eB\u00adob\u2066\u2069 \x07\x1bx"
    assert lines(text) == ("VOTE Bob x",)


def test_spaces_nfc_quotes_and_dashes() -> None:
    text = "VOTE\t\u00a0 \u202fe\u0301lise — «\u00a0Bob\u00a0» ‘x’ „y“ …"
    assert lines(text) == ('VOTE élise - "Bob" \'x\' "y" ...',)


# --- subject --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("VOTE bob", "VOTE bob"),
        ("Re: [LG42] Fwd: TR: Réf. : VOTE bob", "VOTE bob"),
        ("RE : re: FW: vote  bob", "vote bob"),
        ("Re[2]: Re^3: [lg42] [urgent] VOTE bob", "VOTE bob"),
        ("Revote bob", "Revote bob"),
        ("Tres bien", "Tres bien"),
        ("“VOTE bob”", '"VOTE bob"'),
        ("=?utf-8?q?Re=3A_=5BLG42=5D_VOTE_=C3=A9lise?=", "VOTE élise"),
        ("=?x-klingon?q?VOTE_bob?=", "VOTE bob"),
        ("", ""),
    ],
)
def test_subject_is_decoded_and_stripped_of_prefixes(subject: str, expected: str) -> None:
    msg = raw(f"Subject: {subject}\nContent-Type: text/plain", b"x\r\n")
    assert extract(msg).subject == expected


def test_raw_8bit_latin1_subject_is_recovered() -> None:
    msg = parse_bytes(b"Subject: Re: VOTE \xc9lo\xefse\r\n\r\nx\r\n")
    assert extract(msg).subject == "VOTE Éloïse"


def test_missing_subject_is_empty() -> None:
    assert extract(parse_bytes(b"\r\nVOTE bob\r\n")).subject == ""


@pytest.mark.parametrize(
    ("subject", "tag"),
    [
        ("[LG42] VOTE bob", "lg42"),
        ("Re: [Loup-Garou] VOTE bob", "loup-garou"),
        ("Re: Fwd: [ lg42 ] x", "lg42"),
        ("[] [lg42] x", "lg42"),
        ("VOTE bob [lg42]", None),
        ("VOTE bob", None),
        ("=?utf-8?q?=5BLG=C3=89=5D?= x", "lgé"),
    ],
)
def test_subject_tag(subject: str, tag: str | None) -> None:
    assert subject_tag(raw(f"Subject: {subject}", b"x")) == tag


def test_subject_tag_without_subject() -> None:
    assert subject_tag(EmailMessage()) is None


# --- automatic mail -------------------------------------------------------------------------

HUMAN = "From: Alice <alice@example.org>\nTo: moderator@game.example\nMessage-ID: <1@example.org>"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("", None),
        ("Auto-Submitted: no", None),
        ("Auto-Submitted: No (a human wrote this)", None),
        ("Precedence: list", None),
        ("X-Auto-Response-Suppress: All", None),
        ("X-Auto-Response-Suppress: OOF, AutoReply", None),
        ("X-Loop: someone-else@example.org", None),
        ("Return-Path: <alice@example.org>", None),
        ("Auto-Submitted: auto-generated", "auto-submitted"),
        ("Auto-Submitted: auto-notified; owner-email=x@y", "auto-submitted"),
        ("Auto-Submitted: auto-replied", "auto-reply"),
        ("X-Autoreply: yes", "auto-reply"),
        ("X-Autorespond: Out of office", "auto-reply"),
        ("X-Autogenerated: Reply", "auto-reply"),
        ("X-Mail-Autoreply: yes", "auto-reply"),
        ("X-Mail-Autoreply: no", None),
        ("x-autoreply: FALSE", None),
        ("X-Precedence: auto_reply", "auto-reply"),
        ("PRECEDENCE: Bulk", "bulk"),
        ("auto-submitted: no\nAuto-Submitted: auto-generated", "auto-submitted"),
        ("Precedence: auto_reply", "auto-reply"),
        ("Precedence: bulk", "bulk"),
        ("Precedence: JUNK", "bulk"),
        ("Return-Path: <>", "null-sender"),
        ("Return-Path: < >", "null-sender"),
        ("X-Loop: Moderator@Game.Example", "loop"),
        ("X-Loop: <moderator@game.example>", "loop"),
    ],
)
def test_automatic_reason_from_headers(extra: str, expected: str | None) -> None:
    assert reason(f"{HUMAN}\n{extra}") == expected


@pytest.mark.parametrize(
    "sender", ["MAILER-DAEMON@mx.example.org", "postmaster@example.org", "Mailer-Daemon"]
)
def test_mailer_daemon_sender_is_a_bounce(sender: str) -> None:
    assert reason(f"From: {sender}\nSubject: Undelivered Mail") == "bounce"


def test_delivery_status_notification_is_a_bounce() -> None:
    dsn = (
        b"--b\r\nContent-Type: text/plain\r\n\r\nVOTE bob\r\n"
        b"--b\r\nContent-Type: message/delivery-status\r\n\r\n"
        b"Reporting-MTA: dns; mx.example.org\r\n\r\n"
        b"Final-Recipient: rfc822; bob@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        b"--b--\r\n"
    )
    headers = 'From: Mail System <x@example.org>\nContent-Type: multipart/report; boundary="b"'
    assert reason(headers + "; report-type=delivery-status", dsn) == "bounce"
    # A delivery-status part inside another container (non-standard bounce) is found as well.
    assert reason(headers.replace("report", "mixed"), dsn) == "bounce"


def test_our_own_mail_echoed_back() -> None:
    by_sender = "From: Moderator <MODERATOR@game.example>\nX-Loop: moderator@game.example"
    assert reason(by_sender) == "ours"
    by_id = "From: a@example.org\nMessage-ID: <r1.p2@game.example>\nX-Loop: moderator@game.example"
    assert reason(by_id) == "ours"
    # Our Message-ID domain without our X-Loop is not enough.
    assert reason("From: a@example.org\nMessage-ID: <x@game.example>") is None


def test_our_own_mail_wins_over_its_other_automatic_headers() -> None:
    headers = (
        "From: moderator@game.example\nX-Loop: moderator@game.example\n"
        "Auto-Submitted: auto-generated\nPrecedence: bulk"
    )
    assert reason(headers) == "ours"


def test_no_our_addresses_means_no_loop() -> None:
    msg = raw("From: a@example.org\nX-Loop: moderator@game.example", b"x")
    assert automatic_reason(msg, our_addresses=()) is None
    assert automatic_reason(msg, our_addresses=[""]) is None


# --- hostile structure and size -------------------------------------------------------------


def nested_bytes(depth: int) -> bytes:
    head = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (i, i)
        for i in range(depth)
    )
    tail = b"".join(b"\r\n--b%d--" % i for i in reversed(range(depth)))
    return head + b"Content-Type: text/plain\r\n\r\nVOTE bob" + tail + b"\r\n"


def nested_message(depth: int) -> Message:
    msg: Message = MIMEText("VOTE bob")
    for _ in range(depth):
        outer = MIMEMultipart()
        outer.attach(msg)
        msg = outer
    return msg


def test_parser_recursion_bomb_is_a_mail_error() -> None:
    with pytest.raises(MailError, match="RecursionError"):
        parse_bytes(nested_bytes(2000))


def test_deep_nesting_is_walked_without_recursion() -> None:
    bomb = nested_message(2000)
    assert extract(bomb).lines == ()
    assert automatic_reason(bomb, our_addresses=OURS) is None


def test_nesting_depth_limit() -> None:
    assert extract(parse_bytes(nested_bytes(25))).lines == ("VOTE bob",)
    assert extract(parse_bytes(nested_bytes(40))).lines == ()


@pytest.mark.parametrize(
    "body",
    [
        b"VOTE bob\r\n" * 1_000_000,
        b"> VOTE bob\r\n" * 900_000,
        b"x" * 10_000_000,
    ],
)
def test_ten_megabyte_plain_body_is_read_within_the_cap(body: bytes) -> None:
    # Speed is measured in bench/, not asserted here: the cap is what keeps it bounded.
    result = extract(raw("Content-Type: text/plain", body))
    assert result.truncated
    assert len(result.lines) == (60 if body.startswith(b"VOTE") else 0)


def test_ten_megabyte_html_body_is_read_within_the_cap() -> None:
    result = extract(raw("Content-Type: text/html", b"<p>&gt; a</p>" * 800_000))
    assert result.lines == ()
    assert result.truncated


def test_size_limit_keeps_whole_lines_and_markers_win() -> None:
    body = b"VOTE bob\r\n" + b"x" * 1_100_000 + b"\r\nVOTE carol\r\n"
    result = extract(raw("Content-Type: text/plain", body))
    assert result.lines == ("VOTE bob",)
    assert result.truncated
    signed = extract(raw("Content-Type: text/plain", b"VOTE bob\r\n-- \r\n" + b"x" * 1_100_000))
    assert signed.lines == ("VOTE bob",)
    assert not signed.truncated


def test_public_functions_wrap_bad_input_in_mail_error() -> None:
    not_a_message = object()
    with pytest.raises(MailError):
        parse_bytes("not bytes")  # type: ignore[arg-type]
    with pytest.raises(MailError):
        extract(not_a_message)  # type: ignore[arg-type]
    with pytest.raises(MailError):
        subject_tag(not_a_message)  # type: ignore[arg-type]
    with pytest.raises(MailError):
        automatic_reason(not_a_message, our_addresses=OURS)  # type: ignore[arg-type]


# --- properties -----------------------------------------------------------------------------

INVISIBLE = {chr(c) for c in [*range(0x20), 0x7F, 0x200B, 0x200E, 0x200F, 0x202E, 0xFEFF]} - {"\t"}


def check(result: MailText, max_lines: int = 60) -> None:
    """Invariants of every extraction, whatever the input."""
    assert len(result.lines) <= max_lines
    for line in [*result.lines, result.subject]:
        assert line == line.strip()
        assert not INVISIBLE & set(line)
    for line in result.lines:
        assert line
        assert not line.startswith(">")
    if not result.html_only:
        assert all(any(b in line for line in result.lines) for b in result.bold)


def only_mail_errors(msg: Message) -> None:
    """Run every public reader on ``msg``: each returns or raises MailError, nothing else."""
    with contextlib.suppress(MailError):
        check(extract(msg))
    with contextlib.suppress(MailError):
        subject_tag(msg)
    with contextlib.suppress(MailError):
        automatic_reason(msg, our_addresses=OURS)


@settings(max_examples=examples(100, soak=300), deadline=None)
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_give_text_or_mail_error(data: bytes) -> None:
    try:
        msg = parse_bytes(data)
    except MailError:
        return
    only_mail_errors(msg)


MIME_SKELETON = st.sampled_from(
    [
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n",
        b"Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n",
        b"Content-Type: text/html; charset=utf-8\r\n\r\n",
        b"Content-Type: message/rfc822\r\n\r\n",
        b"Content-Transfer-Encoding: base64\r\n\r\n",
        b"Subject: =?utf-8?b?",
        b"",
    ]
)


@settings(max_examples=examples(100, soak=300), deadline=None)
@given(MIME_SKELETON, st.binary(max_size=2000))
def test_mime_looking_bytes_give_text_or_mail_error(head: bytes, data: bytes) -> None:
    try:
        msg = parse_bytes(head + data)
    except MailError:
        return
    only_mail_errors(msg)


CHARSETS = [
    "utf-8",
    "us-ascii",
    "iso-8859-1",
    "windows-1252",
    "shift_jis",
    "utf-7",
    "utf-16",
    "koi8-r",
    "x-klingon",
    "rot13",
    "unicode_escape",
    "undefined",
    "",
]
ENCODINGS = ["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "bogus"]
HEADER_NAMES = [
    "Subject",
    "From",
    "Return-Path",
    "X-Loop",
    "Auto-Submitted",
    "Precedence",
    "Message-ID",
    "Content-Disposition",
]


def encode_body(text: str, charset: str, cte: str) -> bytes:
    try:
        data = text.encode(charset or "ascii")
    except (LookupError, UnicodeError):
        data = text.encode("utf-8", "surrogatepass")
    if cte == "base64":
        return base64.encodebytes(data)
    if cte == "quoted-printable":
        return quopri.encodestring(data)
    return data


@settings(max_examples=examples(100, soak=300), deadline=None)
@given(
    text=st.text(max_size=1000),
    charset=st.sampled_from(CHARSETS),
    cte=st.sampled_from(ENCODINGS),
    subtype=st.sampled_from(["plain", "html"]),
    headers=st.lists(st.tuples(st.sampled_from(HEADER_NAMES), st.text(max_size=80)), max_size=6),
)
def test_arbitrary_text_in_a_message_gives_text_or_mail_error(
    text: str, charset: str, cte: str, subtype: str, headers: list[tuple[str, str]]
) -> None:
    head = b"".join(
        name.encode() + b": " + value.encode("utf-8", "surrogatepass") + b"\r\n"
        for name, value in headers
    )
    head += f"Content-Type: text/{subtype}; charset={charset}\r\n".encode()
    head += f"Content-Transfer-Encoding: {cte}\r\n\r\n".encode()
    try:
        msg = parse_bytes(head + encode_body(text, charset, cte))
    except MailError:
        return
    only_mail_errors(msg)


@settings(max_examples=examples(100, soak=300), deadline=None)
@given(
    body=st.lists(st.text(alphabet="ABCD01 \t", max_size=30), max_size=80),
    charset=st.sampled_from(["utf-8", "iso-8859-1", "utf-16", "shift_jis", "utf-7", "x-klingon"]),
    cte=st.sampled_from(["8bit", "base64", "quoted-printable"]),
)
def test_plain_command_text_round_trips(body: list[str], charset: str, cte: str) -> None:
    text = "\r\n".join(body)
    encoding = charset if charset != "x-klingon" else "utf-8"
    msg = raw(
        f"Content-Type: text/plain; charset={charset}\nContent-Transfer-Encoding: {cte}",
        encode_body(text, encoding, cte),
    )
    result = extract(msg)
    expected = [" ".join(line.split()) for line in body if line.strip()]
    assert result.lines == tuple(expected[:60])
    assert result.truncated == (len(expected) > 60)
    assert result.bold == ()
    assert not result.html_only


# --- ParseOncePolicy: the default policy's results, each header parsed once ----------------

_ONCE_SAMPLES = [
    b'From: =?utf-8?q?Ma=C3=AFa?= <maia@example.test>\r\nTo: a@x, "B, b" <b@y>\r\n'
    b"Subject: =?utf-8?b?w4lsb8Ovc2U=?= [g1]\r\nMessage-ID: <1@x>\r\n"
    b'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'
    + "VOTE \u00c9lo\u00efse\r\n".encode(),
    b"From: alice@example.test\r\nSubject: bare \xe9t\xe9\r\nMIME-Version: 1.0\r\n"
    b"Content-Type: multipart/alternative; boundary=zz\r\n\r\n--zz\r\n"
    b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable"
    b"\r\n\r\nCMD =E9t=E9\r\n--zz\r\nContent-Type: text/html\r\n\r\n<b>CMD</b>\r\n--zz--\r\n",
    b"From: <>\r\nTo: undisclosed-recipients:;\r\nContent-Type: text/plain; charset=\r\n"
    b"Date: not a date\r\nMessage-ID: broken <\r\n\r\nx\r\n",
]


def _reads(msg: EmailMessage) -> list[object]:
    out: list[object] = []
    for part in msg.walk():
        for name in ("From", "To", "Subject", "Message-ID", "Date", "Content-Type", "Nope"):
            value = part.get(name)
            defects = [repr(d) for d in getattr(value, "defects", ())]
            out.append((name, value, type(value).__name__, defects))
            out.append(part.get_all(name))
        out.append((part.get_content_type(), part.get_content_charset(), part.get_params()))
        out.append((part.get_content_disposition(), part.get_filename(), part.is_attachment()))
        out.append([repr(d) for d in part.defects])
    body = msg.get_body(("plain", "html"))
    if body is not None:
        with contextlib.suppress(LookupError, ValueError, AssertionError):
            out.append(body.get_content())
    with contextlib.suppress(MailError):
        out.append(extract(msg))
    out.append(automatic_reason(msg, our_addresses=OURS))
    return out


@pytest.mark.parametrize("data", _ONCE_SAMPLES)
def test_parse_once_policy_reads_like_the_default_policy(data: bytes) -> None:
    import email
    import email.policy

    once = parse_bytes(data)
    assert isinstance(once.policy, ParseOncePolicy)
    default = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(default, EmailMessage)
    assert _reads(once) == _reads(default)
    assert _reads(once) == _reads(default)  # and again, from the memo
    assert once.as_bytes() == default.as_bytes()


def test_parse_once_policy_memo_is_per_message_and_follows_changes() -> None:
    import copy

    a, b = parse_bytes(_ONCE_SAMPLES[0]), parse_bytes(_ONCE_SAMPLES[0])
    assert a.policy is not b.policy
    assert a["From"] is a["From"]  # parsed once
    assert type(a["From"]) is type(b["From"])  # one header class per kind, not one per parse
    assert a["From"] is not b["From"]
    assert str(a["From"]) == str(b["From"])
    assert a.policy.clone(max_line_length=60) is not a.policy
    c = copy.deepcopy(a)
    c.replace_header("Subject", "other")
    c.set_content("CMD x\n")
    assert str(c["Subject"]) == "other" and c.get_content() == "CMD x\n"
    assert str(a["Subject"]) == "\u00c9lo\u00efse [g1]" and "VOTE" in a.get_content()


def test_parse_once_policy_shares_short_parsed_headers_across_messages() -> None:
    import email
    import email.policy

    from pbem.mail import parse_once

    shared = parse_once._REGISTRY._parsed
    for data in _ONCE_SAMPLES:
        parse_bytes(data).as_bytes()
    for data in _ONCE_SAMPLES:  # parsed before: now read from the parses shared across mails
        hits = shared.cache_info().hits
        once = parse_bytes(data)
        default = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(default, EmailMessage)
        assert _reads(once) == _reads(default)
        assert once.as_bytes() == default.as_bytes()
        assert shared.cache_info().hits > hits
    a, b = parse_bytes(_ONCE_SAMPLES[1]), parse_bytes(_ONCE_SAMPLES[1])
    part_a, part_b = a.get_payload()[0], b.get_payload()[0]
    assert part_a["Content-Type"] == part_b["Content-Type"]
    assert part_a["Content-Type"] is not part_b["Content-Type"]  # each message its own object
    assert shared.cache_info().maxsize == parse_once.SHARED_HEADERS
    # a long value is parsed, never kept
    long = "x" * parse_once.SHARED_VALUE_CHARS + "y"
    size = shared.cache_info().currsize
    msg = parse_bytes(f"Subject: {long}\r\nFrom: {long}@x\r\n\r\nbody\r\n".encode())
    assert str(msg["Subject"]) == long and msg["From"].addresses[0].domain == "x"
    assert shared.cache_info().currsize == size


# --- signatures without the "-- " line (issue 10, item 14) ----------------------------------


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ("VOTE bob\n\nEnvoyé de mon iPhone", ("VOTE bob",)),
        ("VOTE bob\nEnvoyé depuis mon smartphone Samsung Galaxy.", ("VOTE bob",)),
        ("VOTE bob\n\nSent from my iPad", ("VOTE bob",)),
        ("VOTE bob\n\nSent from Mail for Windows", ("VOTE bob",)),
        ("VOTE bob\n\nObtenir Outlook pour iOS", ("VOTE bob",)),
        ("VOTE bob\n\nBien cordialement,\nJean", ("VOTE bob",)),
        ("VOTE bob\nAmitiés\nJean", ("VOTE bob",)),
        ("VOTE bob\n\nJean Dupont\n06 12 34 56 78\nSCAN carol", ("VOTE bob",)),
        ("VOTE bob\n\nJean Dupont\nPortable : 06.12.34.56.78", ("VOTE bob",)),
        ("VOTE bob\nJean Dupont\n+33 (0)6 12 34 56 78", ("VOTE bob",)),
        # the signature block is the paragraph's short lines, never the paragraph before it
        ("VOTE bob\nce soir\n\nJean\n0612345678", ("VOTE bob", "ce soir")),
        # a line ending a sentence is text, not a signature line
        ("VOTE bob, il ment.\nJean\n0612345678", ("VOTE bob, il ment.",)),
    ],
)
def test_text_ends_at_phone_and_app_signatures(body: str, lines: tuple[str, ...]) -> None:
    assert extract(plain(body)).lines == lines


@pytest.mark.parametrize(
    "body",
    [
        "VOTE bob\nEnvoyé de mon château, à minuit",  # no device named: a sentence
        "VOTE bob\nle 12 34 56",  # too few digits for a phone number
        "VOTE p12\nSCAN p3",
        "VOTE bob\nRendez-vous 2026-01-07 à 12h",
    ],
)
def test_ordinary_lines_are_not_signatures(body: str) -> None:
    assert extract(plain(body)).lines == tuple(body.splitlines())
