"""Crash-loop containment (RELIABILITY §7.2, requirement 10): blame the mail that kills the process.

A mail whose handling *raises* is rolled back, counted and quarantined at ``max_failures`` by
the intake (``Intake.shunt``, pbem.daemon.intake.guard). A mail that kills the *process* (a
segfault in a C extension, a stack overflow, ``os.abort``, the OOM killer) leaves nothing
behind: under systemd ``Restart=`` the daemon would fetch it again and die again, forever. Two
records close that gap:

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
never in flight, but for its automatic retries below.

**Poison or bystander** (issue 16). A SIGKILL from outside (an operator, the OOM killer on a busy
host, a watchdog during a slow disk) while a good mail is in hand leaves exactly what a poison's
own death leaves: the process cannot tell them apart from one death. What tells them apart is
repetition: a poison kills EVERY time it is handled, an outside kill lands at a random moment.
So (:func:`count_crash`, :func:`due_for_retry`):

* **consecutive runs only**: each start-up is a numbered *run* (``run`` in the in-flight record).
  A death counts towards ``max_failures`` only if the same mail's previous counted death was in
  the run right before; any run in between that ended otherwise (it died with another mail or
  with nothing in hand, or stopped cleanly) starts the count again at 1. A poison, handled alone
  and first of its run after a death, dies in every run; a bystander must be hit by
  ``max_failures`` outside kills in a row, each landing in the milliseconds it is in hand. (A
  process killed before it numbers its run, during its imports, leaves no trace and counts for
  nothing either way.)
* **held, then retried once the daemon is stable**: at ``max_failures`` the mail is quarantined
  (admins alerted, its sender told that it is held, with ``pbem shunt list|show|retry``). A mail
  held because of deaths (not one that raised: a traceback is a bug to fix) is retried
  automatically, alone in its own in-flight batch, once the running process has been up
  ``daemon.quarantine_retry_seconds`` (600) without dying, at most ``daemon.quarantine_retries``
  (2) times. Applied: it leaves the quarantine and its sender gets the game's usual reply. A death
  during that retry (the marker names it) holds it again at once, no alert again: the daemon had
  been stable for the whole wait, so a death then is the mail's own far more likely than not.
  A poison thus costs at most ``max_failures + quarantine_retries`` deaths (5), spread out by
  the stable waits; a good mail is held for good only if outside kills hit it
  ``max_failures`` runs in a row AND during every retry.

Start-up also drops the shunt row of a mail already applied: a group writes the games' files
before ``daemon.json``, and a death in between leaves the row of a mail that is in a ledger.

A death is never a proof: these counts bound how often a coincidence holds a good mail (and for
how long), while a real poison is still contained after ``max_failures`` deaths in a row.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
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
        """Overwrite the marker with ``(batch id, what)`` in place, without fsync."""
        os.pwrite(self.fd, f"{batch} {what}\n".encode().ljust(MARKER_SIZE), 0)

    def close(self) -> None:
        """Close the marker's file (an error closing it is ignored)."""
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
        """Replace the record atomically (no backup kept)."""
        atomic_write(self.path, rec, self.fault, keep_bak=False)


def record(
    attempt: str,
    boot: str,
    keys: Sequence[str],
    suspects: Mapping[str, str],
    at: str,
    run: int = 0,
) -> dict[str, Any]:
    """The in-flight record written before a batch is handled (and, cleared, at start-up).
    ``run`` numbers the process's start-ups: it tells consecutive deaths apart."""
    return {
        "id": attempt,
        "boot": boot,
        "keys": list(keys),
        "suspects": dict(suspects),
        "at": at,
        "run": run,
    }


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


@dataclass(frozen=True)
class CrashCount:
    """A mail's counts after the process died with it in hand (see "Poison or bystander")."""

    failures: int
    """Deaths in consecutive runs (a retry's death adds one to the held mail's count)."""
    crashes: int
    """Every death blamed on it, consecutive or not."""
    retries: int
    """Automatic retries of the held mail done so far."""
    held: bool
    """Quarantined after this death."""
    newly_held: bool
    """This death held it: the admins are alerted, its sender will be told."""
    retry_died: bool
    """It was being retried while held (automatically or by ``pbem shunt retry``)."""


def count_crash(row: Mapping[str, Any], died_in_run: int, max_failures: int) -> CrashCount:
    """The counts of the mail in hand when run ``died_in_run`` died; ``row``: its shunt row, or
    ``{}``. Pure: the policy of the module docstring."""
    failures = int(row.get("failures", 0))
    crashes = int(row.get("crashes", 0)) + 1
    retries = int(row.get("auto_retries", 0))
    if row.get("status") == "quarantined":  # a retry of a held mail died: held again at once
        return CrashCount(failures + 1, crashes, retries + 1, True, False, True)
    consecutive = row.get("crash_run") is not None and row.get("crash_run") == died_in_run - 1
    failures = failures + 1 if consecutive else 1
    held = failures >= max_failures
    return CrashCount(failures, crashes, retries, held, held, False)


def due_for_retry(
    rows: Iterable[Mapping[str, Any]], uptime: float, after: float, retries: int
) -> list[str]:
    """Keys of the held mails to retry automatically now, oldest first: held because the process
    died while handling them (``crashes``), fewer than ``retries`` automatic retries done, and
    the process up ``after`` seconds (a death would have reset its uptime)."""
    if retries <= 0 or uptime < after:
        return []
    held = [
        r
        for r in rows
        if r.get("status") == "quarantined"
        and int(r.get("crashes", 0)) > 0
        and int(r.get("auto_retries", 0)) < retries
    ]
    return [str(r["key"]) for r in sorted(held, key=lambda r: str(r.get("at", "")))]
