# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""Public votes confirmed through the registered address (requirement 6, ``[auth] list_votes =
confirm``): the request, the pending vote, the confirmation and its lapse. The pure part is
:mod:`pbem.daemon.confirmations`."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.message import EmailMessage, Message
from typing import TYPE_CHECKING, Any

from pbem.daemon.confirmations import lapsed, lapsed_mark, other_lines, phase_of
from pbem.daemon.message import header_addresses, parse, visible_text
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.daemon.ports import Game

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)

_CONFIRM = re.compile(r"CONFIRM-([0-9a-f]{16})\b", re.IGNORECASE)


class ConfirmationsMixin:
    """The service's part for vote confirmations (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def _confirmation_request(
        self: Service,
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
        subject, body = self.texts.mail(
            "daemon/confirm_vote",
            game.table.player_langs.get(name, self.cfg.language),
            {
                "game": game.id,
                "token": token,
                "lines": list(lines),
                "secret": "secret" in self.cfg.auth.methods,
            },
        )
        mid_in = str(msg.get("Message-ID", "") or "") or None
        mid, mail = self.game_notice(
            game,
            key=f"confirm:{game.id}:{key}",
            to=to,
            subject=subject,
            body=body,
            lang=self._lang(game, to),
            now=now,
            in_reply_to=mid_in,
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
        row = make_row(
            message_id=mid,
            raw=mail,
            rcpts=[to],
            mail_from=self.cfg.bounce,
            now=now,
            kind="confirm",  # its Subject carries the token: never in a digest
            game=game.id,
        )
        return pending, row

    def _pending_confirmation(
        self: Service, game: Game, msg: EmailMessage, registered: str
    ) -> dict[str, Any] | None:
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

    def _confirm(
        self: Service,
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
            rows += self._confirm_lapsed(game, pending, mail, now)
        else:
            post = parse(str(pending["raw"]).encode("latin-1"))
            steps.append(
                game.table.receive(post, channel="list", now=now, confirm="apply", strong=strong)
            )
            rows += self._rows(game, steps[0], now, error=not steps[0].events)
        rest = other_lines(mail) if mail is not None else None
        applied = 0
        try:
            if rest is not None:
                for step in steps:  # the rest reads the state after the confirmed commands
                    game.table.apply(step)
                    applied += 1
                step = game.table.receive(rest, channel="private", now=now, strong=strong)
                rows += self._rows(game, step, now, error=not step.events)
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
            self._bounce_clear(game, str(pending["player"]), now)
        self.rearm(game)
        self.sender.wake()

    def _confirm_lapsed(
        self: Service,
        game: Game,
        pending: Mapping[str, Any],
        msg: EmailMessage | None,
        now: datetime,
    ) -> list[OutboxRow]:
        """The player confirmed a post whose phase is over: nothing counts, and he is told."""
        to = str(pending["player"])
        if not self.limits.take(to, now)[0]:
            return []
        subject, body = self.texts.mail(
            "daemon/confirm_lapsed",
            self._lang(game, to),
            {"game": game.id, "at": pending.get("at") or ""},
        )
        mid_in = str(msg.get("Message-ID", "") or "") or None if msg is not None else None
        mid, raw = self.game_notice(
            game,
            key=f"lapsed:{game.id}:{pending['token']}",
            to=to,
            subject=subject,
            body=body,
            lang=self._lang(game, to),
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
                kind="reply",
                game=game.id,
            )
        ]
