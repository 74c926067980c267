"""Deck, deal, Penny and the opening mails: CAS-002..CAS-016, CAS-200, CAS-201, CAS-202, CAS-370, CAS-371, CAS-372,
CAS-700, CAS-701, CAS-702, CAS-703, CAS-D01, CAS-D19, CAS-D30."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem.core.errors import SetupError
from pbem.core.events import RolesDealt
from pbem.core.game import GameSpec, PlayerSpec
from pbem.core.ids import PlayerId
from pbem.games.chasse import ChasseAuxSorcieres
from pbem.games.chasse.deck import DECK
from pbem.table import Table
from pbem.tools.simulate import EPOCH
from tests.chasse.scenario import DEAL, NAMES, Game, mails_to, notices, recipients, run, setup_line


def _random_game(seed: int, n: int = 14, **options: object) -> list[object]:
    rules = ChasseAuxSorcieres()
    players = tuple(PlayerSpec(PlayerId(f"p{i}"), f"p{i}@x.org", "fr") for i in range(n))
    return list(rules.setup(GameSpec(players, dict(options), "fr"), EPOCH, random.Random(seed)))


def test_cas_010_012_deck_of_16_dealt_to_14_with_2_left_over() -> None:
    """CAS-010: the 16 cards; CAS-012: one card each, 2 kept aside; CAS-002: 14 players."""
    for seed in range(20):
        dealt = next(e for e in _random_game(seed) if isinstance(e, RolesDealt))
        cards = Counter(dealt.roles.values()) + Counter(dealt.leftover)
        assert dict(cards) == dict(DECK)
        assert len(dealt.roles) == 14 and len(dealt.leftover) == 2


def test_cas_012_deal_is_uniformly_random() -> None:
    """CAS-012: over many seeds every player gets every kind of card (a shuffled deal)."""
    seen: dict[str, set[str]] = {}
    for seed in range(300):
        dealt = next(e for e in _random_game(seed) if isinstance(e, RolesDealt))
        for p, r in dealt.roles.items():
            seen.setdefault(p, set()).add(r)
    assert all(len(roles) == 10 for roles in seen.values())


def test_cas_002_d01_other_counts_refused_unless_custom_deck() -> None:
    """CAS-002, CAS-D01: exactly 14 players; another count needs custom_deck with N+2 cards."""
    with pytest.raises(SetupError, match="14"):
        _random_game(1, n=13)
    deck = ["demon", "demon", "phoebe", "prue", "innocent", "innocent", "innocent", "leo"]
    events = _random_game(1, n=6, custom_deck=deck)
    dealt = next(e for e in events if isinstance(e, RolesDealt))
    assert len(dealt.leftover) == 2
    with pytest.raises(SetupError, match="CAS-D01"):
        _random_game(1, n=6, custom_deck=deck[:-1])
    with pytest.raises(SetupError, match="CAS-D01"):
        _random_game(1, n=6, custom_deck=["innocent"] * 8)


def test_fixed_deal_must_match_the_leftover() -> None:
    """A transcript's ``roles`` + ``leftover`` must make the 16-card deck (CAS-010)."""
    with pytest.raises(SetupError, match="leftover"):
        Game(leftover=("demon", "phoebe"))


def test_cas_013_701_each_player_is_told_his_own_card_only() -> None:
    """CAS-013, CAS-201, CAS-701: one private mail each, his card, faction and power; nobody
    else's card, not the leftover cards."""
    g = Game()
    roles = notices(g.events, "role")
    assert sorted(p for n in roles for p in n.to) == sorted(NAMES)
    for n in roles:
        (who,) = n.to
        assert n.params["role"] == DEAL[who]
        assert n.params["faction"] == ("demons" if DEAL[who] == "demon" else "good")
        assert set(n.params) == {"role", "faction"}


def test_cas_701_role_mail_explains_power_and_communication_rules() -> None:
    """CAS-701, CAS-005: the card's power with command syntax, and the communication rules."""
    mails, _ = run([setup_line()])
    (dave,) = [m for m in mails_to(mails, "dave") if "character" in m["subject"]]
    assert "you are a Demon" in dave["body"] and "KILL name" in dave["body"]
    assert "may no longer communicate with the other players in any form" in dave["body"]
    (mallory,) = [m for m in mails_to(mails, "mallory") if "character" in m["subject"]]
    assert "SWAP name" in mallory["body"]
    mails, _ = run([setup_line(lang="fr")])
    (fr,) = [m for m in mails_to(mails, "dave") if "personnage" in m["subject"]]
    assert "vous êtes un Démon" in fr["body"] and "TUER nom" in fr["body"]


def test_cas_014_015_faction_is_that_of_the_card_held() -> None:
    """CAS-014: Billie, Cole, Léo and the Innocents are Forces of Good; CAS-015: the faction
    follows the card (Léo taking a Démon is on the Demons' side)."""
    g = Game()
    _, state = run([setup_line()])
    teams = {p["name"]: p["team"] for p in state["players"]}
    assert teams["judy"] == teams["mallory"] == teams["ivan"] == teams["niaj"] == "good"
    assert teams["dave"] == "demons"
    g.do("ivan", "TAKE DEMON")
    g.deadline()
    assert g.rules.summary(g.state)["players"][8]["team"] == "demons"


def test_cas_016_200_700_opening_is_public_with_deck_and_undealt_cards() -> None:
    """CAS-200, CAS-700, CAS-016: the moderator presents himself, the 14 players, the 16-card
    deck, the 2 undealt cards, Penny's player and the schedule."""
    mails, _ = run([setup_line()])
    opening = mails_to(mails, "list")[0]
    body = opening["body"]
    assert "game master" in body and "private message" in body
    assert all(n in body for n in NAMES)
    assert "4 Demons, Phoebe, Prue, Coop, Piper, Paige, Léo, Billie, Cole, 4 Innocents" in body
    assert "The 16 cards" in body and "2 cards are not dealt" in body
    assert "extra vote to peggy" in body  # CAS-D19
    assert "four turns" in body and "6 h" in body and "48 h" in body


def test_cas_202_703_night_one_is_announced_with_its_four_deadlines() -> None:
    """CAS-202, CAS-703: "Night 1 falls, San Francisco sleeps" with T_L, T_C, T_W1, T_end."""
    mails, _ = run([setup_line()])
    night = mails_to(mails, "list")[1]
    assert night["subject"] == "[Chasse aux sorcières] Night 1 falls"
    assert "San Francisco sleeps" in night["body"]
    for sub in (
        "Léo's turn until Tue 6 Jan 00:00",
        "Coop's turn until Tue 6 Jan 06:00",
        "the council's turn until Tue 6 Jan 18:00",
        "Piper and Paige's turn until Wed 7 Jan 00:00",
    ):
        assert sub in night["body"]


def test_cas_370_d19_penny_drawn_at_random_told_privately_and_public() -> None:
    """CAS-370, CAS-201, CAS-D19: Penny's player is drawn among all players, told (CAS-702)
    and announced publicly by default; ``penny_public`` false hides him."""
    seen = set()
    for seed in range(60):
        events = _random_game(seed)
        (told,) = notices(events, "penny")
        seen.add(told.to[0])
        (opening,) = notices(events, "opening")
        assert opening.params["penny"] == told.to[0]
    assert len(seen) > 8
    hidden = _random_game(3, penny_public=False)
    assert notices(hidden, "opening")[0].params["penny"] is None


def test_cas_702_penny_mail_says_double_vote_and_tie_break() -> None:
    """CAS-702: Penny's player learns his vote counts double and that he breaks ties."""
    mails, _ = run([setup_line()])
    (penny,) = [m for m in mails_to(mails, "peggy") if "Penny" in m["subject"]]
    assert "counts double" in penny["body"] and "tie" in penny["body"]
    assert recipients(Game().events, "penny") == {"peggy"}


def test_cas_011_372_penny_is_not_a_card() -> None:
    """CAS-011, CAS-372: Penny's player keeps his own card; Penny is no role of the deck."""
    g = Game(penny="dave")
    assert g.role("dave") == "demon"
    assert "penny" not in DECK
    assert g.rules.summary(g.state)["players"][3]["conditions"] == ["penny"]


def test_cas_d30_role_names_are_reserved_nicknames() -> None:
    """CAS-D30: a nickname may not be a role name (Léo, Penny, ...)."""
    line = setup_line()
    line["setup"]["players"][0]["name"] = "Léo"
    line["setup"]["roles"] = {("Léo" if k == "alice" else k): v for k, v in DEAL.items()}
    with pytest.raises(SetupError, match=r"reserved|role name"):
        Table.new(line["setup"], EPOCH)


def test_cas_012_setup_may_fix_only_the_leftover_cards() -> None:
    """CAS-012: a setup giving only ``leftover`` deals the 14 other cards at random."""
    rules = ChasseAuxSorcieres()
    players = tuple(PlayerSpec(PlayerId(f"p{i}"), f"p{i}@x.org", "fr") for i in range(14))
    for seed in range(5):
        spec = GameSpec(players, {}, "fr", None, ("demon", "demon"))
        events = rules.setup(spec, EPOCH, random.Random(seed))
        dealt = next(e for e in events if isinstance(e, RolesDealt))
        assert dealt.leftover == ("demon", "demon")
        assert Counter(dealt.roles.values())["demon"] == 2
    with pytest.raises(SetupError, match="leftover"):
        rules.setup(GameSpec(players, {}, "fr", None, ("demon",)), EPOCH, random.Random(1))
    with pytest.raises(SetupError, match="leftover"):
        rules.setup(
            GameSpec(players, {}, "fr", None, ("phoebe", "phoebe")), EPOCH, random.Random(1)
        )


def test_chasse_cards_are_one_table_of_records() -> None:
    """CAS-010, CAS-014, CAS-015, CAS-210..CAS-217, CAS-220, CAS-221, CAS-340, CAS-350, CAS-D30:
    the deck, the sides, who owns which command, its sub-phase and its step are read from the
    role table."""
    from pbem.games.chasse.roles import (
        CARD_OF,
        NIGHT_STEPS,
        ONCE_PER_GAME,
        ROLE_TABLE,
        SUBPHASE_OF,
        TEAMS,
    )

    assert dict(DECK) == {r.id: r.copies for r in ROLE_TABLE}
    assert list(DECK) == [
        "demon",
        "phoebe",
        "prue",
        "coop",
        "piper",
        "paige",
        "leo",
        "billie",
        "cole",
        "innocent",
    ]  # the seed's order
    assert sum(DECK.values()) == 16 and DECK["demon"] == DECK["innocent"] == 4
    assert {r for r, t in TEAMS.items() if t == "demons"} == {"demon"}
    assert CARD_OF == {
        "scan": "phoebe",
        "lovers": "coop",
        "burn": "piper",
        "heal": "paige",
        "take": "leo",
        "keep": "leo",
        "swap": "cole",
    }
    assert NIGHT_STEPS == {
        "take": 4,
        "lovers": 5,
        "scan": 7,
        "kill": 8,
        "swap": 9,
        "burn": 10,
        "heal": 11,
    }
    assert SUBPHASE_OF == {
        "take": "L",
        "keep": "L",
        "lovers": "C",
        "scan": "W1",
        "kill": "W1",
        "swap": "W1",
        "burn": "W2",
        "heal": "W2",
    }
    assert ONCE_PER_GAME == ("piper", "paige")
