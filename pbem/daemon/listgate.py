"""What a relaying daemon checks of a player's list post before the rules see it (issue 10
items 15 and 16). Pure: the time comes in as an argument.

- :func:`private_mail_in` (``pbem.mail.forwarded``): the post carries one of pbem's private
  mails (a forwarded role mail): it is held, its poster told why, the game master alerted;
- :func:`post_size`: a post over ``[list] max_post_chars`` characters of text, or
  ``max_post_bytes`` bytes in all (photos), is not relayed: one poster's wall of text or
  photos would reach every member, each time;
- :class:`PosterLimits`: at most ``[list] posts_per_hour`` relayed posts per poster and game,
  a sliding hour; past it a post is not relayed (its commands not counted), and the poster is
  told when he may post again. Without it one poster's 600 posts filled the global hourly
  cap and the day's results waited two hours behind them.

A refused post is refused as a whole, like a post the rules refuse: relayed votes must be
public, so a vote is never counted from a post nobody else saw. The windows survive restarts
as the other limits do (``pbem.daemon.limits``: they ride along with the store writes).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage, Message
from typing import Any

from pbem.daemon.config import ListLimits
from pbem.daemon.limits import Window, Windows
from pbem.mail.forwarded import private_mail_in

__all__ = [
    "CONFIRM_REQUESTS",
    "POST",
    "PosterLimits",
    "post_size",
    "private_mail_in",
    "stop_reason",
]

POST = "post:"
"""The prefix of the persisted per-poster windows (``post:<game>:<address>``)."""
CONFIRM_REQUESTS = "confirm-request:"
"""The prefix of the per-player windows of confirmation requests mailed (external lists)."""

_TAG = re.compile(r"<[^>]*>")


def post_size(msg: Message, raw: bytes) -> tuple[int, int]:
    """(characters of text, bytes in all) of a post: its text parts (the HTML's visible text
    when it has no plain one) as the members will read them, and its whole size."""
    plain: list[str] = []
    markup: list[str] = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        try:
            text = str(part.get_content()) if isinstance(part, EmailMessage) else ""
        except (LookupError, ValueError, AssertionError):
            payload = part.get_payload(decode=True)
            text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
        if part.get_content_subtype() == "html":
            markup.append(html.unescape(_TAG.sub("", text)))
        else:
            plain.append(text)
    chars = sum(len(t.strip()) for t in (plain or markup))
    return chars, len(raw)


@dataclass
class PosterLimits:
    """At most ``per_hour`` relayed posts per poster and game in any hour (0: no limit)."""

    per_hour: int = 30
    prefix: str = POST
    """The persisted windows' prefix: one instance per kind of thing counted."""
    _windows: dict[str, Window] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)

    def name(self, game: str, address: str) -> str:
        """The persisted window's name for ``address`` in ``game``."""
        return f"{self.prefix}{game}:{address.lower()}"

    def _window(self, name: str) -> Window:
        w = self._windows.get(name)
        if w is None:
            w = self._windows[name] = Window(max(1, self.per_hour), timedelta(hours=1))
        return w

    def allow(self, game: str, address: str, now: datetime) -> bool:
        """Record and allow one relayed post, or refuse it (nothing recorded)."""
        if self.per_hour <= 0:
            return True
        name = self.name(game, address)
        w = self._window(name)
        if not w.allowed(now):
            return False
        w.hit(now)
        self._dirty.add(name)
        return True

    def free_at(self, game: str, address: str, now: datetime) -> datetime:
        """When the poster may post again (``now`` if he may)."""
        w = self._window(self.name(game, address))
        if w.allowed(now) or not w.times:
            return now
        return w.times[0] + w.span

    def changes(self) -> Windows:
        """The windows hit since the last call, for the next store write."""
        out = {n: self._windows[n].export() for n in self._dirty if n in self._windows}
        self._dirty.clear()
        return out

    def restore(self, windows: Mapping[str, Sequence[float]], now: datetime) -> None:
        """Load the persisted windows (start-up)."""
        for name, times in windows.items():
            if name.startswith(self.prefix):
                self._window(name).restore(times, now)


def stop_reason(
    msg: Message,
    raw: bytes,
    *,
    limits: ListLimits,
    posters: PosterLimits,
    game: str,
    poster: str,
    now: datetime,
    id_key: bytes,
    ours: Iterable[str],
    lists: Iterable[str],
) -> tuple[str, dict[str, Any]] | None:
    """Why a player's list post must not be relayed (nor read), with the notice's parameters;
    None if it may go on to the rules. The checks, in order: one of pbem's private mails in it
    (``private_mail``, ``how``), the byte then the character cap (``too_long``), the poster's
    hourly limit (``too_many``: counted only for a post that passed the rest)."""
    how = private_mail_in(msg, id_key=id_key, ours=ours, lists=lists)
    if how is not None:
        return "private_mail", {"how": how}
    chars, size = post_size(msg, raw)
    if limits.max_post_bytes and size > limits.max_post_bytes:
        return "too_long", {"size": size, "unit": "bytes", "limit": limits.max_post_bytes}
    if limits.max_post_chars and chars > limits.max_post_chars:
        return "too_long", {"size": chars, "unit": "chars", "limit": limits.max_post_chars}
    if not posters.allow(game, poster, now):
        until = posters.free_at(game, poster, now)
        return "too_many", {"limit": limits.posts_per_hour, "until": until.isoformat()}
    return None
