"""The game master's lines to a game (by mail, or ``pbem admin`` through the daemon): the
game's own ``admin_commands`` and the desk's (:mod:`pbem.desk`), answered like a player's
mail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING

from pbem.core.commands import CommandSpec, find_spec, parse_line
from pbem.core.errors import CommandError, IllegalNow, InvalidSyntax, MailError, UnknownCommand
from pbem.core.events import Event
from pbem.core.match import clean_token, fold
from pbem.desk import DESK_SPECS, is_desk, run_desk, usage
from pbem.mail.inbound import MailText, extract
from pbem.table.mails import chained, reply_mail, step_of
from pbem.table.step import Outgoing, Reply, Step, Topic
from pbem.table.wording import reason

if TYPE_CHECKING:
    from pbem.table.ports import HubTable


_SHOW_FORM = frozenset(
    {
        "missing_name",
        "missing_names",
        "missing_text",
        "extra_words",
        "expected_word",
        "invalid_syntax",
        "desk_duration",
    }
)
"""The grammar's refusals that say what is wrong but not how to write it."""

_QUERY_TOPICS: dict[str, Topic] = {
    "desk.help": "help",
    "desk.status": "game_status",
    "desk.roles": "roles",
    "desk.history": "history",
}
"""The desk's queries whose answer alone titles the reply (« État de la partie », not « Vos
commandes » over « ✓ STATUT »), as a player's AIDE or STATUT does."""


def _unknown(
    table: HubTable, line: str, exc: UnknownCommand, specs: Sequence[CommandSpec], lang: str
) -> CommandError:
    """A game master's line that is none of his commands: a player's command (VOTE,
    HISTORIQUE) is told to be the players', a typo is suggested the desk's keyword in the
    game's language (« PROLONGER », not the English EXTEND a French game master never wrote)."""
    tokens = line.split()
    if find_spec(tokens, table.rules.all_commands) is not None:
        return IllegalNow("desk_player_command", word=clean_token(tokens[0]).upper())
    own = {k: s.keyword(lang) for s in specs for k in (*s.fr, *s.en)}
    suggested = [own.get(k, k) for k in exc.params.get("suggestions", ())]
    return UnknownCommand(
        word=exc.params.get("word", ""), suggestions=list(dict.fromkeys(suggested))
    )


def written_language(lines: Sequence[str], specs: Sequence[CommandSpec]) -> str | None:
    """The language of the game master's command words: that of the first line whose keyword
    is one language's only (PROLONGER, EXTEND; not PAUSE or ROLES, both languages' words);
    None when no line tells. pbem knows no other language of his (a game master has no seat
    and the configuration gives him none), so his reply is in it, else in the game's."""
    for line in lines:
        tokens = line.split()
        found = find_spec(tokens, specs)
        if found is None:
            continue
        spec, length = found
        written = tuple(fold(clean_token(t)) for t in tokens[:length])
        french = any(tuple(map(fold, k.split())) == written for k in spec.fr)
        english = any(tuple(map(fold, k.split())) == written for k in spec.en)
        if french != english:
            return "fr" if french else "en"
    return None


def _told(table: HubTable, mails: Sequence[Outgoing], sender: str, lang: str) -> str | None:
    """Who the game master's commands had told what: each mail's subject (without the game's
    tag) with its readers, the list or the players by their names, so that his reply says
    what changed and who learnt it, not only « ✓ PAUSE (définitif) »."""
    tag = f"[{table.rules.title}] "
    masters = {a.lower() for a in (*table.setup.admins, sender)}
    sent: dict[str, list[str]] = {}
    for mail in mails:
        if not mail.public and {a.lower() for a in mail.to} <= masters:
            continue  # his own copy (an absence's notice): he has it
        subject = mail.subject.removeprefix(tag)
        readers = sent.setdefault(subject, [])
        if mail.public:
            readers.append("")
            continue
        for address in mail.to:
            spec = table.by_email.get(address.lower())
            readers.append(table.roster.shown(spec.name) if spec is not None else address)
    if not sent:
        return None
    told = [{"subject": s, "list": "" in r, "to": [n for n in r if n]} for s, r in sent.items()]
    return table.renderer.text("desk/told", lang, {"mails": told})


def list_commands(
    table: HubTable, msg: EmailMessage, sender: str, key: str, message_id: str | None
) -> Step:
    """The game master's post on the list: relayed as his talk; but its lines written as his
    commands (« PAUSE », « PROLONGER 24h ») did nothing there, and he is told so privately,
    with where they go (the desk reads the moderator's address only)."""
    try:
        lines = extract(msg).lines
    except MailError:
        lines = ()
    specs = (*table.rules.admin_commands, *DESK_SPECS)
    written = [
        line
        for line in lines
        if line.split()[0].isupper() and find_spec(line.split(), specs) is not None
    ]
    if not written:
        return Step(post="relay")
    lang = written_language(written, specs) or table.setup.lang
    why = table.renderer.text("reasons/desk_on_list", lang, {}).strip()
    refused = Reply(rejected=[{"line": line, "reason": why} for line in written])
    return Step((), (reply_mail(table, sender, lang, refused, key, message_id),), post="relay")


def receive_admin(
    table: HubTable, msg: EmailMessage, sender: str, key: str, message_id: str | None, now: datetime
) -> Step:
    """An administrator's private mail: the game's ``admin_commands`` and the desk's."""
    try:
        text = extract(msg)
    except MailError:
        text = MailText("", (), (), False, False)
    ended = "" if text.lines else _bare_end(msg)
    return admin_lines(
        table, text.lines, sender, now, key, message_id, subject=text.subject, ended=ended
    )


def _bare_end(msg: EmailMessage) -> str:
    """The mail's first line when it is a bare FIN/END: that line ends a mail's text (a
    signature, a quote follow), so a game master who wrote it to end the game sent nothing;
    he is told how to write it (FIN NUL, FIN camp) rather than « no command found »."""
    try:
        part = msg.get_body(("plain",))
        body = part.get_content() if part is not None else ""
    except (KeyError, LookupError, UnicodeError, AttributeError):
        return ""
    first = next((line.strip() for line in str(body).splitlines() if line.strip()), "")
    return first if fold(clean_token(first)) in {"fin", "end"} else ""


def admin_lines(
    table: HubTable,
    lines: Sequence[str],
    sender: str,
    now: datetime,
    key: str,
    message_id: str | None = None,
    reply_to: Sequence[str] = (),
    subject: str = "",
    ended: str = "",
) -> Step:
    """The game master's commands, one a line, answered like a player's: accepted,
    rejected, ignored. The reply goes to ``sender``, or to every address of ``reply_to``. A
    mail's ``subject`` may hold a command too, but is never reported as ignored text.
    ``ended``: the bare FIN/END line that ended the mail before any command."""
    specs = [*table.rules.admin_commands, *DESK_SPECS]
    heading = [subject] if subject else []
    # answered in the language of his command words (a French game master of an English
    # game), else the game's
    lang = written_language([*heading, *lines], specs) or table.setup.lang
    current = table  # each line sees what the lines before it did
    events: list[Event] = []
    reply = Reply()
    asked: list[Topic] = []  # the topics of the queries among the accepted lines
    for index, line in enumerate([*heading, *lines]):
        try:
            # the game master may name a seat by its shown name or by the seat's own
            # (pbem status, pbem seat replace)
            shown = current.roster.desk_names(table.rules.names(current.state))
            command = parse_line(line, specs, shown)
            if command is None:
                if line.strip() and index >= len(heading):
                    reply.ignored.append(line)
                continue
            command = current.roster.to_seats(command)
            if is_desk(command.verb):
                result = run_desk(current, command, now, sender, lang)
                new = list(result.events)
                reply.extra += result.reply
                # a seat's history is a page of headings, as the player's own (issue 25)
                reply.markdown = reply.markdown or command.verb == "desk.history"
            else:
                new = table.rules.admin(current.state, command, now)
        except CommandError as exc:
            if isinstance(exc, UnknownCommand):
                exc = _unknown(table, line, exc, specs, lang)
            why = reason(table, exc, lang)
            if isinstance(exc, InvalidSyntax) and exc.reason in _SHOW_FORM:
                # a missing or extra argument: the command's form and an example, as AIDE
                # shows them (njudge answers a malformed command with its syntax)
                found = find_spec(line.split(), specs)
                how = usage(current, found[0].verb, lang) if found else ""
                why = f"{why} {how}" if how else why
            reply.rejected.append({"line": line, "reason": why})
            continue
        events += new
        if new:
            current = table.with_events(events)
        elif command.verb in _QUERY_TOPICS:
            asked.append(_QUERY_TOPICS[command.verb])
        # a query (ROLES, STATUT, SPECTATEURS) changes nothing: « (définitif) » would say it did
        reply.accepted.append({"line": line, "deadline": None, "final": bool(new)})
    if len(set(asked)) == 1 and len(asked) == len(reply.accepted) and not reply.rejected:
        # one kind of question, nothing else: the Subject says what the answer is
        reply.topic, reply.accepted = asked[0], []
    if ended and not reply:
        why = table.renderer.text("reasons/desk_bare_end", lang, {"line": ended}).strip()
        reply.rejected.append({"line": ended, "reason": why})
    if not reply:
        reply.extra.append(table.renderer.text("common/no_command", lang, {}))
    # a CLORE closes a phase: its result post carries its link of the chain like a deadline's
    # his reply says what his commands did: no game master's copy of their notices to him
    replied = tuple(a.lower() for a in reply_to) or (sender.lower(),)
    step = chained(table, step_of(table, events, reply=None, replied=replied))
    told = _told(current, step.outgoing, sender, lang) if step.outgoing else None
    if told:
        reply.extra.append(told)
    mail = reply_mail(table, sender, lang, reply, key, message_id, threaded=False)
    if reply_to:
        mail = replace(mail, to=tuple(reply_to))
    return Step(step.events, (mail, *step.outgoing), step.facts)
