"""What players read is words, not the engine's ids (issue 22): over whole bot games of the
four games, in French and in English, no mail's text, HTML or Subject holds a role, room,
object, verb, phase, option or option value id, nor an event's class name; and no private
Subject (what a lock screen shows) names a role.

The ids are collected from the rules and their registries, not listed here, so a new role or
option is checked as soon as it exists. An id that is also the word a mail legitimately uses
(« vampire », « vote », « boudoir ») is allowed only where it is that word: in French for the
few French words below, in English for the plain lower-case ids that are English words
(a verb id followed by a seat, « scan Alice », is still the machine's form).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
import typing
from collections.abc import Iterator
from email.message import EmailMessage
from html import unescape

import pytest

from pbem.core.events import COMMON_EVENTS, Event
from pbem.games import GAME_IDS, rules_for
from pbem.games.chasse.subphases import CHASSE_PHASES
from pbem.games.dracula import manor
from pbem.games.dracula.state import DRACULA_PHASES
from pbem.games.loupgarou.state import LOUPGAROU_PHASES
from pbem.games.lupus.state import LUPUS_PHASES
from pbem.mail.render import shared_renderer
from pbem.table import Table
from pbem.tools.bots import bot_mails, plain_mail
from pbem.tools.mailboxes import Delivered, play_and_deliver
from tests.support.mailparts import parse

FRENCH_WORDS = frozenset(
    {
        # ids that are the French word a mail uses for the same thing
        "vote",
        "vampire",
        "boudoir",
        "crucifix",
        "grimoire",
        "torture",  # « la salle de torture »
        "total",  # « son total »
        "absence",  # « déclarer une absence » (issue 25's ABSENCE)
    }
)
"""Plain ids a French mail may hold as French words."""


def _literal_values(cls: type) -> Iterator[str]:
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        hint = hints.get(f.name)
        if typing.get_origin(hint) is typing.Literal:
            yield from (v for v in typing.get_args(hint) if isinstance(v, str))


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@functools.cache
def internal_ids() -> dict[str, str]:
    """Every id the engine uses (id -> what it is), from the rules and registries."""
    ids: dict[str, str] = {}

    def add(value: object, kind: str) -> None:
        if isinstance(value, str) and value:
            ids.setdefault(value, kind)

    for game in GAME_IDS:
        rules = rules_for(game)
        for role in rules.roles:
            add(role, "role")
        for spec in rules.all_commands + rules.admin_commands:
            add(spec.verb, "verb")
        if rules.options_type is not None:
            for f in dataclasses.fields(rules.options_type):
                add(f.name, "option")
            for value in _literal_values(rules.options_type):
                add(value, "option value")
        for event in (*rules.event_types, *COMMON_EVENTS):
            add(event.__name__, "event")
    for phase in (*LUPUS_PHASES, *LOUPGAROU_PHASES, *CHASSE_PHASES, *DRACULA_PHASES):
        add(phase, "phase")
    for name in dir(manor):
        value = getattr(manor, name)
        if name.isupper() and isinstance(value, str):
            add(value, "room or object")
    for event in _subclasses(Event):
        add(event.__name__, "event")
    return ids


def machine_shaped(word: str) -> bool:
    """An id no language writes: snake_case, CamelCase, a letter and a digit (« W1 »)."""
    return (
        "_" in word
        or bool(re.search(r"[a-z][A-Z]", word))
        or bool(re.fullmatch(r"[A-Z]+\d+", word))
    )


def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w'’\-@.]){re.escape(word)}(?![\w'’\-@])")


@functools.cache
def patterns(lang: str, names: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    """(id, where it would show) for the ids a mail in ``lang`` must not hold."""
    found: list[tuple[str, re.Pattern[str]]] = []
    seats = "|".join(re.escape(n) for n in names)
    for word, kind in internal_ids().items():
        if machine_shaped(word) or (len(word) == 1 and kind == "phase"):
            # a phase letter alone, as the machine names Chasse's night (« sous-phase L »)
            if len(word) == 1:
                found.append((word, re.compile(rf"(?<![\w'’\-.]){word}(?=\s*[)(,;])")))
            else:
                found.append((word, _word(word)))
        elif lang == "fr" and word.islower() and word not in FRENCH_WORDS:
            found.append((word, _word(word)))
        elif kind == "verb" and word.islower():  # « actions: scan Alice »: an order as data
            found.append((word, re.compile(rf"(?<=[:;] ){word} (?:{seats})\b")))
    return found


_TITLE = re.compile(r"<title>.*?</title>", re.S)
_STYLE = re.compile(r"<style.*?</style>", re.S)
_TAG = re.compile(r"<[^>]+>")
_GAME_TAG = re.compile(r"\[[\w-]+\]")


def visible(page: str) -> str:
    """What a reader sees of an HTML part, the buttons' labels included."""
    return unescape(_TAG.sub(" ", _STYLE.sub("", _TITLE.sub("", page))))


class CuriousBots:
    """The random bots, and now and then a player asking STATUT/AIDE (and at times REGLES):
    the replies that show a player's pending orders and the game's options. The first player
    asks all three at the first round; later, rarely: each reply is checked like any mail, and
    a few per game cover them (the suite's time)."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self, table: Table, rng: random.Random) -> Iterator[tuple[EmailMessage, str]]:
        yield from bot_mails(table, rng)
        specs = {s.verb: s for s in table.rules.all_commands}
        for spec in table.setup.players:
            first, self.asked = not self.asked, True
            if first or rng.random() < 0.04:
                verbs = (
                    ("status", "help", "rules")
                    if first or rng.random() < 0.3
                    else ("status", "help")
                )
                words = [specs[v].keyword(spec.lang) for v in verbs]
                yield (
                    plain_mail(spec.email, table.setup.moderator, "\n".join(words) + "\n"),
                    "private",
                )


@functools.cache
def whole_game(game: str, lang: str) -> tuple[tuple[str, ...], list[Delivered]]:
    table, delivered = play_and_deliver(game, lang, seed=2, bots=CuriousBots())
    return tuple(p.name for p in table.setup.players), delivered


def mail_texts(delivered: list[Delivered]) -> Iterator[tuple[Delivered, str, str, str]]:
    """(mail, Subject, text, visible HTML) once per distinct mail."""
    seen: set[bytes] = set()
    for item in delivered:
        if item.raw in seen:
            continue
        seen.add(item.raw)
        parsed = parse(item.raw)
        plain, page = parsed.get_body(("plain",)), parsed.get_body(("html",))
        text = str(plain.get_content()) if plain is not None else ""
        html = visible(str(page.get_content())) if page is not None else ""
        yield item, str(parsed["Subject"]), text, html


_RULES_REPLY = re.compile(r"options (?:de cette partie|par défaut)|(?:game's|default) options")
"""The REGLES/RULES reply's options paragraph (templates/*/common/rules.txt)."""


def check_no_internal_id(names: tuple[str, ...], delivered: list[Delivered], lang: str) -> None:
    """No mail's Subject, text or visible HTML holds an internal id."""
    found: dict[str, str] = {}
    count = rules_replies = 0
    for _item, subject, text, html in mail_texts(delivered):
        count += 1
        rules_replies += bool(_RULES_REPLY.search(text))
        untagged = _GAME_TAG.sub("", subject + "\n" + text)  # « [dracula] »: the game's name
        for where, content in (("text", untagged), ("html", _GAME_TAG.sub("", html))):
            for word, pattern in patterns(lang, names):
                if word not in content:  # every pattern holds its word as it is: a cheap sieve
                    continue
                m = pattern.search(content)
                if m and word not in found:
                    line = content[max(0, m.start() - 60) : m.end() + 40].replace("\n", " ")
                    found[word] = f"{internal_ids()[word]} {word!r} in {where}: …{line}…"
    assert count > 100
    assert rules_replies, "no REGLES/RULES reply was checked: its options list is where keys showed"
    assert not found, "\n".join(found.values())


def role_names() -> set[str]:
    """Every role's name as the mails write it, in both languages, singular and plural, and the
    feminine forms French gives a card held by a woman."""
    renderer = shared_renderer()
    shown: set[str] = {
        # the feminine forms of the cards' names (a player who said « elle »)
        "Villageoise",
        "Simple villageoise",
        "Voleuse",
        "Joueuse de flûte",
        "Maîtresse des loups",
        "Louve-garou",
        "Possédée",
        "Voyante",
        "Humaine",
        "Vampiresse",
    }
    for game in GAME_IDS:
        rules = rules_for(game)
        for lang in ("fr", "en"):
            env = renderer.envs[lang]
            names = f"{rules.templates}/_names.jinja"
            for macro in ("role", "role_plural"):
                source = f'{{% import "{names}" as n %}}{{{{ n.{macro}(r) }}}}'
                if f"macro {macro}(" not in (renderer.root / lang / names).read_text():
                    continue
                template = env.from_string(source)
                for role in rules.roles:
                    shown.add(template.render(r=role, genders={}).strip())
    return {s for s in shown if s}


def check_no_role_in_a_private_subject(names: tuple[str, ...], delivered: list[Delivered]) -> None:
    """A private mail's Subject shows on a lock screen and in the inbox list: it never names
    a card (LUP-701, LG-100's secrecy of identities, DRA-003): « Votre identité », not
    « Votre identité : Maître des loups ». The title the body repeats is the same line."""
    roles = sorted(role_names() - set(names), key=len, reverse=True)  # a player called Léo
    # case kept: « le manuel du voleur » is an object, « Voleur » the card; a plural too
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(re.escape(r) for r in roles)})s?(?![\w-])")
    leaks = set()
    private = 0
    for item, subject, text, _html in mail_texts(delivered):
        if item.mail.public:
            continue
        private += 1
        lines = text.splitlines()
        title = lines[0] if len(lines) > 1 and set(lines[1]) == {"="} else ""
        for shown in (_GAME_TAG.sub("", subject), title):
            m = pattern.search(shown)
            if m:
                leaks.add(f"{m.group(0)!r} in {shown!r}")
    assert private > 20
    assert not leaks, "\n".join(sorted(leaks))


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAME_IDS)
def test_live_mail_has_no_internal_id_and_no_role_in_a_private_subject(
    game: str, lang: str
) -> None:
    """Both checks over one whole game (played once per game and language: two tests would
    play it again on another worker)."""
    names, delivered = whole_game(game, lang)
    check_no_internal_id(names, delivered, lang)
    check_no_role_in_a_private_subject(names, delivered)
