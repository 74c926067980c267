"""The daemon's own mail: a step's mail as outbox rows, the replies to a mail no game takes or
an authentication refuses, the admins' alerts, and the notices about a game addressed like the
game's mail (its thread, its From: :mod:`pbem.mail.threads`)."""

from __future__ import annotations

import difflib
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage, Message
from typing import Any

from pbem.daemon.auth import AuthVerdict
from pbem.daemon.config import Config
from pbem.daemon.gamelist import (
    game_list_address,
    graveyard_of,
    list_headers,
    list_readers,
    relaying,
)
from pbem.daemon.limits import SenderLimits, limit_note
from pbem.daemon.message import header_addresses
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.daemon.ports import Game
from pbem.daemon.seats import seat_rows
from pbem.daemon.threads import game_addressing
from pbem.judge.observer import graveyard_welcomes, open_to
from pbem.mail.address import is_mailable
from pbem.mail.envelope import build, build_outgoing
from pbem.mail.gameid import plus_tails
from pbem.mail.html import alternative
from pbem.mail.render import Renderer, bilingual
from pbem.mail.threads import addressed, dress, plus_address
from pbem.record.mail import archive_rows

log = logging.getLogger(__name__)


@dataclass
class Replies:
    """The daemon's own mail. Reads the configuration, the games (for a stranger's answer), the
    texts and the Message-ID key; spends the per-sender reply budget; counts what it
    suppresses in ``stats``."""

    cfg: Config
    texts: Renderer
    id_key: bytes
    limits: SenderLimits
    games: Mapping[str, Game]
    stats: Counter[str]

    def rows(self, game: Game, step: Any, now: datetime, *, error: bool) -> list[OutboxRow]:
        """Outbox rows for a step; per-sender limits on private automatic replies (§2.5)."""
        rows = []
        # read once a step, and the members only for an error's budget (issue 23: most steps
        # answer one mail that is no error)
        members = self.members(game) if error else set()
        how = game_addressing(self.cfg, game.store.setup)
        langs = self._langs(game)
        outgoing = (*step.outgoing, *self.graveyard_welcomes(game, step))
        for seq, out in enumerate(outgoing):
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
                    self.stats["rate_limited"] += 1
                    continue
                if resume is not None:  # this reply spends the last one: say so in it
                    out = limit_note(out, self.texts, langs(rcpts[0]), resume)
            elif out.public and relaying(self.cfg):
                rcpts = list_readers(game)  # the daemon is the list: to every member
            else:
                rcpts = list(out.to)
            reader = out.to[0] if out.to else ""
            lang = game.store.setup.get("lang", "fr") if out.public else langs(reader)
            filed = dress(out, how, self.texts, str(lang), self.id_key)  # its thread (issue 15)
            mid, raw = build_outgoing(
                filed.mail,
                sender=self.cfg.moderator,
                date=now,
                id_key=self.id_key,
                extra=list_headers(self.cfg, game.store.setup) if out.public else (),
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
            first_seq=len(outgoing),
            id_key=self.id_key,
            how=how,  # From, Reply-To, its thread
        )
        rows += seat_rows(self, game, step, now)  # a seat changed hands: its new code
        return rows

    def graveyard_welcomes(self, game: Game, step: Any) -> tuple[Any, ...]:
        """The graveyard's welcome to the players ``step`` kills and the observers it admits
        (issue 25), when the daemon keeps one; none for a lobby."""
        address = graveyard_of(self.cfg, game.store.setup)
        if not address or getattr(game.table, "roster", None) is None:
            return ()
        return tuple(graveyard_welcomes(game.table, step, address))  # type: ignore[arg-type]

    def members(self, game: Game) -> set[str]:
        """Who a game answers by the members' reply budget: its players and game masters, and
        the addresses whose seat changed hands (a former player is no stranger: each of his
        mails gets its polite refusal, issue 26)."""
        admins = [*self.cfg.admins, *map(str, game.store.setup.get("admins", []))]
        roster = getattr(game.table, "roster", None)
        former = roster.former if roster is not None else ()
        return {a.lower() for a in (*game.table.player_emails.values(), *admins, *former)}

    def lang(self, game: Game, address: str) -> str:
        """The language of the player at ``address`` in ``game``; a stranger: the daemon's."""
        return self._langs(game)(address)

    def _langs(self, game: Game) -> Callable[[str], str]:
        """:meth:`lang` for the addresses of one step: the game's players read once."""
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        langs, default = game.table.player_langs, self.cfg.language

        def lang(address: str) -> str:
            return langs.get(names.get(address.lower(), ""), default)

        return lang

    def bilingual(self, template: str, params: Mapping[str, Any]) -> tuple[str, str]:
        """A daemon text for several readers: French first, then English."""
        return bilingual(self.texts, template, params)

    def no_game_reply(self, msg: Message, sender: str, now: datetime) -> list[OutboxRow]:
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
        # a game master's mail with a mistyped game id (moderator+villag7): his games, never
        # « ask the game master »
        masters = [gid for gid in active if sender in self._game_masters(gid)]
        if not mine and not masters and self.cfg.strangers == "silent":
            return []
        if not self.limits.allow(sender, now, error=True):
            return []
        shown = mine or masters or (active if self.cfg.strangers == "games" else [])
        tag = self._asked_game(msg)
        # the nearest id among the games he may be told of only (issue 10, item 20)
        nearest = difflib.get_close_matches(tag, shown, n=1, cutoff=0.6) if tag else []
        local, _, domain = self.cfg.moderator.partition("@")
        # issue 25: where pbem relays the list, a stranger may follow a game (OBSERVER)
        watched = {gid for gid in active if not mine and self._takes_observers(gid)}
        games = [
            {"id": gid, "address": f"{local}+{gid}@{domain}", "observe": gid in watched}
            for gid in shown
        ]
        params = {
            "games": games,
            "player": bool(mine),
            "master": bool(masters) and not mine,
            "observe": bool(watched),
            "tag": tag,
            "nearest": nearest[0] if nearest else "",
        }
        _, body = self.bilingual("daemon/no_game", params)
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

    def _game_masters(self, gid: str) -> set[str]:
        """The addresses that master game ``gid``: the daemon's and the game's own."""
        setup = self.games[gid].store.setup
        return {a.lower() for a in (*self.cfg.admins, *map(str, setup.get("admins", [])))}

    def _asked_game(self, msg: Message) -> str:
        """The game id a mail's plus address names that no game has (``moderator+villag7@``),
        or empty (a Subject's bracket may be anything: « [Lupus] », a list's tag)."""
        asked = plus_tails(self.cfg.moderator, header_addresses(msg, "To", "Cc"))
        unknown = sorted(asked - {gid.lower() for gid in self.games} - {""})
        return unknown[0] if unknown else ""

    def _takes_observers(self, gid: str) -> bool:
        """Whether a stranger may ask to follow the game: pbem relays its list and its
        ``observers`` option is not ``closed`` (another engine's table has no observers)."""
        table = self.games[gid].table
        if not relaying(self.cfg) or getattr(table, "roster", None) is None:
            return False
        return bool(open_to(table, relay=True))  # type: ignore[arg-type]

    def admin_secrets(self, game: Game) -> list[Mapping[str, str]]:
        """The admin codes a game master's mail may carry: the game's, the daemon's."""
        own = game.store.meta.get("admin_secret")
        return [c for c in (own, self.cfg.auth.admin_secret_hash) if c]

    def admin_refused(
        self, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
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
        return self.admin_alert(
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

    def auth_notice(
        self, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
    ) -> list[OutboxRow]:
        """A rejected command: notice to the REGISTERED address, never Reply-To (requirement 7)."""
        to = verdict.registered
        # a bucket of its own: forged mail never spends the real player's replies
        if not to or not self.limits.take(to, now, notice=True)[0]:
            return []
        mid_in = str(msg.get("Message-ID", "") or "") or None
        notice = self.game_notice(
            game,
            key=f"auth:{game.id}:{mid_in}:{now.isoformat()}",
            to=to,
            template="daemon/auth_rejected",
            params={
                "game": game.id,
                "reason": verdict.reason,
                "sender": str(msg.get("From", "")),
                "subject": str(msg.get("Subject", "")),
            },
            answering=msg,
            now=now,
            kind="notice",  # a forgery warning stands alone, never in a digest
        )
        return [notice]

    def daemon_mail(
        self,
        key: str,
        to: tuple[str, ...],
        subject: str,
        body: str,
        now: datetime,
        *,
        lang: str = "fr",
        **headers: Any,
    ) -> tuple[str, bytes]:
        """One of the daemon's own mails (an alert, a notice, a reply): from the moderator,
        with its HTML alternative, its Message-ID made from ``key`` under the daemon's key;
        ``headers``: the rest of :func:`pbem.mail.envelope.build`'s arguments."""
        html = alternative(subject, body, enabled=self.cfg.html_mail, lang=lang)
        return build(
            key=key,
            sender=self.cfg.moderator,
            to=to,
            subject=subject,
            body=body,
            html=html,
            date=now,
            id_key=self.id_key,
            **headers,
        )

    def admin_alert(
        self,
        key: str,
        now: datetime,
        template: str,
        params: Mapping[str, Any],
        appendix: str = "",
        to: Sequence[str] | None = None,
    ) -> list[OutboxRow]:
        """An alert to the admins (none when there are none): ``template`` rendered French then
        English, like the daemon's other mails; ``appendix`` (a traceback: the same in every
        language) follows both. ``key`` makes its Message-ID, so a redone alert is one mail.
        ``to``: other recipients than the daemon's admins (a game's own game masters too)."""
        admins = tuple(to) if to is not None else self.cfg.admins
        if not admins:
            return []
        subject, body = self.bilingual(template, params)
        if appendix:
            body += f"\n-----\n\n{appendix.rstrip()}\n"
        mid, raw = self.daemon_mail(key, admins, subject, body, now)
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

    def from_game(self, game: Game, *, public: bool = False) -> dict[str, Any]:
        """The From, Reply-To and Message-ID of the daemon's own mail about ``game``, like
        the game's (:func:`pbem.mail.threads.addressed`)."""
        return addressed(game_addressing(self.cfg, game.store.setup), public=public)

    def game_notice(
        self,
        game: Game,
        *,
        key: str,
        to: str,
        template: str,
        params: Mapping[str, Any],
        answering: Message | None,
        now: datetime,
        kind: str,
    ) -> OutboxRow:
        """One of the daemon's own answers about ``game`` to one address (a confirmation
        request, a lapsed confirmation, a refused post, a forgery warning): ``template`` in
        its reader's language, an automatic reply under the mail it answers (``answering``),
        addressed like the game's mail, with its HTML alternative, as the outbox row of
        ``kind``."""
        lang = self.lang(game, to)
        subject, body = self.texts.mail(template, lang, params)
        mid_in = str(answering.get("Message-ID", "") or "") if answering is not None else ""
        mid, raw = self.daemon_mail(
            key,
            (to,),
            subject,
            body,
            now,
            lang=lang,
            auto="auto-replied",
            in_reply_to=mid_in or None,
            **self.from_game(game),
        )
        return make_row(
            message_id=mid,
            raw=raw,
            rcpts=[to],
            mail_from=self.cfg.bounce,
            now=now,
            kind=kind,
            game=game.id,
        )

    def routed_note(self, game: Game, sender: str) -> str:
        """The note that a mail reached ``game`` only through the mail it answered."""
        address = plus_address(self.cfg.moderator, game.id)
        params = {"game": game.id, "address": address}
        return self.texts.text("daemon/thread_routed", self.lang(game, sender), params)

    def public_row(self, game: Game, key: str, subject: str, body: str, now: datetime) -> OutboxRow:
        """A daemon notice to the game's public thread (the list, or every player)."""
        to = self.announce_recipients(game)
        mid, raw = self.daemon_mail(
            key,
            to,
            subject,
            body,
            now,
            public=True,
            extra=list_headers(self.cfg, game.store.setup),
            **self.from_game(game, public=True),
        )
        members = list_readers(game)
        return make_row(
            message_id=mid,
            raw=raw,
            rcpts=members if relaying(self.cfg) else to,
            mail_from=self.cfg.bounce,
            now=now,
            kind="public",
            game=game.id,
        )

    def announce_recipients(self, game: Game) -> tuple[str, ...]:
        """Where a public notice goes: the game's list, else every player."""
        lst = game_list_address(self.cfg, game.store.setup)
        if lst:
            return (lst,)
        return tuple(sorted(set(game.table.player_emails.values())))
