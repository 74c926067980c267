"""``make demo``: bots play a whole game through the same pipeline as ``pbem simulate``."""

from __future__ import annotations

import random
import textwrap
import time
import unicodedata
from collections.abc import Callable, Iterator
from datetime import datetime
from email.message import EmailMessage
from typing import Any

from pbem.core.match import fold
from pbem.games import rules_for
from pbem.record.archive import named_summary
from pbem.table import Outgoing, Step, Table
from pbem.tools.bots import bot_mails
from pbem.tools.demo_words import seconds, summary_lines, words
from pbem.tools.simulate import EPOCH

NAMES = (
    "Alice",
    "Bruno",
    "Chloé",
    "Damien",
    "Élodie",
    "Fabien",
    "Gaëlle",
    "Hugo",
    "Inès",
    "Jules",
    "Karine",
    "Léo",
    "Manon",
    "Nathan",
    "Océane",
    "Paul",
    "Quentin",
    "Rose",
    "Sacha",
    "Théo",
    "Ugo",
    "Valérie",
    "William",
    "Yasmine",
)
_WOMEN = "Alice Chloé Élodie Gaëlle Inès Karine Manon Océane Rose Valérie Yasmine"
_MEN = "Bruno Damien Fabien Hugo Jules Léo Nathan Paul Quentin Théo Ugo William"
GENDERS = dict.fromkeys(_WOMEN.split(), "f") | dict.fromkeys(_MEN.split(), "m")
"""The gender each demo player gives at sign-up, as a real player may (the setup's ``gender``):
the demos' French agrees with it (« Élodie, Voyante »). Sacha gives none, as a player may
choose not to say: pbem then writes the masculine, never a guess from the name."""
USUAL_PLAYERS = {"lupus-in-tabula": 12, "loup-garou": 16, "chasse-aux-sorcieres": 14, "dracula": 13}


def ascii_fold(name: str) -> str:
    """``Élodie`` -> ``elodie``: mail addresses stay plain ASCII (no SMTPUTF8 needed)."""
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()


def demo_names(game: str, count: int) -> list[str]:
    """The first ``count`` of :data:`NAMES` that ``game`` accepts (none of its reserved words:
    Chasse aux sorcières refuses a player called Léo, a role's name)."""
    reserved = {fold(w) for w in rules_for(game).reserved}
    return [n for n in NAMES if fold(n) not in reserved][:count]


def gendered(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``players`` (a setup's) each with the gender its name has in :data:`GENDERS`: what the
    demos show a reader. The benches and bots' setups (:func:`demo_setup`) give none."""
    return [{**p, "gender": GENDERS[p["name"]]} if p["name"] in GENDERS else p for p in players]


def demo_setup(game: str, players: int, seed: int, lang: str) -> dict[str, Any]:
    """A demo game's setup: ``players`` (or the usual count) named players with made-up
    addresses."""
    count = players or USUAL_PLAYERS.get(game, 12)
    names = demo_names(game, count)
    return {
        "game": game,
        "seed": seed,
        "lang": lang,
        "players": [{"name": n, "email": f"{ascii_fold(n)}@village.example"} for n in names],
        "moderator": "mj@village.example",
        "list": "village@lists.example",
    }


Bots = Callable[[Table, random.Random], Iterator[tuple[EmailMessage, str]]]
"""Who plays: one round of (mail, channel) from the table as it stands (:func:`bot_mails`)."""


def act(
    table: Table,
    rng: random.Random,
    now: datetime,
    bots: Bots,
    commit: Callable[[Step], None],
    most_rounds: int = 5,
) -> None:
    """The bots act before the clock moves. A round whose mail opened a phase (the Mayor's
    TRANCHER ends the tie-break and the night falls, LG-D32) is followed by another, so that
    the players of the new phase act in it before its first deadline passes: a Mayor lynched by
    his own tie-break passes his sash like any dead Mayor (LG-404, LG-447, LG-D31)."""
    for _ in range(most_rounds):
        opened = dict(table.deadlines())
        for msg, channel in list(bots(table, rng)):
            commit(table.receive(msg, channel=channel, now=now))  # type: ignore[arg-type]
            if table.finished:
                return
        if all(opened.get(key) == due for key, due in table.deadlines().items()):
            return  # no deadline opened or moved (one closed by a command needs no round)


def play(
    table: Table,
    rng: random.Random,
    max_phases: int = 400,
    *,
    now: datetime = EPOCH,
    bots: Bots = bot_mails,
) -> list[Outgoing]:
    """Bots act each phase, then the deadline passes; returns every mail sent."""
    sent: list[Outgoing] = []

    def commit(step: Step) -> None:
        table.apply(step)
        sent.extend(step.outgoing)

    for _ in range(max_phases):
        if table.finished or not table.deadlines():
            break
        act(table, rng, now, bots, commit)
        if table.finished:
            break
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        commit(table.on_deadline(key, now))
    return sent


def run_demo(game: str, players: int, seed: int | None, lang: str) -> int:
    """Play a demo game with random bots, print its public mails and its summary; return the exit
    code."""
    seed = seed if seed is not None else random.SystemRandom().randrange(10**6)
    setup = demo_setup(game, players, seed, lang)
    table, step = Table.new({**setup, "players": gendered(setup["players"])}, EPOCH)
    table.apply(step)
    started = time.perf_counter()
    sent = list(step.outgoing) + play(table, random.Random(seed))
    elapsed = time.perf_counter() - started
    bar = "═" * 72
    w = words(lang)
    print(bar)
    print(
        "  " + w["title"].format(title=table.rules.title, count=len(table.setup.players), seed=seed)
    )
    print(bar)
    for mail in sent:
        if not mail.public:
            continue
        print(f"\n┌─ {mail.subject}")
        for line in mail.body.rstrip().splitlines():
            print("│ " + "\n│ ".join(textwrap.wrap(line, 90)) if line else "│")
        print("└" + "─" * 40)
    summary = named_summary(table)  # the game's role and side names, never their ids
    private = sum(1 for m in sent if not m.public)
    print(f"\n{bar}\n  {w['summary']}\n{bar}")
    for line in summary_lines(summary, table.finished, lang):
        print(f"  {line}")
    counts = w["counts"].format(
        public=len(sent) - private,
        private=private,
        events=len(table.events),
        elapsed=seconds(elapsed, 2, lang),
    )
    print(f"\n  {counts}")
    return 0
