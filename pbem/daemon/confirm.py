"""Public votes confirmed through the registered address (requirement 6, ``[auth] list_votes =
confirm``): the request, the pending vote, the confirmation and its lapse. The pure part is
:mod:`pbem.daemon.confirmations`."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage, Message
from typing import Any

from pbem.daemon.bounces import Bounces
from pbem.daemon.config import Config
from pbem.daemon.confirmations import lapsed, lapsed_mark, other_lines, phase_of
from pbem.daemon.limits import SenderLimits
from pbem.daemon.message import header_addresses, parse, visible_text
from pbem.daemon.outbox import OutboxRow
from pbem.daemon.ports import Engine, FaultHook, Game
from pbem.daemon.replies import Replies

log = logging.getLogger(__name__)

_CONFIRM = re.compile(r"CONFIRM-([0-9a-f]{16})\b", re.IGNORECASE)


@dataclass
class Confirmations:
    """Public votes confirmed by private mail. Reads the configuration; builds a game's table
    again from its store with ``engine`` (a failed commit); mails through ``replies`` and
    spends the per-sender budget; clears a player's bounces (``bounces``) and rearms the game's
    deadlines (``rearm``) after his commands count; ``fault`` is the tests' hook, ``wake`` tells
    the sender new rows wait."""

    cfg: Config
    engine: Engine
    limits: SenderLimits
    replies: Replies
    bounces: Bounces
    rearm: Callable[[Game], None]
    fault: FaultHook
    wake: Callable[[], None]

    def request(
        self,
        game: Game,
        key: str,
        msg: Message,
        raw: bytes,
        lines: Sequence[str],
        now: datetime,
    ) -> tuple[dict[str, Any], OutboxRow]:
        """The pending post (kept with the game) and the mail asking its confirmation, sent
        to the REGISTERED address: a forger never sees the token."""
        sender = (header_addresses(msg, "From") or [""])[0]
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        name = names[sender]
        to = game.table.player_emails[name]
        token = secrets.token_hex(8)
        row = self.replies.game_notice(
            game,
            key=f"confirm:{game.id}:{key}",
            to=to,
            template="daemon/confirm_vote",
            params={
                "game": game.id,
                "token": token,
                "lines": list(lines),
                "secret": "secret" in self.cfg.auth.methods,
            },
            answering=msg,
            now=now,
            kind="confirm",  # its Subject carries the token: never in a digest
        )
        pending = {
            "key": key,
            "kind": "confirm",
            "token": token,
            "player": to.lower(),
            "raw": raw.decode("latin-1"),
            "at": now.isoformat(),
            "phase": phase_of(game.table.deadlines()),  # it lapses with its phase
        }
        return pending, row

    def pending(self, game: Game, msg: EmailMessage, registered: str) -> dict[str, Any] | None:
        """The pending list post this private mail confirms: its token, from its poster."""
        tokens = set(_CONFIRM.findall(visible_text(msg)))
        if not tokens:
            return None
        for held in game.store.held():
            if (
                held.get("kind") == "confirm"
                and held.get("token") in tokens
                and held.get("player") == registered.lower()
            ):
                return held
        for token in tokens:  # its phase ended before the confirmation came: lapsed
            if lapsed_mark(token, registered) in game.keys:
                return {"key": "", "token": token, "player": registered.lower(), "phase": ""}
        return None

    def confirm(
        self,
        game: Game,
        key: str,
        info: Mapping[str, Any],
        pending: dict[str, Any],
        now: datetime,
        *,
        strong: bool,
        keys: Sequence[str] = (),
        mail: EmailMessage | None = None,
    ) -> None:
        """Run the confirmed post's commands now, in one commit with the confirmation's ledger
        key, unless its phase is over (issue 10 item 11: it lapses with its phase, and the
        player is told why). The confirming mail's other lines are answered as a private mail
        (:func:`pbem.daemon.confirmations.other_lines`), after the confirmed commands."""
        steps: list[Any] = []
        rows: list[OutboxRow] = []
        if lapsed(pending, phase_of(game.table.deadlines())):
            log.info("game %s: confirmation of %s lapsed with its phase", game.id, pending["key"])
            rows += self.lapsed_notice(game, pending, mail, now)
        else:
            post = parse(str(pending["raw"]).encode("latin-1"))
            steps.append(
                game.table.receive(post, channel="list", now=now, confirm="apply", strong=strong)
            )
            rows += self.replies.rows(game, steps[0], now, error=not steps[0].events)
        rest = other_lines(mail) if mail is not None else None
        applied = 0
        try:
            if rest is not None:
                for step in steps:  # the rest reads the state after the confirmed commands
                    game.table.apply(step)
                    applied += 1
                step = game.table.receive(rest, channel="private", now=now, strong=strong)
                rows += self.replies.rows(game, step, now, error=not step.events)
                steps.append(step)
            game.store.commit(
                events=[e for step in steps for e in step.events],
                outbox=rows,
                ledger_key=key,
                ledger_info={**info, "why": "confirmation"},
                unhold=[str(pending["key"])] if pending["key"] else [],
                extra_keys=keys,
            )
        except BaseException:
            if applied:  # not committed: the table goes back to what the store holds
                game.table = self.engine.load(game.store.setup, game.store.events())
            raise
        self.fault("after_state")
        game.keys.add(key)
        game.keys.update(keys)
        for step in steps[applied:]:
            game.table.apply(step)
        if any(step.events for step in steps):
            self.bounces.clear(game, str(pending["player"]), now)
        self.rearm(game)
        self.wake()

    def lapsed_notice(
        self,
        game: Game,
        pending: Mapping[str, Any],
        msg: EmailMessage | None,
        now: datetime,
    ) -> list[OutboxRow]:
        """The player confirmed a post whose phase is over: nothing counts, and he is told."""
        to = str(pending["player"])
        if not self.limits.take(to, now)[0]:
            return []
        notice = self.replies.game_notice(
            game,
            key=f"lapsed:{game.id}:{pending['token']}",
            to=to,
            template="daemon/confirm_lapsed",
            params={"game": game.id, "at": pending.get("at") or ""},
            answering=msg,
            now=now,
            kind="reply",
        )
        return [notice]
