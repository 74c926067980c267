"""Bounces (RELIABILITY §2.4 VERP, §2.5 hard-bounce counting); ``pbem reachable`` is
:mod:`pbem.daemon.operator.reachable`."""

from __future__ import annotations

import hmac
import logging
import secrets
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.adapters.store import DaemonStore
from pbem.core.errors import MailError
from pbem.daemon.config import Config
from pbem.daemon.jobs import instance_id
from pbem.daemon.outbox import OutboxRow
from pbem.daemon.ports import Game
from pbem.daemon.replies import Replies
from pbem.daemon.unheard import unheard_step
from pbem.mail.bounce import Bounce, Failure, parse_bounce, verp_address, verp_token
from pbem.mail.inbound import parse_bytes

log = logging.getLogger(__name__)


def load_verp_key(daemon: DaemonStore) -> bytes:
    """The HMAC key of VERP tokens, made once and kept in the daemon file. It is no player
    secret: it only stops a third party from forging a token for a chosen player."""
    key = daemon.get_meta("verp_key")
    if not isinstance(key, str):
        key = secrets.token_hex(32)
        daemon.set_meta("verp_key", key)
    return bytes.fromhex(key)


@dataclass
class Bounces:
    """Bounces counted against the players they name. Reads the configuration and the games;
    alerts the admins through ``replies``; ``wake`` tells the sender new rows wait."""

    cfg: Config
    games: Mapping[str, Game]
    verp_key: bytes
    replies: Replies
    stats: Counter[str]
    wake: Callable[[], None]

    def verp_sender(self, row: Mapping[str, Any], rcpt: str) -> str | None:
        """The VERP envelope sender for a registered player of the row's game, else None."""
        game = self.games.get(str(row.get("game") or ""))
        if game is None or row.get("kind") == "alert":
            return None
        if rcpt.lower() not in {a.lower() for a in game.table.player_emails.values()}:
            return None
        return verp_address(self.cfg.bounce, verp_token(self.verp_key, game.id, rcpt))

    def window(self, game: Game) -> str:
        """The counting window: the game's current deadline instances ("within a phase")."""
        deadlines = game.table.deadlines()
        return ",".join(sorted(instance_id(k, when) for k, when in deadlines.items()))

    def matches(self, report: Bounce) -> list[tuple[Game, str, str, Failure]]:
        """(game, player, registered address, failure): by VERP token, else by the failed
        addresses among active games' registered addresses."""
        active = [g for g in self.games.values() if not g.table.finished]
        if report.token is not None:
            worst = sorted(report.failures, key=lambda f: (not f.hard, not f.address))
            for g in active:
                for name, addr in g.table.player_emails.items():
                    token = verp_token(self.verp_key, g.id, addr)
                    if worst and hmac.compare_digest(token, report.token):
                        return [(g, name, addr.lower(), worst[0])]
        out = []
        for f in report.failures:
            for g in active:
                for name, addr in g.table.player_emails.items():
                    if f.address and f.address == addr.lower():
                        out.append((g, name, f.address, f))
        return out

    def handle(self, key: str, raw: bytes, info: Mapping[str, Any], now: datetime) -> bool:
        """Count a hard bounce against its player (RELIABILITY §2.5), committed with the mail's
        ledger key in the game's store; at ``hard_bounces`` within one deadline window, flag the
        player unreachable and alert the admins, once. No game action (no auto-CD), no reply,
        no command parsing. False when nothing was counted (a soft bounce, a delay, no player or
        several games): the caller then ledgers it as an ignored automatic mail."""
        try:
            report = parse_bounce(parse_bytes(raw), bounce_address=self.cfg.bounce)
        except MailError as exc:
            log.warning("bounce %s unreadable: %s", key[:12], exc)
            return False
        matches = self.matches(report)
        for game, name, _addr, f in matches:
            if not f.hard:
                log.info(
                    "bounce %s: %s %s for %s (%s): logged only",
                    key[:12],
                    f.action,
                    f.status or "?",
                    name,
                    game.id,
                )
        matches = [m for m in matches if m[3].hard]
        games = {m[0].id for m in matches}
        if len(games) != 1:
            if report.hard:
                addrs = ", ".join(sorted({f.address or "?" for f in report.hard}))
                why = "several games (turn [smtp] verp on)" if games else "no player"
                log.warning("bounce %s: hard failure for %s matches %s", key[:12], addrs, why)
            return False
        game = matches[0][0]
        window = self.window(game)
        states = game.store.bounce_states()
        records: dict[str, dict[str, Any]] = {}
        alerts: list[OutboxRow] = []
        for _, name, addr, f in matches:
            if name in records:
                continue  # one count per player and bounce
            rec = dict(states.get(name) or {"player": name, "unreachable": False})
            count = int(rec.get("count", 0)) + 1 if rec.get("window") == window else 1
            rec.update(address=addr, window=window, count=count, last_at=now.isoformat())
            rec["last_status"] = f.status or f.action
            log.warning(
                "bounce %s: hard (%s) for %s <%s> in %s: %d/%d",
                key[:12],
                rec["last_status"],
                name,
                addr,
                game.id,
                count,
                self.cfg.hard_bounces,
            )
            if count >= self.cfg.hard_bounces and not rec.get("unreachable"):
                rec.update(unreachable=True, flagged_at=now.isoformat())
                alerts += self.replies.admin_alert(
                    f"unreachable:{game.id}:{name}:{key}",
                    now,
                    "daemon/alert_unreachable",
                    {
                        "game": game.id,
                        "player": name,
                        "address": addr,
                        "count": count,
                        "last_status": rec["last_status"],
                        "diagnostic": f.diagnostic or "",
                    },
                )
            records[name] = rec
        unheard = unheard_step(game, records, "bounce", now)  # issue 25: forgiven
        game.store.commit(
            events=unheard.events if unheard else (),
            outbox=alerts,
            ledger_key=key,
            ledger_info={**info, "why": "bounce"},
            bounces=list(records.values()),
        )
        game.keys.add(key)
        if unheard is not None:
            game.table.apply(unheard)
        self.stats["bounce"] += 1
        self.wake()
        return True

    def clear(self, game: Game, address: str | None, now: datetime) -> None:
        """An accepted command from a player: their address works, so the count and the
        unreachable flag are cleared (a write only when there was something to clear)."""
        if not address:
            return
        for name, rec in game.store.bounce_states().items():
            if rec.get("address") == address.lower() and (
                rec.get("count") or rec.get("unreachable")
            ):
                rec.update(count=0, unreachable=False, cleared_at=now.isoformat())
                game.store.commit(bounces=[rec])
                log.info(
                    "game %s: %s's mail is accepted again: bounce count cleared", game.id, name
                )
