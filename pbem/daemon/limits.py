"""Rate limits (RELIABILITY §2.5, requirement 8). Pure: the time is an argument.

The windows survive a restart, so a crash loop or a restart cannot reset the caps. Each store
write that carries outbox changes also carries the windows changed since the previous write
(:meth:`SenderLimits.changes`, :meth:`GlobalCap.changes`): a reply row and the limit hit that
allowed it land in the same atomic write, and a sent row's removal carries the global cap's hit.
A store keeps, per window name, the whole current window (POSIX seconds, newest last) in its
``limits`` table (see ``pbem.adapters.store``); at start-up the service merges every store's copy
with :func:`merge_windows` (per timestamp, the largest multiplicity seen in any store) and
:meth:`SenderLimits.restore` / :meth:`GlobalCap.restore` drop what has expired. A window keeps at
most ``limit`` timestamps (the newest decide), so what is persisted stays small.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pbem.mail.html import with_paragraph

#: window name -> its timestamps (POSIX seconds, oldest first)
Windows = dict[str, list[float]]

ERR, AUTO, CAP = "err:", "auto:", "cap"
#: token buckets of a game's members: replies that change nothing, and forgery notices
REPLY, NOTICE = "reply:", "notice:"


@dataclass
class Window:
    """At most ``limit`` events per ``span`` (a sliding window of timestamps)."""

    limit: int
    span: timedelta
    times: deque[datetime] = field(default_factory=deque)
    _stamps: deque[float] = field(init=False, repr=False, compare=False)
    """``times`` as POSIX seconds, kept beside them: a window is exported after each of its
    hits, for the store write that carries it (issue 23)."""

    def __post_init__(self) -> None:
        self._stamps = deque(t.timestamp() for t in self.times)

    def _trim(self, now: datetime) -> None:
        while self.times and self.times[0] <= now - self.span:
            self.times.popleft()
            self._stamps.popleft()

    def allowed(self, now: datetime) -> bool:
        """Whether one more event fits in the window at ``now``."""
        self._trim(now)
        return len(self.times) < self.limit

    def hit(self, now: datetime) -> None:
        """Record an event at ``now``, keeping only the newest ``limit`` times."""
        self._trim(now)
        self.times.append(now)
        self._stamps.append(now.timestamp())
        # only the newest ``limit`` hits decide: if that many are inside the span the window is
        # full, and older ones expire first
        while len(self.times) > max(1, self.limit):
            self.times.popleft()
            self._stamps.popleft()

    def export(self) -> list[float]:
        """The window's times as POSIX seconds, oldest first (to persist it)."""
        return list(self._stamps)

    def restore(self, times: Iterable[float], now: datetime) -> None:
        """Replace the timestamps (a restart); expired ones are dropped."""
        self.times = deque(sorted(datetime.fromtimestamp(t, UTC) for t in times))
        self._stamps = deque(t.timestamp() for t in self.times)
        self._trim(now)
        while len(self.times) > max(1, self.limit):
            self.times.popleft()
            self._stamps.popleft()


@dataclass
class TokenBucket:
    """A burst of ``capacity``, then ``per_hour`` (issue 10 item 7): a player asks HELP and
    STATUS, corrects a typo, asks again, and is answered; a mail loop or a flood is not.

    The state is the timestamps of the hits (so it persists and merges like a :class:`Window`);
    the level is replayed from them, starting full. A gap of ``capacity / per_hour`` refills the
    bucket whatever came before it, so the hits before such a gap are dropped exactly; a steady
    pace keeps at most ``4 * capacity`` (an older hit then counts as a full bucket: a slight
    excess, never a refusal)."""

    capacity: int
    per_hour: float
    times: deque[datetime] = field(default_factory=deque)

    @property
    def _refill(self) -> timedelta:
        return timedelta(hours=self.capacity / self.per_hour)

    def _trim(self, now: datetime) -> None:
        if self.times and now - self.times[-1] >= self._refill:
            self.times.clear()
        while len(self.times) > 1 and self.times[1] - self.times[0] >= self._refill:
            self.times.popleft()
        while len(self.times) > 4 * max(1, self.capacity):
            self.times.popleft()

    def level(self, now: datetime) -> float:
        """Tokens left at ``now`` (at most ``capacity``)."""
        self._trim(now)
        rate = self.per_hour / 3600
        level, prev = float(self.capacity), None
        for t in self.times:
            if prev is not None:
                level = min(float(self.capacity), level + (t - prev).total_seconds() * rate)
            level -= 1
            prev = t
        if prev is not None:
            level = min(float(self.capacity), level + (now - prev).total_seconds() * rate)
        return level

    def take(self, now: datetime) -> tuple[bool, datetime | None]:
        """Spend a token: (whether there was one, when the next one will be there if this was
        the last one, else None)."""
        level = self.level(now)
        if level < 1:
            return False, None
        self.times.append(now)
        if level - 1 >= 1:
            return True, None
        wait = (2 - level) / (self.per_hour / 3600)  # from level-1 back up to 1 token
        return True, now + timedelta(seconds=wait)

    def export(self) -> list[float]:
        """The bucket's spending times as POSIX seconds, oldest first (to persist it)."""
        return [t.timestamp() for t in self.times]

    def restore(self, times: Iterable[float], now: datetime) -> None:
        """Load the persisted spending times, dropping those the bucket has refilled by ``now``."""
        self.times = deque(sorted(datetime.fromtimestamp(t, UTC) for t in times))
        self._trim(now)


def merge_windows(copies: Iterable[Mapping[str, Sequence[float]]]) -> Windows:
    """Merge the windows persisted by several stores: each store holds, per name, the whole
    window as it was at that store's last write, so a timestamp is counted as many times as the
    store that saw it most often (Counter union), never once per store."""
    merged: dict[str, Counter[float]] = {}
    for copy in copies:
        for name, times in copy.items():
            c = merged.setdefault(name, Counter())
            c |= Counter(float(t) for t in times)
    return {name: sorted(c.elements()) for name, c in merged.items()}


@dataclass
class SenderLimits:
    """Per address: ≤ ``errors_per_hour`` error replies, ≤ ``autos_per_day`` automatic replies.

    Receipts of accepted commands are always sent (a forged command must be noticed), but they
    count toward the daily number so errors stop first.

    A game's members (registered players, game masters) are answered by token buckets instead
    (:meth:`take`): ``reply_burst`` replies that change nothing (HELP, STATUS, rejections),
    then ``replies_per_hour``; the notices of mail refused in their name draw on a bucket of
    their own, so a forger cannot spend a player's replies (issue 10 item 7).
    """

    errors_per_hour: int = 1
    autos_per_day: int = 10
    reply_burst: int = 10
    replies_per_hour: float = 12.0
    _err: dict[str, Window] = field(default_factory=dict)
    _auto: dict[str, Window] = field(default_factory=dict)
    _buckets: dict[str, TokenBucket] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)

    def _w(self, table: dict[str, Window], addr: str, factory: Callable[[], Window]) -> Window:
        w = table.get(addr)
        if w is None:
            w = table[addr] = factory()
        return w

    def _new_err(self) -> Window:
        return Window(self.errors_per_hour, timedelta(hours=1))

    def _new_auto(self) -> Window:
        return Window(self.autos_per_day, timedelta(days=1))

    def allow(self, addr: str, now: datetime, *, error: bool) -> bool:
        """Record and allow a reply to ``addr``, or refuse it (nothing recorded)."""
        addr = addr.lower()
        auto = self._w(self._auto, addr, self._new_auto)
        if error:
            err = self._w(self._err, addr, self._new_err)
            if not err.allowed(now) or not auto.allowed(now):
                return False
            err.hit(now)
            self._dirty.add(ERR + addr)
        auto.hit(now)
        self._dirty.add(AUTO + addr)
        return True

    def _bucket(self, name: str) -> TokenBucket:
        b = self._buckets.get(name)
        if b is None:
            b = self._buckets[name] = TokenBucket(self.reply_burst, self.replies_per_hour)
        return b

    def take(
        self, addr: str, now: datetime, *, notice: bool = False
    ) -> tuple[bool, datetime | None]:
        """A reply that changes nothing to a game member (``notice``: a notice of mail refused
        in his name): (allowed, when replies resume if this one spends the last token)."""
        name = (NOTICE if notice else REPLY) + addr.lower()
        allowed, resume = self._bucket(name).take(now)
        if allowed:
            self._dirty.add(name)
        return allowed, resume

    def changes(self) -> Windows:
        """The windows hit since the last call (whole windows), for the next store write."""
        out: Windows = {}
        for name in self._dirty:
            if name.startswith((REPLY, NOTICE)):
                out[name] = self._bucket(name).export()
                continue
            table = self._err if name.startswith(ERR) else self._auto
            w = table.get(name.partition(":")[2])
            if w is not None:
                out[name] = w.export()
        self._dirty.clear()
        return out

    def restore(self, windows: Mapping[str, Sequence[float]], now: datetime) -> None:
        """Load persisted windows (start-up)."""
        for name, times in windows.items():
            kind, _, addr = name.partition(":")
            if kind + ":" == ERR:
                self._w(self._err, addr, self._new_err).restore(times, now)
            elif kind + ":" == AUTO:
                self._w(self._auto, addr, self._new_auto).restore(times, now)
            elif kind + ":" in (REPLY, NOTICE):
                self._bucket(name).restore(times, now)


@dataclass
class GlobalCap:
    """A global outbound cap: past it, sending pauses and an alarm is raised once."""

    per_hour: int = 200
    name: str = CAP
    """Its persisted window's name (a second cap, e.g. relayed chat's share, has its own)."""
    window: Window = field(init=False)
    tripped: bool = False
    _dirty: bool = False

    def __post_init__(self) -> None:
        self.window = Window(self.per_hour, timedelta(hours=1))

    def try_send(self, now: datetime) -> bool:
        """Whether a mail may go out at ``now``; if so it is counted and the cap untripped."""
        if self.window.allowed(now):
            self.window.hit(now)
            self._dirty = True
            self.tripped = False
            return True
        return False

    def changes(self) -> Windows:
        """The cap's window to persist if it changed since last asked, else nothing."""
        if not self._dirty:
            return {}
        self._dirty = False
        return {self.name: self.window.export()}

    def restore(self, windows: Mapping[str, Sequence[float]], now: datetime) -> None:
        """Load the cap's persisted window, if there is one (start-up)."""
        if self.name in windows:
            self.window.restore(windows[self.name], now)


Out = TypeVar("Out")


def limit_note(out: Out, texts: Any, lang: str, resume: datetime) -> Out:
    """``out`` (an engine's reply, a frozen dataclass) with the note that it is the last reply
    for now and when they resume (``daemon/reply_limit``); unchanged if it is no dataclass."""
    if not dataclasses.is_dataclass(out) or isinstance(out, type):
        return out
    note = texts.text("daemon/reply_limit", lang, {"resume": resume.isoformat()})
    body = str(getattr(out, "body", ""))
    body = body.rstrip("\n") + "\n\n" + note.strip() + "\n"
    if getattr(out, "html", ""):  # the HTML alternative says it too (issue 15)
        html = with_paragraph(str(getattr(out, "html", "")), note.strip())
        return dataclasses.replace(out, body=body, html=html)
    return dataclasses.replace(out, body=body)
