"""The inbound policy as a table of steps (the shape of Mailman 3's chains): each step has a
name, says what it checks, and its :meth:`~Step.check` either lets the mail go on (``False``) or
deals with it for good (``True``: committed, answered or ignored; the chain stops).

The order is :data:`CHAIN`, and nowhere else."""

from __future__ import annotations

import logging
from email.message import Message
from typing import TYPE_CHECKING

from pbem.daemon.auth import check_sender
from pbem.daemon.dedup import copy_keys
from pbem.daemon.intake.apply import Apply
from pbem.daemon.intake.inbound import Inbound, Step
from pbem.daemon.message import parse
from pbem.daemon.signup_auth import auth_for, player_secrets
from pbem.daemon.unheard import seat_of, unheard_step
from pbem.mail.inbound import automatic_reason
from pbem.mail.listpost import rewrite_from

if TYPE_CHECKING:
    from pbem.daemon.intake.parts import IntakeParts

log = logging.getLogger(__name__)


def ignore(svc: IntakeParts, mail: Inbound, reason: str) -> bool:
    """Never parsed, never answered (RFC 3834, requirement 8): only the ledger records it."""
    log.info("mail %s ignored: %s", mail.key[:12], reason)
    svc.stats["automatic"] += 1
    svc.daemon.commit(ledger_key=mail.key, ledger_info={**mail.info, "why": reason})
    svc.daemon_keys.add(mail.key)
    return True


class AutomaticReplies(Step):
    """The first step: auto-replies, bulk mail and our own echoes are ignored (RFC 3834)."""

    name = "automatic-replies"
    description = "Auto-replies, bulk mail and our own echoes are never read nor answered."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Mark the mail's automatic reason; ignore it unless it is none or a bounce (a list's bulk
        post is read)."""
        # a MailError (unreadable headers) is a poison mail: shunted, then quarantined
        reason = automatic_reason(mail.msg, our_addresses=svc.our_addresses)
        if reason == "bulk" and mail.channel == "list" and not svc.relay:
            # Majordomo and others stamp every post `Precedence: bulk`: a post recognised as
            # our game's list's is read (issue 10 item 3); RFC 3834 governs what we answer
            reason = None
        mail.reason = reason
        if reason is None or reason == "bounce":
            return False  # a bounce is the next step's
        return ignore(svc, mail, reason)


class Bounces(Step):
    """A bounce is counted against the player it names (RELIABILITY §2.5), never answered."""

    name = "bounces"
    description = "A bounce is counted against the player it names, never parsed nor answered."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Count a bounce against its player, or ignore it if it names none; any other mail goes
        on."""
        if mail.reason != "bounce":
            return False
        if svc.bounces.handle(mail.key, mail.raw, mail.info, mail.now):
            return True  # counted against a player (RELIABILITY §2.5)
        return ignore(svc, mail, "bounce")


class Routing(Step):
    """Find the mail's game; a mail for no game gets the sender a reply and stops."""

    name = "routing"
    description = "The mail's game (by its list, its tag, its sender); none: the sender is told."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Undo a list's From rewrite (DMARC), then route: a game found goes on, none is
        answered."""
        head: Message | None = mail.msg  # the headers of mail.raw
        mail.munged = svc.router.list_rewrite(mail.msg, mail.channel)
        if mail.munged is not None and mail.munged.author is not None:
            # the list put its own address in From (DMARC): the post is the author's
            mail.sender = mail.munged.author
            mail.raw = rewrite_from(mail.raw, mail.munged.author)
            head = None  # new bytes: parsed anew
        mail.game, mail.how = svc.router.route_how(mail.msg, mail.rcpts, mail.sender)
        if mail.game is not None:
            mail.msg = parse(mail.raw, head)
            return False
        rows = svc.replies.no_game_reply(mail.msg, mail.sender, mail.now)
        svc.daemon.commit(
            outbox=rows, ledger_key=mail.key, ledger_info={**mail.info, "why": "no-game"}
        )
        svc.daemon_keys.add(mail.key)
        svc.sender.wake()
        return True


class Authentication(Step):
    """The sender's authentication layers (requirement 5, RELIABILITY §1.6)."""

    name = "authentication"
    description = "The sender's layers (requirement 5, RELIABILITY §1.6); refused: he is told."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Let an authenticated mail go on (its copy keys noted); a refused one is answered and
        stops."""
        game = mail.routed
        verdict = mail.verdict = check_sender(
            mail.parsed,
            game.table.player_emails,
            auth_for(game, svc.cfg.auth),  # a lobby's volunteers have no code yet (issue 13)
            player_secrets(game),
            # a relayed list post reaches us directly, not through a list that breaks DKIM: it
            # is authenticated like private mail, so a public vote is as safe as a private
            # command and its SECRET line is removed before anyone sees it (requirement 6)
            channel="private" if svc.relay else mail.channel,
            raw=mail.raw,
            resolver=svc.resolver,
            now=mail.now,
            # the daemon's game masters may steer every game (the desk): authenticated alike
            admins=[*game.store.setup.get("admins", []), *svc.cfg.admins],
            admin_secrets=svc.replies.admin_secrets(game),
        )
        if verdict.ok:
            mail.copies = tuple(
                sorted({*verdict.replay_keys, *copy_keys(mail.parsed, mail.sender)})
            )
            return False
        rows = (
            svc.replies.admin_refused(game, mail.parsed, verdict, mail.now)
            if verdict.admin
            else svc.replies.auth_notice(game, mail.parsed, verdict, mail.now)
        )
        seat = seat_of(game, verdict.registered)
        # issue 25: a player's mail refused for its DKIM signature was never heard (forgiven)
        unheard = (
            unheard_step(game, [seat], "dkim", mail.now)
            if seat is not None and verdict.reason == "no_dkim"
            else None
        )
        game.store.commit(
            events=unheard.events if unheard else (),
            outbox=rows,
            ledger_key=mail.key,
            ledger_info={**mail.info, "why": "auth"},
        )
        game.keys.add(mail.key)
        if unheard is not None:
            game.table.apply(unheard)
        svc.sender.wake()
        return True


def _ledger_only(mail: Inbound, why: str) -> bool:
    game = mail.routed
    game.store.commit(ledger_key=mail.key, ledger_info={**mail.info, "why": why})
    game.keys.add(mail.key)
    return True


class Copies(Step):
    """Another copy of a mail already applied (the list's copy, a reply-all) is applied once."""

    name = "copies"
    description = "Another copy of a mail applied (the list's copy, a reply-all): applied once."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """A copy of a mail already applied goes in the ledger only (issue 10 item 6); other mail
        goes on."""
        game = mail.routed
        if not any(k in game.keys for k in mail.copies):
            return False
        # never an older order over a newer one (issue 10 item 6)
        log.info(
            "game %s: mail %s is another copy of a mail applied: ignored", game.id, mail.key[:12]
        )
        return _ledger_only(mail, "copy")


class Replay(Step):
    """A DKIM signature seen before is a captured mail re-sent: applied once."""

    name = "replay"
    description = "The same DKIM signature seen before: a captured mail re-sent, applied once."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """A replayed signed mail goes in the ledger only (requirement 5); other mail goes on."""
        game = mail.routed
        if not any(k in game.keys for k in mail.checked.replay_keys):
            return False
        # new trace headers, so a new content key (requirement 5, RELIABILITY §1.6)
        log.warning("game %s: mail %s replays a signed mail: ignored", game.id, mail.key[:12])
        return _ledger_only(mail, "replay")


class Relay(Step):
    """A relayed list post stopped before the rules (a code in it, too long, too many)."""

    name = "relay"
    description = "A relayed list post stopped before the rules (a code in it, too long, too many)."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Whether the relay stopped this list or graveyard post (it then dealt with it)."""
        registered = mail.checked.registered
        return (
            mail.channel in ("list", "graveyard")  # the graveyard's posters too (issue 25)
            and svc.relay
            and registered is not None
            and svc.relay_list.stop_post(
                mail.routed,
                mail.key,
                mail.info,
                mail.parsed,
                mail.raw,
                registered,
                mail.now,
                graveyard=mail.channel == "graveyard",
            )
        )


class Confirmation(Step):
    """A private mail confirming a public vote (requirement 6): the vote counts."""

    name = "confirmation"
    description = "A private mail confirming a public vote (requirement 6): the vote counts."

    def check(self, svc: IntakeParts, mail: Inbound) -> bool:
        """Confirm the public vote a registered player's private mail confirms; other mail goes
        on."""
        verdict = mail.checked
        if mail.channel != "private" or not verdict.registered:
            return False
        pending = svc.confirmations.pending(mail.routed, mail.parsed, verdict.registered)
        if pending is None:
            return False
        svc.confirmations.confirm(
            mail.routed,
            mail.key,
            mail.info,
            pending,
            mail.now,
            strong=verdict.strong,
            keys=mail.copies,
            mail=verdict.message or mail.parsed,
        )
        return True


CHAIN: tuple[Step, ...] = (
    AutomaticReplies(),
    Bounces(),
    Routing(),
    Authentication(),
    Copies(),
    Replay(),
    Relay(),
    Confirmation(),
    Apply(),
)
"""The inbound policy, in order: the first step that deals with a mail ends it."""
