"""pbem.mail.envelope.build writes outgoing mail directly; these tests hold it to the bytes the
former MIMEText + compat32 generator rendering gave, and check that what it writes parses back
to the same subject, body and headers (non-ASCII included)."""

from __future__ import annotations

import email
import email.policy
import email.quoprimime
import email.utils
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from email.charset import QP, Charset
from email.message import EmailMessage
from email.mime.text import MIMEText
from email.policy import compat32

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail import envelope
from pbem.mail.envelope import (
    TEST_ID_KEY,
    _clean,
    _field,
    _header,
    build,
    message_id,
    thread_root,
)
from tests.support.examples import examples

_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP
_WIRE = compat32.clone(linesep="\r\n", max_line_length=78)


def reference_build(
    *,
    key: str,
    sender: str,
    to: tuple[str, ...],
    subject: str,
    body: str,
    date: datetime,
    auto: str = "auto-generated",
    public: bool = False,
    in_reply_to: str | None = None,
    thread: str | None = None,
) -> tuple[str, bytes]:
    """The former rendering (a MIMEText flattened with the compat32 wire policy)."""
    domain = envelope.domain_of(sender)
    mid = message_id(key, domain, TEST_ID_KEY, public=public)
    msg = MIMEText(body, "plain", _UTF8_QP)  # type: ignore[arg-type]
    msg["From"] = sender
    msg["To"] = ", ".join(_clean(t) for t in to)
    msg["Subject"] = _header(_clean(subject))
    msg["Date"] = email.utils.format_datetime(date)
    msg["Message-ID"] = mid
    refs: list[str] = []
    if thread and public:
        refs.append(thread_root(thread, domain, TEST_ID_KEY))
    if in_reply_to:
        refs.append(_clean(in_reply_to))
    if refs:
        msg["In-Reply-To"] = refs[-1]
        msg["References"] = " ".join(refs)
    msg["Auto-Submitted"] = auto if auto in ("auto-replied", "auto-generated") else "auto-generated"
    msg["X-Loop"] = sender
    msg["X-Auto-Response-Suppress"] = "OOF, AutoReply"
    if public:
        msg["Precedence"] = "bulk"
    return mid, msg.as_bytes(policy=_WIRE)


DATE = datetime(2026, 11, 29, 20, 5, 7, tzinfo=UTC)

CASES = [
    {"subject": "Re: orders", "body": "accepted: w1\n", "in_reply_to": "<1@example.test>"},
    {"subject": "", "body": ""},
    {"subject": "Re: Élimination de Zoé — « vote »", "body": "Voté : Éloïse ✓\nFIN\n"},
    {"subject": "x" * 200, "body": "y" * 200 + "\n= trailing   \n\tTab\r\nCR\rend"},
    {"subject": "a  b\tc\r\nInjected: yes", "body": "From here on\n.\n..\n", "public": True},
    {"subject": "日本語の件名" * 10, "body": "日本語\n" * 50, "thread": "g1:3", "public": True},
    {"subject": "=?utf-8?q?not_really?=", "body": "=41\n", "auto": "bogus"},
    {"subject": "[g1] phase 2 result", "body": "ok", "thread": "g1:2", "public": True},
]


@pytest.mark.parametrize("case", CASES)
def test_build_gives_the_reference_bytes(case: dict[str, object]) -> None:
    many = tuple(f"player{i}@example.test" for i in range(12))
    for to in (("alice@example.test",), many, ("Zoé <zoe@example.test>",)):
        for sender in ("moderator@example.test", "Le Modérateur <m@example.test>"):
            kw = {"key": "k1", "sender": sender, "to": to, "date": DATE, **case}
            assert build(**kw, id_key=TEST_ID_KEY) == reference_build(**kw)  # type: ignore[arg-type]


@settings(max_examples=examples(100, soak=400), deadline=None)
@given(
    subject=st.text(max_size=120),
    body=st.text(max_size=400),
    to=st.lists(st.emails(), min_size=1, max_size=5),
    in_reply_to=st.one_of(st.none(), st.text(max_size=100)),
    public=st.booleans(),
    offset=st.integers(min_value=-12 * 60, max_value=14 * 60),
)
@pytest.mark.slow(15)
def test_build_matches_the_reference_on_any_text(
    subject: str, body: str, to: list[str], in_reply_to: str | None, public: bool, offset: int
) -> None:
    date = DATE.astimezone(timezone(timedelta(minutes=offset)))
    kw = {
        "key": subject,
        "sender": "moderator@example.test",
        "to": tuple(to),
        "subject": subject,
        "body": body,
        "date": date,
        "public": public,
        "in_reply_to": in_reply_to,
        "thread": "g1:1",
        "auto": "auto-replied",
    }
    assert build(**kw, id_key=TEST_ID_KEY) == reference_build(**kw)  # type: ignore[arg-type]


@settings(max_examples=500, deadline=None)
@given(
    name=st.sampled_from(["To", "Subject", "In-Reply-To", "X-Auto-Response-Suppress"]),
    value=st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=90),
)
def test_field_is_the_policys_folding(name: str, value: str) -> None:
    def outcome(fold: Callable[[str, str], bytes]) -> object:
        try:
            return fold(name, value)
        except Exception as exc:  # the folder refuses some control characters: so must we
            return type(exc)

    assert outcome(_field) == outcome(_WIRE.fold_binary)


# words as a References holds them (Message-IDs), of every length around the line's limit
_WORDS = st.lists(
    st.one_of(
        st.text(alphabet="<>@.x", min_size=1, max_size=12),
        st.integers(1, 90).map(lambda n: "<" + "m" * n + "@example.test>"[-n:]),
        st.sampled_from([";", ",", "a;", "b,", "=?utf-8?q?x?="]),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=examples(400, soak=2000), deadline=None)
@given(
    name=st.sampled_from(["References", "In-Reply-To", "To", "X"]),
    words=_WORDS,
    lead=st.integers(0, 70),
)
def test_a_long_plain_field_folds_as_the_policy_folds_it(
    name: str, words: list[str], lead: int
) -> None:
    """Issue 23: _field folds a long value of plain words itself (a References of two ids);
    the same bytes as the policy's folder, a word at every column of the limit."""
    value = " ".join(["w" * lead, *words] if lead else words)
    assert _field(name, value) == _WIRE.fold_binary(name, value)


@settings(max_examples=examples(300, soak=1000), deadline=None)
@given(
    date=st.datetimes(
        min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.timezones()
    )
    | st.datetimes()
    | st.datetimes(timezones=st.just(UTC)),
    offset=st.integers(-24 * 3600 + 1, 24 * 3600 - 1),
)
def test_the_date_header_is_the_stdlibs(date: datetime, offset: int) -> None:
    """Issue 23: build writes the Date without email.utils.format_datetime; the same text in
    any zone (UTC, named zones, offsets with seconds) and for a naive time."""
    assert envelope._date(date) == email.utils.format_datetime(date)
    fixed = date.replace(tzinfo=timezone(timedelta(seconds=offset)))
    assert envelope._date(fixed) == email.utils.format_datetime(fixed)


def stdlib_qp(body: str) -> bytes:
    """The body as MIMEText's quoted-printable and the compat32 wire generator write it."""
    if not body:
        return b""
    encoded = email.quoprimime.body_encode(body.encode("utf-8").decode("latin-1"))
    return "\r\n".join(re.split(r"\r\n|\r|\n", encoded)).encode("ascii")


# the characters quoted-printable treats apart: its escape, blanks at a line's end, every line
# end splitlines knows (only three of them end a QP line), the safe range's edges, non-ASCII
_QP_ALPHABET = st.sampled_from(
    [*"=\t \r\n\x0b\x0c\x1c\x85\u2028!~<>\x7f\x00aé✓日", "\r\n", "x" * 70]
)


@settings(max_examples=examples(400, soak=2000), deadline=None)
@given(pieces=st.lists(_QP_ALPHABET, max_size=60), lead=st.integers(0, 160))
def test_qp_body_is_the_stdlib_quoted_printable(pieces: list[str], lead: int) -> None:
    """Issue 23: _qp_body writes quoted-printable with bytes methods; the same bytes as the
    stdlib's encoder, at every column an escape or a blank may fall on a soft break."""
    body = "y" * lead + "".join(pieces)
    assert envelope._qp_body(body) == stdlib_qp(body)


@pytest.mark.parametrize("width", range(70, 82))
@pytest.mark.parametrize("tail", [" ", "\t", "=", "é", " \n", "= ", "é\t"])
def test_qp_body_wraps_like_the_stdlib_at_the_line_limit(width: int, tail: str) -> None:
    for fill in ("x", "=", "é"):
        body = fill * (width // len(fill.encode())) + tail
        assert envelope._qp_body(body) == stdlib_qp(body)
        assert envelope._qp_body(body + "\n" + body) == stdlib_qp(body + "\n" + body)


@settings(max_examples=300, deadline=None)
@given(stem=st.text(alphabet="0123456789abcdef", min_size=envelope._STEM, max_size=envelope._STEM))
def test_an_html_mails_leading_headers_are_the_policys_folding(stem: str) -> None:
    """The multipart/alternative Content-Type line (79 columns: folded) is written from a
    folding done once (issue 23): the same bytes as the email library's folder gives for any
    boundary stem, and as build's header of a mail whose stem is that of its Message-ID."""
    value = f'multipart/alternative; boundary="=_pbem_{stem}"'
    expected = _WIRE.fold_binary("Content-Type", value) + b"MIME-Version: 1.0\r\n"
    assert envelope._alternative(b"", "<p>x</p>", stem)[0] == expected
    mid, raw = build(
        key=stem, sender="moderator@example.test", to=("a@example.test",), subject="s",
        body="b", date=DATE, html="<p>x</p>", id_key=TEST_ID_KEY,
    )  # fmt: skip
    own = f'multipart/alternative; boundary="=_pbem_{mid[1 : 1 + envelope._STEM]}"'
    assert raw.startswith(_WIRE.fold_binary("Content-Type", own) + b"MIME-Version: 1.0\r\n")


@pytest.mark.parametrize("case", CASES)
def test_build_parses_back_to_the_same_message(case: dict[str, object]) -> None:
    to = ("alice@example.test", "Zoe <zoe@example.test>")
    kw = {"key": "k1", "sender": "moderator@example.test", "to": to, "date": DATE, **case}
    mid, raw = build(**kw, id_key=TEST_ID_KEY)  # type: ignore[arg-type]
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF only
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    # (a word too long to fold goes on a continuation line: one leading space comes back; an
    # ASCII subject that looks like an RFC 2047 word is decoded by the reader, as before)
    if "=?" not in str(case["subject"]):
        assert str(msg["Subject"]).strip() == _clean(str(case["subject"]))
    lines = str(case["body"]).replace("\r\n", "\n").replace("\r", "\n")
    assert msg.get_content().replace("\r\n", "\n") == lines
    assert msg["Message-ID"] == mid
    assert str(msg["From"]) == "moderator@example.test"
    assert [a.addr_spec for a in msg["To"].addresses] == ["alice@example.test", "zoe@example.test"]
    assert msg["Date"].datetime == DATE
    assert msg["X-Loop"] == "moderator@example.test"
    assert msg["X-Auto-Response-Suppress"] == "OOF, AutoReply"
    assert msg["Auto-Submitted"] == (
        case["auto"] if case.get("auto") in ("auto-replied",) else "auto-generated"
    )
    assert (msg["Precedence"] == "bulk") == bool(case.get("public"))
    refs = []
    if case.get("thread") and case.get("public"):
        refs.append(thread_root(str(case["thread"]), "example.test", TEST_ID_KEY))
    if case.get("in_reply_to"):
        refs.append(str(case["in_reply_to"]))
    assert msg["In-Reply-To"] == (refs[-1] if refs else None)
    assert msg["References"] == (" ".join(refs) if refs else None)
    assert msg.get_content_type() == "text/plain" and msg.get_content_charset() == "utf-8"


# --- issue 10, item 20: no header line over 998 bytes ---------------------------------------

LONG_SUBJECTS = {
    "one-word": "x" * 5000,
    "words": "ab " * 1700,
    "accented-word": "é" * 5000,
    "accent-then-word": "é" + "x" * 5000,
}


def longest_header_line(raw: bytes) -> int:
    head = raw.split(b"\r\n\r\n", 1)[0]
    return max(len(line) for line in head.split(b"\r\n"))


@pytest.mark.parametrize("shape", sorted(LONG_SUBJECTS))
def test_5000_character_subject_never_makes_a_header_line_over_998_bytes(shape: str) -> None:
    from pbem.mail.envelope import digest
    from pbem.mail.relay import relay_copy

    subject = LONG_SUBJECTS[shape]
    date = datetime(2026, 1, 5, tzinfo=UTC)
    _mid, own = build(
        key="k",
        sender="mj@example.org",
        to=("a@example.org",),
        subject=subject,
        body="hi",
        date=date,
        in_reply_to="<" + "r" * 3000 + "@example.org>",
        id_key=TEST_ID_KEY,
    )
    _mid, merged = digest(
        [own, own],
        message_ids=["<1@x>", "<2@x>"],
        sender="mj@example.org",
        to="a@example.org",
        date=date,
        id_key=TEST_ID_KEY,
    )
    post = (
        b"From: alice@example.org\r\nSubject: " + subject.encode() + b"\r\n"
        b"References: <" + b"r" * 3000 + b"@example.org>\r\n\r\nhello\r\n"
    )
    _mid, relayed = relay_copy(
        post,
        key="k",
        poster="Alice",
        game_tag="g1",
        list_address="list@example.org",
        list_id="<list.example.org>",
        moderator="mj@example.org",
        date=date,
        id_key=TEST_ID_KEY,
    )
    for raw in (own, merged, relayed):
        assert longest_header_line(raw) <= 998


def test_a_digest_puts_private_news_before_the_receipt_and_the_signature_last() -> None:
    """Issue 15: a seer's result merged with a receipt (« Vos commandes (×2) ») came after the
    receipt's ``-- `` marker, where mail clients grey it out or cut it when quoting."""
    from pbem.mail.envelope import digest

    now = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)
    _mid, receipt = build(
        key="reply",
        sender="mj@example.org",
        to=("alice@example.org",),
        subject="[village1] Vos commandes",
        body="Acceptées :\n  ✓ SONDER bob\n\n-- \npbem, maître du jeu.\n",
        date=now,
        auto="auto-replied",
        in_reply_to="<cmd@example.org>",
        id_key=TEST_ID_KEY,
    )
    _mid, result = build(
        key="notice",
        sender="mj@example.org",
        to=("alice@example.org",),
        subject="[village1] Votre sondage",
        body="bob est un Loup-garou.\n",
        date=now,
        id_key=TEST_ID_KEY,
    )
    _mid, raw = digest(
        [receipt, result],
        message_ids=["<a@x>", "<b@x>"],
        sender="mj@example.org",
        to="alice@example.org",
        date=now,
        id_key=TEST_ID_KEY,
    )
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = str(msg.get_content()).replace("\r\n", "\n")
    news, receipt_at, signature = (
        body.index("bob est un Loup-garou."),
        body.index("✓ SONDER bob"),
        body.index("\n-- \n"),
    )
    assert news < receipt_at < signature
    assert body.count("\n-- \n") == 1
    assert "Votre sondage\n=============" in body and "Vos commandes\n=============" in body
    assert str(msg["Subject"]) == "[village1] Votre sondage (×2)"
