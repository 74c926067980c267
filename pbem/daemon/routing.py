"""Which game and which channel a mail is for: the plus address, a game's list, a ``[tag]``,
the mail it answers (issue 15), the sender's only game; and the posts of an external list whose
From the list rewrote (DMARC), given back to their authors."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import Message

from pbem.daemon.config import Config
from pbem.daemon.gamelist import graveyard_of, relaying
from pbem.daemon.message import header_addresses
from pbem.daemon.outbox import OutboxRow
from pbem.daemon.ports import Channel, Game
from pbem.daemon.replies import Replies
from pbem.daemon.seats import replaced_in, waits_for_code
from pbem.mail.listpost import Attribution, attribute
from pbem.mail.threads import thread_game

log = logging.getLogger(__name__)

_TAG = re.compile(r"\[([A-Za-z0-9_.-]{1,64})\]")
_THREAD_HEADERS = ("In-Reply-To", "References")


@dataclass
class Router:
    """Routes inbound mail. Reads the configuration, the games, the Message-ID key (the game
    of a mail answered is in its Message-ID) and the daemon's own addresses; alerts the game
    masters of an unattributed list post through ``replies``."""

    cfg: Config
    games: Mapping[str, Game]
    id_key: bytes
    our_addresses: set[str]
    replies: Replies

    def list_addresses(self) -> set[str]:
        """Every game's list address and the configured one, lower-case."""
        lists = {str(g.store.setup.get("list", "")).lower() for g in self.games.values()}
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        lists.discard("")
        return lists

    def list_rewrite(self, msg: Message, channel: Channel) -> Attribution | None:
        """A post of an external list whose From the list rewrote for DMARC, and its author
        (:mod:`pbem.mail.listpost`); None for any other mail. A relayed list's posts reach us
        directly, never rewritten."""
        if channel != "list" or relaying(self.cfg):
            return None
        players = {a.lower() for g in self.games.values() for a in g.table.player_emails.values()}
        return attribute(msg, self.list_addresses(), players, self.our_addresses)

    def unattributed(
        self, game: Game, munged: Attribution, msg: Message, now: datetime
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
        alert = self.replies.admin_alert(
            mark,
            now,
            "daemon/alert_unattributed",
            {"game": game.id, "author": munged.author or "", **post},
            to=admins,
        )
        return (mark,), alert

    def graveyards(self) -> dict[str, list[Game]]:
        """Each graveyard address (``[list] graveyard``, issue 25) and the games it serves."""
        out: dict[str, list[Game]] = {}
        for g in self.games.values():
            address = graveyard_of(self.cfg, g.store.setup).lower()
            if address:
                out.setdefault(address, []).append(g)
        return out

    def channel(self, msg: Message, rcpts: Sequence[str] | None = None) -> Channel:
        """Where the mail came by: ``graveyard`` (the dead's list), ``list`` (by List-Id or a list
        address) or ``private``."""
        to_cc = header_addresses(msg, "To", "Cc") if rcpts is None else rcpts
        if self.cfg.list_graveyard and set(self.graveyards()) & set(to_cc):
            return "graveyard"  # first: a post to both lists never reaches the living
        list_id = str(msg.get("List-Id", "") or "").lower()
        if self.cfg.list_id and self.cfg.list_id.lower() in list_id:
            return "list"
        lists = {g.store.setup.get("list", "").lower() for g in self.games.values()}
        lists.discard("")
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        if list_id and any(a.replace("@", ".") in list_id for a in lists):
            return "list"
        if lists & set(to_cc):
            return "list"
        return "private"

    def route(
        self, msg: Message, rcpts: Sequence[str] | None = None, sender: str | None = None
    ) -> Game | None:
        """Plus-address, then the list address of exactly one game, then a ``[tag]`` in the
        Subject, then the game of the mail it answers (In-Reply-To/References), then the
        sender's only active game. ``rcpts`` (To and Cc) and ``sender`` are the mail's, when
        already read."""
        return self.route_how(msg, rcpts, sender)[0]

    def route_how(
        self, msg: Message, rcpts: Sequence[str] | None = None, sender: str | None = None
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
        if self.cfg.list_graveyard:  # a game's graveyard (issue 25), if it is its own
            buried = {id(g): g for a in to_cc for g in self.graveyards().get(a, [])}
            if len(buried) == 1:
                return next(iter(buried.values())), "list"
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
        if not mine:  # an address waiting for its code (ADRESSE, issue 25): told how to confirm
            mine = [g for g in self.games.values() if waits_for_code(g.table, sender)]
        answered = self.thread_game(msg, sender)  # issue 15
        if answered is not None:
            alone = len(mine) == 1 and mine[0] is answered  # he would have reached it anyway
            return answered, "sender" if alone else "thread"
        return (mine[0], "sender") if len(mine) == 1 else (None, "")

    def thread_game(self, msg: Message, sender: str) -> Game | None:
        """The game of the pbem mail ``msg`` answers (its In-Reply-To, then References), if
        it runs and ``sender`` is in it: a reply to an old game's mail is how many write to us
        anew, and it must not take them away from their running game."""
        answered = thread_game([str(msg.get(h, "") or "") for h in _THREAD_HEADERS], self.id_key)
        for gid, game in self.games.items():
            if gid.lower() == answered and not game.table.finished:
                return game if sender in self.replies.members(game) else None
        return None
