"""The spec's worked examples LUP-X01..LUP-X09, one test each."""

from __future__ import annotations

from collections import Counter

from pbem.games.lupus.deck import standard_deck
from tests.lupus.scenario import kill, rejected, votes
from tests.support.game_by_mail import Game

VILLAGERS = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivy"]
VILLAGE = dict.fromkeys(VILLAGERS, "villager")
NAMED = {
    **VILLAGE,
    "jack": "owl",
    "kim": "werehamster",
    "lea": "bodyguard",
    "max": "werewolf",
    "nina": "werewolf",
    "olga": "seer",
}
WOLVES = ("max", "nina")


def test_x01_decks_for_8_and_16() -> None:
    """LUP-X01: 8 -> 2 Werewolves, Seer, 5 Villagers; 16 -> 3 Werewolves, 8 specials, 4."""
    assert Counter(standard_deck(8)) == Counter(werewolf=2, seer=1, villager=5)
    assert Counter(standard_deck(16)) == Counter(
        werewolf=3,
        seer=1,
        medium=1,
        possessed=1,
        bodyguard=1,
        owl=1,
        mason=2,
        werehamster=1,
        mythomaniac=1,
        villager=4,
    )


def test_x02_probed_hamster_dies_with_the_victim() -> None:
    """LUP-X02: Night 4, the Seer probes the Werehamster, the Werewolves kill alice."""
    g = Game(NAMED)
    g.until("night", 4)
    g.mail("olga", "SCAN kim")
    kill(g, "alice", WOLVES)
    g.deadline()
    assert "alice and kim were torn apart during the night" in g.public_text()
    assert "kim is not a Werewolf." in g.text_to("olga")


def test_x03_hamster_attacked_bodyguard_elsewhere_nobody_dies() -> None:
    """LUP-X03: Night 3, the Werewolves target the Werehamster, bob is protected: no death."""
    g = Game(NAMED)
    g.until("night", 3)
    kill(g, "kim", WOLVES)
    g.mail("lea", "PROTECT bob")
    g.deadline()
    assert len(g.living()) == 15 and "Nobody was torn apart tonight" in g.public_text()


X04_BALLOT = {
    **dict.fromkeys(["frank", "gina", "hank", "ivy"], "alice"),
    **dict.fromkeys(["jack", "kim", "lea"], "bob"),
    **dict.fromkeys(["max", "nina", "olga"], "carol"),
}


def test_x04_owl_nominee_and_draw() -> None:
    """LUP-X04: alice 4, bob 3, carol 3; with the Owl's dave: dave and alice; without: alice
    and bob or carol by a published draw."""
    g = Game(NAMED)
    g.mail("jack", "NOMINATE dave")
    g.until("round1")
    votes(g, X04_BALLOT)
    g.deadline()
    assert g.state.nominees == ("dave", "alice")
    assert "dave (nominated by the Owl) and alice" in g.public_text()
    g = Game(NAMED)
    g.until("round1")
    votes(g, X04_BALLOT)
    g.deadline()
    first, second = g.state.nominees
    assert first == "alice" and second in ("bob", "carol")
    assert f"Tie between bob and carol: drawn at random, {second}." in g.public_text()


def test_x05_round2_tie_goes_to_round1_count() -> None:
    """LUP-X05: round 2 alice (4) vs bob (3), 3 votes each: alice is lynched."""
    g = Game(NAMED)
    g.until("round1")
    votes(g, {k: v for k, v in X04_BALLOT.items() if v != "carol"})
    g.until("round2")
    votes(g, dict.fromkeys(["carol", "dave", "erin"], "alice"))
    votes(g, dict.fromkeys(["frank", "gina", "hank"], "bob"))
    g.deadline()
    assert not g.alive("alice") and g.alive("bob")


def test_x06_ghost_votes_in_round1_only() -> None:
    """LUP-X06: erin, torn apart on Night 2, votes bob privately on Day 2: counted, marked
    "(ghost)"; her round-2 vote is rejected."""
    g = Game(NAMED, options={"ghost_variant": True})
    g.until("night", 2)
    kill(g, "erin", WOLVES)
    g.until("round1", 2)
    g.mail("erin", "VOTE bob")
    assert "erin (ghost) → bob" in g.public_text()
    votes(g, {"carol": "alice"})
    g.deadline()
    assert g.state.round1_counts == {"bob": 1, "alice": 1}
    g.deadline()
    assert "Ghosts vote only in round 1" in rejected(g, "erin", "VOTE bob")


def test_x07_hamster_wins_at_parity() -> None:
    """LUP-X07: W=2, V=3 (Possessed counted, Werehamster not) goes on; after a lynch of a
    Villager, W=2 >= V=2: the game ends and the living Werehamster wins alone."""
    roles = {
        "p1": "werewolf",
        "p2": "werewolf",
        "p3": "seer",
        "p4": "werehamster",
        "p5": "possessed",
        "p6": "villager",
        "p7": "villager",
        "p8": "villager",
    }
    g = Game(roles)
    kill(g, "p8")
    g.until("round1")
    votes(g, {"p1": "p7", "p2": "p7"})
    g.deadline()  # living: p1 p2 | p3 p5 p6 | p4
    assert g.summary()["status"] == "running"
    g.until("round1", 2)
    votes(g, {"p1": "p6", "p2": "p6"})
    g.deadline()
    assert (g.summary()["side"], g.summary()["winners"]) == ("werehamster", ["p4"])


def test_x08_myth_becomes_second_seer() -> None:
    """LUP-X08: the Mythomaniac designates the Seer on Night 2; from Night 3 the two Seers
    share one probe and both get the answer."""
    roles = {**NAMED, "ivy": "mythomaniac"}
    g = Game(roles)
    g.until("night", 2)
    g.mail("ivy", "COPY olga")
    g.mail("ivy", "SCAN max")
    assert "Your role does not have this power" in g.reply()  # not yet on Night 2
    g.until("night", 3)
    g.mail("ivy", "SCAN max")
    g.deadline()
    assert "max is a Werewolf." in g.text_to("ivy") and "max is a Werewolf." in g.text_to("olga")


def test_x09_myth_joining_wolves_makes_them_win() -> None:
    """LUP-X09: Night 2, the Mythomaniac designates a Werewolf while 2 Werewolves face 3
    Villagers including him; nobody dies (protected): at dawn W=3 >= V=2, the Werewolves win."""
    roles = {
        "p1": "werewolf",
        "p2": "werewolf",
        "p3": "seer",
        "p4": "mythomaniac",
        "p5": "bodyguard",
        "p6": "werehamster",
        "p7": "villager",
        "p8": "villager",
    }
    g = Game(roles)
    g.mail("p3", "SCAN p6")
    kill(g, "p8")
    g.until("round1")
    votes(g, {"p1": "p7"})
    g.deadline()  # living: p1 p2 | p3 p4 p5
    g.mail("p4", "COPY p1")
    kill(g, "p3")
    g.mail("p5", "PROTECT p3")
    g.deadline()
    assert len(g.living()) == 5
    assert (g.summary()["side"], g.summary()["winners"]) == ("werewolves", ["p1", "p2", "p4"])
