"""How a table words commands and refusals for players: a command's canonical form in a
receipt, AIDE's syntax of a command, why a command was refused."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pbem.core.commands import Command, CommandSpec, Player, Players, Text, Word
from pbem.core.errors import (
    CommandError,
    NotAPlayer,
    TargetError,
    UnknownCommand,
    UnknownTarget,
)
from pbem.core.game import Rules
from pbem.core.ids import PlayerId

if TYPE_CHECKING:
    from pbem.table.ports import TableView


def argument(arg: object, lang: str) -> str:
    """How AIDE writes one argument: ``nom``, ``nom1 nom2``, ``BOUDOIR|BAL``, ``texte``."""
    name, text = ("nom", "texte") if lang == "fr" else ("name", "text")
    if isinstance(arg, Player):
        return f"[{name}]" if arg.optional else name
    if isinstance(arg, Players):
        if arg.count == 1:
            return name
        if arg.at_most:
            return f"{name} [{name}…]" if arg.count > 2 else f"{name} [{name}]"
        return " ".join(f"{name}{i}" for i in range(1, arg.count + 1))
    if isinstance(arg, Word):
        words = "|".join(arg.listed(lang))
        return f"[{words}]" if arg.optional else words
    if isinstance(arg, Text) and arg.hint:
        shown = arg.hint[1] if lang == "en" else arg.hint[0]
        return f"[{shown}]" if arg.optional else shown
    if isinstance(arg, Text):
        shown = f"{text} … FIN" if arg.multiline and lang == "fr" else text
        shown = f"{text} … END" if arg.multiline and lang == "en" else shown
        return f"[{shown}]" if arg.optional else shown
    return ""


def syntax(spec: CommandSpec, lang: str) -> dict[str, str]:
    """How ``AIDE`` shows ``spec`` to a player writing in ``lang``."""
    return {
        "verb": spec.verb,
        "keyword": spec.keyword(lang),
        "args": " ".join(argument(a, lang) for a in spec.args),
        "public": "yes" if spec.public else "no",
    }


def spec_of(rules: Rules[Any], verb: str) -> CommandSpec:
    """The command of the game's rules that ``verb`` names."""
    specs = rules.all_commands
    known = _BY_VERB.get(id(specs))
    if known is None or known[0] is not specs:  # once per game's commands (found by identity)
        by_verb: dict[str, CommandSpec] = {}
        for spec in specs:
            by_verb.setdefault(spec.verb, spec)  # the first that names it, as a scan finds
        if len(_BY_VERB) > 256:  # commands made on the fly (tests): bounded
            _BY_VERB.clear()
        known = _BY_VERB[id(specs)] = (specs, by_verb)
    found = known[1].get(verb)
    if found is None:
        raise StopIteration(verb)  # as the scan it replaces: no command of that verb
    return found


_BY_VERB: dict[int, tuple[tuple[CommandSpec, ...], dict[str, CommandSpec]]] = {}


def canonical(table: TableView, command: Command, lang: str) -> str:
    """The command as a receipt repeats it: its keyword, its word, the names it targets (as
    the seats are shown now), its text."""
    spec = spec_of(table.rules, command.verb)
    parts = [spec.keyword(lang)]
    if command.word:
        words = [a for a in spec.args if isinstance(a, Word)]
        parts.append(words[0].label(command.word, lang) if words else command.word.upper())
    parts += table.roster.shown_names(command.targets)
    if command.text:
        parts.append(command.text)
    return " ".join(parts)


def status_params(table: TableView, state: Any, seat: str, lang: str) -> dict[str, Any]:
    """What ``STATUT``/``STATUS`` tells ``seat`` (the rules' :meth:`~pbem.core.game.Rules.status`),
    each pending order written as the command the player would send, in his language
    (« SONDER Alice », never the verb's id and the seat: « scan alice »), and only while it can
    still change: an order of a phase that is over has been carried out (the vision given)."""
    params = dict(table.rules.status(state, PlayerId(seat)))
    open_verbs = {c.verb for c in table.rules.available(state, PlayerId(seat))}
    params["pending"] = [
        {
            **p,
            "line": canonical(
                table,
                Command(p["verb"], tuple(p.get("targets", ())), p.get("word") or None),
                lang,
            ),
        }
        for p in params.get("pending", ())
        if p["verb"] in open_verbs
    ]
    return {"name": seat, "genders": table.genders, **params}


def in_language(rules: Rules[Any], keywords: Iterable[str], lang: str) -> list[str]:
    """Suggested keywords as the reader writes them: « Did you mean PASSE? » to an English
    player who typed PAUSE reads « Did you mean PASS? » (the same command, his keyword)."""
    shown: list[str] = []
    for keyword in keywords:
        spec = next((s for s in rules.all_commands if keyword in s.fr + s.en), None)
        own = () if spec is None else spec.fr if lang == "fr" else spec.en
        word = keyword if spec is None or keyword in own else spec.keyword(lang)
        if word not in shown:
            shown.append(word)
    return shown


def in_and_out(table: TableView) -> tuple[list[str], list[str]]:
    """The seats still in the game and those out of it (dead or removed), in the game's order:
    an unknown name's refusal lists the first as « Joueurs », the others apart, not as names a
    VOTE could take (every game's summary says who is alive)."""
    alive = {
        s.get("name") for s in table.rules.summary(table.state).get("players", ()) if s.get("alive")
    }
    names = table.rules.names(table.state)
    return [n for n in names if n in alive], [n for n in names if n not in alive]


def reason(table: TableView, exc: CommandError, lang: str, reader: str | None = None) -> str:
    """Why ``exc`` refused a command, in ``lang`` (the reply's wording); ``reader``, the player
    it is told to, for the words that agree with him or her (« Vous êtes déjà une louve »)."""
    params = {"genders": table.genders, "reader": reader, **exc.params}
    if isinstance(exc, UnknownTarget):  # LG-D42: the rejection lists the valid names
        params["players"], params["out"] = in_and_out(table)
    if isinstance(exc, UnknownCommand):  # a suggestion in the player's own words
        params["suggestions"] = in_language(table.rules, exc.params.get("suggestions", ()), lang)
    template = f"reasons/{exc.reason}"
    if not table.renderer.exists(template, lang):
        template = "reasons/rejected"
    # the params name seats, shown by their holders' names; but what a player typed is
    # his, and a refused address is told the name it played under
    shown = params if isinstance(exc, NotAPlayer) else table.roster.show(params)
    if isinstance(exc, TargetError):
        shown["name"] = exc.name
    # kept: the same refusal recurs to every player who sends the same refused line
    return table.renderer.text_kept(template, lang, shown)
