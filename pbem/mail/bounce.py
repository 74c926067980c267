"""Bounces: who failed, how hard, and the VERP token (RELIABILITY §2.4, §2.5).

Pure: no I/O, no clock. A bounce is hostile input like any other mail, so the public functions
raise nothing but :class:`~pbem.core.errors.MailError`. Nothing here reads commands: a bounce is
only ever counted (the service never parses nor answers one).

What is understood, in order:

1. RFC 3464 reports: ``message/delivery-status`` (or RFC 6533 ``message/global-delivery-status``)
   parts; per recipient ``Final-Recipient`` (else ``Original-Recipient``), ``Action``, ``Status``
   (else the enhanced code or reply code in ``Diagnostic-Code``). The deviant actions seen in the
   field count too: ``failure`` and OpenSMTPD's ``error`` mean failed.
2. When there is no report, Mailman's detectors (flufl.bounce: qmail, Postfix, Exim, Microsoft
   Exchange, GroupWise, Yahoo, AOL, SMTP32, Netscape, a report forwarded inside another mail, and
   some fifty "simple" phrasings) say WHO failed and whether permanently. pbem's own text
   readers add the status code and the server's words when they name the same address: Exim's
   "The following address(es) failed:" / "deferred:" block, Postfix's and qmail's ``<addr>:
   ... said: 550 5.1.1 ...`` paragraphs, Gmail's "wasn't delivered to <addr>", the
   ``X-Failed-Recipients`` header; else the paragraph of the text naming the address gives them.
3. When the detectors find no one, pbem's own readers above decide, and last, for a
   mailer-daemon text that names no address, the one ``To`` recipient of the quoted original.

Hard means a permanent failure: ``Action: failed`` with a 5.x.x status (or a 5xx reply code),
or a failure flufl.bounce calls permanent that no 4.x.x code contradicts. A 4.x.x status,
``Action: delayed``, an Exim "deferred" block, a Gmail "temporary problem" or a warning
flufl.bounce calls temporary is soft. Unknown severity in pbem's own readers counts as soft: a
bounce only ever adds to a count, so doubt must not.

VERP (RELIABILITY §2.4): mail to player P of game G is sent with the envelope sender
``<bounce-local><sep><token>@<bounce-domain>``, ``sep`` being ``-`` when the bounce local part
already holds a ``+`` (``moderator+bounce-<token>@``) and ``+`` otherwise
(``bounces+<token>@``). The token is a keyed hash of (game, address) (:func:`verp_token`):
the service, which knows the registered addresses, matches it back; a third party who does not
see the envelope cannot forge one for a given player.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from email.message import Message

from pbem.mail.address import getaddresses
from pbem.mail.automatic import bare_address
from pbem.mail.mime import as_mail_error, mime_parts, part_text, raw_headers

__all__ = [
    "Bounce",
    "Failure",
    "parse_bounce",
    "verp_address",
    "verp_token",
    "verp_token_of",
]

# flufl.bounce logs each detector it runs at INFO, and a detector's crash on hostile input with
# its traceback: a bounce is counted or logged by the service, in one line
logging.getLogger("flufl.bounce").setLevel(logging.CRITICAL)

# At most this many recipients are read from one bounce; more is not a real DSN.
_MAX_FAILURES = 50
# Only the start of a text bounce is read: the explanation is at the top.
_MAX_TEXT = 64 * 1024
# What Mailman's detectors are given at most (they are slower: see _trimmed).
_DETECTED_TEXT = 16 * 1024
_DETECTED_PARTS = 20
# A token: 16 characters of lowercase base32 (80 bits of HMAC-SHA256).
_TOKEN_LEN = 16
_TOKEN = re.compile(rf"[a-z2-7]{{{_TOKEN_LEN}}}\Z")

_ADDRESS = re.compile(r"[^\s<>()\[\]\\,;:\"@]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z0-9-]{1,63}")
_STATUS = re.compile(r"\b([245])\.(\d{1,3})\.(\d{1,3})\b")
_REPLY_CODE = re.compile(r"(?<![\d.#])([245])\d\d(?=[\s-])")


@dataclass(frozen=True)
class Failure:
    """One recipient a bounce reports as not delivered."""

    address: str
    """The failed recipient, lowercased (Final-Recipient, else Original-Recipient, else text);
    ``""`` when the bounce says a delivery failed but not to whom (a VERP token may tell)."""
    status: str
    """An RFC 3463 status like ``5.1.1``; a bare reply code (``550``) when only that was given;
    ``""`` when unknown."""
    action: str
    """``failed`` or ``delayed`` (RFC 3464 Action, or what the text form means)."""
    hard: bool
    """A permanent failure: failed with a 5.x.x status or 5xx code."""
    diagnostic: str = ""
    """The remote server's words, if any (at most 300 characters)."""


@dataclass(frozen=True)
class Bounce:
    """What a bounce says."""

    failures: tuple[Failure, ...]
    """The recipients it reports, at most one entry per address (the hardest one kept)."""
    standard: bool
    """True when an RFC 3464 delivery-status report was found."""
    token: str | None
    """The VERP token of the address the bounce was sent to, if any."""

    @property
    def hard(self) -> tuple[Failure, ...]:
        """The permanent failures among those reported."""
        return tuple(f for f in self.failures if f.hard)


def parse_bounce(msg: Message, *, bounce_address: str | None = None) -> Bounce:
    """Read the failed recipients of a bounce, and its VERP token when ``bounce_address`` is
    given. A mail that is no bounce gives no failures. Raises only :class:`MailError`."""
    with as_mail_error("unreadable bounce"):
        failures, standard = _from_reports(msg)
        if not standard:
            failures = _from_detectors(msg, _from_text(msg))
        token = verp_token_of(msg, bounce_address) if bounce_address else None
        return Bounce(_dedupe(failures), standard, token)


# --- VERP -----------------------------------------------------------------------------------


def verp_token(key: bytes, game: str, address: str) -> str:
    """The token for (game, recipient): 16 base32 characters of HMAC-SHA256 under ``key``."""
    mac = hmac.new(key, f"{game.lower()}\n{address.strip().lower()}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()[:10]).decode("ascii").lower()


def _verp_parts(bounce_address: str) -> tuple[str, str, str]:
    local, _, domain = bounce_address.strip().lower().rpartition("@")
    return local, "-" if "+" in local else "+", domain


def verp_address(bounce_address: str, token: str) -> str:
    """The envelope sender carrying ``token``: ``local+token@`` or ``local+x-token@``."""
    local, sep, domain = _verp_parts(bounce_address)
    return f"{local}{sep}{token}@{domain}"


# Headers an MTA writes the envelope recipient of the bounce into (the VERP address).
_RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To", "Cc")


def verp_token_of(msg: Message, bounce_address: str) -> str | None:
    """The VERP token of the first recipient header naming a VERP form of ``bounce_address``."""
    with as_mail_error("unreadable recipient headers"):
        local, sep, domain = _verp_parts(bounce_address)
        prefix = f"{local}{sep}"
        for name in _RECIPIENT_HEADERS:
            values = raw_headers(msg, name)
            for _, addr in getaddresses(values):
                a_local, _, a_domain = addr.strip().lower().rpartition("@")
                if a_domain != domain or not a_local.startswith(prefix):
                    continue
                token = a_local[len(prefix) :]
                if _TOKEN.match(token):
                    return token
        return None


# --- RFC 3464 -------------------------------------------------------------------------------

_REPORT_TYPES = ("message/delivery-status", "message/global-delivery-status")


_RECIPIENT_FIELDS = ("final-recipient", "original-recipient", "action")


def _from_reports(msg: Message) -> tuple[list[Failure], bool]:
    """The failures of the delivery-status reports, and whether one was found that reports on a
    recipient at all (a report without any is left to the detectors and the text)."""
    failures: list[Failure] = []
    found = False
    for part in mime_parts(msg):
        if part.get_content_type() not in _REPORT_TYPES:
            continue
        # per-recipient blocks; the per-message one (Reporting-MTA, Arrival-Date) has none of
        # these fields, and a report that lost the blank line after it still names a recipient
        blocks = [b for b in _status_blocks(part) if any(k in b for k in _RECIPIENT_FIELDS)]
        found = found or bool(blocks)
        for fields in blocks:
            failure = _report_failure(fields)
            if failure is not None:
                failures.append(failure)
            if len(failures) >= _MAX_FAILURES:
                return failures, True
    return failures, found


def _status_blocks(part: Message) -> list[dict[str, str]]:
    """The field blocks of a delivery-status part (lowercased names, first value wins)."""
    payload = part.get_payload()
    if isinstance(payload, list):  # the stdlib parsed each block as a headers-only Message
        blocks = []
        for sub in payload[: _MAX_FAILURES + 1]:
            if isinstance(sub, Message):
                fields: dict[str, str] = {}
                for k, v in sub.raw_items():
                    fields.setdefault(k.lower(), " ".join(str(v).split()))
                blocks.append(fields)
        return blocks
    text = part_text(part)[:_MAX_TEXT] if isinstance(payload, str) else ""
    return _text_blocks(text)


def _text_blocks(text: str) -> list[dict[str, str]]:
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    last = ""
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
            current, last = {}, ""
            continue
        if line[0] in " \t" and last:
            current[last] += " " + line.strip()
            continue
        name, colon, value = line.partition(":")
        if colon and name.strip() and " " not in name.strip():
            last = name.strip().lower()
            current.setdefault(last, value.strip())
    if current:
        blocks.append(current)
    return blocks[: _MAX_FAILURES + 1]


def _typed_address(value: str) -> str | None:
    """``rfc822; user@example.org`` (or ``<user@example.org>``) to ``user@example.org``."""
    kind, semi, rest = value.partition(";")
    if semi and kind.strip().lower() not in ("rfc822", "utf-8", "x-local"):
        return None
    return _clean_address(rest if semi else value)


def _clean_address(value: str) -> str | None:
    m = _ADDRESS.search(value.strip().strip("<>"))
    return m.group(0).lower() if m else None


def _report_failure(fields: dict[str, str]) -> Failure | None:
    address = _typed_address(fields.get("final-recipient", "")) or _typed_address(
        fields.get("original-recipient", "")
    )
    action = fields.get("action", "").split(" ")[0].lower()
    if action.startswith(("fail", "error")):
        action = "failed"  # "failure" seen in the field, "error" from OpenSMTPD
    if action not in ("failed", "delayed"):
        return None  # delivered, relayed, expanded: no problem
    diagnostic = fields.get("diagnostic-code", "")
    status = _status(fields.get("status", "")) or _status(diagnostic)
    hard = action == "failed" and status.startswith("5")
    # no usable recipient: address "" (only a VERP token can then say whose failure it is)
    return Failure(address or "", status, action, hard, diagnostic[:300])


def _status(text: str) -> str:
    m = _STATUS.search(text)
    if m:
        return ".".join(m.groups())
    code = _REPLY_CODE.search(" " + text + " ")
    return code.group(0) if code else ""


# --- Mailman's detectors (flufl.bounce) ------------------------------------------------------


def _detected(msg: Message) -> dict[str, bool]:
    """flufl.bounce's verdict: each failed address (lowercased) and whether it is permanent.

    A detector that cannot tell calls a failure permanent; one that crashes on hostile input
    gives nothing (flufl.bounce stops at the first detector that finds anyone)."""
    # imported on the first mail without a delivery report, not at the daemon's start: its
    # detectors compile their patterns on import (start-up cost)
    from flufl.bounce import all_failures

    try:
        temporary, permanent = all_failures(_trimmed(msg))
    except Exception:  # RecursionError on a nested MIME bomb included
        return {}
    found: dict[str, bool] = {}
    for raw, hard in [*((a, False) for a in temporary), *((a, True) for a in permanent)]:
        address = _clean_address(raw.decode("ascii", "replace"))
        if address is not None and len(found) < _MAX_FAILURES:
            found[address] = hard or found.get(address, False)
    return found


def _trimmed(msg: Message) -> Message:
    """``msg``, or a copy cut to its first _DETECTED_PARTS parts of each container and its first
    _DETECTED_TEXT characters of part text (then the rest emptied): the detectors run some fifty
    patterns over every line of every part, about 10 s for a megabyte of short lines, and a
    bounce explains itself at its top."""
    parts = list(msg.walk())
    text = sum(len(p.get_payload()) for p in parts if isinstance(p.get_payload(), str))
    if len(parts) <= _DETECTED_PARTS and text <= _DETECTED_TEXT:
        return msg
    clone = copy.deepcopy(msg)
    budget = _DETECTED_TEXT
    for part in clone.walk():
        payload = part.get_payload()
        if isinstance(payload, list):
            part.set_payload(payload[:_DETECTED_PARTS])
        elif isinstance(payload, str):
            kept = payload if len(payload) <= budget else payload[:budget].rpartition("\n")[0]
            part.set_payload(kept)
            budget -= len(kept)
    return clone


def _from_detectors(msg: Message, own: list[Failure]) -> list[Failure]:
    """The detectors' recipients, with the status and words pbem's readers (``own``) found for
    them; ``own`` alone when the detectors find no one."""
    found = _detected(msg)
    if not found:
        return own
    known = {f.address: f for f in own if f.address}
    text = _bounce_text(msg)
    out = []
    for address, permanent in found.items():
        failure = known.get(address)
        if failure is None:
            words = _mentioning(text, address)
            status = _status(words)
            hard = permanent and not status.startswith("4")
            failure = Failure(address, status, "failed" if hard else "delayed", hard, words[:300])
        out.append(failure)
    return out


def _mentioning(text: str, address: str) -> str:
    """The paragraph of ``text`` that names ``address`` (joined), or ""."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if address in line.lower():
            start = i
            while start > 0 and lines[start - 1].strip():
                start -= 1
            return _paragraph(lines, start)
    return ""


# --- text forms -----------------------------------------------------------------------------

_EXIM_FAILED = re.compile(
    r"following address(?:es|\(es\))? (?:had permanent fatal errors|failed)", re.I
)
_EXIM_DEFERRED = re.compile(
    r"following address(?:es|\(es\))? (?:deferred|have not yet been delivered)", re.I
)
_ANGLE_LINE = re.compile(r"^\s{0,4}<(?P<addr>[^<>\s]{3,320})>:\s*(?P<rest>.*)$")
_GMAIL_FAILED = re.compile(r"wasn't delivered to\s+(?P<addr>\S+)\s+because", re.I)
_GMAIL_TEMPORARY = re.compile(r"temporary problem delivering your message to\s+(?P<addr>\S+)", re.I)
_FAILED_PERMANENTLY = re.compile(r"recipients? failed permanently:?\s*$", re.I)
_PERMANENT_WORDS = re.compile(r"permanent|given up|user unknown|no such user|does not exist", re.I)
_TEMPORARY_WORDS = re.compile(r"temporar|will (?:retry|try again)|deferred|delayed|not yet", re.I)


def _from_text(msg: Message) -> list[Failure]:
    text = _bounce_text(msg)
    failures = _exim(text) or _angle(text) or _gmail(text)
    if failures:
        return failures
    failed_header = raw_headers(msg, "X-Failed-Recipients")
    if failed_header:
        status = _status(text)
        return [
            Failure(a.lower(), status, "failed", not status.startswith("4"), "")
            for _, a in getaddresses(failed_header)[:_MAX_FAILURES]
            if _clean_address(a)
        ]
    return _quoted_original(msg, text)


def _bounce_text(msg: Message) -> str:
    """The first non-attachment ``text/plain`` part of the bounce (not of the quoted mail)."""
    for part in mime_parts(msg):
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        if part.get_content_type() == "text/plain":
            return part_text(part)[:_MAX_TEXT]
    return ""


def _paragraph(lines: list[str], start: int) -> str:
    """From ``start``, the text up to the next blank line, joined."""
    chunk: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        chunk.append(line.strip())
    return " ".join(chunk)


def _severity(explanation: str, *, default_hard: bool) -> tuple[str, bool]:
    status = _status(explanation)
    if status:
        return status, status.startswith("5")
    if _TEMPORARY_WORDS.search(explanation):
        return "", False
    return "", default_hard


def _exim(text: str) -> list[Failure]:
    """Exim: a header sentence, then indented addresses, each with its indented explanation."""
    out: list[Failure] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        deferred = bool(_EXIM_DEFERRED.search(line))
        if not deferred and not _EXIM_FAILED.search(line):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        # each entry: an address line indented by 2, then lines indented further, then blank
        while j < len(lines) and len(out) < _MAX_FAILURES:
            line_j = lines[j]
            if not line_j.strip():
                j += 1
                if j < len(lines) and lines[j][:1] not in (" ", "\t"):
                    break
                continue
            address = _clean_address(line_j.split()[0]) if line_j[:1] in " \t" else None
            if address is None:
                break
            explanation: list[str] = []
            j += 1
            while j < len(lines) and lines[j].strip() and lines[j][:4].isspace():
                explanation.append(lines[j].strip())
                j += 1
            words = " ".join(explanation)
            status, hard = _severity(words, default_hard=not deferred)
            hard = hard and not deferred
            out.append(
                Failure(address, status, "delayed" if deferred else "failed", hard, words[:300])
            )
        if out:
            return out
    return out


def _angle(text: str) -> list[Failure]:
    """Postfix and qmail: ``<addr>: explanation`` paragraphs; severity from the codes in them."""
    out: list[Failure] = []
    lines = text.splitlines()
    delayed = bool(re.search(r"delayed mail|delivery status notification \(delay\)", text, re.I))
    for i, line in enumerate(lines):
        m = _ANGLE_LINE.match(line)
        if m is None:
            continue
        address = _clean_address(m.group("addr"))
        if address is None:
            continue
        words = _paragraph(lines, i)[len(m.group("addr")) + 3 :].strip()
        status, hard = _severity(words, default_hard=not delayed)
        if delayed:
            hard = False
        out.append(Failure(address, status, "delayed" if delayed else "failed", hard, words[:300]))
        if len(out) >= _MAX_FAILURES:
            break
    return out


def _gmail(text: str) -> list[Failure]:
    out: list[Failure] = []
    for m in _GMAIL_FAILED.finditer(text):
        address = _clean_address(m.group("addr"))
        if address:
            status, hard = _severity(text, default_hard=True)
            out.append(Failure(address, status, "failed", hard, ""))
    for m in _GMAIL_TEMPORARY.finditer(text):
        address = _clean_address(m.group("addr"))
        if address:
            out.append(Failure(address, _status(text), "delayed", False, ""))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _FAILED_PERMANENTLY.search(line):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            address = _clean_address(lines[j]) if j < len(lines) else None
            if address:
                status, _ = _severity(text, default_hard=True)
                out.append(Failure(address, status, "failed", not status.startswith("4"), ""))
    return out[:_MAX_FAILURES]


def _quoted_original(msg: Message, text: str) -> list[Failure]:
    """A mailer-daemon text naming no address: the single To of the quoted original headers.

    Only with an explicit failure statement (a 5xx/4xx code or permanent/temporary wording); the
    address is taken only when the quoted original had exactly one recipient.
    """
    status = _status(text)
    if not status and not (_PERMANENT_WORDS.search(text) or _TEMPORARY_WORDS.search(text)):
        return []
    recipients = _original_recipients(msg, text)
    hard = status.startswith("5") or (
        not status and bool(_PERMANENT_WORDS.search(text)) and not _TEMPORARY_WORDS.search(text)
    )
    # several or no recipients: address "" (only a VERP token can then say whose it is)
    address = recipients[0] if len(recipients) == 1 else ""
    return [Failure(address, status, "failed" if hard else "delayed", hard, "")]


_QUOTED_START = re.compile(
    r"original message|message follows|returned message|headers of the message|"
    r"undelivered message",
    re.I,
)
_QUOTED_TO = re.compile(r"^\s*>?\s*To:\s*(?P<value>.*)$", re.I)


def _original_recipients(msg: Message, text: str) -> list[str]:
    """The To addresses of the quoted original: an attached message or headers part, else the
    ``To:`` line after a "original message follows"-style marker in the text."""
    for part in mime_parts(msg):
        ctype = part.get_content_type()
        if ctype in ("message/rfc822", "message/global"):
            payload = part.get_payload()
            if isinstance(payload, list) and payload and isinstance(payload[0], Message):
                return _to_addresses(raw_headers(payload[0], "To"))
        elif ctype in ("text/rfc822-headers", "text/global-headers"):
            return _to_addresses(_field_values(part_text(part)[:_MAX_TEXT], "to"))
    after = _QUOTED_START.search(text)
    if after is None:
        return []
    for line in text[after.end() :].splitlines()[:60]:
        m = _QUOTED_TO.match(line)
        if m:
            return _to_addresses([m.group("value")])
    return []


def _field_values(text: str, name: str) -> list[str]:
    blocks = _text_blocks(text)
    return [blocks[0][name]] if blocks and name in blocks[0] else []


def _to_addresses(values: list[str]) -> list[str]:
    out = []
    for _, addr in getaddresses(values)[:_MAX_FAILURES]:
        clean = _clean_address(addr)
        if clean and clean not in out:
            out.append(clean)
    return out


def _dedupe(failures: list[Failure]) -> tuple[Failure, ...]:
    """One entry per address: a hard failure wins over a soft one, else the first is kept."""
    best: dict[str, Failure] = {}
    for f in failures:
        address = bare_address(f.address) or f.address
        old = best.get(address)
        if old is None or (f.hard and not old.hard):
            best[address] = f
    return tuple(best.values())
