"""Notifications (LUP-700..LUP-750, LUP-608, LUP-D20, LUP-D24): exactly the people named get
each notification, and nobody else."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from pbem.games.lupus.nightfall import prompted
from pbem.games.lupus.roles import MYTH
from pbem.table import Outgoing
from tests.lupus.scenario import FULL16, kill, votes
from tests.support.game_by_mail import Game, address, lupus_roles

WOLVES3 = ("p1", "p2", "p3")
ROLE_WORDS = re.compile(
    r"Werewolf|Villager|Seer|Medium|Possessed|Bodyguard|Mason|Werehamster|Mythomaniac"
)


def by_subject(mails: list[Outgoing]) -> dict[str, set[str]]:
    """Private mails of a step: subject -> recipients' names."""
    out: dict[str, set[str]] = defaultdict(set)
    for m in mails:
        if not m.public and m.auto != "auto-replied" and not m.thread.endswith("/seats"):
            out[m.subject.split("] ", 1)[1]].add(m.to[0].split("@")[0])
    return dict(out)


def test_opening_is_public_with_players_deck_variant_schedule() -> None:
    """LUP-700: the players, the deck, the ghost variant, the schedule."""
    g = Game(lupus_roles(8), options={"ghost_variant": True})
    (opening, _night) = g.public(g.sent)
    assert "Players (8): p1, p2, p3, p4, p5, p6, p7 and p8." in opening.body
    assert "Deck: 2 × Werewolf, 1 × Seer, 5 × Villager." in opening.body
    assert "Ghost variant: on" in opening.body
    assert "each night lasts 18 h; each day has 24 h of debate" in opening.body
    assert "round 1 of the vote (12 h), the nominees' defence (6 h) and round 2 (12 h)" in (
        opening.body
    )


@pytest.mark.parametrize(
    ("player", "words"),
    [
        ("p1", ["belong to the Werewolves", "KILL name", "PACK text"]),
        ("p4", ["belong to the Villagers", "SCAN name"]),
        ("p5", ["belong to the Villagers", "from Night 2"]),
        ("p6", ["Werewolves' side", "do not know who they are", "no power"]),
        ("p7", ["belong to the Villagers", "PROTECT name (not yourself)"]),
        ("p8", ["NOMINATE name"]),
        ("p9", ["On the first night you will learn who the other Mason is"]),
        ("p11", ["You play alone", "you alone win"]),
        ("p12", ["During Night 2, send COPY name"]),
        ("p13", ["no special power"]),
    ],
)
def test_role_message(player: str, words: list[str]) -> None:
    """LUP-701, LUP-104, LUP-D25: role, faction, power and syntax, conduct rules; wolves not
    yet told the others."""
    g = Game(FULL16)
    (mail,) = [m for m in g.to(player, g.sent) if "Your role" in m.subject]
    for word in [*words, "never show, forward or quote the moderator's private messages"]:
        assert word in mail.body
    if player == "p1":
        assert "p2" not in mail.body and "p3" not in mail.body


def test_night_start_recipients() -> None:
    """LUP-710, LUP-711, LUP-504: public "Night N falls"; each prompt to its holders only."""
    g = Game(FULL16)
    night1 = by_subject(g.sent)
    assert night1["Night: the pack hunts"] == {"p1", "p2", "p3"}
    assert night1["Night: your vision"] == {"p4"}
    assert night1["Night: your protection"] == {"p7"}
    assert night1["Night: your nomination"] == {"p8"}
    assert night1["Night 1: the Masons"] == {"p9", "p10"}
    assert "Night: the voice of the dead" not in night1
    kill(g, "p7", WOLVES3)
    g.until("round1")
    votes(g, {"p4": "p2", "p5": "p2"})
    start = len(g.sent)
    g.deadline()  # p2 lynched, Night 2 starts
    night2 = by_subject(g.sent[start:])
    assert night2 == {
        "Night: the pack hunts": {"p1", "p3"},
        "Night: your vision": {"p4"},
        "Night: your nomination": {"p8"},
        "Night 2: whom do you imitate?": {"p12"},
        "Night: the voice of the dead": {"p5"},
    }
    assert "Night 2 falls" in g.public_text(g.sent[start:])
    assert "The night ends Thu 8 Jan 18:00 UTC" in g.public_text(g.sent[start:])


def test_night_relays_recipients() -> None:
    """LUP-712: each Werewolf vote to the other Werewolves; a probe to the other Seer."""
    g = Game(FULL16)
    g.mail("p2", "KILL p13")
    assert by_subject(g.last) == {"The pack: p2 votes": {"p1", "p3"}}
    g.mail("p4", "SCAN p1")
    assert by_subject(g.last) == {}
    g.until("night", 2)
    g.mail("p12", "COPY p4")
    g.until("night", 3)
    g.mail("p12", "SCAN p1")
    assert by_subject(g.last) == {"The other Seer: p12 probes": {"p4"}}


def test_dawn_private_notices() -> None:
    """LUP-720, LUP-722, LUP-608: at dawn only the Seer's answer and the pack's choice."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p1")
    kill(g, "p13", WOLVES3)
    g.deadline()
    assert by_subject(g.last) == {"Your vision": {"p4"}, "The pack's choice": {"p1", "p2", "p3"}}


def test_dawn_myth_notices() -> None:
    """LUP-721, LUP-D14: the Mythomaniac and his new partners, nobody else."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", "COPY p2")
    g.deadline()
    assert by_subject(g.last) == {
        "Your imitation": {"p12"},
        "p12 joins you": {"p1", "p2", "p3"},
        "The pack's choice": {"p1", "p2", "p3"},
    }


def test_no_result_to_a_dead_seer() -> None:
    """LUP-720, LUP-D06, LUP-D24: results go to living Seers only."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p1")
    kill(g, "p4", WOLVES3)
    g.deadline()
    assert "Your vision" not in by_subject(g.last)


def test_dawn_public_announcement() -> None:
    """LUP-220, LUP-730, LUP-D20: the dead in alphabetical order, no role or cause; then the
    day schedule."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p11")
    kill(g, "p5", WOLVES3)
    g.deadline()
    (dawn,) = g.public()
    assert "p11 and p5 were torn apart during the night." in dawn.body
    assert not ROLE_WORDS.search(dawn.subject + dawn.body)
    assert "Today: debate until Wed 7 Jan 12:00 UTC; round 1 of the vote until Thu 8 Jan" in (
        dawn.body
    )


def test_day_public_notices() -> None:
    """LUP-740, LUP-741, LUP-742, LUP-743: round 1 open, tally, result, round 2, lynch."""
    g = Game(lupus_roles(8))
    g.until("debate")
    g.deadline()
    assert "round 1 of the vote" in g.public()[0].subject
    assert by_subject(g.last) == {}
    votes(g, {"p3": "p1", "p4": "p2"})
    g.deadline()
    assert [m.subject.split("] ")[1] for m in g.last if not m.thread.endswith("/seats")] == [
        "Day 1: round 1 result"
    ]
    g.deadline()
    assert "Round 2 is open" in g.public_text() and "p1 and p2" in g.public_text()
    g.post("p5", "VOTE p1")
    g.deadline()
    subjects = [m.subject.split("] ")[1] for m in g.public()]
    assert subjects == ["Day 1: round 2 result", "Night 2 falls"]
    assert "p1 goes to the gallows" in g.public_text()


def test_no_public_mail_names_a_role_before_the_end() -> None:
    """LUP-103, LUP-220, LUP-410, LUP-606: a whole game's public mails name no role (only the
    opening's composition and the final reveal)."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p11")
    g.mail("p8", "NOMINATE p6")
    kill(g, "p5", WOLVES3)
    g.until("round1")
    votes(g, {"p4": "p1", "p13": "p1", "p14": "p2"})
    g.until("round2")
    votes(g, {"p4": "p1", "p13": "p1"})
    g.until("night", 2)
    g.mail("p12", "COPY p2")
    g.until("round1", 2)
    public = g.public(g.sent)
    assert len(public) > 8 and public[0].subject.endswith("A new game begins")
    for mail in public[1:]:
        assert not ROLE_WORDS.search(mail.subject + mail.body), mail.body


def test_dead_players_receive_nothing() -> None:
    """LUP-D24, LUP-504: after his death a player gets no private game mail."""
    g = Game(FULL16)
    kill(g, "p4", WOLVES3)
    g.deadline()
    start = len(g.sent)
    g.until("night", 3)
    assert address("p4") not in g.recipients(g.sent[start:])


def test_victory_notice_is_public_and_last() -> None:
    """LUP-750: the end is public; nothing follows it."""
    g = Game(lupus_roles(8))
    for day, wolf in ((1, "p1"), (2, "p2")):
        g.until("round1", day)
        votes(g, {"p3": wolf})
        g.deadline()
    assert g.last[-1].public and "The game is over" in g.last[-1].subject
    assert by_subject(g.last) == {}


ALLOWED_PRIVATE = {
    "Your role",  # LUP-701
    "Night: the pack hunts",  # LUP-711
    "Night: your vision",
    "Night: your protection",
    "Night: your nomination",
    "Night 1: the Masons",
    "Night 2: whom do you imitate?",
    "Night: the voice of the dead",
    "The pack: ",  # LUP-712 and LUP-613 relays
    "The other Seer: ",  # LUP-712 and LUP-614 relays
    "Your vision",  # LUP-720
    "Your imitation",  # LUP-721
    " joins you",
    "The pack's choice",  # LUP-722
}


def test_private_notifications_are_exhaustive() -> None:
    """LUP-608: over a whole game, every private mail that is not a reply is one of §10.3's
    notifications or a relay; nothing else carries game information."""
    g = Game(FULL16, options={"ghost_variant": True})
    g.mail("p4", "SCAN p11")
    g.mail("p7", "PROTECT p13")
    g.mail("p8", "NOMINATE p14")
    g.mail("p1", "PACK go")
    kill(g, "p5", WOLVES3)
    g.until("round1")
    g.mail("p5", "VOTE p1")
    votes(g, {"p13": "p1", "p14": "p2"})
    g.until("round2")
    votes(g, {"p13": "p1"})
    g.until("night", 2)
    g.mail("p12", "COPY p4")
    g.until("night", 3)
    g.mail("p12", "SCAN p2")
    g.mail("p4", "SEERS ok")
    g.until("night", 4)
    subjects = {  # the seats' notices (idle warnings, docs/seats.md) carry no game information
        m.subject.split("] ", 1)[1]
        for m in g.sent
        if not m.public and m.auto != "auto-replied" and not m.thread.endswith("/seats")
    }
    assert len(subjects) >= 12
    assert all(any(a in s for a in ALLOWED_PRIVATE) for s in subjects), subjects


def test_the_cards_prompted_each_night_are_those_worked_out_afresh() -> None:
    """LUP-711, LUP-380: the cards prompted on a night, kept per night number, are those a
    fresh reading of the card table gives (the Mythomaniac on Night 2 only)."""
    for number in (1, 2, 3, 2, 40, 1):
        assert prompted(number) == prompted.__wrapped__(number)
        assert (MYTH in [card for card, _, _ in prompted(number)]) == (number == 2)
