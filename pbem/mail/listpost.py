"""List posts whose From the list rewrote for DMARC (issue 10 item 2). Pure.

A domain that publishes DMARC ``p=reject`` (or ``quarantine``) breaks lists that resend its
mail under the author's From, so the list managers put the LIST address in From and move the
author elsewhere:

- Google Groups: ``From: 'Alice' via Village <village@googlegroups.com>``, the author in
  ``Reply-To`` and ``X-Original-Sender`` (``X-Original-From`` on newer groups);
- Mailman 2.1 (``dmarc_moderation_action = Munge From``) and Mailman 3 (``dmarc_mitigate_action
  = munge_from``): ``From: Alice via Village <village@lists...>``, the author in ``Reply-To``,
  or in ``Cc`` when replies go to the list;
- Sympa (``dmarc_protection``): ``From: "Alice via village" <village@...>``, the author in
  ``X-Original-From``.

Without this every such post reads as the list's own, a spectator's, for the whole game.
:func:`attribute` finds the author; the caller then reads the post as the author's
(:func:`rewrite_from`) or, when no player can be found, tells the game master once.

Only a post already recognised as a list post of a game is read this way (its ``List-Id`` or
the list address), and only when its From is the list address or, with a recognised
``List-Id``, the ``X via Y`` form: a player's own From is never second-guessed. The author's
headers are no weaker evidence than a From on an external list (the list copied them from the
author's From), and list votes are authenticated above this (``[auth] list_votes``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from email.message import Message

from pbem.mail.address import getaddresses

#: where the list managers put the author, most specific first
AUTHOR_HEADERS = ("X-Original-From", "X-Original-Sender", "Reply-To", "Cc")
_VIA = re.compile(r"^\s*['\"]?(?P<author>.+?)['\"]?\s+via\s+(?P<list>.+?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Attribution:
    """A From the list rewrote: the author's address when one was found, and who posted in
    words (the author, else the name the list showed) for the game master's notice."""

    author: str | None
    label: str


def _values(msg: Message, name: str) -> list[str]:
    out = []
    for value in msg.get_all(name, []):
        try:
            out.append(str(value))
        except Exception:  # a header the policy cannot render is no evidence
            continue
    return out


def attribute(
    msg: Message, list_addresses: Collection[str], players: Collection[str], ignore: Collection[str]
) -> Attribution | None:
    """The author of a list post whose From the list rewrote, or None when it did not.

    ``list_addresses``: the games' list addresses (lower case); ``players``: every registered
    player address (a player's own From is never a rewriting); ``ignore``: addresses that are
    never the author (ours: a reply-all copies the moderator)."""
    pairs = getaddresses(_values(msg, "From"))
    if len(pairs) != 1:
        return None
    name, addr = pairs[0][0], pairs[0][1].lower()
    via = _VIA.match(name or "")
    if addr in players or (addr not in list_addresses and via is None):
        return None
    skip = {*list_addresses, *ignore, addr}
    for header in AUTHOR_HEADERS:
        for _, candidate in getaddresses(_values(msg, header)):
            candidate = candidate.lower()
            if "@" in candidate and candidate not in skip:
                return Attribution(candidate, candidate)
    label = via.group("author") if via else (name or addr)
    return Attribution(None, label.strip() or addr)


def rewrite_from(raw: bytes, author: str) -> bytes:
    """``raw`` with its From header (and its folded lines) replaced by the author's address;
    the list's From is kept as ``X-Pbem-List-From``. Byte-level: the body and every other
    header are untouched."""
    sep = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
    end = raw.find(sep + sep)
    head, rest = (raw, b"") if end < 0 else (raw[:end], raw[end:])
    fields: list[list[bytes]] = []  # each header field: its first line and its folded lines
    for line in head.split(sep):
        if fields and line[:1] in (b" ", b"\t"):
            fields[-1].append(line)
        else:
            fields.append([line])
    out: list[bytes] = []
    for field in fields:
        if field[0][:5].lower() == b"from:":
            out += [b"X-Pbem-List-From:" + field[0][5:], *field[1:]]
            out.append(b"From: <" + author.encode("ascii", "replace") + b">")
        else:
            out += field
    return sep.join(out) + rest
