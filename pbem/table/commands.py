"""A player's command lines: read from his mail (:func:`read_commands`, or the forum's bold
name on the list, :func:`bold_command`), then run one by one (:func:`run_command`): AIDE,
REGLES and STATUT answered by the table, the others decided by the game's rules, each noted
in the mail's receipt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem import judge
from pbem.core.commands import (
    JUDGE_COMMANDS,
    RULES,
    Command,
    CommandSpec,
    Player,
    Players,
    Text,
    find_spec,
    parse_line,
    takes_lines,
)
from pbem.core.errors import Amended, CommandError, IllegalNow, PartlyRefused, UnknownCommand
from pbem.core.events import Event, VoteSet
from pbem.core.folded import recall
from pbem.core.frozen import quick_replace
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import clean_token, fold
from pbem.core.moments import iso
from pbem.desk import DESK_SPECS
from pbem.mail.inbound import MailText
from pbem.rules import options_in_use, rules_page
from pbem.rules.options_words import described
from pbem.table.step import Accepted, Channel, Reply
from pbem.table.wording import (
    canonical,
    reason,
    spec_of,
    status_params,
    syntax,
)

if TYPE_CHECKING:
    from pbem.table.ports import HubTable


def read_commands(
    table: HubTable, text: MailText, channel: Channel, lang: str, reply: Reply
) -> list[tuple[str, Command]]:
    """The mail's commands; errors and free text are noted in ``reply``.

    On the list only public commands count and other text is debate, never an error; a
    private mail's Subject may hold a command but is never reported as ignored text.
    """
    specs = table.rules.all_commands if channel == "private" else _public(table.rules.all_commands)
    names = table.roster.shown_names(table.rules.names(table.state))
    subject = [text.subject] if channel == "private" and text.subject else []
    commands: list[tuple[str, Command]] = []
    lines = subject + list(text.lines)
    signed = len(lines)  # past a relayed text's paragraph: its signature, if not a command
    for index in range(len(subject), len(lines)):
        if takes_lines(lines[index], specs):
            # a multi-line text runs to FIN/END, the end, or its paragraph's end: what follows
            # a blank line (a sign-off, a name, a contact line) is not passed on (DRA-421)
            ends = [len(subject) + b for b in text.breaks if len(subject) + b > index]
            end = min(ends, default=len(lines))
            lines = [*lines[:index], "\n".join(lines[index:end]), *lines[end:]]
            signed = index + 1
            break
    for index, line in enumerate(lines):
        quiet = channel == "list" or index < len(subject)
        try:
            command = parse_line(line, specs, names, debate=channel == "list")
        except UnknownCommand as exc:
            if not quiet:
                why = _game_masters_only(table, line) or exc
                reply.rejected.append({"line": line, "reason": reason(table, why, lang)})
            continue
        except CommandError as exc:
            reply.rejected.append({"line": line, "reason": reason(table, exc, lang)})
            continue
        if command is not None:
            commands.append((line, table.roster.to_seats(command)))
        elif channel == "private" and len(subject) <= index < signed:
            reply.ignored.append(line)
    return commands


def hint_ignored(table: HubTable, player: PlayerSpec, reply: Reply) -> None:
    """A private mail's ignored line that holds one of the player's orders after its first
    word (« je sonde Hugo », « I kill Bob ») is answered « vouliez-vous dire SONDER Hugo ? » in
    ``reply``; the line stays ignored. Only an order he may give now that names players and
    takes no text, with nothing after it: in prose, a keyword is far more often a word
    (« le voyant sonde peut-être »); never a vote, which is said on the list (LUP-617)."""
    rules, state = table.rules, table.state
    specs = rules.all_commands
    words = _order_words(specs)
    offered: set[str] | None = None
    names = table.roster.shown_names(rules.names(state))
    for line in reply.ignored:
        tokens = line.split()
        for start in range(1, len(tokens) - 1):  # a word, the order, at least one name
            spec = words.get(fold(clean_token(tokens[start])))
            if spec is None:
                continue
            if offered is None:  # asked once, and only when a line holds an order's word
                offered = {s.verb for s in rules.available(state, player.name)}
            if spec.verb not in offered:
                continue
            try:
                command = parse_line(" ".join([spec.fr[0], *tokens[start + 1 :]]), specs, names)
            except CommandError:
                continue
            if command is None or command.verb != spec.verb:
                continue
            shown = canonical(table, table.roster.to_seats(command), player.lang)
            if len(shown.split()) >= len(tokens) - start:  # nothing follows the order
                reply.hints[line] = shown
                break


_ORDER_WORDS: dict[int, tuple[tuple[CommandSpec, ...], dict[str, CommandSpec]]] = {}


def _order_words(specs: tuple[CommandSpec, ...]) -> dict[str, CommandSpec]:
    """The words that name a private order naming players, with no free text (folded): its
    one-word keywords, and a French -ER keyword's « je/il » form (SONDER: « sonde »). Made once
    per game's commands."""
    known = _ORDER_WORDS.get(id(specs))
    if known is not None and known[0] is specs:
        return known[1]
    words: dict[str, CommandSpec] = {}
    for spec in specs:
        args = spec.args
        if spec.public or any(isinstance(a, Text) for a in args):
            continue
        if not any(isinstance(a, Player | Players) for a in args):
            continue
        for keyword in (*spec.fr, *spec.en):
            if " " not in keyword:
                words.setdefault(fold(keyword), spec)
        for keyword in spec.fr:
            if " " not in keyword and fold(keyword).endswith("er"):
                words.setdefault(fold(keyword)[:-1], spec)
    if len(_ORDER_WORDS) > 256:  # commands made on the fly (tests): bounded
        _ORDER_WORDS.clear()
    _ORDER_WORDS[id(specs)] = (specs, words)
    return words


def _game_masters_only(table: HubTable, line: str) -> IllegalNow | None:
    """A player's line that is none of his commands but a game master's (PAUSE, CLORE,
    PROLONGER...): told so, rather than « did you mean PASSE? » (a forged or mistaken desk
    command changes nothing either way)."""
    tokens = line.split()
    if find_spec(tokens, (*DESK_SPECS, *table.rules.admin_commands)) is None:
        return None
    return IllegalNow("desk_only", word=clean_token(tokens[0]).upper())


_PUBLIC: dict[int, tuple[tuple[CommandSpec, ...], tuple[CommandSpec, ...]]] = {}


def _public(specs: tuple[CommandSpec, ...]) -> tuple[CommandSpec, ...]:
    """The commands of ``specs`` a list post may hold, in their order: made once per game's
    commands (a constant tuple, found by identity; its keyword index is then found so too)."""
    known = _PUBLIC.get(id(specs))
    if known is not None and known[0] is specs:
        return known[1]
    public = tuple(s for s in specs if s.public)
    if len(_PUBLIC) > 256:  # commands made on the fly (tests): bounded
        _PUBLIC.clear()
    _PUBLIC[id(specs)] = (specs, public)
    return public


def bold_command(
    table: HubTable, bold: Sequence[str], player: PlayerSpec, reply: Reply
) -> list[tuple[str, Command]]:
    """The forum convention: a public post whose only command is a bold text."""
    line = " ".join(f"**{b}**" for b in bold)
    try:
        command = table.rules.bold_command(
            table.state, player.name, table.roster.bold_to_seats(bold)
        )
    except CommandError as exc:
        reply.rejected.append(
            {"line": line, "reason": reason(table, exc, player.lang, player.name)}
        )
        return []
    return [(line, command)] if command is not None else []


def run_command(
    table: HubTable,
    state: Any,
    player: PlayerSpec,
    command: Command,
    line: str,
    now: datetime,
    channel: Channel,
    events: list[Event],
    reply: Reply,
) -> Any:
    """Run one command on ``state``, the state the mail's earlier commands left: its events
    are added to ``events``, its line of the receipt to ``reply``; the state after it."""
    if command.verb == "help":  # what this player can send now, how, and until when
        available = table.rules.available(state, player.name)
        # in every phase: REGLES, and the judges' services in their own order (issue 25)
        for always in (RULES, *JUDGE_COMMANDS):
            if all(c.verb != always.verb for c in available):
                available = [*available, always]
        pending = table.rules.deadlines(state)
        reply.topic = reply.topic or "help"
        reply.helped = player.name
        reply.extra.append(
            table.renderer.text(
                "common/help",
                player.lang,
                {
                    "game": table.rules.id,
                    "folder": table.rules.templates,
                    "commands": [syntax(c, player.lang) for c in available],
                    "deadline": min(pending.values()).isoformat() if pending else None,
                },
            )
        )
        return state
    if command.verb == "rules":  # the players' rules page, with this game's options
        used = options_in_use(getattr(state, "options", None))
        reply.topic = reply.topic or "rules"
        reply.markdown = True
        reply.extra.append(
            table.renderer.text(
                "common/rules",
                player.lang,
                {
                    "text": rules_page(table.rules.id, player.lang),
                    "options": described(used, player.lang),
                    "folder": table.rules.templates,
                },
            )
        )
        return state
    service = judge.SERVICES.get(command.verb)
    if service is not None:  # issue 25: the judges' services, the same in every game
        try:
            return service(table, state, player, command, line, now, events, reply)
        except CommandError as exc:  # refused with its reason, as the rules' refusals are
            reply.rejected.append(
                {"line": line, "reason": reason(table, exc, player.lang, player.name)}
            )
            return state
    if command.verb == "status":
        reply.topic = reply.topic or "status"  # « Votre situation », not « Vos commandes »
        params = status_params(table, state, player.name, player.lang)
        reply.extra.append(
            table.renderer.text(
                f"{table.rules.templates}/status", player.lang, table.roster.show(params)
            )
        )
        return state
    note = None
    try:
        new = table.rules.decide(state, player.name, command, now, channel)
    except Amended as exc:  # taken otherwise than it reads: accepted, the reason beside it
        new = list(exc.events)
        command = replace(command, targets=tuple(PlayerId(t) for t in exc.kept))
        note = reason(table, exc, player.lang, player.name)
    except PartlyRefused as exc:  # the taken part is accepted, the rest explained
        new = list(exc.events)
        # the refused part as a command, « ✗ MAUDIRE Bruno », not a bare « ✗ Bruno »: the
        # receipt's lines each begin with the keyword, beside « ✓ MAUDIRE Hugo Gaëlle »
        refused = replace(command, targets=tuple(PlayerId(t) for t in exc.refused))
        command = replace(command, targets=tuple(PlayerId(t) for t in exc.kept))
        reply.rejected.append(
            {
                "line": canonical(table, refused, player.lang),
                "reason": reason(table, exc, player.lang, player.name),
            }
        )
    except CommandError as exc:
        reply.rejected.append(
            {"line": line, "reason": reason(table, exc, player.lang, player.name)}
        )
        return state
    # the rules' own fold of what they decided, where they kept it (a vote with its running
    # tally, LUP-D18): the stamps change no state, no rule reads a vote's arrival time
    folded = recall(new, state)
    new = stamp_votes(new, now)
    events += new
    state = table.rules.fold(new, state) if folded is None else folded
    spec = spec_of(table.rules, command.verb)
    if _passed_on(spec):  # a chat line (LUP-613/614, LG-613, CAS-615) is relayed at once:
        # nothing of it stands until a deadline, so nothing « modifiable d'ici là »
        entry: Accepted = {
            "line": canonical(table, command, player.lang),
            "deadline": None,
            "final": False,
            "passed_on": True,
        }
        reply.accepted.append(entry)
        return state
    until = table.rules.changeable_until(state, player.name, command.verb)
    if until is not None:  # a deadline the game master moved is shown where it now falls
        until = table.desk.moved(until)
    entry = {
        "line": canonical(table, command, player.lang),
        "deadline": iso(until) if until else None,
        "final": table.rules.final(state, player.name, command.verb),
        "verb": command.verb,
    }
    if entry["deadline"] and not entry["final"]:
        # LUP-603, LG-603, CAS-603: a later order of the same kind replaces the earlier, in
        # one mail too; the receipt says so rather than show both as standing. A ballot's
        # RETIRER withdraws a VOTE of the same mail, a VOTE replaces a RETIRER (LUP-620,
        # LG-623, CAS-621): only the last line of the ballot stands (LUP-D18's tally)
        ballot = command.verb in _BALLOT
        for earlier in reply.accepted:
            verb = earlier.get("verb")
            if not earlier["deadline"]:
                continue
            if (verb == command.verb and not table.rules.adds_up(verb)) or (
                ballot and verb in _BALLOT and command.verb == "vote"
            ):
                earlier["replaced"] = entry["line"]
            elif ballot and verb == "vote":
                earlier["withdrawn"] = True
                entry["withdraws"] = True
    if note is not None:
        entry["note"] = note
    if command.text and any(isinstance(a, Text) and a.multiline for a in spec.args):
        # a text others will read (Dracula's telepathy, painting, waltz, reply): the sender
        # sees exactly what is passed on, where the mail's text ended (DRA-421)
        entry["line"] = canonical(table, replace(command, text=""), player.lang)
        entry["text"] = command.text
    reply.accepted.append(entry)
    return state


_BALLOT = frozenset({"vote", "unvote"})
"""A village ballot's verbs: a vote and its withdrawal (LUP-617..LUP-620, LG-622/LG-623,
CAS-620/CAS-621)."""


def _passed_on(spec: CommandSpec) -> bool:
    """Whether ``spec`` is a chat line: its whole argument a text passed on to others as it
    is received (the wolves', the seers', the council's), not an order that stands."""
    args = spec.args
    return (
        len(args) == 1
        and isinstance(args[0], Text)
        and not args[0].optional
        and not args[0].multiline
    )


def stamp_votes(events: Sequence[Event], now: datetime) -> list[Event]:
    """The events of a player's command, each vote stamped with its arrival time, for the
    archive's vote timeline (the rules ignore it); also the rules-only fast path's
    (pbem.balance.fastgame), so both logs hold the same votes."""
    return [quick_replace(e, at=now) if isinstance(e, VoteSet) else e for e in events]
