"""The archive of a whole bot-played game of each game, in each language: everything is there."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from pbem.core.events import GameEnded, PhaseStarted, PlayerDied, Resolved, RoleChanged, VoteSet
from pbem.record.archive import archive_files, archive_model, render_html
from tests.archive.bot_games import GAMES, whole_game

CASES = [(g, lang) for g in GAMES for lang in ("fr", "en")]
STOPPED = {"en": "stopped by ", "fr": "échec, l’obstacle : "}
WASTED = {
    "en": ": wasted, {0} was already a vampire.",
    "fr": " : sans effet, {0} était déjà vampire.",
}


def final_votes(events: list[object]) -> list[tuple[str, str]]:
    """(voter, target) of every vote standing at the end of its phase."""
    standing: list[tuple[str, str]] = []
    ballots: dict[tuple[str, str], str | None] = {}
    for event in [*events, PhaseStarted("end", 0, {})]:
        if isinstance(event, PhaseStarted):
            standing += [(v, t) for (_b, v), t in ballots.items() if t is not None]
            ballots = {}
        elif isinstance(event, VoteSet):
            ballots[(event.ballot, event.voter)] = event.target
    return standing


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_archive_of_a_whole_game_shows_every_player_phase_vote_and_winner(
    game: str, lang: str
) -> None:
    table = whole_game(game, lang)
    files = archive_files(table)
    page, text = files["html"], files["text"]
    events = table.events
    for player in table.setup.players:
        assert player.name in page and player.name in text
    phases = sum(isinstance(e, PhaseStarted) for e in events)
    # one section per phase, plus the events before the first one (the deal's notices) and
    # the end of the game
    assert page.count('<section class="phase') == phases + 2
    assert len(re.findall(r"^== ", text, re.M)) == phases + 2
    votes = final_votes(events)
    assert votes, "a whole game has votes"
    for voter, target in votes:
        assert f"<tr><td>{voter}</td><td>{target}</td></tr>" in page
        assert f"{voter} → {target}" in text
    assert page.count("<svg") >= 1  # every chart is named for a screen reader
    assert page.count("<svg") == page.count('role="img"') == page.count("<desc id=")
    ended = next(e for e in events if isinstance(e, GameEnded))
    banner = page.split('<div class="banner">')[1].split("</div>")[0]
    for winner in ended.winners:
        assert winner in banner
    if ended.side:  # the side as the game's templates name it ("les Villageois")
        side = archive_model(table)["side"]
        assert side and side in banner
    for event in events:
        if isinstance(event, PlayerDied):  # in the game's own words, never its cause id
            assert f"† {event.player}{':' if lang == 'en' else ' :'} " in text
            assert f"({event.cause})" not in text
        if isinstance(event, RoleChanged):  # the card change, the role named as the game does
            card = "’s card becomes" if lang == "en" else f"La carte de {event.player} devient"
            assert card in text
        if isinstance(event, Resolved):
            for entry in event.trace:
                if entry["vetoed_by"] == "vampire":  # DRA-115: a bite on a vampire, wasted
                    wasted = WASTED[lang].format(entry["target"])
                    assert wasted in page and wasted in text
                elif entry["vetoed_by"]:  # why a kill (a bite...) failed, the obstacle named
                    assert STOPPED[lang] in page and STOPPED[lang] in text
                    assert f"{STOPPED[lang]}{entry['vetoed_by']}." not in text
    tally = "(tally: " if lang == "en" else "(décompte : "
    lynched = 0
    for phase in archive_model(table)["phases"]:  # who was lynched, with the tally that did it
        village = [v for v in phase["votes"] if v["ballot"] != "mayor" and v["tally"]]
        for entry in phase["entries"]:
            if entry["kind"] == "death" and entry["cause"] == "lynch" and village:
                line = next(ln for ln in text.splitlines() if f"† {entry['player']}" in ln)
                assert tally in line, line
                lynched += 1
    assert lynched or game == "dracula"  # Dracula's day vote designates, it does not kill
    for rendered in (page, text):  # no template hole
        assert not re.search(r"\bNone\b|Undefined|\{\{ | \}\}|\{%|%\}", rendered)
    assert "<script" not in page.lower()


@pytest.mark.parametrize("game", GAMES)
def test_the_seeds_chosen_have_a_night_intent_a_hook_stopped(game: str) -> None:
    """The content test above checks the "why it failed" line: make sure it had one to check."""
    vetoed = [
        entry
        for e in whole_game(game, "en").events
        if isinstance(e, Resolved)
        for entry in e.trace
        if entry["vetoed_by"]
    ]
    assert vetoed


class _Checker(HTMLParser):
    """Every start tag closed in order (void elements aside), no script, no external resource."""

    VOID = frozenset({"meta", "br", "rect", "img", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value and re.match(r"[a-z]+:", value):
                self.external.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


@pytest.mark.parametrize("game", GAMES)
def test_the_html_archive_is_self_contained_and_well_nested(game: str) -> None:
    page = archive_files(whole_game(game, "fr"))["html"]
    checker = _Checker()
    checker.feed(page)
    assert checker.stack == []
    assert checker.external == []  # inline CSS and SVG only: nothing fetched, no JavaScript
    assert '<meta name="viewport"' in page and "@media print" in page


def test_player_written_text_is_escaped_in_the_html_archive() -> None:
    """Autoescape is on: a text a player wrote (a painting, a name in a notice) is data."""
    model = archive_model(whole_game("lupus-in-tabula", "en"))
    evil = '<script>alert("x")</script>'
    model["phases"][0]["entries"].append(
        {"kind": "public", "to": [], "subject": evil, "body": evil}
    )
    page = render_html(model)
    assert evil not in page
    assert html.escape(evil, quote=True) in page or "&lt;script&gt;" in page


def test_dra_117_the_cast_tells_a_bitten_human_humain_then_vampire() -> None:
    """DRA-117, AMB-075 (each round deals anew: Dracula and humans): the cast showed each
    Dracula player's last card alone (« vampire »); it now shows the card of the last deal
    and what the player became, agreeing with the player: « humaine → vampire »."""
    table = whole_game("dracula", "fr")
    cast = {c["name"]: c for c in archive_model(table, "fr")["cast"]}
    assert (cast["Chloé"]["initial"], cast["Chloé"]["role"]) == ("humaine", "vampire")
    assert (cast["Hugo"]["initial"], cast["Hugo"]["role"]) == ("humain", "vampire")
    assert cast["Gaëlle"]["initial"] == cast["Gaëlle"]["role"] == "Dracula"
    page = archive_files(table, "fr")["html"]
    assert "humaine → vampire" in page and "humain → vampire" in page
