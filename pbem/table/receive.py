"""A mail to a running game (:func:`receive_mail`): who sent it (a player, a game master, a
stranger volunteering, an address whose seat changed hands), what the rules make of a list
post, the commands it holds, an early close; and a held list post asked again whether it may
go out (:func:`release_post`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from pbem import judge
from pbem.core.commands import Command
from pbem.core.errors import CommandError, IllegalNow, ListClosed, MailError, NotAPlayer
from pbem.core.events import Event, OrdersReceived, PhaseClosed
from pbem.core.game import PlayerSpec
from pbem.desk.kernel import is_kernel
from pbem.judge import observer
from pbem.judge.address import awaiting_refusal, confirmation, moves_seat
from pbem.mail.address import is_mailable
from pbem.mail.inbound import MailText, extract, message_id_of, sender_of
from pbem.seats.substitution import bench_offer, bench_refusal, replaced_refusal
from pbem.signup import late as late_signup
from pbem.table.admin import list_commands, receive_admin
from pbem.table.commands import bold_command, hint_ignored, read_commands, run_command
from pbem.table.mails import reply_mail, step_of
from pbem.table.step import Channel, Confirm, Reply, Step
from pbem.table.wording import reason

if TYPE_CHECKING:
    from pbem.table.ports import HubTable


_SHA256 = hashlib.sha256()
"""An empty SHA-256, copied for each mail's key: ``hashlib.sha256()`` looks OpenSSL's algorithm
up again at every call, half the cost of hashing a mail's short key (issue 23)."""


def receive_mail(
    table: HubTable,
    msg: EmailMessage,
    *,
    channel: Channel,
    now: datetime,
    relay: bool = False,
    confirm: Confirm | None = None,
    strong: bool = True,
    admins: Sequence[str] = (),
    graveyard: str = "",
) -> Step:
    """Handle one inbound mail. Bad input gives a reply, never an exception. The keywords
    are a :class:`~pbem.table.step.Delivery`'s."""
    sender = sender_of(msg)
    message_id = message_id_of(msg)
    digest = _SHA256.copy()
    digest.update(f"{message_id}|{sender}|{len(table.events)}".encode())
    key = digest.hexdigest()
    if not is_mailable(sender):
        # No From, or one without a domain ("frank@", "alice"): nobody's mail, and no
        # address to answer (issue 10, items 12 and 20); never relayed either.
        return Step(post="refused" if channel == "list" else None)
    if channel == "graveyard":  # the dead's and the observers' list (issue 25)
        return observer.graveyard_post(table, msg, sender, key[:16], message_id, admins)
    player = table.by_email.get(sender)
    if (
        player is None
        and channel == "private"
        and (sender in table.setup.admins or any(sender == a.lower() for a in admins))
    ):  # a player's mail is never asked whether a game master wrote it (issue 23)
        return receive_admin(table, msg, sender, key[:16], message_id, now)
    if player is None and channel == "list":
        if sender in table.setup.admins:  # the game master talks on his own list
            return list_commands(table, msg, sender, key[:16], message_id)
        if not relay and replaced_refusal(table, sender) is None:
            return Step()  # a spectator's post on an external list is just talk
    if player is None and channel == "private":
        # REMPLACANT/SUBSTITUTE: a volunteer for the bench (issue 13, pbem/seats/substitution.py)
        offered = bench_offer(table, msg, sender, key[:16], message_id, admins)
        if offered is not None:
            return offered
        # ADRESSE/ADDRESS <code>: a seat's new address confirmed (issue 25, pbem/judge/address.py)
        moved = confirmation(
            table, msg, sender, key[:16], message_id, now, relay=relay, admins=admins
        )
        if moved is not None:
            return moved
        # OBSERVER/SPECTATE: a reader of the list (issue 25, pbem/judge/observer.py)
        observing = observer.request(
            table,
            msg,
            sender,
            key[:16],
            message_id,
            relay=relay,
            graveyard=graveyard,
            admins=admins,
        )
        if observing is not None:
            return observing
        late = _late_stranger(table, msg, sender, key[:16], message_id, admins)
        if late is not None:  # a sign-up word after the start
            return late
    if player is None:
        # an address whose seat changed hands is told so politely (issue 13), on an external
        # list too: its post reached the players but counts for nothing (LUP-602)
        # an address waiting for its code (ADRESSE, issue 25) is told how to confirm it
        # and a volunteer of the bench that he waits there (issue 13)
        waiting = awaiting_refusal(table, sender, now) or bench_refusal(table, sender)
        why = (
            replaced_refusal(table, sender)
            or observer.list_refusal(table, sender, channel)
            or (waiting[0] if waiting else None)
            or NotAPlayer(address=sender, observe=observer.open_to(table, relay))
        )
        lang = observer.lang_of(table, sender) or (waiting[1] if waiting else table.setup.lang)
        refused = Reply(rejected=[{"line": "", "reason": reason(table, why, lang)}])
        return Step(
            (),
            (reply_mail(table, sender, lang, refused, key[:16], message_id),),
            post="refused" if channel == "list" else None,
        )
    try:
        text = extract(msg)
    except MailError:
        text = MailText("", (), (), False, False)
    reply = Reply()
    leaving = None
    if channel == "private":  # DESINSCRIPTION/LEAVE after the start: the GMs decide
        text, leaving = late_signup.take_leave(text)
    commands = read_commands(table, text, channel, player.lang, reply)
    if reply.ignored:  # ignored lines are a private mail's only (the list's are debate)
        hint_ignored(table, player, reply)
    if reply.rejected and channel == "private":  # his own OBSERVER line: he plays this game
        observer.explain_to_player(table, reply, player.lang, player.name)
    told = late_signup.game_masters(table, admins) if leaving else []
    if leaving:
        reply.extra.append(late_signup.leave_text(table, player.lang, bool(told)))
    if channel == "list" and not commands and not reply.rejected and text.bold:
        commands = bold_command(table, text.bold, player, reply)
        if text.bold_disagreement:  # the HTML was read: say what the text part said
            params = {"html": list(text.bold), "text": list(text.bold_disagreement)}
            reply.extra.append(table.renderer.text("common/bold_disagree", player.lang, params))
    state = table.state
    events: list[Event] = []
    if channel == "list" and confirm == "apply":
        pass  # the post itself was taken when it arrived
    elif channel == "list":  # the game may refuse the whole post (Rules.on_post)
        try:
            posted = table.rules.on_post(state, player.name, text.lines, now, moderated=relay)
        except ListClosed as exc:
            if not relay:
                return _refuse_post(table, exc, player, key[:16], message_id)
            # LG-D35: commands posted while the list is closed are ignored; the post
            # itself waits for the list to reopen
            held = Reply(extra=[table.renderer.text("common/post_held", player.lang, {})])
            return step_of(table, [], (player, held, key[:16], message_id), post="hold")
        except CommandError as exc:
            return _refuse_post(table, exc, player, key[:16], message_id)
        events += posted
        state = table.rules.fold(posted, state)
    if confirm == "ask" and commands:
        return step_of(
            table,
            events,
            (player, reply, key[:16], message_id) if reply else None,
            post="relay",
            deferred=tuple(line for line, _command in commands),
        )
    orders_at = len(events)
    start = (state, list(events))
    state, taken = _run_lines(table, state, player, commands, now, channel, events, reply, strong)
    replaced = frozenset(
        taken[i] for i, e in enumerate(reply.accepted) if e.get("replaced") or e.get("withdrawn")
    )
    if replaced and not any(c.verb in judge.SERVICES for _l, c in commands):
        # LUP-603: an order a later line of the same mail replaced never stood; played again
        # without it, no one is told of it (a relay to the pack, a running tally that showed
        # it on the list, LUP-D18). The receipt still names it, replaced. A RETIRER that
        # withdrew only the mail's own VOTE (none stood before) is left out too, if need be
        withdrawing = frozenset(
            taken[i] for i, e in enumerate(reply.accepted) if e.get("withdraws")
        )
        for dropped in (replaced, replaced | withdrawing):
            again, scratch = list(start[1]), Reply()
            kept = [(n, c) for i, (n, c) in enumerate(commands) if i not in dropped]
            after_kept, _ = _run_lines(
                table, start[0], player, kept, now, channel, again, scratch, strong
            )
            shown = [e["line"] for i, e in enumerate(reply.accepted) if taken[i] not in dropped]
            if [
                e["line"] for e in scratch.accepted
            ] == shown and scratch.rejected == reply.rejected:
                state, events = after_kept, again
                break
            if not withdrawing:
                break
    # early close (LUP-D29) is off unless the options turn it on; a paused game closes
    # nothing by itself
    # the state the commands led to is the step's own fold when only the rules' decisions
    # made its events (a judge's service or an early close add events it does not hold)
    after = state
    if (events and any(map(is_kernel, events))) or (
        commands and any(c.verb in judge.SERVICES for _l, c in commands)
    ):
        after = None
    early = table.rules.ready_to_close(state)
    if early is not None and not table.paused:
        closing = table.rules.on_deadline(state, early, now, table.rng(len(events)))
        if closing:  # marked like a deadline's resolution (the desk's ROLLBACK)
            after = None
            awaited = tuple(sorted(table.rules.awaited_at_close(state, early)))
            events += [PhaseClosed(early, len(closing), awaited)]
        events += closing
        if reply.accepted:
            reply.extra.append(table.renderer.text("common/closed_early", player.lang, {}))
    if channel == "private" and not reply:
        reply.extra.append(table.renderer.text("common/no_command", player.lang, {}))
    if reply.accepted:  # inserted last: the draws above count the rules' events only
        events.insert(orders_at, received(player, reply, now))
    step = step_of(
        table,
        events,
        (player, reply, key[:16], message_id) if reply else None,
        post="relay" if channel == "list" else None,
        after=after,
    )
    if not told:
        return step
    wish = {"kind": "leave", "name": player.name, "address": player.email, "words": ""}
    notice = late_signup.tell_game_masters(table, told, key[:16], wish)
    return replace(step, outgoing=(*step.outgoing, *notice))


def _late_stranger(
    table: HubTable,
    msg: EmailMessage,
    sender: str,
    key: str,
    message_id: str | None,
    admins: Sequence[str],
) -> Step | None:
    """A stranger's INSCRIPTION/JOIN or REMPLACANT/SUBSTITUTE once the game runs: told it
    has started and how to volunteer; a volunteer is passed on to the game masters (issue
    13). None: his mail holds no sign-up word (the usual "not a player" reply)."""
    try:
        text = extract(msg)
    except MailError:
        return None
    found = late_signup.stranger_request(text)
    if found is None:
        return None
    verb, lang, words = found
    told = late_signup.game_masters(table, admins) if verb == "substitute" else []
    answer = late_signup.stranger_text(table, verb, lang, bool(told))
    outgoing = [reply_mail(table, sender, lang, Reply(extra=[answer]), key, message_id)]
    if told:
        params = {"kind": "substitute", "name": "", "address": sender, "words": words}
        outgoing += late_signup.tell_game_masters(table, told, key, params)
    return Step((), tuple(outgoing))


def _refuse_post(
    table: HubTable, exc: CommandError, player: PlayerSpec, key: str, message_id: str | None
) -> Step:
    """The rules refuse the whole post: explained privately, never relayed."""
    bounced = Reply(rejected=[{"line": "", "reason": reason(table, exc, player.lang, player.name)}])
    return step_of(table, [], (player, bounced, key, message_id), post="refused")


def release_post(table: HubTable, msg: EmailMessage, now: datetime) -> Step:
    """A held list post (see ``receive(relay=True)``), asked again whether it may go out.

    ``post="relay"`` once the list has reopened to its sender, ``"hold"`` while it is still
    closed, ``"refused"`` if he may no longer post at all (he died meanwhile: the dead never
    speak, CAS-D28), with a private notice. A released post is debate only: the rules read
    no command in it and it causes no event (LG-D35: commands posted at night are ignored).
    """
    sender = sender_of(msg)
    player = table.by_email.get(sender) if is_mailable(sender) else None
    if player is None:
        return Step(post="relay")  # the game master's own post
    message_id = message_id_of(msg)
    try:
        text = extract(msg)
    except MailError:
        text = MailText("", (), (), False, False)
    try:
        table.rules.on_post(table.state, player.name, text.lines, now)
    except ListClosed:
        return Step(post="hold")
    except CommandError as exc:
        key = hashlib.sha256(f"release|{message_id}|{sender}|{len(table.events)}".encode())
        dropped = Reply(
            extra=[
                table.renderer.text(
                    "common/post_dropped",
                    player.lang,
                    {"reason": reason(table, exc, player.lang, player.name)},
                )
            ]
        )
        return step_of(
            table, [], (player, dropped, key.hexdigest()[:16], message_id), post="refused"
        )
    return Step(post="relay")


def _run_lines(
    table: HubTable,
    state: Any,
    player: PlayerSpec,
    commands: Sequence[tuple[str, Command]],
    now: datetime,
    channel: Channel,
    events: list[Event],
    reply: Reply,
    strong: bool,
) -> tuple[Any, dict[int, int]]:
    """Run a mail's commands in order from ``state`` (events and receipt lines added to
    ``events`` and ``reply``): the state after them, and for each accepted line of the
    receipt the index of the command it answers."""
    taken: dict[int, int] = {}
    for number, (line, command) in enumerate(commands):
        if not strong and table.rules.final(state, player.name, command.verb):
            refusal = table.renderer.text("reasons/final_needs_auth", player.lang, {})
            reply.rejected.append({"line": line, "reason": refusal})
            continue
        if not strong and moves_seat(command):  # issue 25: the seat itself would go elsewhere
            weak = reason(table, IllegalNow("address_needs_auth"), player.lang, player.name)
            reply.rejected.append({"line": line, "reason": weak})
            continue
        accepted = len(reply.accepted)
        state = run_command(table, state, player, command, line, now, channel, events, reply)
        taken.update(dict.fromkeys(range(accepted, len(reply.accepted)), number))
    return state, taken


def received(player: PlayerSpec, reply: Reply, now: datetime) -> OrdersReceived:
    """The stamp of a mail's accepted orders (issue 24, pbem/record/chain.py): each line as
    the receipt shows it, a passed-on text (DRA-421) after its line."""
    lines: list[str] = []
    for entry in reply.accepted:
        lines.append(entry["line"])
        if entry.get("text"):
            lines.append(entry["text"])
    return OrdersReceived(player.name, now, tuple(lines))
