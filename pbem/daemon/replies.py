# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The daemon's own answers: a step's mail as outbox rows, and the replies to a mail no game takes
or an authentication refuses."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from email.message import EmailMessage, Message
from typing import TYPE_CHECKING, Any

from pbem.archive_mail import archive_rows
from pbem.daemon.auth import AuthVerdict
from pbem.daemon.limits import limit_note
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.daemon.ports import Game
from pbem.daemon.seats import seat_rows
from pbem.daemon.threads import game_addressing
from pbem.mail.address import is_mailable
from pbem.mail.envelope import build, build_outgoing
from pbem.mail.html import alternative
from pbem.mail.render import bilingual
from pbem.mail.threads import dress

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class RepliesMixin:
    """The service's part for the replies (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def _rows(
        self: Service, game: Game, step: Any, now: datetime, *, error: bool
    ) -> list[OutboxRow]:
        """Outbox rows for a step; per-sender limits on private automatic replies (§2.5)."""
        rows = []
        members = self._members(game)
        for seq, out in enumerate(step.outgoing):
            if not out.public and out.auto == "auto-replied":
                rcpts, resume = [], None
                for r in out.to:
                    if error and r.lower() in members:  # a game member: a burst, then a pace
                        ok, when = self.limits.take(r, now)
                    else:
                        ok, when = self.limits.allow(r, now, error=error), None
                    if ok:
                        rcpts.append(r)
                        resume = resume or when
                if not rcpts:
                    log.warning("reply %s suppressed by the per-sender limits", out.key)
                    self._count("rate_limited")
                    continue
                if resume is not None:  # this reply spends the last one: say so in it
                    out = limit_note(out, self.texts, self._lang(game, rcpts[0]), resume)
            elif out.public and self.relay:
                rcpts = self.list_members(game)  # the daemon is the list: to every member
            else:
                rcpts = list(out.to)
            reader = out.to[0] if out.to else ""
            lang = game.store.setup.get("lang", "fr") if out.public else self._lang(game, reader)
            how = game_addressing(self.cfg, game.store.setup)
            filed = dress(out, how, self.texts, str(lang), self.id_key)  # its thread (issue 15)
            mid, raw = build_outgoing(
                filed.mail,
                sender=self.cfg.moderator,
                date=now,
                id_key=self.id_key,
                extra=self.list_headers(game) if out.public else (),
                html=self.cfg.html_mail,
                **filed.headers,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=raw,
                    rcpts=rcpts,
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="public" if out.public else "reply",
                    thread=filed.thread,
                    game=game.id,
                    seq=seq,
                )
            )
        # the game ends with this step: everyone gets its archive (issue 14)
        rows += archive_rows(
            game.table,
            step,
            sender=self.cfg.moderator,
            mail_from=self.cfg.bounce,
            now=now,
            first_seq=len(step.outgoing),
            id_key=self.id_key,
            how=game_addressing(self.cfg, game.store.setup),  # From, Reply-To, its thread
        )
        rows += seat_rows(self, game, step, now)  # a seat changed hands: its new code
        return rows

    def _members(self: Service, game: Game) -> set[str]:
        """Who a game answers by the members' reply budget: its players and game masters."""
        admins = [*self.cfg.admins, *map(str, game.store.setup.get("admins", []))]
        return {a.lower() for a in (*game.table.player_emails.values(), *admins)}

    def _lang(self: Service, game: Game, address: str) -> str:
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        return game.table.player_langs.get(names.get(address.lower(), ""), self.cfg.language)

    def _bilingual(self: Service, template: str, params: Mapping[str, Any]) -> tuple[str, str]:
        """A daemon text for several readers: French first, then English."""
        return bilingual(self.texts, template, params)

    def _no_game_reply(self: Service, msg: Message, sender: str, now: datetime) -> list[OutboxRow]:
        """An error reply for mail that reaches no game: null envelope sender, rate-limited.

        A sender without a domain gets nothing (there is no address to answer); a player is
        told his own running games; a stranger what ``[daemon] strangers`` says (issue 10,
        item 20: by default no list of the games and their addresses)."""
        if not is_mailable(sender):
            return []
        active = sorted(g.id for g in self.games.values() if not g.table.finished)
        mine = [
            gid
            for gid in active
            if sender in {e.lower() for e in self.games[gid].table.player_emails.values()}
        ]
        if not mine and self.cfg.strangers == "silent":
            return []
        if not self.limits.allow(sender, now, error=True):
            return []
        shown = mine or (active if self.cfg.strangers == "games" else [])
        local, _, domain = self.cfg.moderator.partition("@")
        games = [{"id": gid, "address": f"{local}+{gid}@{domain}"} for gid in shown]
        _, body = self._bilingual("daemon/no_game", {"games": games, "player": bool(mine)})
        mid_in = str(msg.get("Message-ID", "") or "") or None
        mid, raw = build(
            key=f"nogame:{mid_in}:{sender}:{now.isoformat()}",
            sender=self.cfg.moderator,
            to=(sender,),
            subject="Re: " + str(msg.get("Subject", "") or ""),
            body=body,
            html=alternative(
                f"Re: {msg.get('Subject', '') or ''}", body, enabled=self.cfg.html_mail
            ),
            date=now,
            id_key=self.id_key,
            auto="auto-replied",
            in_reply_to=mid_in,
        )
        return [
            make_row(message_id=mid, raw=raw, rcpts=[sender], mail_from="", now=now, kind="reply")
        ]

    def _admin_secrets(self: Service, game: Game) -> list[Mapping[str, str]]:
        """The admin codes a game master's mail may carry: the game's, the daemon's."""
        own = game.store.meta.get("admin_secret")
        return [c for c in (own, self.cfg.auth.admin_secret_hash) if c]

    def _admin_refused(
        self: Service, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
    ) -> list[OutboxRow]:
        """Mail claiming a game master's address failed the admin layers (issue 10 item 9):
        refused, nothing answered to the From, the real game masters alerted (a bucket of
        their own per game: a flood of forgeries is not a flood of alerts)."""
        mid_in = str(msg.get("Message-ID", "") or "")
        log.warning(
            "game %s: mail from a game master's address refused: %s", game.id, verdict.reason
        )
        if not self.limits.take(f"admin-alerts@{game.id}", now, notice=True)[0]:
            return []
        admins = tuple(sorted({*self.cfg.admins, *map(str, game.store.setup.get("admins", []))}))
        return self._admin_alert(
            f"admin-refused:{game.id}:{mid_in}:{now.isoformat()}",
            now,
            "daemon/alert_admin_refused",
            {
                "game": game.id,
                "reason": verdict.reason,
                "sender": str(msg.get("From", "")),
                "subject": str(msg.get("Subject", "")),
                "received": " | ".join(str(v) for v in msg.get_all("Received", [])[:2]),
            },
            to=admins,
        )

    def _auth_notice(
        self: Service, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
    ) -> list[OutboxRow]:
        """A rejected command: notice to the REGISTERED address, never Reply-To (requirement 7)."""
        to = verdict.registered
        # a bucket of its own: forged mail never spends the real player's replies
        if not to or not self.limits.take(to, now, notice=True)[0]:
            return []
        mid_in = str(msg.get("Message-ID", "") or "") or None
        names = {mail.lower(): name for name, mail in game.table.player_emails.items()}
        lang = game.table.player_langs.get(names.get(to.lower(), ""), self.cfg.language)
        subject, body = self.texts.mail(
            "daemon/auth_rejected",
            lang,
            {
                "game": game.id,
                "reason": verdict.reason,
                "sender": str(msg.get("From", "")),
                "subject": str(msg.get("Subject", "")),
            },
        )
        mid, raw = self.game_notice(
            game,
            key=f"auth:{game.id}:{mid_in}:{now.isoformat()}",
            to=to,
            subject=subject,
            body=body,
            lang=lang,
            now=now,
            in_reply_to=mid_in,
        )
        return [
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[to],
                mail_from=self.cfg.bounce,
                now=now,
                kind="notice",  # a forgery warning stands alone, never in a digest
                game=game.id,
            )
        ]
