# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The inbound policy: one fetched mail from the mailbox to the game it belongs to (or to the
shunt), in one atomic write (RELIABILITY §3.4)."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import is_dataclass, replace
from datetime import datetime
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import TYPE_CHECKING, Any

from pbem.adapters.imap import Fetched
from pbem.daemon.auth import check_sender
from pbem.daemon.dedup import copy_keys
from pbem.daemon.message import (
    content_key,
    header_addresses,
    parse,
    raw_without_codes,
    safe_subject,
)
from pbem.daemon.outbox import make_row
from pbem.daemon.oversize import too_big_reply
from pbem.daemon.ports import Disposition
from pbem.daemon.signup_auth import auth_for, player_secrets
from pbem.mail.envelope import build
from pbem.mail.html import alternative
from pbem.mail.inbound import automatic_reason
from pbem.mail.listpost import rewrite_from
from pbem.mail.threads import noted

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class IntakeMixin:
    """The service's part for the intake (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def handle_fetched(self: Service, f: Fetched, now: datetime | None = None) -> Disposition:
        """One inbound mail under its own guard (requirement 10). Never raises."""
        if f.raw is None:
            return self._oversize(f)
        key = content_key(f.raw)
        if self.knows(key):
            self._count("duplicate")
            return "processed"  # committed before a crash; only the MOVE was missing
        row = self.daemon.shunt_row(key)
        if row is not None and row.get("crashes") and "subject" not in row:
            row = self._keep_crash_copy(key, f, row)
        if row is not None and row.get("status") == "quarantined" and "told" not in row:
            self._tell_held(key, f.raw, row)  # held at start-up, without its bytes at hand
        if row is not None and row.get("status") == "quarantined":
            return "quarantine"
        when = now or self.clock()
        if f.text_only:  # over the size cap: its text parts only (issue 10 item 5)
            log.info("UID %d: %d bytes: read without its attachments", f.uid, f.size)
        try:
            self._apply_mail(key, f, f.raw, when)
            self._count("processed")
            if row is not None:  # it had failed before: a transient error, now applied
                self.daemon.remove_shunt(key)
            return "processed"
        except Exception as exc:
            return self._shunt(key, f, f.raw, exc, row)

    def _count(self: Service, what: str) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1

    def _oversize(self: Service, f: Fetched) -> Disposition:
        key = f"oversize:{f.uidvalidity}:{f.uid}:{f.size}:{f.internaldate.isoformat()}"
        if self.daemon.shunt_row(key) is None:
            now = self.clock()
            alert = self._admin_alert(
                f"oversize:{key}",
                now,
                "daemon/alert_oversize",
                {
                    "size": f.size,
                    "cap": self.cfg.imap.max_size,
                    "text_cap": min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
                    "internaldate": f.internaldate.isoformat(),
                    "uid": f.uid,
                },
            )
            self.daemon.commit(
                outbox=[*alert, *self._too_big_reply(f, now)],
                shunt={
                    "key": key,
                    "status": "quarantined",
                    "failures": 0,
                    "uid": f.uid,
                    "error": f"over the size cap ({f.size} > {self.cfg.imap.max_size})",
                    "at": now.isoformat(),
                    "internaldate": f.internaldate.isoformat(),
                },
            )
            log.warning("UID %d: %d bytes over the cap: quarantined", f.uid, f.size)
            self.sender.wake()
        self._count("oversize")
        return "quarantine"

    def _too_big_reply(self: Service, f: Fetched, now: datetime) -> list[dict[str, Any]]:
        """The sender of a mail too large to read is told so (issue 10 item 5), rate-limited."""
        reply = too_big_reply(
            f.header or b"",
            size=f.size,
            cap=min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
            moderator=self.cfg.moderator,
            our_addresses=self.our_addresses,
            texts=self._bilingual,
            now=now,
            id_key=self.id_key,
            html=self.cfg.html_mail,
        )
        if reply is None or not self.limits.allow(reply[0], now, error=True):
            return []
        return [reply[1]]

    def _shunt(
        self: Service,
        key: str,
        f: Fetched | None,
        raw: bytes,
        exc: BaseException,
        row: dict[str, Any] | None,
    ) -> Disposition:
        """Roll back (the transaction already did), count, keep the bytes; quarantine at N."""
        now = self.clock()
        failures = int((row or {}).get("failures", 0)) + 1
        shunt_dir = self.root / "shunt"
        shunt_dir.mkdir(exist_ok=True)
        eml = shunt_dir / f"{key}.eml"
        if not eml.exists():
            eml.write_bytes(raw)
        quarantined = failures >= self.cfg.max_failures
        tb = "".join(traceback.format_exception(exc))[-4000:]
        log.error("mail %s failed (%d/%d): %s", key[:12], failures, self.cfg.max_failures, exc)
        alert: list[dict[str, Any]] = []
        told = {"told": bool(row["told"])} if row and "told" in row else {}
        if quarantined:
            alert = self._admin_alert(
                f"quarantine:{key}",
                now,
                "daemon/alert_quarantine",
                {
                    "failures": failures,
                    "crashes": 0,
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                    "key": key,
                    "short": key[:12],
                    **self._retry_params(0),
                },
                appendix=tb,
            )
            if not told:
                when = f.internaldate.isoformat() if f else (row or {}).get("internaldate")
                notice, told["told"] = self._held_notice(
                    key, raw, {"failures": failures, "internaldate": when}, now
                )
                alert += notice
        self.daemon.commit(
            outbox=alert,
            shunt={
                "key": key,
                "status": "quarantined" if quarantined else "failing",
                "failures": failures,
                "uid": f.uid if f else None,
                "internaldate": f.internaldate.isoformat() if f else None,
                "error": f"{type(exc).__name__}: {exc}"[:500],
                "traceback": tb,
                "at": now.isoformat(),
                "subject": safe_subject(raw),
                "crashes": int((row or {}).get("crashes", 0)),
                # this batch's id: the failure is on record, the mail is not in flight any more
                "attempt": self._attempt,
                **told,
            },
        )
        self._count("shunted")
        self.sender.wake()
        return "quarantine" if quarantined else "keep"

    def _admin_alert(
        self: Service,
        key: str,
        now: datetime,
        template: str,
        params: Mapping[str, Any],
        appendix: str = "",
        to: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """An alert to the admins (none when there are none): ``template`` rendered French then
        English, like the daemon's other mails; ``appendix`` (a traceback: the same in every
        language) follows both. ``key`` makes its Message-ID, so a redone alert is one mail.
        ``to``: other recipients than the daemon's admins (a game's own game masters too)."""
        admins = tuple(to) if to is not None else self.cfg.admins
        if not admins:
            return []
        subject, body = self._bilingual(template, params)
        if appendix:
            body += f"\n-----\n\n{appendix.rstrip()}\n"
        mid, raw = build(
            key=key,
            sender=self.cfg.moderator,
            to=admins,
            subject=subject,
            body=body,
            html=alternative(subject, body, enabled=self.cfg.html_mail),
            date=now,
            id_key=self.id_key,
        )
        return [
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=list(admins),
                mail_from=self.cfg.bounce,
                now=now,
                kind="alert",
                bypass_cap=True,
            )
        ]

    def _apply_mail(self: Service, key: str, f: Fetched | None, raw: bytes, now: datetime) -> None:
        # headers only, compat32: cheap string reads for hygiene and routing; the full modern
        # parse is done only for mail that reaches a game's engine
        head = BytesHeaderParser(policy=compat32).parsebytes(raw)
        msg = head
        info = {
            "at": now.isoformat(),
            "uid": f.uid if f else None,
            "uidvalidity": f.uidvalidity if f else None,
            "message_id": str(msg.get("Message-ID", ""))[:200],
        }
        self.fault("after_fetch_parse")
        # each address header parsed once per mail (hygiene, channel and routing all read them)
        rcpts = header_addresses(msg, "To", "Cc")
        sender = (header_addresses(msg, "From") or [""])[0]
        channel = self._channel(msg, rcpts)
        # RFC 3834 / loop hygiene (pbem.mail.inbound); a MailError (unreadable headers) is
        # a poison mail: shunted, then quarantined
        reason = automatic_reason(msg, our_addresses=self.our_addresses)
        if reason == "bulk" and channel == "list" and not self.relay:
            # Majordomo and others stamp every post `Precedence: bulk`: a post recognised as
            # our game's list's is read (issue 10 item 3); RFC 3834 governs what we answer
            reason = None
        if reason == "bounce" and self._handle_bounce(key, raw, info, now):
            return  # counted against a player (RELIABILITY §2.5); never parsed nor answered
        if reason is not None:
            # never parsed, never answered (RFC 3834, requirement 8); own list echoes land here
            log.info("mail %s ignored: %s", key[:12], reason)
            self._count("automatic")
            self.daemon.commit(ledger_key=key, ledger_info={**info, "why": reason})
            self.daemon_keys.add(key)
            return
        munged = self._list_rewrite(msg, channel)
        if munged is not None and munged.author is not None:
            # the list put its own address in From (DMARC): the post is the author's
            sender, raw = munged.author, rewrite_from(raw, munged.author)
        game, how = self.route_how(msg, rcpts, sender)
        if game is not None:
            msg = parse(raw)
        if game is None:
            rows = self._no_game_reply(msg, sender, now)
            self.daemon.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": "no-game"})
            self.daemon_keys.add(key)
            self.sender.wake()
            return
        assert isinstance(msg, EmailMessage)
        verdict = check_sender(
            msg,
            game.table.player_emails,
            auth_for(game, self.cfg.auth),  # a lobby's volunteers have no code yet (issue 13)
            player_secrets(game),
            # a relayed list post reaches us directly, not through a list that breaks DKIM: it
            # is authenticated like private mail, so a public vote is as safe as a private
            # command and its SECRET line is removed before anyone sees it (requirement 6)
            channel="private" if self.relay else channel,
            raw=raw,
            resolver=self.resolver,
            now=now,
            # the daemon's game masters may steer every game (the desk): authenticated alike
            admins=[*game.store.setup.get("admins", []), *self.cfg.admins],
            admin_secrets=self._admin_secrets(game),
        )
        if not verdict.ok:
            rows = (
                self._admin_refused(game, msg, verdict, now)
                if verdict.admin
                else self._auth_notice(game, msg, verdict, now)
            )
            game.store.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": "auth"})
            game.keys.add(key)
            self.sender.wake()
            return
        copies = tuple(sorted({*verdict.replay_keys, *copy_keys(msg, sender)}))
        if any(k in game.keys for k in copies):
            # another copy of a mail already applied (the list's copy of a post Cc'd to us, a
            # reply-all, a redelivery): applied once, never an older order over a newer one
            log.info(
                "game %s: mail %s is another copy of a mail applied: ignored", game.id, key[:12]
            )
            game.store.commit(ledger_key=key, ledger_info={**info, "why": "copy"})
            game.keys.add(key)
            return
        if any(k in game.keys for k in verdict.replay_keys):
            # the same DKIM signature seen before: a captured mail re-sent (new trace
            # headers, so a new content key); applied once (requirement 5, RELIABILITY §1.6)
            log.warning("game %s: mail %s replays a signed mail: ignored", game.id, key[:12])
            game.store.commit(ledger_key=key, ledger_info={**info, "why": "replay"})
            game.keys.add(key)
            return
        if (
            channel == "list"
            and self.relay
            and verdict.registered is not None
            and self._stop_post(game, key, info, msg, raw, verdict.registered, now)
        ):
            return  # not relayed nor read: a private mail in it, too long, too many
        if channel == "private" and verdict.registered:
            pending = self._pending_confirmation(game, msg, verdict.registered)
            if pending is not None:
                self._confirm(
                    game,
                    key,
                    info,
                    pending,
                    now,
                    strong=verdict.strong,
                    keys=copies,
                    mail=verdict.message or msg,
                )
                return
        ask = (
            channel == "list"
            and not self.relay
            and verdict.registered is not None
            and self.cfg.auth.confirm_list_votes
        )
        step = game.table.receive(
            verdict.message or msg,
            channel=channel,
            now=now,
            relay=self.relay,
            confirm="ask" if ask else None,
            strong=verdict.strong,
            admins=self.cfg.admins,
        )
        if how == "thread" and is_dataclass(step) and not isinstance(step, type):
            # found only through the mail it answers: the reply says which game it reached
            note = self.routed_note(game, sender)
            step = replace(step, outgoing=noted(getattr(step, "outgoing", ()), sender, note))
        rows = self._rows(game, step, now, error=not step.events)
        notice_keys: tuple[str, ...] = ()
        if munged is not None and verdict.registered is None and not verdict.admin:
            notice_keys, notices = self._unattributed(game, munged, msg, now)
            rows += notices
        hold = None
        deferred: tuple[str, ...] = tuple(getattr(step, "deferred", ()))
        if ask and deferred and verdict.registered is not None:
            if self.confirm_requests.allow(game.id, verdict.registered, now):
                hold, request = self._confirmation_request(game, key, msg, raw, deferred, now)
                rows.append(request)
            else:  # a flood of posts in his name (forged, most likely): nothing more mailed
                log.warning(
                    "game %s: confirmation requests to %s over the hourly limit: post %s "
                    "not counted",
                    game.id,
                    verdict.registered,
                    key[:12],
                )
        if channel == "list" and self.relay:
            post = getattr(step, "post", None)
            # the post as received, cleaned of every code wherever it shows (relay_copy),
            # not only of the text part's SECRET line (issue 10 item 10)
            sent = raw_without_codes(raw) if self._codes_in_use else raw
            if post == "relay" and sent is not None:
                rows.append(self._relay_row(game, key, msg, sent, now))
            elif post == "hold" and sent is not None:
                hold = {"key": key, "raw": sent.decode("latin-1"), "at": now.isoformat()}
        game.store.commit(
            events=step.events,
            outbox=rows,
            ledger_key=key,
            ledger_info=info,
            # its phase: a confirmation lapses with it (release_held)
            hold=hold if hold is None else {"window": self._bounce_window(game), **hold},
            extra_keys=(*copies, *notice_keys),
        )
        self.fault("after_state")
        game.keys.add(key)
        game.keys.update((*copies, *notice_keys))
        game.table.apply(step)
        self._bounce_clear(game, verdict.registered if step.events else None, now)
        if step.events:
            self.release_held(game, now)
        self.rearm(game)
        self.sender.wake()
