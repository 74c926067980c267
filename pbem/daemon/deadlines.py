"""Deadlines: arming the scheduler, reminders, resolving a phase, stalls and their retry, and the
outage policy that extends deadlines missed while the daemon was down."""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbem.core.absences import away_at
from pbem.daemon.config import Config
from pbem.daemon.digests import Digests
from pbem.daemon.jobs import DeadlineJob, DigestJob, Job, ReminderJob, instance_id
from pbem.daemon.outbox import make_row
from pbem.daemon.ports import FaultHook, Game, Scheduler
from pbem.daemon.relay import Relay
from pbem.daemon.replies import Replies
from pbem.daemon.seats import shown_name
from pbem.daemon.threads import game_addressing
from pbem.daemon.unheard import unheard_step
from pbem.daemon.work import Call, Deadline, Reminder, Work
from pbem.mail.envelope import build_outgoing
from pbem.mail.html import alternative
from pbem.mail.threads import Note, dress

log = logging.getLogger(__name__)


@dataclass
class Deadlines:
    """A game's deadlines. Reads the configuration, the games and the clock; arms the
    ``scheduler``; queues a fallen deadline for the single writer (``submit``); mails through
    ``replies``; releases held posts after a phase (``relay``); ``fault`` is the tests' hook,
    ``wake`` tells the sender new rows wait.

    While the IMAP loop runs (``fetch_first``), a fallen deadline waits in :attr:`due` for it
    to fetch the mail that reached the server before the deadline (``interrupt`` wakes it)."""

    cfg: Config
    games: Mapping[str, Game]
    clock: Callable[[], datetime]
    scheduler: Scheduler
    submit: Callable[[Work], object]
    replies: Replies
    relay: Relay
    fault: FaultHook
    wake: Callable[[], None]
    interrupt: Callable[[], None] = lambda: None
    fetch_first: bool = False
    digests: Digests | None = None
    """The daily digest's timer is armed with the game's deadlines (issue 25)."""
    #: scheduler-fired deadlines the IMAP loop resolves after fetching (issue 10 item 4):
    #: (game id, key) → the timer resolving it anyway if the mailbox cannot be read
    due: dict[tuple[str, str], asyncio.TimerHandle] = field(default_factory=dict)

    def effective(self, game: Game) -> dict[str, datetime]:
        """The engine's pending deadlines, with outage extensions applied (§5.4)."""
        states = game.store.deadline_states()
        out = {}
        for key, when in game.table.deadlines().items():
            st = states.get(instance_id(key, when), {})
            if st.get("state") == "stalled":
                continue  # paused until an admin's `pbem deadline retry`
            ext = st.get("extended_to")
            out[key] = datetime.fromisoformat(ext) if ext else when
        return out

    def rearm(self, game: Game) -> None:
        """Rebuild this game's in-memory jobs from its state (requirement 11)."""
        pending = self.effective(game)
        jobs: set[Job] = set()
        now = self.clock()
        for key, when in pending.items():
            job: Job = DeadlineJob(game.id, key)
            jobs.add(job)
            # the plans: each callback is its job's and time's (a rearm after each mail
            # leaves the unchanged jobs alone)
            self.scheduler.arm(job, when, self._deadline_callback(game.id, key, when), "fall")
            for hours in self.cfg.reminders_hours:
                at = when - timedelta(hours=hours)
                if at > now:  # a reminder whose time passed (an outage) is not sent late
                    job = ReminderJob(game.id, key, hours)
                    jobs.add(job)
                    self.scheduler.arm(
                        job, at, self._remind_callback(game.id, key, hours), "remind"
                    )
        digest = self.digests.due(game) if self.digests is not None else None
        if digest is not None:
            job = DigestJob(game.id)
            jobs.add(job)
            self.scheduler.arm(job, digest, self._digest_callback(game.id), "digest")
        self.scheduler.disarm_game(game.id, keep=jobs)

    def _digest_callback(self, game_id: str) -> Callable[[], Awaitable[None]]:
        return functools.partial(self._digest_due, game_id)

    async def _digest_due(self, game_id: str) -> None:
        self.submit(Call(lambda: self._send_digest(game_id)))

    def _send_digest(self, game_id: str) -> int:
        """The writer sends the digest, then arms the next day's."""
        assert self.digests is not None
        sent = self.digests.send(game_id)
        game = self.games.get(game_id)
        if game is not None:
            self.rearm(game)
        return sent

    def _remind_callback(
        self, game_id: str, key: str, hours: float
    ) -> Callable[[], Awaitable[None]]:
        return functools.partial(self._remind_due, game_id, key, hours)

    async def _remind_due(self, game_id: str, key: str, hours: float) -> None:
        self.submit(Reminder(game_id, key, hours))

    def send_reminders(self, game_id: str, key: str, hours: float) -> int:
        """Remind the players who have not acted (``Table.awaiting``), once per deadline
        instance and lead time: the ``reminded`` list is committed with the mails."""
        game = self.games.get(game_id)
        if game is None or game.table.finished:
            return 0
        due = game.table.deadlines().get(key)
        awaiting = getattr(game.table, "awaiting", None)
        if due is None or awaiting is None:
            return 0
        rid = instance_id(key, due)
        state = game.store.deadline_states().get(rid, {"deadline": key})
        if hours in state.get("reminded", []):
            return 0
        now = self.clock()
        when = self.effective(game).get(key, due)
        left = max(0.0, (when - now).total_seconds() / 3600)
        rows = []
        emails = game.table.player_emails
        away = away_at(getattr(game.table, "events", ()), when)  # issue 25: no reminder
        for name in sorted(awaiting()):
            to = emails.get(str(name))
            if not to or name in away:
                continue
            lang = game.table.player_langs.get(str(name), self.cfg.language)
            subject, body = self.replies.texts.mail(
                "daemon/reminder",
                lang,
                {
                    "game": game_id,
                    "name": shown_name(game.table, name),  # a newcomer's (issue 13)
                    "deadline": when.isoformat(),
                    "hours_left": f"{left:.1f}",
                },
            )
            # in the player's thread of the phase in play, like its prompt (issue 15)
            thread = f"{game_id}/{getattr(game.table, 'thread', '')}"
            page = alternative(subject, body, enabled=self.cfg.html_mail, lang=lang)
            key = f"remind:{game_id}:{rid}:{hours}:{name}"
            note = Note(key, (to,), False, subject, body, thread, html=page)
            how = game_addressing(self.cfg, game.store.setup)
            filed = dress(note, how, self.replies.texts, lang, self.replies.id_key)
            mid, raw = build_outgoing(
                filed.mail,
                sender=self.cfg.moderator,
                date=now,
                id_key=self.replies.id_key,
                **filed.headers,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=raw,
                    rcpts=[to],
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="reminder",
                    game=game_id,
                )
            )
        reminded = [*state.get("reminded", []), hours]
        game.store.commit(outbox=rows, deadline={**state, "key": rid, "reminded": reminded})
        log.info("game %s: %d reminder(s) for %s", game_id, len(rows), key)
        return len(rows)

    def _deadline_callback(
        self, game_id: str, key: str, armed: datetime
    ) -> Callable[[], Awaitable[None]]:
        # a partial, not a closure: 10,000 games keep 30,000 of them (issue 23)
        return functools.partial(self._fall, game_id, key, armed)

    async def _fall(self, game_id: str, key: str, armed: datetime) -> None:
        self.fallen(game_id, key, armed)

    def still_armed(self, game_id: str, key: str, armed: datetime) -> bool:
        """Whether the deadline ``key`` still falls when a timer was armed for it. Keys are
        reused and an extension keeps its key (RELIABILITY §5.4): a timer armed before an
        extension, which fires anyway (APScheduler had handed its job to the loop, the
        fetch-first fallback, the loop's due list taken before the mail that moved it), must
        not resolve the extended deadline early."""
        game = self.games.get(game_id)
        when = self.effective(game).get(key) if game is not None else None
        if when != armed:
            log.info(
                "deadline %s:%s: a timer armed for %s fired, the deadline is now %s: ignored",
                game_id,
                key,
                armed.isoformat(),
                when.isoformat() if when is not None else "gone",
            )
            return False
        return True

    def fallen(self, game_id: str, key: str, armed: datetime) -> None:
        """A deadline's time has come. The mail that reached the server before it must be applied
        first (issue 10 item 4: orders delivered seconds before a deadline were refused): the
        IMAP loop is woken to fetch, then resolves it in order
        (:meth:`pbem.daemon.imap_loop.ImapLoop.apply_in_order`). Without a running loop, or if
        the mailbox cannot be read within ``deadline_fetch_wait_seconds`` (the server is down),
        it is resolved without."""
        if not self.fetch_first:
            self.submit(Deadline(game_id, key, armed=armed))
            return
        self.undue(game_id, key)
        wait = self.cfg.deadline_fetch_wait_seconds
        loop = asyncio.get_running_loop()
        fallback = loop.call_later(wait, self._deadline_unfetched, game_id, key, armed)
        self.due[game_id, key] = fallback
        self.interrupt()

    def undue(self, game_id: str, key: str) -> None:
        """The loop took this deadline (or it needs nothing more): its fallback is cancelled."""
        timer = self.due.pop((game_id, key), None)
        if timer is not None:
            timer.cancel()

    def _deadline_unfetched(self, game_id: str, key: str, armed: datetime) -> None:
        self.due.pop((game_id, key), None)
        log.warning("deadline %s:%s: mailbox not read in time; resolved without", game_id, key)
        self.submit(Deadline(game_id, key, armed=armed))

    def due_now(self) -> list[tuple[datetime, str, str]]:
        """The scheduler-fired deadlines waiting for the IMAP loop, by due time."""
        out = []
        now = self.clock()
        for game_id, key in sorted(self.due):
            game = self.games.get(game_id)
            when = self.effective(game).get(key) if game is not None else None
            if when is None or when > now:
                # resolved meanwhile, stalled, or extended (a clock jump): rearmed if pending
                self.undue(game_id, key)
                continue
            out.append((when, game_id, key))
        return sorted(out)

    def resolve(self, game_id: str, key: str, now: datetime | None = None) -> bool:
        """Compare-and-set open → resolving → resolved; False if nothing was (left) to do."""
        game = self.games.get(game_id)
        if game is None or game.table.finished:
            return False
        due = game.table.deadlines().get(key)
        if due is None:
            return False  # resolved already, or the phase moved on (a stale timer)
        rid = instance_id(key, due)
        state = game.store.deadline_states().get(rid, {"deadline": key})
        if state.get("state") in ("resolved", "stalled"):
            return False
        attempts = int(state.get("attempts", 0))
        if state.get("state") == "resolving" and attempts >= self.cfg.max_failures:
            self._stall(game, rid, state)
            return False
        if state.get("state") == "resolving" and state.get("now"):
            now = datetime.fromisoformat(state["now"])  # redo from the recorded inputs (§5.4)
        if now is None:
            now = self.clock()
        # the attempt is counted BEFORE the rules run: a resolution that kills the process
        # leaves its count behind, so a restart loop ends in a stall instead of going on forever
        game.store.set_deadline_state(
            {
                **state,
                "key": rid,
                "state": "resolving",
                "now": now.isoformat(),
                "attempts": attempts + 1,
            }
        )
        self.fault("mid_resolve")
        step = game.table.on_deadline(key, now)
        rows = self.replies.rows(game, step, now, error=False)
        game.store.commit(
            events=step.events,
            outbox=rows,
            deadline={**state, "key": rid, "state": "resolved", "now": now.isoformat()},
        )
        self.fault("after_resolve")
        game.table.apply(step)
        self.relay.release_held(game, now)
        self.rearm(game)
        self.wake()
        log.info("game %s: deadline %s resolved (%d events)", game_id, key, len(step.events))
        return True

    def _stall(self, game: Game, rid: str, state: Mapping[str, Any]) -> None:
        """A deadline whose resolution failed ``max_failures`` times (it raised, or the process
        died in it: requirement 10 for deadlines): the game is paused there, nothing else is.

        It is no longer armed nor counted as passed (other games and the start-up drain go on),
        the players are told the game is paused, the admins get the error and the way out
        (``pbem deadline retry``). The game's mail is still read: orders keep counting."""
        now = self.clock()
        key = str(state.get("deadline", rid.split("@")[0]))
        error = str(state.get("error") or "the daemon process died while resolving it")
        log.error(
            "game %s: deadline %s failed %d times: stalled (%s)",
            game.id,
            key,
            int(state.get("attempts", 0)),
            error,
        )
        alert = self.replies.admin_alert(
            f"stalled:{game.id}:{rid}",
            now,
            "daemon/alert_stalled",
            {
                "game": game.id,
                "deadline": rid,
                "attempts": state.get("attempts"),
                "error": state.get("error") or "",
            },
            appendix=str(state.get("traceback", "")),
        )
        subject, body = self.replies.bilingual("daemon/stalled", {"game": game.id})
        game.store.commit(
            outbox=[
                *alert,
                self.replies.public_row(game, f"paused:{game.id}:{rid}", subject, body, now),
            ],
            deadline={**state, "key": rid, "state": "stalled", "stalled_at": now.isoformat()},
        )
        self.wake()

    def failed(self, game_id: str, key: str, exc: BaseException) -> None:
        """A resolution raised: its error is kept for the stall alert, and it is tried again in
        a minute (not at once: a bug would spin), up to ``max_failures`` attempts."""
        game = self.games.get(game_id)
        due = game.table.deadlines().get(key) if game is not None else None
        if game is None or due is None:
            return
        rid = instance_id(key, due)
        state = game.store.deadline_states().get(rid)
        if state is None or state.get("state") != "resolving":
            return
        tb = "".join(traceback.format_exception(exc))[-4000:]
        game.store.set_deadline_state({**state, "error": repr(exc)[:500], "traceback": tb})
        retry_at = self.clock() + timedelta(seconds=self.cfg.deadline_retry_seconds)
        when = self.effective(game).get(key, due)  # the instance retried
        self.scheduler.arm(
            DeadlineJob(game_id, key), retry_at, self._deadline_callback(game_id, key, when)
        )

    def recover_resolving(self) -> None:
        """A kill between ``resolving`` and ``resolved``: redo it with the recorded ``now`` (F2).

        A redo that raises is counted like any failed resolution (it stalls its game at
        ``max_failures``): one game's bug must not keep the daemon from starting."""
        for game in list(self.games.values()):
            for rid, st in game.store.deadline_states().items():
                if st.get("state") == "resolving":
                    log.warning(
                        "game %s: deadline %s was resolving at a crash: redoing", game.id, rid
                    )
                    key = str(st.get("deadline", rid.split("@")[0]))
                    try:
                        self.resolve(game.id, key)
                    except Exception as exc:
                        log.exception("game %s: deadline %s failed again", game.id, key)
                        self.failed(game.id, key, exc)

    def passed(self, now: datetime) -> list[tuple[datetime, str, str]]:
        """Every deadline of an unfinished game due by ``now``, as ``(when, game id, key)``,
        earliest first."""
        out = []
        for game in self.games.values():
            if game.table.finished:
                continue
            for key, when in self.effective(game).items():
                if when <= now:
                    out.append((when, game.id, key))
        return sorted(out)

    def extend_for_outage(self, now: datetime, down: timedelta, *, clock_jump: bool = False) -> int:
        """A long outage: push passed deadlines to now + grace and tell the players (njudge).

        ``clock_jump``: ``down`` is a forward jump of the wall clock in a running daemon, not an
        outage; the players' mail then says so (the game master was never unreachable)."""
        grace = timedelta(hours=self.cfg.outage_grace_hours)
        n = 0
        for when, game_id, key in self.passed(now):
            game = self.games[game_id]
            new = now + grace
            rid = instance_id(key, game.table.deadlines()[key])
            state = game.store.deadline_states().get(rid, {"deadline": key})
            hours = round(down.total_seconds() / 3600, 1)
            subject, body = self.replies.bilingual(
                "daemon/extended_clock" if clock_jump else "daemon/extended",
                {
                    "game": game_id,
                    "hours_jump" if clock_jump else "hours_down": hours,
                    "passed": when.isoformat(),
                    "deadline": new.isoformat(),
                },
            )
            row = self.replies.public_row(
                game, f"extend:{game_id}:{key}:{new.isoformat()}", subject, body, now
            )
            # issue 25: nobody could be heard across the missed deadline (forgiven); a clock
            # jump lost no mail
            unheard = None if clock_jump else unheard_step(game, [""], "outage", now)
            game.store.commit(
                events=unheard.events if unheard else (),
                outbox=[row],
                deadline={**state, "key": rid, "state": "open", "extended_to": new.isoformat()},
            )
            if unheard is not None:
                game.table.apply(unheard)
            log.warning(
                "game %s: deadline %s extended to %s after %s",
                game_id,
                key,
                new,
                "a clock jump" if clock_jump else "an outage",
            )
            n += 1
        self.wake()
        return n

    def rearm_all(self) -> None:
        """Arm every game's deadlines again (after a clock jump)."""
        for game in list(self.games.values()):
            self.rearm(game)
