"""Crash-loop containment (RELIABILITY §7.2, requirement 10): blame the mail that kills the process.

A mail whose handling *raises* is rolled back, counted and quarantined at ``max_failures`` by the
service (``Service._shunt``). A mail that kills the *process* (a segfault in a C extension, a
stack overflow, ``os.abort``, the OOM killer) leaves nothing behind: under systemd ``Restart=``
the daemon would fetch it again and die again, forever. Two records close that gap:

* the **in-flight record** (``inflight.json`` in the data directory, a small file of its own so
  its cost does not grow with ``daemon.json``): before a batch is handled, its content keys are
  written durably, ONE extra atomic write per batch (a group commit of up to
  ``daemon.group_commit`` mails), never one per mail. It is not cleared when the batch ends: the
  next batch overwrites it, and a key counts as finished when it is in a ledger or when its shunt
  row carries the batch's ``attempt`` id (the batch's group commit wrote both). So a clean batch
  costs exactly one more write.
* the **position marker** (``inflight.pos`` in the data directory): the key of the mail in hand,
  then ``commit`` during the group write, then ``done``, written with ``pwrite`` and NOT fsynced:
  a few microseconds per mail. The kernel keeps the page when the process dies (kill -9, SIGSEGV,
  abort, OOM), so after a process crash it names the culprit exactly; after a power loss or a
  kernel crash it may be lost or stale, which the boot id in the in-flight record detects.

At start-up (:func:`blame`), the last in-flight record is compared with the ledgers:

* nothing unfinished: a clean stop, nothing to do;
* the machine rebooted since (boot id differs): not the mail's fault; the unfinished mails
  become *suspects* (no failure counted);
* the marker names an unfinished mail of this batch: the process died while that mail was being
  handled (parse, hygiene, routing, ``Table.receive``: where a poison kills). It is the culprit:
  one failure is counted in its shunt row, as for a raised exception (quarantine, admin alert
  and ``pbem shunt list|show|retry`` at ``max_failures``). The other mails of the batch are not
  blamed at all and go back to normal batches;
* otherwise (the process died before the first mail, or during the group write, ``commit``):
  nobody is blamed, even in a batch of one; the unfinished mails become suspects.

Blame needs the marker on purpose: a solo batch also spends milliseconds in two fsynced writes,
and an outside kill landing there (an operator's kill -9, a systemd stop timeout) must not count
against the mail (the 200 random kills of fault test F1 quarantined a good mail that way). Only
the CPU time of handling a mail is exposed. A death during the writes is blamed on no mail:
nothing there depends on a mail's content but JSON encoding, which raises rather than crashes.

Suspects, and mails with a failure on record, are then handled ONE PER BATCH (their own in-flight
record), in their place in the arrival order. With the marker the culprit of a death while
handling is already exact, so isolation is the fallback for the deaths it cannot attribute: it
keeps a second death from taking a whole batch's work with it, and a poison among the suspects is
then named by the marker alone in its batch. Order is kept rather than pushing suspects to the
end because a game reads a player's commands in arrival order; the price is that mail after a
poison waits for its quarantine (``max_failures`` crashes). Quarantined mail is only moved: it is
never in flight.

A kill from outside while a mail is being handled is indistinguishable from a crash and counts
as one failure of that mail; a mail that then succeeds loses its count, so only
``max_failures`` such coincidences on the same mail quarantine it (and ``pbem shunt retry``
brings it back).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pbem.adapters.store import FaultHook, StoreError, atomic_write, read_file

MARKER_SIZE = 128
COMMIT, DONE = "commit", "done"


def boot_id() -> str:
    """This boot's id (Linux); "" where unknown (then a reboot cannot be told from a crash)."""
    with contextlib.suppress(OSError):
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return ""


class Marker:
    """The position marker: one fixed-size record rewritten in place, never fsynced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def read(self) -> tuple[str, str] | None:
        """``(batch id, key | "commit" | "done")`` as last written, or None."""
        raw = os.pread(self.fd, MARKER_SIZE, 0).split(b"\n", 1)[0].decode("ascii", "replace")
        batch, _, what = raw.strip().partition(" ")
        return (batch, what) if batch and what else None

    def set(self, batch: str, what: str) -> None:
        os.pwrite(self.fd, f"{batch} {what}\n".encode().ljust(MARKER_SIZE), 0)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class InflightFile:
    """``inflight.json``: the durable in-flight record (an atomic, checksummed envelope)."""

    def __init__(self, path: Path, fault: FaultHook) -> None:
        self.path = path
        self.fault = fault

    def read(self) -> dict[str, Any] | None:
        """The last record; None if there is none or it is unreadable (then nobody is blamed)."""
        if not self.path.exists():
            return None
        try:
            rec = read_file(self.path)
        except StoreError:
            return None
        return rec if isinstance(rec, dict) else None

    def write(self, rec: dict[str, Any]) -> None:
        atomic_write(self.path, rec, self.fault, keep_bak=False)


def record(
    attempt: str, boot: str, keys: Sequence[str], suspects: Mapping[str, str], at: str
) -> dict[str, Any]:
    """The in-flight record written before a batch is handled."""
    return {"id": attempt, "boot": boot, "keys": list(keys), "suspects": dict(suspects), "at": at}


def blame(
    rec: Mapping[str, Any],
    marker: tuple[str, str] | None,
    boot: str,
    finished: Callable[[str], bool],
) -> tuple[str | None, list[str]]:
    """The culprit of a batch that never finished (or None), and the new suspects."""
    keys = [str(k) for k in rec.get("keys", [])]
    unfinished = [k for k in keys if not finished(k)]
    if not unfinished:
        return None, []
    if rec.get("boot") != boot:  # a reboot (power loss, kernel crash): not the mail's fault
        return None, unfinished
    if marker is not None and marker[0] == rec.get("id") and marker[1] in unfinished:
        return marker[1], []
    return None, unfinished
