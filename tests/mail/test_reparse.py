"""A single-part mail's full parse taken from its headers-only parse (issue 23:
:func:`pbem.mail.parse_once.reparse`) is the parser's own, attribute for attribute, for every
mail of the suite's corpora and odd ones (8-bit, a Unix From line, a continuation first, no
separator, bare CR or LF line ends, odd content types); a multipart or ``message/*`` mail is
left to the parser."""

from __future__ import annotations

from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from pbem.daemon.intake.inbound import headers_of
from pbem.daemon.message import parse
from pbem.mail.inbound import extract
from pbem.mail.parse_once import parse_bytes, reparse

HEAD = "From: alice@example.org\r\nTo: gm@example.org\r\nSubject: x\r\n"

ODD = {
    "plain": HEAD + "\r\nVOTE bob\r\n",
    "lf": HEAD.replace("\r\n", "\n") + "\nVOTE bob\n",
    "cr": HEAD.replace("\r\n", "\r") + "\rVOTE bob\r",
    "no-body": HEAD,
    "empty-body": HEAD + "\r\n",
    "no-separator": HEAD + "VOTE bob\r\n",
    "unix-from": "From alice@example.org Mon Dec  7 08:00:00 2026\r\n" + HEAD + "\r\nx\r\n",
    "unix-from-late": HEAD + "From alice Mon\r\n\r\nx\r\n",
    "continuation-first": " folded\r\n" + HEAD + "\r\nx\r\n",
    "no-name": HEAD + ": nameless\r\n\r\nx\r\n",
    "8bit": HEAD + "Content-Type: text/plain; charset=utf-8\r\n\r\nVOTE Zoé\r\n",
    "8bit-header": "From: Zoé <zoe@example.org>\r\nSubject: é\r\n\r\nx\r\n",
    "latin1": (HEAD + "Content-Type: text/plain; charset=latin-1\r\n\r\nVOTE Zo\udce9\r\n"),
    "base64": HEAD + "Content-Transfer-Encoding: base64\r\n\r\nVk9URSBib2I=\r\n",
    "html": HEAD + "Content-Type: text/html\r\n\r\n<b>VOTE bob</b>\r\n",
    "commented-type": HEAD + "Content-Type: text/plain (multipart/mixed); charset=x\r\n\r\nx\r\n",
    "odd-type": HEAD + "Content-Type: multipart\r\n\r\nx\r\n",
    "garbage-type": HEAD + "Content-Type: ;;;\r\n\r\nx\r\n",
    "two-types": HEAD + "Content-Type: text/plain\r\nContent-Type: multipart/mixed\r\n\r\nx\r\n",
    "folded-type": HEAD + "Content-Type: multipart/\r\n mixed; boundary=b\r\n\r\n--b\r\n\r\nx\r\n",
    "upper-type": HEAD
    + "Content-Type: MULTIPART/Mixed; boundary=b\r\n\r\n--b\r\n\r\nx\r\n--b--\r\n",
    "message": HEAD + "Content-Type: message/rfc822\r\n\r\nFrom: bob@x\r\n\r\nhi\r\n",
    "dsn": HEAD + "Content-Type: message/delivery-status\r\n\r\nAction: failed\r\n",
    "multipart": (
        HEAD + 'Content-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\n'
        "Content-Type: text/plain\r\n\r\nVOTE bob\r\n--b--\r\n"
    ),
    "no-boundary": HEAD + "Content-Type: multipart/mixed\r\n\r\n--x\r\n\r\nx\r\n--x--\r\n",
    "nul": HEAD + "\r\nVOTE b\x00b\r\n",
    "long-line": HEAD + "\r\n" + "x" * 20000 + "\r\n",
}


def _corpus() -> dict[str, bytes]:
    mails = {name: text.encode("utf-8", "surrogateescape") for name, text in ODD.items()}
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.eml")):
        mails[str(path.relative_to(root))] = path.read_bytes()
    from tests.daemon.test_hostile import corpus

    for name, raw in corpus("alice@example.test").items():
        if name != "nested":  # a MIME bomb: multipart, the parser's anyway
            mails[f"hostile:{name}"] = raw
    return mails


CORPUS = _corpus()


def _state(msg: Message) -> dict[str, Any]:
    """What a parse holds, its policy's memo aside."""
    out = {k: v for k, v in vars(msg).items() if k not in ("policy", "defects", "_payload")}
    out["policy"] = type(msg.policy)
    out["defects"] = [(type(d), str(d)) for d in msg.defects]
    payload = msg.__dict__["_payload"]
    out["_payload"] = [_state(p) for p in payload] if isinstance(payload, list) else payload
    out["type"] = type(msg)
    return out


@pytest.mark.parametrize(
    "name", sorted(CORPUS), ids=lambda n: n.encode("ascii", "replace").decode()
)
def test_reparse_is_the_parsers_reading(name: str) -> None:
    raw = CORPUS[name]
    head = headers_of(raw)
    again = reparse(head)
    parsed = parse_bytes(raw)
    if again is None:
        assert parsed.get_content_maintype() in ("multipart", "message")
        return
    assert _state(again) == _state(parsed)
    assert _state(parse(raw, head)) == _state(parsed)
    assert bytes(again) == bytes(parsed)
    assert extract(again) == extract(parsed)
    assert _state(again) == _state(parsed)  # reading them did the same to both (defects)


def test_single_parts_are_reparsed() -> None:
    """The shortcut is taken for the usual mail (else it would be tested for nothing)."""
    assert reparse(headers_of(CORPUS["plain"])) is not None
    assert reparse(headers_of(CORPUS["8bit"])) is not None
    assert reparse(headers_of(CORPUS["multipart"])) is None
    assert reparse(parse_bytes(CORPUS["plain"])) is None  # only a compat32 headers-only parse
