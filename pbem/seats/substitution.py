"""A seat changing hands (issue 13): who may take it, under which name; the bench of a game.

Pure over the Table's port (:class:`~pbem.table.ports.AnsweringTable`): the checks a
substitution passes and the :class:`~pbem.core.events.Substituted` event it records, whether
the game master asked by mail (``REMPLACER``, pbem/desk/replace.py) or from the shell (``pbem
seat replace``, through the same desk command), and the bench of volunteers a running game keeps (``REMPLACANT`` from a
non-player, :class:`~pbem.core.events.BenchJoined`).

Decisions (docs/daemon.md, "Seats"):

- only a living seat is replaced: forums replace players still in the game, a dead seat has
  nothing left to play (its ghost vote in Lupus, LUP-D22, is not worth a newcomer);
- the newcomer's address must not hold a seat already nor be a game master's;
- the seat takes the newcomer's name (the forums' way, « Bob remplace Alice ») unless the
  game's option ``substitute_name`` is ``kept``; without a name given, the seat keeps its name;
- a name follows LUP-D28 as issue 13 amends it (the sign-ups' rule: spaces, accents and
  hyphens, read back by the parser, no keyword at its start, no reserved word) and is unique,
  no word-prefix of another (accent- and case-insensitive), among the seats and their shown
  names (a volunteer's on the bench as well);
- a bench holds BENCH_MAX volunteers at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from pbem.core.commands import CommandSpec, Text
from pbem.core.errors import CommandError, IllegalNow, InvalidSyntax, NotAPlayer
from pbem.core.events import BenchJoined, PlayerDied, Substituted
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.names import name_problem
from pbem.core.roster import Holder
from pbem.mail.address import is_mailable
from pbem.mail.grammar import parse_gender
from pbem.mail.inbound import first_command

if TYPE_CHECKING:
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Step

BENCH_MAX = 20
"""Volunteers a game's bench holds: each is an event in the log and a mail to the game
masters, so strangers' forged offers cannot flood either (forums rarely need more than a few)."""

_LINKS = {"par", "with", "by", "avec"}
"""The word between the seat and the newcomer: ``REMPLACER Alice par ...``."""


@dataclass(frozen=True)
class Newcomer:
    """Who takes a seat, as the game master named him."""

    email: str
    name: str | None = None
    gender: str | None = None
    lang: str | None = None


def setup_bench(setup: Any) -> tuple[Holder, ...]:
    """The volunteers a game's setup carries on its bench (collected at sign-up: name, email,
    lang, pronoun), as the roster keeps them; none for a setup without a bench."""
    out = []
    for entry in getattr(setup, "bench", ()) or ():
        try:
            gender = parse_gender(entry.get("gender", entry.get("pronoun")))
        except ValueError:
            gender = None  # the sign-up checked it: an unknown word reads neutrally
        lang = str(entry.get("lang") or setup.lang)
        out.append(Holder(PlayerId(""), str(entry["name"]), str(entry["email"]), lang, gender))
    return tuple(out)


def substitute_name_option(table: AnsweringTable) -> str:
    """The game's ``substitute_name`` option: ``newcomer`` (default) or ``kept``."""
    options = getattr(table.state, "options", None)
    return str(getattr(options, "substitute_name", "newcomer"))


def alive(table: AnsweringTable, seat: str) -> bool:
    """Whether ``seat`` is still in the game (no ``PlayerDied`` the rules folded)."""
    return not any(isinstance(e, PlayerDied) and e.player == seat for e in table.ruled)


def parse_newcomer(table: AnsweringTable, text: str) -> Newcomer:
    """``par adresse [nom] [il|elle]`` or ``par nom-du-banc``: who takes the seat."""
    tokens = text.split()
    if tokens and fold(tokens[0]) in _LINKS:
        tokens = tokens[1:]
    if not tokens:
        raise InvalidSyntax("seat_no_newcomer", bench=[b.name for b in table.roster.bench])
    first, rest = tokens[0], tokens[1:]
    if "@" not in first:  # a name on the bench (« Jean Pierre »: the words after the link)
        volunteer = table.roster.bench_named(" ".join(tokens))
        if volunteer is None:
            raise InvalidSyntax(
                "seat_not_on_bench",
                name=" ".join(tokens),
                bench=[b.name for b in table.roster.bench],
            )
        return Newcomer(volunteer.email, volunteer.name, volunteer.gender, volunteer.lang)
    gender = None
    if rest:
        try:
            gender = parse_gender(rest[-1])
            rest = rest[:-1]
        except ValueError:
            pass
    return Newcomer(first.strip("<>").lower(), " ".join(rest) or None, gender)


def check_name(table: AnsweringTable, name: str, seat: str | None = None) -> None:
    """Refuse a name the game could not tell apart (``seat``: the seat it will be shown for,
    whose own names do not clash with it). LUP-D28 as issue 13 amends it (the sign-ups'
    rule): spaces, accents and hyphens are fine, but the parser must read the name back, it
    starts with no command keyword, holds no reserved word, and is no word-prefix of another
    name nor the other way round."""
    if not name or "@" in name or name_problem(name) is not None:
        raise InvalidSyntax("seat_bad_name", name=name)
    words = fold(name).split()
    for spec in table.rules.all_commands:
        if any(words[: len(fold(k).split())] == fold(k).split() for k in spec.fr + spec.en):
            raise InvalidSyntax("seat_bad_name", name=name)
    reserved = {fold(w) for w in table.rules.reserved}
    if fold(name) in reserved or any(w in reserved for w in words):
        raise InvalidSyntax("seat_bad_name", name=name)
    for holder in table.roster.holders:
        if holder.seat == seat:
            continue
        for other in {holder.seat, holder.name}:
            shorter, longer = sorted((fold(other).split(), words), key=len)
            if longer[: len(shorter)] == shorter:
                raise IllegalNow("seat_name_taken", name=name)


def check_address(table: AnsweringTable, email: str, admins: Sequence[str] = ()) -> None:
    """Refuse an address nobody could be mailed at, or one that plays or steers the game."""
    if not is_mailable(email):
        raise InvalidSyntax("seat_bad_address", address=email)
    holder = table.roster.by_email(email)
    if holder is not None:
        raise IllegalNow("seat_address_playing", address=email, name=holder.seat)
    if email.lower() in {a.lower() for a in (*table.setup.admins, *admins)}:
        raise IllegalNow("seat_address_admin", address=email)


def substitution(table: AnsweringTable, seat: PlayerId, newcomer: Newcomer) -> Substituted:
    """The event of ``newcomer`` taking ``seat``; a CommandError says why it cannot."""
    if table.finished:
        raise IllegalNow("desk_over")
    holder = table.roster.by_seat(seat)
    if not alive(table, seat):  # forums replace living players only (see the module's doc)
        raise IllegalNow("seat_dead", name=seat)
    check_address(table, newcomer.email)
    name = holder.name
    if newcomer.name is not None and substitute_name_option(table) == "newcomer":
        check_name(table, newcomer.name, seat)
        name = newcomer.name
    return Substituted(
        seat,
        holder.name,
        holder.email,
        name,
        newcomer.email,
        newcomer.lang or holder.lang,
        newcomer.gender,
    )


def volunteer(table: AnsweringTable, email: str, text: str, lang: str) -> BenchJoined:
    """A non-player's ``REMPLACANT [nom] [il|elle]``: his place on the bench."""
    if table.finished:
        raise IllegalNow("game_over")
    if table.roster.on_bench(email):
        raise IllegalNow("bench_already")
    if len(table.roster.bench) >= BENCH_MAX:
        raise IllegalNow("bench_full", count=BENCH_MAX)
    tokens = text.split()
    gender = None
    if tokens:
        try:
            gender = parse_gender(tokens[-1])
            tokens = tokens[:-1]
        except ValueError:
            pass
    name = " ".join(tokens) or email.partition("@")[0].capitalize()
    check_name(table, name)
    if table.roster.bench_named(name) is not None:
        raise IllegalNow("seat_name_taken", name=name)
    return BenchJoined(name, email.lower(), lang, gender)


BENCH = CommandSpec("bench", ("REMPLACANT", "REMPLACANTE"), ("SUBSTITUTE",), (Text(optional=True),))
"""A non-player's offer to take a seat of a running game (his first command line)."""


def replaced_refusal(table: AnsweringTable, address: str) -> CommandError | None:
    """The polite refusal for an address whose seat changed hands (None for a stranger)."""
    name = table.roster.replaced_name(address)
    if name is None:
        return None
    if table.roster.moved_away(address):  # its own player moved (issue 25, ADRESSE)
        return NotAPlayer("address_moved", address=address, name=name)
    return NotAPlayer("seat_replaced", address=address, name=name)


def bench_refusal(table: AnsweringTable, address: str) -> tuple[CommandError, str] | None:
    """A volunteer of the bench who writes before he holds a seat: told he waits on the
    bench, in his language, rather than to volunteer again (None for anyone else)."""
    wanted = address.strip().lower()
    holder = next((b for b in table.roster.bench if b.email.lower() == wanted), None)
    if holder is None:
        return None
    why = NotAPlayer("on_the_bench", name=holder.name, game=table.rules.title)
    return why, holder.lang


def bench_offer(
    table: AnsweringTable,
    msg: EmailMessage,
    sender: str,
    key: str,
    message_id: str | None,
    admins: Sequence[str] = (),
) -> Step | None:
    """A non-player's private mail with a ``REMPLACANT``/``SUBSTITUTE`` line: his
    place on the bench and the game masters told (or the reason it is refused); None when the
    mail holds no such line (the table answers it as a stranger's)."""
    from pbem.table.step import Outgoing, Reply  # late: pbem.table's __init__ loads the Table first

    found = first_command(msg, BENCH)
    if found is None:
        return None
    line, command = found
    lang = "en" if fold(line.split()[0]) == "substitute" else table.setup.lang
    spec = PlayerSpec(PlayerId(""), sender, lang)
    try:
        joined = volunteer(table, sender, command.text, lang)
    except CommandError as exc:
        refused = Reply(rejected=[{"line": line, "reason": table.reason(exc, lang)}])
        return table.step([], (spec, refused, key, message_id))
    thanks = table.renderer.text(
        "common/bench_joined", lang, {"name": joined.name, "genders": {}, "game": table.rules.title}
    )
    reply = Reply(accepted=[{"line": line, "deadline": None, "final": True}], extra=[thanks])
    step = table.step([joined], (spec, reply, key, message_id))
    # the game's masters, else the daemon's: an offer nobody reads would strand the volunteer
    masters = table.setup.admins or tuple(a.lower() for a in admins)
    living = [table.roster.shown(s) for s in table.rules.names(table.state) if alive(table, s)]
    params: dict[str, object] = {
        "game": table.rules.title,
        "volunteer": joined.name,
        "address": joined.email,
        # « Une remplaçante se propose » when she said « elle » (REMPLACANT nom elle)
        "genders": {joined.name: joined.gender} if joined.gender else {},
    }
    subject, body = table.renderer.mail(
        "desk/bench_offer", table.setup.lang, {**params, "seats": living}
    )
    thread = f"{table.game_id}/desk"
    html = table.pages.page(subject, body, table.setup.lang)  # like the game's other mails
    offers = tuple(
        Outgoing(
            f"{table.game_id}/bench/{key}/{i}", (a,), False, subject, body, None, thread, html=html
        )
        for i, a in enumerate(masters)
    )
    return replace(step, outgoing=(*step.outgoing, *offers))
