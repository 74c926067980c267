"""pbem's own private mail inside a list post (issue 10 item 15). Pure.

A player who forwards his role mail (or any private mail of pbem: a night result, a receipt)
to a list that pbem relays would have it distributed to every player. Before relaying a post,
the daemon looks for such a mail in it, in every shape the common clients give it:

- attached as ``message/rfc822`` ("forward as attachment": Thunderbird, Outlook, Apple Mail's
  "Forward as Attachment"): the attached mail's Message-ID is one of pbem's private ones (the
  daemon's key tells, :func:`pbem.mail.envelope.id_kind`), or it comes from pbem's address and
  was not sent to the list;
- forwarded inline (Gmail "---------- Forwarded message ---------", Apple Mail "Début du
  message réexpédié :" / "Begin forwarded message:", Thunderbird "-------- Forwarded Message
  --------", Outlook's "De : … Envoyé : … À : …" block), in the text or the HTML part, quoted
  or not: a header block whose sender is pbem and whose recipients are not the list (pbem's
  public mail is addressed to the list; its private mail to a player);
- one of pbem's private Message-IDs written anywhere in the post (a pasted "show original");
- a reply to a private mail of pbem (its Message-ID in In-Reply-To or References) that quotes
  it (``>`` lines, a ``<blockquote>``).

A public result forwarded or quoted is not a leak: it is addressed to the list.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Iterator
from email.message import EmailMessage, Message

from pbem.mail.envelope import id_kind

__all__ = ["private_mail_in"]

# "From:" in the languages of the common clients (Gmail, Apple Mail, Outlook, Thunderbird)
_FROM = re.compile(r"^\s*(?:From|De|Von|Da|Van|Expéditeur|Exp\.)\s*:\s*(.*)$", re.I)
_TO = re.compile(r"^\s*(?:To|À|A|An|Aan|Pour|Destinataire|Destinataires|Cc)\s*:\s*(.*)$", re.I)
_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+", re.U)
# pbem's ids: 32 hex digits, then the game's id for a game's mail (pbem.mail.envelope)
_MSG_ID = re.compile(r"<?([0-9a-f]{32}(?:\.[\w-]+)*@[\w.-]+)>?", re.I)
_BLOCK = re.compile(r"<\s*(?:br|/?div|/?p|/?li|/?tr|/?td|/?h\d|/?blockquote|/?pre)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]*>")
_HIDDEN = re.compile(r"<(style|script|head)\b.*?</\1\s*>", re.I | re.S)
_QUOTE = re.compile(r"^[ \t]*>", re.M)
_QUOTE_PREFIX = re.compile(r"^(?:[ \t]*>)+[ \t]?")
_MAX_TEXT = 500_000  # characters of one part looked at: a leak is near the top


def _text(part: Message) -> str:
    try:
        if isinstance(part, EmailMessage):
            return str(part.get_content())[:_MAX_TEXT]
    except (LookupError, ValueError, AssertionError):
        pass
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        try:
            return payload[:_MAX_TEXT].decode(part.get_content_charset() or "utf-8", "replace")
        except LookupError:  # an unknown charset
            return payload[:_MAX_TEXT].decode("utf-8", "replace")
    return ""


def _visible(markup: str) -> str:
    text = _BLOCK.sub("\n", _HIDDEN.sub(" ", markup))
    return html.unescape(_TAG.sub("", text)).replace("\xa0", " ")


def _leaves(msg: Message) -> Iterator[Message]:
    if msg.is_multipart() and msg.get_content_type() != "message/rfc822":
        for sub in msg.get_payload():
            if isinstance(sub, Message):
                yield from _leaves(sub)
    else:
        yield msg


def _addresses(value: str) -> set[str]:
    return {a.lower() for a in _ADDRESS.findall(value)}


def _private_id(text: str, id_key: bytes, kind: str = "private") -> bool:
    return any(id_kind(f"<{m}>", id_key) == kind for m in _MSG_ID.findall(text))


def _forwarded_block(lines: list[str], ours: Collection[str], lists: Collection[str]) -> bool:
    """A header block (contiguous lines) with pbem as sender and no list among its recipients."""
    for i, line in enumerate(lines):
        m = _FROM.match(line)
        if m is None or not (_addresses(m.group(1)) & set(ours)):
            continue
        lo = i
        while lo > 0 and lines[lo - 1].strip() and i - lo < 8:
            lo -= 1
        hi = i
        while hi + 1 < len(lines) and lines[hi + 1].strip() and hi - i < 8:
            hi += 1
        rcpts: set[str] = set()
        for other in lines[lo : hi + 1]:
            t = _TO.match(other)
            if t is not None:
                rcpts |= _addresses(t.group(1))
        if not rcpts & set(lists):
            return True
    return False


def _attached(
    sub: Message, id_key: bytes, ours: Collection[str], lists: Collection[str]
) -> str | None:
    """Evidence that an attached mail is pbem's private mail (or holds one)."""
    mid = str(sub.get("Message-ID", "") or "")
    if _private_id(mid, id_key):
        return "attached"
    sender = _addresses(str(sub.get("From", "") or ""))
    rcpts = _addresses(" ".join(str(sub.get(h, "") or "") for h in ("To", "Cc")))
    if sender & set(ours) and not rcpts & set(lists) and not sub.get("List-Id"):
        return "attached"
    return _inside(sub, id_key, ours, lists)


def _inside(
    msg: Message, id_key: bytes, ours: Collection[str], lists: Collection[str]
) -> str | None:
    for part in _leaves(msg):
        if part.get_content_type() == "message/rfc822":
            for sub in part.get_payload():
                if isinstance(sub, Message):
                    found = _attached(sub, id_key, ours, lists)
                    if found:
                        return found
            continue
        if part.get_content_maintype() != "text":
            continue
        text = _text(part)
        if part.get_content_subtype() == "html":
            text = _visible(text)
        if _private_id(text, id_key):
            return "message-id"
        lines = [_QUOTE_PREFIX.sub("", line) for line in text.splitlines()]
        if _forwarded_block(lines, ours, lists):
            return "forwarded"
    return None


def _quotes(msg: Message) -> bool:
    for part in _leaves(msg):
        if part.get_content_maintype() != "text":
            continue
        text = _text(part)
        if part.get_content_subtype() == "html":
            if re.search(r"<blockquote\b|gmail_quote|divRplyFwdMsg|appendonsend", text, re.I):
                return True
        elif _QUOTE.search(text):
            return True
    return False


def private_mail_in(
    msg: Message,
    *,
    id_key: bytes,
    ours: Iterable[str],
    lists: Iterable[str],
) -> str | None:
    """How ``msg`` (a list post) carries one of pbem's private mails: ``"attached"``,
    ``"forwarded"``, ``"message-id"`` or ``"quoted"``; None if it does not.

    ``ours``: pbem's own addresses (moderator, bounce); ``lists``: the list addresses (pbem's
    public mail goes to them)."""
    our = {a.lower() for a in ours}
    lst = {a.lower() for a in lists}
    found = _inside(msg, id_key, our, lst)
    if found:
        return found
    refs = " ".join(str(msg.get(h, "") or "") for h in ("In-Reply-To", "References"))
    if _private_id(refs, id_key) and _quotes(msg):
        return "quoted"
    return None
