"""A list post without its secret codes, for the copy a relaying daemon distributes. Pure.

With ``[auth] methods`` holding ``secret``, a relayed post reaches pbem with its poster's
``SECRET <code>`` line (requirement 6), and no copy pbem sends may carry it (issue 10 item 10).
Removing the line from the text part is not enough: Gmail, Apple Mail, Outlook and Thunderbird
all add an HTML alternative showing the same line, a player may put it in the Subject, and an
attachment or a forwarded mail can hold it too. So:

- the codes are first *found* wherever the post shows them after the keyword (text lines, the
  HTML's visible text, the Subject);
- every line that is a code line is removed from the text parts, and every code found is
  removed wherever else it appears (text, HTML, Subject);
- an HTML part whose visible text still shows a code once cleaned (a code split by tags or
  written with entities) is dropped: the cleaned text alternative goes alone; an HTML-only
  post is turned into its cleaned text;
- any other part (an attachment, an attached mail) in which a code still appears is dropped.

A post with nothing to remove is returned byte for byte.
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Iterable
from email import message_from_bytes
from email.message import EmailMessage, Message
from email.policy import SMTP, default

__all__ = ["find_codes", "without_codes"]

# the line auth.py reads (``SECRET <code>`` or ``CODE <code>``, alone on its line)
_CODE_LINE = re.compile(r"^[ \t]*(?:SECRET|CODE)[ \t]*[:=]?[ \t]*(\S+)[ \t\r]*$", re.I | re.M)
# the same words anywhere in a line (a Subject, a sentence)
_CODE_WORDS = re.compile(r"\b(?:SECRET|CODE)\s*[:=]?\s*([^\s<>\"']+)", re.I)
_BLOCK = re.compile(r"<\s*(?:br|/?div|/?p|/?li|/?tr|/?h\d|/?blockquote|/?pre)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]*>")
_HIDDEN = re.compile(r"<(style|script|head)\b.*?</\1\s*>", re.I | re.S)
# what an HTML editor may put between the keyword and the code
_GAP = r"(?:\s|&nbsp;|&#160;|&#xa0;|<[^>]*>)*"
#: a found token shorter than this is not removed elsewhere than its own line ("CODE rouge");
#: pbem's codes are 32 hex digits
MIN_CODE = 6


def _html_text(markup: str) -> str:
    """The visible text of an HTML part, one line per block."""
    text = _BLOCK.sub("\n", _HIDDEN.sub(" ", markup))
    return html.unescape(_TAG.sub("", text)).replace("\xa0", " ")


def _content(part: Message) -> str | None:
    """A text part's content, or None when it cannot be decoded."""
    try:
        if isinstance(part, EmailMessage):
            return str(part.get_content())
    except (LookupError, ValueError, AssertionError):
        pass
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        try:
            return payload.decode(part.get_content_charset() or "utf-8", "replace")
        except LookupError:  # an unknown charset
            return payload.decode("utf-8", "replace")
    return None


def _leaves(msg: Message) -> Iterable[Message]:
    """The non-multipart parts, attached messages included as whole parts."""
    if msg.is_multipart() and msg.get_content_type() != "message/rfc822":
        for sub in msg.get_payload():
            if isinstance(sub, Message):
                yield from _leaves(sub)
    else:
        yield msg


def find_codes(msg: Message) -> set[str]:
    """The codes the post shows after ``SECRET``/``CODE`` (lower-cased): on a line of their
    own in a text part (auth.py's reading), anywhere in the HTML's visible text and in the
    Subject. A code line counts whatever its length; elsewhere only code-like tokens do."""
    found: set[str] = set()
    subject = str(msg.get("Subject", "") or "")
    found |= {c.lower() for c in _CODE_WORDS.findall(subject) if len(c) >= MIN_CODE}
    for part in msg.walk():  # what a multipart holds outside its parts is read too
        extra = f"{part.preamble or ''}\n{part.epilogue or ''}"
        found |= {c.lower() for c in _CODE_LINE.findall(extra)}
    for part in _leaves(msg):
        if part.get_content_maintype() != "text":
            continue
        text = _content(part)
        if text is None:
            continue
        if part.get_content_subtype() == "html":
            text = _html_text(text)
        found |= {c.lower() for c in _CODE_LINE.findall(text)}
        found |= {c.lower() for c in _CODE_WORDS.findall(text) if len(c) >= MIN_CODE}
    return found


def _literal(codes: Iterable[str]) -> re.Pattern[str] | None:
    words = sorted((re.escape(c) for c in codes if len(c) >= MIN_CODE), key=len, reverse=True)
    return re.compile("|".join(words), re.I) if words else None


def _shows(text: str, codes: Iterable[str]) -> bool:
    """Whether ``text`` still shows one of the codes (whitespace and case ignored)."""
    squeezed = re.sub(r"\s+", "", text).lower()
    return any(c in squeezed for c in codes if len(c) >= MIN_CODE)


def _clean_plain(text: str, literal: re.Pattern[str] | None) -> str:
    text = _CODE_LINE.sub("", text)
    if literal is not None:
        text = literal.sub("", text)
    return text


def _clean_html(markup: str, codes: Iterable[str], literal: re.Pattern[str] | None) -> str:
    for code in codes:
        # "SECRET</b> <b>abc…": the words go, the tags between them stay (the markup holds)
        pattern = re.compile(r"\b(?:SECRET|CODE)" + _GAP + r"[:=]?" + _GAP + re.escape(code), re.I)
        markup = pattern.sub(lambda m: "".join(_TAG.findall(m.group(0))), markup)
    if literal is not None:
        markup = literal.sub("", markup)
    return markup


def _set_text(part: Message, text: str, subtype: str) -> None:
    """Replace a part's content, in its own charset where it fits (an HTML part may name it in
    a ``<meta>``), else UTF-8; quoted-printable, so no 8-bit transport is needed."""
    assert isinstance(part, EmailMessage)
    charset = part.get_content_charset() or "utf-8"
    try:
        text.encode(charset)
    except (LookupError, UnicodeError):
        charset = "utf-8"
    top = "MIME-Version" in part
    for name in ("Content-Type", "Content-Transfer-Encoding"):
        del part[name]
    part.set_content(text, subtype=subtype, charset=charset, cte="quoted-printable")
    if not top:
        del part["MIME-Version"]  # set_content adds one; a body part has none


def _remove(msg: Message, leaf: Message) -> bool:
    """Take ``leaf`` out of the multipart that holds it; False if it is the top part."""
    for part in msg.walk():
        if part.is_multipart() and part.get_content_type() != "message/rfc822":
            payload = part.get_payload()
            if isinstance(payload, list) and any(p is leaf for p in payload):
                part.set_payload([p for p in payload if p is not leaf])
                return True
    return False


def _dump(part: Message) -> str:
    """Everything a part shows, decoded: an attached mail's headers and parts, a text, or an
    attachment's bytes (as latin-1: a code is ASCII)."""
    if part.get_content_type() == "message/rfc822":
        subs = [p for p in part.get_payload() if isinstance(p, Message)]
        return "\n".join(
            "\n".join(f"{k}: {v}" for k, v in sub.items())
            + "\n"
            + "\n".join(map(_dump, _leaves(sub)))
            for sub in subs
        )
    if part.get_content_maintype() == "text":
        text = _content(part) or ""
        return _html_text(text) + "\n" + text if part.get_content_subtype() == "html" else text
    payload = part.get_payload(decode=True)
    return payload.decode("latin-1") if isinstance(payload, bytes) else ""


def without_codes(raw: bytes, codes: Iterable[str] = ()) -> bytes:
    """``raw`` without any code line nor any code found in it (plus ``codes``, known from
    elsewhere); see the module's docstring. Byte for byte when there is nothing to remove."""
    msg = message_from_bytes(raw, policy=default)
    found = find_codes(msg) | {c.lower() for c in codes}
    # the bytes too, for a structure the parser could not split (a broken boundary)
    found |= {c.lower() for c in _CODE_LINE.findall(_unfolded(raw)) if len(c) >= MIN_CODE}
    has_lines = any(
        _CODE_LINE.search(_content(part) or "")
        for part in _leaves(msg)
        if part.get_content_maintype() == "text"
    )
    if not found and not has_lines:
        return raw
    try:
        out = _cleaned(msg, found)
    except (LookupError, ValueError, TypeError, UnicodeError, IndexError):
        out = None  # a structure the email package cannot rebuild
    if out is None or _still_shows(out, found):
        # the last guard (a code in a broken structure): the cleaned text alone goes out
        out = _text_only(msg, found)
    return out


def _unfolded(raw: bytes) -> str:
    """The bytes as text, quoted-printable soft line breaks removed."""
    return raw.decode("latin-1").replace("=\r\n", "").replace("=\n", "")


def _still_shows(raw: bytes, found: set[str]) -> bool:
    """Whether any code can still be read from ``raw``: in its bytes (quoted-printable soft
    breaks removed), its decoded headers or any decoded part."""
    seen = [_unfolded(raw)]
    msg = message_from_bytes(raw, policy=default)
    for part in msg.walk():
        seen.extend(f"{k}: {v}" for k, v in part.items())
        payload = part.get_payload(decode=True) if not part.is_multipart() else None
        if isinstance(payload, bytes):
            seen.append(payload.decode("latin-1"))
            seen.append(_content(part) or "")
    return _shows("\n".join(seen), found)


def _text_only(msg: Message, found: set[str]) -> bytes:
    """A plain-text post of the text parts (the HTML's visible text where there is no plain
    one), cleaned of every code, under the cleaned Subject; a text that still shows one is
    left out."""
    literal = _literal(found)
    plain = [p for p in _leaves(msg) if p.get_content_type() == "text/plain"]
    html_parts = [p for p in _leaves(msg) if p.get_content_type() == "text/html"]
    texts = [_content(p) or "" for p in plain] or [
        _html_text(_content(p) or "") for p in html_parts
    ]
    body = "\n".join(_clean_plain(t, literal) for t in texts)
    out = EmailMessage()
    subject = _CODE_WORDS.sub("", " ".join(str(msg.get("Subject", "") or "").split()))
    out["Subject"] = literal.sub("", subject) if literal is not None else subject
    out.set_content("" if _shows(body, found) else body, cte="quoted-printable")
    return out.as_bytes(policy=SMTP.clone(utf8=True))


def _cleaned(msg: Message, found: set[str]) -> bytes:
    """The post rebuilt part by part (see the module's docstring)."""
    clean = copy.deepcopy(msg)
    literal = _literal(found)
    for part in clean.walk():  # no reader needs them ("This is a multi-part message…")
        part.preamble = part.epilogue = None
    subject = str(clean.get("Subject", "") or "")
    if subject:
        new = _CODE_WORDS.sub("", subject)
        new = literal.sub("", new) if literal is not None else new
        if new != subject:
            del clean["Subject"]
            clean["Subject"] = " ".join(new.split())
    for leaf in list(_leaves(clean)):
        maintype, subtype = leaf.get_content_maintype(), leaf.get_content_subtype()
        text = _content(leaf) if maintype == "text" else None
        if text is not None and subtype == "html":
            cleaned = _clean_html(text, found, literal)
            if _shows(_html_text(cleaned), found) or _CODE_LINE.search(_html_text(cleaned)):
                if not _remove(clean, leaf):  # an HTML-only post: its cleaned text instead
                    _set_text(leaf, _clean_plain(_html_text(cleaned), literal), "plain")
            elif cleaned != text:
                _set_text(leaf, cleaned, "html")
        elif text is not None:
            cleaned = _clean_plain(text, literal)
            if _shows(cleaned, found):
                if not _remove(clean, leaf):
                    _set_text(leaf, "", "plain")
            elif cleaned != text:
                _set_text(leaf, cleaned, subtype)
        elif _shows(_dump(leaf), found) and not _remove(clean, leaf):
            _set_text(leaf, "", "plain")
    try:
        return clean.as_bytes(policy=SMTP)
    except UnicodeError:  # raw 8-bit headers the SMTP policy cannot write
        return clean.as_bytes(policy=SMTP.clone(utf8=True))
