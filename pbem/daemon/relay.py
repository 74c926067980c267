"""The game's list, and the list when the daemon relays it itself: the relayed copies, stopped
posts and held posts released (which game and channel a mail is for: :mod:`pbem.daemon.routing`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage, Message
from typing import TYPE_CHECKING, Any

from pbem.daemon.config import Config
from pbem.daemon.confirmations import lapsed_mark
from pbem.daemon.gamelist import (
    game_list_address,
    graveyard_of,
    list_readers,
    poster_of,
    relaying,
)
from pbem.daemon.limits import SenderLimits
from pbem.daemon.listgate import PosterLimits, stop_reason
from pbem.daemon.message import header_addresses, parse
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.daemon.ports import FaultHook, Game
from pbem.daemon.seats import shown_name
from pbem.judge.observer import graveyard_members
from pbem.mail.relay import list_id_for, relay_copy

if TYPE_CHECKING:
    from pbem.daemon.bounces import Bounces
    from pbem.daemon.replies import Replies

log = logging.getLogger(__name__)


@dataclass
class Relay:
    """The list, when the daemon is the list. Reads the configuration, the Message-ID key and
    the daemon's own addresses; spends the posters' and the per-sender budgets; mails through
    ``replies``; reads a game's phase window from ``bounces``; ``fault`` is the tests' hook,
    ``wake`` tells the sender new rows wait."""

    cfg: Config
    id_key: bytes
    our_addresses: set[str]
    posters: PosterLimits
    limits: SenderLimits
    replies: Replies
    bounces: Bounces
    fault: FaultHook
    wake: Callable[[], None]

    def relay_row(
        self,
        game: Game,
        key: str,
        msg: Message,
        raw: bytes,
        now: datetime,
        held_for: Collection[str] = (),
    ) -> OutboxRow:
        """The outbox row that distributes one accepted list post to the list's members but
        ``held_for`` (the digest's readers: the post is kept for their digest, issue 25)."""
        address = game_list_address(self.cfg, game.store.setup)
        return self._copy_row(
            game,
            raw,
            key=key,
            poster=str(poster_of(game, msg)),
            address=address,
            list_id=list_id_for(address, self.cfg.list_id),
            rcpts=[a for a in list_readers(game) if a.lower() not in held_for],
            now=now,
        )

    def graveyard_row(
        self, game: Game, key: str, msg: Message, raw: bytes, now: datetime
    ) -> OutboxRow:
        """The outbox row that distributes one accepted graveyard post (issue 25) to the dead,
        the observers and the game masters: never to a living player."""
        sender = (header_addresses(msg, "From") or [""])[0]
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        masters = {str(a).lower() for a in game.store.setup.get("admins", [])}
        # an observer has no name in the game: the local part of his address
        poster = (
            shown_name(game.table, names[sender])
            if sender in names
            else "MJ"
            if sender in masters or sender in {a.lower() for a in self.cfg.admins}
            else sender.partition("@")[0]
        )
        address = graveyard_of(self.cfg, game.store.setup)
        return self._copy_row(
            game,
            raw,
            key=f"graveyard:{key}",
            poster=str(poster),
            address=address,
            list_id=list_id_for(address),
            rcpts=graveyard_members(game.table),  # type: ignore[arg-type]
            now=now,
        )

    def _copy_row(
        self,
        game: Game,
        raw: bytes,
        *,
        key: str,
        poster: str,
        address: str,
        list_id: str,
        rcpts: list[str],
        now: datetime,
    ) -> OutboxRow:
        """The outbox row of one post's copy, as sent from ``address`` to ``rcpts``."""
        mid, copy = relay_copy(
            raw,
            key=key,
            poster=poster,
            game_tag=game.id,
            list_address=address,
            list_id=list_id,
            moderator=self.cfg.moderator,
            date=now,
            id_key=self.id_key,
            strip_codes=self.codes_in_use,
        )
        return make_row(
            message_id=mid,
            raw=copy,
            rcpts=rcpts,
            mail_from=self.cfg.bounce,
            now=now,
            kind="relay",
            game=game.id,
        )

    def stop_post(
        self,
        game: Game,
        key: str,
        info: Mapping[str, Any],
        msg: EmailMessage,
        raw: bytes,
        registered: str,
        now: datetime,
        graveyard: bool = False,
    ) -> bool:
        """A player's list post that must not reach the members (:mod:`pbem.daemon.listgate`): it
        carries one of pbem's private mails (issue 10 item 15: the game master is alerted),
        it is over the length caps, or its poster is past his hourly limit (item 16). Such a
        post is neither relayed nor read; its poster is told why (naming the graveyard for a
        post there, issue 25). True if it was stopped (then committed with its ledger key)."""
        lists = {game_list_address(self.cfg, game.store.setup), self.cfg.list_address or ""} - {""}
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
            notice = self.replies.game_notice(
                game,
                key=f"stopped:{game.id}:{key}",
                to=registered,
                template="daemon/post_not_relayed",
                params={"game": game.id, "reason": reason, "graveyard": graveyard, **params},
                answering=msg,
                now=now,
                kind="notice",
            )
            rows.append(notice)
        masters = [str(a) for a in game.store.setup.get("admins", [])] or list(self.cfg.admins)
        if reason == "private_mail" and masters:
            names = {a.lower(): n for n, a in game.table.player_emails.items()}
            subject, body = self.replies.bilingual(
                "daemon/alert_private_post",
                {
                    "game": game.id,
                    "poster": names.get(registered.lower(), registered),
                    "how": params["how"],
                    "subject": " ".join(str(msg.get("Subject", "") or "").split())[:200],
                },
            )
            mid, mail = self.replies.daemon_mail(
                f"private-post:{game.id}:{key}", tuple(masters), subject, body, now
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
        self.wake()
        return True

    @property
    def codes_in_use(self) -> bool:
        """Players or game masters may write a SECRET line: no relayed copy may carry it
        (issue 10 item 10)."""
        auth = self.cfg.auth
        # game masters write one too: their admin code (issue 10 item 9)
        return auth.admin_secret or "secret" in (*auth.methods, *(auth.final_methods or ()))

    def release_held(self, game: Game, now: datetime) -> int:
        """Relay the held posts whose senders may post again (the list reopened), drop those
        of players who may no longer post, in arrival order; one commit. Returns the number
        released or dropped. First, a pending confirmation from a phase that has ended lapses
        (a late vote would be refused anyway): held posts never outlive their phase."""
        entries = game.store.held_entries()
        if not entries:  # after most mails: nothing to lapse or release, no window to make
            return 0
        window = self.bounces.window(game)
        ended = [
            h for h in entries if h.get("kind") == "confirm" and h.get("window", window) != window
        ]
        if ended:
            # a mark per token stays in the ledger: a confirmation arriving later is refused
            # with the reason (issue 10 item 11), not taken for an unrelated mail
            marks = [lapsed_mark(str(h.get("token")), str(h.get("player"))) for h in ended]
            game.store.commit(unhold=[str(h["key"]) for h in ended], extra_keys=marks)
            game.keys.update(marks)
            log.info("game %s: %d pending confirmation(s) lapsed", game.id, len(ended))
        if not relaying(self.cfg):
            return 0
        rows: list[OutboxRow] = []
        done: list[str] = []
        still: list[str] = []
        for held in game.store.held_entries():
            if held.get("kind") in ("confirm", "digest"):
                continue  # waits for its poster's confirmation, or for the digest (issue 25)
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
                    rows.append(self.relay_row(game, str(held["key"]), msg, raw, now))
                else:
                    rows += self.replies.rows(game, step, now, error=False)
            except Exception:  # it was parsed once already; a bug must not block the game
                log.exception("game %s: held post %s could not be released", game.id, held["key"])
                continue
            done.append(str(held["key"]))
        if still:  # asked again only when this phase ends, not after every mail
            game.store.set_held_window(still, window)
        if done:
            game.store.commit(outbox=rows, unhold=done)
            log.info("game %s: %d held post(s) released", game.id, len(done))
            self.wake()
        return len(done)
