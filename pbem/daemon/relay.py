# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The game's list, and the list when the daemon relays it itself: routing a mail to its game
and channel, the relayed copies, stopped posts and held posts released."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.message import EmailMessage, Message
from typing import TYPE_CHECKING, Any

from pbem.daemon.config import Config
from pbem.daemon.confirmations import lapsed_mark
from pbem.daemon.listgate import stop_reason
from pbem.daemon.message import header_addresses, parse
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.daemon.ports import Channel, Game
from pbem.daemon.seats import replaced_in, shown_name
from pbem.mail.envelope import build
from pbem.mail.html import alternative
from pbem.mail.listpost import Attribution, attribute
from pbem.mail.relay import list_id_for, relay_copy

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


def game_list_address(cfg: Config, setup: Mapping[str, Any]) -> str:
    """The game's list: its own (setup ``list``), else the configured one."""
    return str(setup.get("list") or cfg.list_address or "")


def list_members(setup: Mapping[str, Any], player_emails: Mapping[str, str]) -> list[str]:
    """Who a relayed post or a public result reaches when the daemon is the list: every
    player, dead or alive (the dead may read), and the game's administrators."""
    admins = [str(a) for a in setup.get("admins", [])]
    return sorted({*player_emails.values(), *admins})


def list_headers(cfg: Config, setup: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What a list adds to what it distributes, when the daemon is the list; else nothing."""
    if cfg.list_mode != "relay":
        return ()
    address = game_list_address(cfg, setup)
    return (
        ("List-Id", list_id_for(address, cfg.list_id)),
        ("List-Post", f"<mailto:{address}>"),
    )


_TAG = re.compile(r"\[([A-Za-z0-9_.-]{1,64})\]")


class RelayMixin:
    """The service's part for the relay (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def list_address(self: Service, game: Game) -> str:
        return game_list_address(self.cfg, game.store.setup)

    def list_members(self: Service, game: Game) -> list[str]:
        return list_members(game.store.setup, game.table.player_emails)

    def list_headers(self: Service, game: Game) -> tuple[tuple[str, str], ...]:
        return list_headers(self.cfg, game.store.setup)

    def _relay_row(
        self: Service, game: Game, key: str, msg: Message, raw: bytes, now: datetime
    ) -> OutboxRow:
        """The outbox row that distributes one accepted list post to the list's members."""
        sender = (header_addresses(msg, "From") or [""])[0]
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        # the seat's shown name (a newcomer's, issue 13); otherwise a game administrator
        poster = shown_name(game.table, names[sender]) if sender in names else "MJ"
        address = self.list_address(game)
        mid, copy = relay_copy(
            raw,
            key=key,
            poster=str(poster),
            game_tag=game.id,
            list_address=address,
            list_id=list_id_for(address, self.cfg.list_id),
            moderator=self.cfg.moderator,
            date=now,
            id_key=self.id_key,
            strip_codes=self._codes_in_use,
        )
        return make_row(
            message_id=mid,
            raw=copy,
            rcpts=self.list_members(game),
            mail_from=self.cfg.bounce,
            now=now,
            kind="relay",
            game=game.id,
        )

    def _stop_post(
        self: Service,
        game: Game,
        key: str,
        info: Mapping[str, Any],
        msg: EmailMessage,
        raw: bytes,
        registered: str,
        now: datetime,
    ) -> bool:
        """A player's list post that must not reach the members (:mod:`pbem.daemon.listgate`): it
        carries one of pbem's private mails (issue 10 item 15: the game master is alerted),
        it is over the length caps, or its poster is past his hourly limit (item 16). Such a
        post is neither relayed nor read; its poster is told why. True if it was stopped
        (then committed with its ledger key)."""
        lists = {self.list_address(game), self.cfg.list_address or ""} - {""}
        stop = stop_reason(
            msg,
            raw,
            limits=self.cfg.list_limits,
            posters=self.posters,
            game=game.id,
            poster=registered,
            now=now,
            id_key=self.id_key,
            ours=self.our_addresses,
            lists=lists,
        )
        if stop is None:
            return False
        reason, params = stop
        log.warning("game %s: list post %s not relayed: %s", game.id, key[:12], reason)
        rows = []
        # a poster past his limit hears it within the error budget; the other reasons are
        # rarer and must be heard (the daily budget still bounds them)
        if self.limits.allow(registered, now, error=reason == "too_many"):
            names = {a.lower(): n for n, a in game.table.player_emails.items()}
            name = names.get(registered.lower(), "")
            lang = game.table.player_langs.get(name, self.cfg.language)
            subject, body = self.texts.mail(
                "daemon/post_not_relayed", lang, {"game": game.id, "reason": reason, **params}
            )
            mid_in = str(msg.get("Message-ID", "") or "") or None
            mid, mail = self.game_notice(
                game,
                key=f"stopped:{game.id}:{key}",
                to=registered,
                subject=subject,
                body=body,
                lang=lang,
                now=now,
                in_reply_to=mid_in,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=mail,
                    rcpts=[registered],
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="notice",
                    game=game.id,
                )
            )
        masters = [str(a) for a in game.store.setup.get("admins", [])] or list(self.cfg.admins)
        if reason == "private_mail" and masters:
            names = {a.lower(): n for n, a in game.table.player_emails.items()}
            subject, body = self._bilingual(
                "daemon/alert_private_post",
                {
                    "game": game.id,
                    "poster": names.get(registered.lower(), registered),
                    "how": params["how"],
                    "subject": " ".join(str(msg.get("Subject", "") or "").split())[:200],
                },
            )
            mid, mail = build(
                key=f"private-post:{game.id}:{key}",
                sender=self.cfg.moderator,
                to=tuple(masters),
                subject=subject,
                body=body,
                html=alternative(subject, body, enabled=self.cfg.html_mail),
                date=now,
                id_key=self.id_key,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=mail,
                    rcpts=masters,
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="alert",
                    game=game.id,
                    bypass_cap=True,
                )
            )
        game.store.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": reason})
        self.fault("after_state")
        game.keys.add(key)
        self.sender.wake()
        return True

    @property
    def _codes_in_use(self: Service) -> bool:
        """Players or game masters may write a SECRET line: no relayed copy may carry it
        (issue 10 item 10)."""
        auth = self.cfg.auth
        # game masters write one too: their admin code (issue 10 item 9)
        return auth.admin_secret or "secret" in (*auth.methods, *(auth.final_methods or ()))

    def release_held(self: Service, game: Game, now: datetime) -> int:
        """Relay the held posts whose senders may post again (the list reopened), drop those
        of players who may no longer post, in arrival order; one commit. Returns the number
        released or dropped. First, a pending confirmation from a phase that has ended lapses
        (a late vote would be refused anyway): held posts never outlive their phase."""
        window = self._bounce_window(game)
        ended = [
            h
            for h in game.store.held_entries()
            if h.get("kind") == "confirm" and h.get("window", window) != window
        ]
        if ended:
            # a mark per token stays in the ledger: a confirmation arriving later is refused
            # with the reason (issue 10 item 11), not taken for an unrelated mail
            marks = [lapsed_mark(str(h.get("token")), str(h.get("player"))) for h in ended]
            game.store.commit(unhold=[str(h["key"]) for h in ended], extra_keys=marks)
            game.keys.update(marks)
            log.info("game %s: %d pending confirmation(s) lapsed", game.id, len(ended))
        if not self.relay:
            return 0
        rows: list[OutboxRow] = []
        done: list[str] = []
        still: list[str] = []
        for held in game.store.held_entries():
            if held.get("kind") == "confirm":
                continue  # waits for its poster's confirmation, not for the list
            if held.get("window") == window:
                continue  # the phase it was held in goes on: the list has not reopened
            raw = game.store.held_raw(held)
            try:
                msg = parse(raw)
                step = game.table.release(msg, now)
                if step.post == "hold":
                    still.append(str(held["key"]))
                    continue
                if step.post == "relay":
                    rows.append(self._relay_row(game, str(held["key"]), msg, raw, now))
                else:
                    rows += self._rows(game, step, now, error=False)
            except Exception:  # it was parsed once already; a bug must not block the game
                log.exception("game %s: held post %s could not be released", game.id, held["key"])
                continue
            done.append(str(held["key"]))
        if still:  # asked again only when this phase ends, not after every mail
            game.store.set_held_window(still, window)
        if done:
            game.store.commit(outbox=rows, unhold=done)
            log.info("game %s: %d held post(s) released", game.id, len(done))
            self.sender.wake()
        return len(done)

    def _list_addresses(self: Service) -> set[str]:
        lists = {str(g.store.setup.get("list", "")).lower() for g in self.games.values()}
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        lists.discard("")
        return lists

    def _list_rewrite(self: Service, msg: Message, channel: Channel) -> Attribution | None:
        """A post of an external list whose From the list rewrote for DMARC, and its author
        (:mod:`pbem.mail.listpost`); None for any other mail. A relayed list's posts reach us
        directly, never rewritten."""
        if channel != "list" or self.relay:
            return None
        players = {a.lower() for g in self.games.values() for a in g.table.player_emails.values()}
        return attribute(msg, self._list_addresses(), players, self.our_addresses)

    def _unattributed(
        self: Service, game: Game, munged: Attribution, msg: Message, now: datetime
    ) -> tuple[tuple[str, ...], list[OutboxRow]]:
        """A rewritten list post attributed to no player: the game master is told once per
        sender (the ledger key, committed with the post, remembers it across restarts)."""
        who = (munged.author or munged.label).lower()
        mark = "unattributed:" + hashlib.sha256(f"{game.id}\n{who}".encode()).hexdigest()
        if mark in game.keys:
            return (), []
        log.warning("game %s: list post from %r attributed to no player", game.id, who)
        shown = msg.get("X-Pbem-List-From") or msg.get("From", "")
        post = {"shown": str(shown).strip(), "subject": str(msg.get("Subject", "") or "")}
        admins = tuple(sorted({*self.cfg.admins, *map(str, game.store.setup.get("admins", []))}))
        alert = self._admin_alert(
            mark,
            now,
            "daemon/alert_unattributed",
            {"game": game.id, "author": munged.author or "", **post},
            to=admins,
        )
        return (mark,), alert

    def _channel(self: Service, msg: Message, rcpts: Sequence[str] | None = None) -> Channel:
        list_id = str(msg.get("List-Id", "") or "").lower()
        if self.cfg.list_id and self.cfg.list_id.lower() in list_id:
            return "list"
        lists = {g.store.setup.get("list", "").lower() for g in self.games.values()}
        lists.discard("")
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        if list_id and any(a.replace("@", ".") in list_id for a in lists):
            return "list"
        if lists & set(header_addresses(msg, "To", "Cc") if rcpts is None else rcpts):
            return "list"
        return "private"

    def route(
        self: Service, msg: Message, rcpts: Sequence[str] | None = None, sender: str | None = None
    ) -> Game | None:
        """Plus-address, then the list address of exactly one game, then a ``[tag]`` in the
        Subject, then the game of the mail it answers (In-Reply-To/References), then the
        sender's only active game. ``rcpts`` (To and Cc) and ``sender`` are the mail's, when
        already read."""
        return self.route_how(msg, rcpts, sender)[0]

    def route_how(
        self: Service, msg: Message, rcpts: Sequence[str] | None = None, sender: str | None = None
    ) -> tuple[Game | None, str]:
        """:meth:`route`, and how the game was found: ``thread`` when only through the mail
        it answers (its reply says so), else ``plus``, ``list``, ``tag``, ``sender``."""
        local, _, domain = self.cfg.moderator.lower().partition("@")
        to_cc = header_addresses(msg, "To", "Cc") if rcpts is None else list(rcpts)
        for addr in to_cc + header_addresses(msg, "Delivered-To", "X-Original-To"):
            a_local, _, a_domain = addr.partition("@")
            if a_domain == domain and a_local.startswith(local + "+"):
                tag = a_local[len(local) + 1 :]
                for gid, g in self.games.items():
                    if gid.lower() == tag:
                        return g, "plus"
        listed = [
            g for g in self.games.values() if str(g.store.setup.get("list", "")).lower() in to_cc
        ]
        if len(listed) == 1:  # a game with a list of its own (several games may share one)
            return listed[0], "list"
        subject = str(msg.get("Subject", "") or "")
        for tag in _TAG.findall(subject):
            for gid, g in self.games.items():
                if gid.lower() == tag.lower():
                    return g, "tag"
        if sender is None:
            sender = (header_addresses(msg, "From") or [""])[0]
        mine = [
            g
            for g in self.games.values()
            if not g.table.finished
            and sender in {e.lower() for e in g.table.player_emails.values()}
        ]
        if not mine:  # a replaced player's only game tells him so politely (issue 13)
            mine = [g for g in self.games.values() if replaced_in(g.table, sender)]
        answered = self.thread_game(msg, sender)  # issue 15 (pbem.daemon.threads)
        if answered is not None:
            alone = len(mine) == 1 and mine[0] is answered  # he would have reached it anyway
            return answered, "sender" if alone else "thread"
        return (mine[0], "sender") if len(mine) == 1 else (None, "")
