"""The last step of the inbound policy: the game's rules read the mail, and its events, its
replies, its relayed copy and its ledger key are committed in one atomic write (RELIABILITY
§3.4, requirements 1 and 2)."""

from __future__ import annotations

import logging
from dataclasses import is_dataclass, replace
from typing import TYPE_CHECKING, Any

from pbem.daemon.gamelist import graveyard_of
from pbem.daemon.intake.inbound import Inbound, Step
from pbem.daemon.message import raw_without_codes
from pbem.daemon.unheard import seat_of, unheard_step
from pbem.mail.threads import noted
from pbem.table.step import Delivery

if TYPE_CHECKING:
    from pbem.daemon.intake.parts import IntakeParts

log = logging.getLogger(__name__)


class Apply(Step):
    """The last step: the rules read the mail; its events and replies are committed."""

    name = "apply"
    description = "The rules read the mail; its events and replies are committed."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Let the game's table read the mail, then commit its events, replies, relayed copies and
        held post with its ledger key in one write; always deals with the mail."""
        game, verdict, msg, raw, now = mail.routed, mail.checked, mail.parsed, mail.raw, mail.now
        ask = (
            mail.channel == "list"
            and not svc.relay
            and verdict.registered is not None
            and svc.cfg.auth.confirm_list_votes
        )
        delivery: Delivery = {
            "channel": mail.channel,
            "now": now,
            "relay": svc.relay,
            "confirm": "ask" if ask else None,
            "strong": verdict.strong,
            "admins": svc.cfg.admins,
        }
        graveyard = graveyard_of(svc.cfg, game.store.setup)
        if graveyard:  # issue 25: only then, so an engine without a graveyard reads the rest
            delivery["graveyard"] = graveyard
        step = game.table.receive(verdict.message or msg, **delivery)
        if mail.how == "thread" and is_dataclass(step) and not isinstance(step, type):
            # found only through the mail it answers: the reply says which game it reached
            note = svc.replies.routed_note(game, mail.sender)
            step = replace(step, outgoing=noted(getattr(step, "outgoing", ()), mail.sender, note))
        rows = svc.replies.rows(game, step, now, error=not step.events)
        notice_keys: tuple[str, ...] = ()
        if mail.munged is not None and verdict.registered is None and not verdict.admin:
            notice_keys, notices = svc.router.unattributed(game, mail.munged, msg, now)
            rows += notices
        hold: dict[str, Any] | None = None
        deferred: tuple[str, ...] = tuple(getattr(step, "deferred", ()))
        if ask and deferred and verdict.registered is not None:
            if svc.confirm_requests.allow(game.id, verdict.registered, now):
                hold, request = svc.confirmations.request(game, mail.key, msg, raw, deferred, now)
                rows.append(request)
            else:  # a flood of posts in his name (forged, most likely): nothing more mailed
                log.warning(
                    "game %s: confirmation requests to %s over the hourly limit: post %s "
                    "not counted",
                    game.id,
                    verdict.registered,
                    mail.key[:12],
                )
        if mail.channel == "list" and svc.relay:
            post = getattr(step, "post", None)
            # the post as received, cleaned of every code wherever it shows (relay_copy),
            # not only of the text part's SECRET line (issue 10 item 10)
            sent = raw_without_codes(raw) if svc.relay_list.codes_in_use else raw
            if post == "relay" and sent is not None:
                # issue 25: kept for the digest's readers instead of copied to them (not when
                # the post is held already, waiting for its confirmation: one hold a commit)
                kept, held_for = (
                    (None, frozenset[str]())
                    if hold
                    else svc.digests.keep(game, mail.key, msg, sent, now)
                )
                rows.append(svc.relay_list.relay_row(game, mail.key, msg, sent, now, held_for))
                hold = hold or kept
            elif post == "hold" and sent is not None:
                hold = {"key": mail.key, "raw": sent.decode("latin-1"), "at": now.isoformat()}
        if mail.channel == "graveyard" and getattr(step, "post", None) == "relay":
            # the dead's and the observers' list (issue 25): never to a living player
            sent = raw_without_codes(raw) if svc.relay_list.codes_in_use else raw
            if sent is not None:
                rows.append(svc.relay_list.graveyard_row(game, mail.key, msg, sent, now))
        seat = seat_of(game, verdict.registered) if ask and deferred else None
        if seat is not None and is_dataclass(step):
            # issue 25: his vote waits for his confirmation; unconfirmed, the phase is forgiven
            unheard = unheard_step(game, [seat], "confirmation", now)
            if unheard is not None:
                facts = getattr(step, "facts", ())
                both = len(facts) == len(step.events)
                step = replace(
                    step,
                    events=(*step.events, *unheard.events),
                    facts=(*facts, *unheard.facts) if both else (),
                )
        game.store.commit(
            events=step.events,
            outbox=rows,
            ledger_key=mail.key,
            ledger_info=mail.info,
            # its phase: a confirmation lapses with it (release_held)
            hold=hold if hold is None else {"window": svc.bounces.window(game), **hold},
            extra_keys=(*mail.copies, *notice_keys),
        )
        svc.fault("after_state")
        game.keys.add(mail.key)
        game.keys.update((*mail.copies, *notice_keys))
        game.table.apply(step)
        svc.bounces.clear(game, verdict.registered if step.events else None, now)
        if step.events:
            svc.relay_list.release_held(game, now)
        svc.deadlines.rearm(game)
        svc.sender.wake()
        return True
