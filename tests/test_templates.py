"""Every template renders in both languages with StrictUndefined (a missing name fails)."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem.mail.render import LANGS, Renderer, templates_root
from tests.support.once_per_run import once_per_run_pieces

ROOT = templates_root()


def test_every_template_exists_in_both_languages() -> None:
    per_lang = {
        lang: {p.relative_to(ROOT / lang) for p in (ROOT / lang).rglob("*.txt")} for lang in LANGS
    }
    assert per_lang["fr"] == per_lang["en"]


_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}")


def test_no_sentence_runs_into_the_next_line_after_a_block_tag() -> None:
    """The renderer trims the line's end after a block tag (``trim_blocks``): text, then
    ``{% endif %}`` at a line's end, then text on the next line, ran the two lines together
    (« l'adresse p3@example.org.Pour jouer… », a bare ADRESSE). Such a line ends ``+%}``."""
    joined = []
    for path in sorted(ROOT.rglob("*.txt")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, (line, following) in enumerate(itertools.pairwise(lines), 1):
            end = line.rstrip()
            if not end.endswith("%}") or end.endswith(("-%}", "+%}")) or "{% macro" in end:
                continue
            before = _TAG.sub("", end[: end.rfind("{%")])
            if before.strip() and _TAG.sub("", following).strip():
                joined.append(f"{path.relative_to(ROOT)}:{number}")
    assert not joined


class Anything:
    """A permissive value: every attribute, item, iteration and comparison works."""

    def __getattr__(self, name: str) -> Any:
        return Anything()

    def __getitem__(self, key: Any) -> Any:
        return Anything()

    def __iter__(self) -> Any:
        return iter([])

    def __str__(self) -> str:
        return "x"

    def __len__(self) -> int:
        return 0


def variables(renderer: Renderer, lang: str, name: str) -> set[str]:
    env = renderer.envs[lang]
    source = env.loader.get_source(env, f"{name}.txt")[0]  # type: ignore[union-attr]
    from jinja2 import meta

    return set(meta.find_undeclared_variables(env.parse(source)))


GAME_FOLDERS = ("lupus", "chasse")


def recorded_params() -> dict[str, list[dict[str, Any]]]:
    """Notice parameters seen in bot games of every game (the real shapes, not guesses): 60 bot
    games and three scripted ones, shared out between the xdist workers (each game on its own
    records the same parameters, merged in the same order, as all of them in a row)."""
    from pbem.games import GAMES

    games = [
        functools.partial(bot_game, game.id, seed, options)
        for game in GAMES
        for seed in range(12)
        for options in (({}, {"ghost_variant": True}) if game.id == "lupus-in-tabula" else ({},))
    ]
    scripted = [scripted_rare_lupus_notices, scripted_chasse_notices, scripted_signup_notices]
    pieces = [functools.partial(recording, play) for play in (*games, *scripted)]
    seen: dict[str, list[dict[str, Any]]] = {}
    for piece in once_per_run_pieces("template-params", pieces):
        for template, params in piece.items():
            seen.setdefault(template, []).extend(params)
    return seen


def recording(play: Callable[[], None]) -> dict[str, list[dict[str, Any]]]:
    """The parameters of every template ``play()`` renders, by template, in order."""
    seen: dict[str, list[dict[str, Any]]] = {}
    original = Renderer.text

    def spy(self: Renderer, template: str, lang: str, params: Any) -> str:
        seen.setdefault(template, []).append(dict(params))
        return original(self, template, lang, params)

    Renderer.text = spy  # type: ignore[method-assign]
    try:
        play()
    finally:
        Renderer.text = original  # type: ignore[method-assign]
    return seen


def bot_game(game_id: str, seed: int, options: dict[str, Any]) -> None:
    """One game played to its end by the demo's bots."""
    import random

    from pbem.table import Table
    from pbem.tools.demo import demo_setup, play
    from pbem.tools.simulate import EPOCH

    setup = demo_setup(game_id, 0 if game_id != "lupus-in-tabula" else 8 + seed, seed, "en")
    setup["options"] = options
    table, step = Table.new(setup, EPOCH)
    assert step.outgoing  # the opening's mails are rendered when read, as the daemon sends them
    table.apply(step)
    play(table, random.Random(seed))


def scripted_rare_lupus_notices() -> None:
    """Notices random bots seldom reach: a Mythomaniac joining, two Seers talking."""
    from tests.support.game_by_mail import Game, lupus_roles

    for target in ("p1", "p4"):
        g = Game(lupus_roles(16, p16="mythomaniac"))
        g.until("night", 2)
        g.mail("p16", f"COPY {target}")
        g.until("night", 3)
        g.mail("p4", "SEERS hello")
        g.mail("p16", "SCAN p5")
        g.mail("p16", "STATUS")


def scripted_chasse_notices() -> None:
    """Chasse aux sorcières: the STATUS reply (bots never ask for it)."""
    from tests.chasse.scenario import mail, run, setup_line

    run([setup_line(), mail("alice", "STATUS"), mail("peggy", "STATUT")])


def scripted_signup_notices() -> None:
    """Sign-ups (issue 13), in both languages: every receipt, refusal and notice of a lobby,
    with volunteers who said il/elle/he/she/they and one who said nothing."""
    from datetime import timedelta

    from tests.signup.helpers import GM, opened, send

    for lang, join, bench, leave, status, extend, start in (
        (
            "fr",
            "INSCRIPTION",
            "REMPLACANT",
            "DESINSCRIPTION",
            "STATUT",
            "PROLONGER 24h",
            "DEMARRER",
        ),
        ("en", "JOIN", "SUBSTITUTE", "LEAVE", "STATUS", "EXTEND 24h", "START"),
    ):
        table, _ = opened(seats=(9, 10), when_full=False)
        table.lang = lang
        pronouns = ("il", "elle", "", "he", "she", "they", "", "elle", "il", "")
        for i, pronoun in enumerate(pronouns):
            send(table, f"v{i}@example.org", f"{join} Joueur{i} {pronoun}".strip())
        send(table, "b@example.org", f"{bench} Banc")
        send(table, "v1@example.org", status)
        send(table, "v1@example.org", f"{join} Joueur1")  # already signed up
        send(table, "x@example.org", f"{join} Joueur")  # a clash with Joueur1...
        send(table, "x@example.org", "AIDE" if lang == "fr" else "HELP")
        send(table, "v9@example.org", leave)
        send(table, GM, "STATUT")
        send(table, GM, "AIDE")
        due = table.deadlines()["signup"]
        send(table, "v8@example.org", leave)
        send(table, "v7@example.org", leave)
        table.apply(table.on_deadline("signup", due))  # 7 seated: the GM is asked
        send(table, GM, extend, now=due)
        send(table, GM, "ANNULER PARTIE" if lang == "fr" else "CANCEL", now=due)
        table, _ = opened(seats=(8, 8))
        table.lang = lang
        for i in range(9):
            send(table, f"w{i}@example.org", f"{bench if i == 0 else join} Joueur{i}")
        send(table, GM, start, now=due - timedelta(hours=1))


# 60 bot games: computed at collection by the xdist workers together, once per run
RECORDED = recorded_params()


@pytest.mark.parametrize(
    "entry",
    [e for e in Renderer().names() if e.split(":")[1].split("/")[0] in ("common", "reasons")],
)
def test_common_template_renders_and_fails_on_a_missing_parameter(entry: str) -> None:
    lang, name = entry.split(":")
    renderer = Renderer()
    needed = variables(renderer, lang, name)
    params = {v: sample(v) for v in needed}
    assert renderer.text(name, lang, params).strip()
    if needed:
        missing = dict(params)
        missing.pop(sorted(needed)[0])
        with pytest.raises(jinja2.UndefinedError):
            renderer.text(name, lang, missing)


@pytest.mark.parametrize(
    "entry",
    [e for e in Renderer().names() if e.split(":")[1].split("/")[0] in GAME_FOLDERS],
)
def test_game_template_renders_with_the_parameters_the_rules_send(entry: str) -> None:
    lang, name = entry.split(":")
    renderer = Renderer()
    examples = RECORDED.get(name, [])
    assert examples, f"no bot game ever sent {name}: add a scenario test that does"
    for params in examples[:20]:
        assert renderer.text(name, lang, {"name": "bob", **params}).strip()


def sample(name: str) -> Any:
    """Plausible values for the kernel's own templates (replies and reasons)."""
    when = "2026-01-06T12:00:00+00:00"
    table: dict[str, Any] = {
        "opens": when,
        "accepted": [{"line": "KILL bob", "deadline": when, "final": False}],
        "rejected": [{"line": "X", "reason": "r"}],
        "commands": [{"verb": "kill", "keyword": "KILL", "args": "name", "public": "no"}],
        "folder": "lupus",
        "options": [("Variante du fantôme", "oui")],
        "text": "# Lupus in Tabula",
        "deadline": when,
        "topic": "",
        "count": 2,
        # issue 13: the hand-over packet's re-rendered mails
        "sections": [{"subject": "[Lupus] Your role", "body": "You are the Seer."}],
        "situation": "You are the Seer, alive.",
        # issue 25: a declared absence's days (ISO dates), its allowance
        "first": "2026-01-12",
        "last": "2026-01-14",
        "days": 3,
        "left": 4,
        "allowed": 7,
        "used": 3,
        "absences": [{"first": "2026-01-12", "last": "2026-01-14", "why": "vacances"}],
        "dates": [{"first": "2026-01-12", "last": "2026-01-14", "why": ""}],
        "gm": False,
        # issue 25: when an address's code was sent, until when it may come back
        "sent": when,
        "until": when,
        # issue 25: a history's phases and a digest's posts
        "phases": [
            {
                "phase": "night",
                "number": 1,
                "round": 0,
                "pieces": [
                    {"kind": "public", "subject": "Night 1", "body": "Night falls."},
                    {"kind": "private", "subject": "Your role", "body": "You are the Seer."},
                    {"kind": "orders", "lines": ["SCAN bob"]},
                ],
            }
        ],
        "posts": [
            {"phase": "day", "number": 1, "round": 0, "poster": "", "subject": "Dawn", "body": "b"},
            {
                "phase": "day",
                "number": 1,
                "round": 0,
                "poster": "bob",
                "subject": "Hi",
                "body": "b",
            },
        ],
    }
    if name in table:
        return table[name]
    if re.search(r"s$", name) and name not in ("address",):
        return ["alice", "bob"]
    return "bob"


def test_player_text_is_data_not_template_source() -> None:
    """A chat relay carrying jinja syntax is sent verbatim."""
    renderer = Renderer()
    text = renderer.text(
        "lupus/pack_chat",
        "en",
        {"game": "G", "name": "a", "sender": "bob", "text": "{{ 7*7 }} {% x %}"},
    )
    assert "{{ 7*7 }} {% x %}" in text


def test_dates_are_localised() -> None:
    renderer = Renderer(timezone="Europe/Paris")
    assert renderer.when("2026-01-06T12:00:00+00:00", "fr") == "mardi 6 janvier à 13:00 CET"
    assert renderer.when("2026-01-06T12:00:00+00:00", "en") == "Tue 6 Jan 13:00 CET"


def test_the_first_of_a_month_is_written_1er_in_french() -> None:
    """« le dimanche 1er février », as a forum MJ writes it; the other days and English keep
    the number (a deadline, an absence's day, and the HTML part still finds the deadline)."""
    from pbem.mail.html import to_html
    from pbem.mail.render import day

    renderer = Renderer(timezone="UTC")
    assert renderer.when("2026-02-01T12:00:00+00:00", "fr") == "dimanche 1er février à 12:00 UTC"
    assert renderer.when("2026-02-02T12:00:00+00:00", "fr") == "lundi 2 février à 12:00 UTC"
    assert renderer.when("2026-02-01T12:00:00+00:00", "en") == "Sun 1 Feb 12:00 UTC"
    assert day("2026-02-01", "fr") == "dimanche 1er février"
    page = to_html("Sujet", "Votez avant le dimanche 1er février à 12:00 UTC.", lang="fr")
    assert '2px">dimanche 1er février à 12:00' in page  # highlighted as a deadline


_ = Path
