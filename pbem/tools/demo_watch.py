"""The mail demo's driver: it watches the game as the daemon commits it (:class:`GameWatch`)
and closes each step once nobody can act in it any more (:class:`IdleCloser`), as a game
master's ``CLORE`` would."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pbem.tools.demo_mail import GAME_ID
from pbem.tools.mailbots import MailBot


class GameWatch:
    """The demo game as the daemon commits it, read as it goes: each poll folds only the events
    committed since the last one into the table (replaying the whole log every poll cost the
    driver a tenth of a Loup-Garou game's CPU), only once a file of the game changed, and
    reads each closed segment once (they never change: re-reading them all at every poll was
    a sixth of a Dracula demo's CPU)."""

    def __init__(self, data: Path) -> None:
        self.directory = data / "games" / GAME_ID
        self.table: Any = None
        self.seen = 0
        self.sending = 0  # rows of the game's outbox not sent yet
        self._stamp: set[tuple[str, int, int, int]] | None = None
        self._segments: list[list[dict[str, Any]]] = []  # the closed segments' events, read once
        self.done = False  # what the last poll returned

    def poll(self) -> bool:
        """True once the game is over and every mail it queued is sent."""
        from pbem.adapters.store import GameStore
        from pbem.table import Step, Table

        stamp = None  # the daemon replaces the head and segments whole, appends to its log
        with contextlib.suppress(FileNotFoundError):  # a file gone meanwhile: read the store
            files = list(os.scandir(self.directory))
            stamp = {(f.name, f.inode(), f.stat().st_size, f.stat().st_mtime_ns) for f in files}
            if stamp == self._stamp:
                return self.done  # nothing written since
        # a fresh reader each time: a store's reader keeps what it read (the daemon writes)
        store = GameStore(self.directory, readonly=True)
        # the head read names the segments written before it: they are all there, and final
        for n in range(len(self._segments) + 1, store.segments + 1):
            self._segments.append(store.segment_events(n))
        events = [e for segment in self._segments for e in segment]
        events += store.head_events()
        if self.table is None:
            self.table = Table.load(store.setup, events)
        elif len(events) > self.seen:
            self.table.apply(Step(events=tuple(events[self.seen :])))
        self.seen = len(events)
        self.sending = sum(1 for r in store.outbox() if r.get("status") == "pending")
        self._stamp = stamp
        # the victory post is committed: wait until the daemon has sent everything
        self.done = bool(self.table.finished) and not self.sending
        return self.done


def _mailbox_counts(box: Path) -> tuple[int, int]:
    """The moderator's Maildir: (mail not consumed yet, mail the daemon has filed away)."""

    def count(folder: Path) -> int:
        # the daemon creates its folders when it opens the mailbox: one may not be there yet
        return sum(len(os.listdir(d)) for d in (folder / "new", folder / "cur") if d.is_dir())

    filed = [box / f".{name}" for name in ("Processed", "Quarantine")]
    return count(box), sum(count(f) for f in filed)


class IdleCloser:
    """Closes the step in play once nobody can act in it any more, as a game master's
    ``CLORE`` would: the daemon has read every mail and sent every answer, and every bot has
    read its mail and has no question in flight. Steps then end on an event, not on a window
    of seconds that a busy machine lets pass before the bots have read their prompts; their
    deadlines stay as a safety net.

    The daemon and the mail system work in threads of their own: the daemon's side is looked
    at before and after the bots, and must not have moved in between.

    ``kick`` is called once a close is in the spool: the daemon's request ticker looks there
    only every second, and a Dracula demo closes some forty steps (the demo, which runs the
    daemon in its own event loop, has the writer drain the spool at once)."""

    def __init__(
        self,
        data: Path,
        box: Path,
        bots: Sequence[MailBot],
        lang: str,
        kick: Callable[[], None] = lambda: None,
    ) -> None:
        self.data = data
        self.box = box
        self.bots = bots
        self.kick = kick
        self.line = "CLORE" if lang == "fr" else "CLOSE"
        self.closed_at = -1  # the event count when we last closed: one close per step
        self.closes = 0

    def check(self, watch: GameWatch) -> None:
        """Close the step if everyone is idle (called between the watch's polls)."""
        from pbem.daemon.operator.admin import AdminCommand
        from pbem.daemon.operator.spool import submit

        if _mailbox_counts(self.box)[0] or not all(b.idle() for b in self.bots):
            return  # busy: the game is not read while it is being written
        watch.poll()  # the daemon's side now (only a directory listing if nothing changed)
        before = (_mailbox_counts(self.box), watch.seen, watch.sending)
        if before[0][0] or before[2] or watch.seen == self.closed_at:
            return
        if not all(b.idle() for b in self.bots):
            return
        watch.poll()
        if (_mailbox_counts(self.box), watch.seen, watch.sending) != before:
            return
        # bound to this step: dropped by the daemon if a deadline or an early close ended it
        # meanwhile, instead of closing the next step before anyone has read it
        submit(self.data, AdminCommand.now(GAME_ID, [self.line], expect_events=watch.seen))
        self.closed_at = watch.seen
        self.closes += 1
        self.kick()
