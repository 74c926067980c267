"""Public votes confirmed through the registered address (requirement 6, ``[auth] list_votes
= confirm``): what belongs to which phase, and what else a confirming mail says (issue 10
item 11). Pure.

A pending confirmation is taken in a phase (the game's pending deadline instances when the
post arrived) and lapses with it: a day-1 vote confirmed on day 2 would otherwise be cast in
day 2's ballot. The confirming mail is a private mail like any other: its other lines are
commands to answer, not noise to drop.
"""

from __future__ import annotations

import copy
import hashlib
import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from email.message import EmailMessage
from typing import Any

from pbem.core.errors import MailError
from pbem.mail.inbound import extract

CONFIRM = re.compile(r"CONFIRM-([0-9a-f]{16})\b", re.IGNORECASE)
_TOKEN_LINE = re.compile(r"^.*CONFIRM-[0-9a-f]{16}\b.*$\n?", re.IGNORECASE | re.MULTILINE)
#: what people write to say "yes" to a confirmation request: nothing to answer
ACKS = frozenset(
    {
        "yes",
        "y",
        "oui",
        "o",
        "ok",
        "okay",
        "confirm",
        "confirmed",
        "confirme",
        "je confirme",
        "d'accord",
        "c'est bon",
        "merci",
        "thanks",
        "thank you",
        "ok merci",
        "oui merci",
    }
)


def phase_of(deadlines: Mapping[str, datetime]) -> str:
    """The game's current phase, as its pending deadline instances (key@due time)."""
    return ",".join(sorted(f"{key}@{when.isoformat()}" for key, when in deadlines.items()))


def lapsed_mark(token: str, player: str) -> str:
    """The ledger key a pending confirmation leaves when its phase ends unconfirmed, so that a
    confirmation arriving later is told it lapsed (the record itself is pruned)."""
    return "lapsed:" + hashlib.sha256(f"{token.lower()}\n{player.lower()}".encode()).hexdigest()


def lapsed(pending: Mapping[str, Any], phase: str) -> bool:
    """Whether the phase of a pending confirmation is over (a record made before phases were
    kept has none: the rules then judge its commands, as they judge any late command)."""
    taken = pending.get("phase")
    return taken is not None and taken != phase


def _plain(line: str) -> str:
    text = unicodedata.normalize("NFKD", line).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z' ]+", " ", text).strip()


def other_lines(msg: EmailMessage) -> EmailMessage | None:
    """The confirming mail without its token lines, if it says anything else (a command, a
    question, a typo: to be answered like any private mail); None if it only confirms."""
    try:
        text = extract(msg)
    except MailError:
        return None
    rest = [ln for ln in text.lines if not CONFIRM.search(ln) and _plain(ln) not in ACKS]
    if not rest:
        return None
    out = copy.deepcopy(msg)
    del out["Subject"]  # it holds the token: the request's subject, not a command
    out["Subject"] = ""
    for part in out.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        try:
            body = str(part.get_content())
        except (LookupError, ValueError):
            continue
        if CONFIRM.search(body):
            part.set_content(_TOKEN_LINE.sub("", body), subtype=part.get_content_subtype())
    return out
