"""Setup: deck, deal, idiot, bite, Wolves' introduction, Mayor election (LG-010..LG-207)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime

import pytest

from pbem.core.errors import SetupError
from pbem.core.game import GameSpec, PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.games import rules_for
from pbem.games.loupgarou import LoupGarou
from pbem.games.loupgarou.deck import DECK
from pbem.table import Table
from tests.loupgarou.scenario import LG, NAMES, ROLES, VILLAGERS, email


def _spec(n: int = 16, **options: object) -> GameSpec:
    players = tuple(PlayerSpec(PlayerId(f"p{i}"), f"p{i}@ex.org", "fr") for i in range(n))
    return GameSpec(players, options)


def test_deck_has_16_cards_and_initial_teams() -> None:
    """LG-010 the 16-card deck; LG-011, LG-320 initial teams; LG-012 uniform random deal."""
    assert sum(DECK.values()) == 16 and DECK["villager"] == 8
    rules = LoupGarou()
    events = rules.setup(_spec(), datetime(2026, 1, 1, tzinfo=UTC), random.Random(5))
    state = rules.fold(events)
    assert Counter(s.role for s in state.seats.values()) == Counter(DECK)
    teams = {s.role: s.team for s in state.seats.values()}
    assert teams["werewolf"] == teams["master_wolf"] == "wolves"
    assert teams["pied_piper"] == "pied_piper"  # LG-003: neither team
    for role in ("villager", "thief", "seer", "witch", "little_girl", "elder"):
        assert teams[role] == "villagers"
    # LG-012: a different seed gives a different deal (uniform shuffle, recorded in the event)
    other = rules.fold(rules.setup(_spec(), datetime(2026, 1, 1, tzinfo=UTC), random.Random(6)))
    assert {p: s.role for p, s in state.seats.items()} != {
        p: s.role for p, s in other.seats.items()
    }


def test_exactly_16_players_unless_custom_deck() -> None:
    """LG-002, LG-D01: 16 players; a custom deck needs one master wolf and one card each."""
    rules = LoupGarou()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(SetupError, match="16"):
        rules.setup(_spec(12), now, random.Random(1))
    deck = ["master_wolf", "werewolf", "seer", "witch", "villager", "villager"]
    state = rules.fold(rules.setup(_spec(6, custom_deck=deck), now, random.Random(1)))
    assert sorted(s.role for s in state.seats.values()) == sorted(deck)
    with pytest.raises(SetupError, match="master_wolf"):
        rules.setup(_spec(2, custom_deck=["werewolf", "seer"]), now, random.Random(1))
    # a custom deck without Simple villageois has no idiot
    state = rules.fold(
        rules.setup(_spec(2, custom_deck=["master_wolf", "seer"]), now, random.Random(1))
    )
    assert state.idiot is None


def test_idiot_is_a_secret_simple_villager() -> None:
    """LG-013, LG-440, LG-441: a random Simple villageois, told nobody, not even himself."""
    seen = set()
    for seed in range(12):
        g = LG(seed=seed)
        idiot = g.state.idiot
        assert idiot in VILLAGERS
        seen.add(idiot)
        assert not any("idiot" in m.body.lower() for m in g.mails)
        assert g.rules.status(g.state, idiot)["conditions"] == []  # LG-441
    assert len(seen) > 1  # drawn at random


def test_opening_and_role_messages() -> None:
    """LG-200, LG-700, LG-701, LG-014, LG-310, LG-312: opening, roles; no Wolf named yet."""
    g = LG()
    public = g.public()
    assert len(public) == 1
    opening = public[0].body
    assert "8 Simples villageois" in opening and "1 Maître des loups" in opening  # LG-014
    assert "Voyante" in opening and "MORDRE" not in opening
    for n in NAMES:
        roles = g.notices_to(n)
        assert len(roles) == 1
    assert "vous êtes la Voyante" in g.notices_to("dave")[0].body
    assert "vous êtes l'Ancien" in g.notices_to("grace")[0].body
    assert "vous êtes un Simple villageois" in g.notices_to("ivan")[0].body
    master = g.notices_to("alice")[0].body
    assert "MORDRE" in master  # LG-701: the bite prompt with its deadline
    assert "(facultatif : RIEN pour ne mordre personne)" in master  # LG-D03: how to pass
    # LG-202: no Wolf is told the other Wolves during the bite window
    assert "bob" not in master and "alice" not in g.notices_to("bob")[0].body
    # LG-D36 conduct rules stated
    assert "amoureux ne doivent pas" in g.notices_to("ivan")[0].body


def test_bite_makes_a_young_wolf_who_keeps_powers() -> None:
    """LG-201, LG-203, LG-311, LG-314, LG-430, LG-431, LG-703, LG-204, LG-704, LG-D04."""
    g = LG()
    out = g.send("alice", "MORDRE eve")
    assert "MORDRE eve" in g.reply(out)  # LG-702: the acknowledgement
    assert g.seat("eve").team == "villagers"  # nothing before the end of the window
    out = g.deadline("bite")
    assert g.seat("eve").team == "wolves" and g.seat("eve").role == "witch"
    assert g.state.young_wolf == "eve"
    bitten = [m for m in g.notices_to("eve", out) if "Un changement pour vous" in m.subject]
    assert len(bitten) == 1 and "Jeune loup" in bitten[0].body and "Sorcière" in bitten[0].body
    # LG-204/LG-704: the list goes to every Wolf, including the young wolf, before LG-705
    lists = [m for m in out if "Une information pour vous" in m.subject]
    assert {m.to[0] for m in lists} == {email("alice"), email("bob"), email("eve")}
    assert "Maître des loups" in lists[0].body and "carte : Sorcière" in lists[0].body
    idx_list = out.index(lists[-1])
    idx_open = next(i for i, m in enumerate(out) if m.public and "Maire" in m.subject)
    assert idx_list < idx_open  # LG-504: before the election opens (LG-705)


def test_bite_on_a_wolf_does_nothing_and_no_bite_is_none() -> None:
    """LG-313, LG-301, LG-434, LG-D03: biting a Wolf (the normal one), or not biting: nothing."""
    g = LG()
    g.send("alice", "MORDRE bob")
    out = g.deadline("bite")
    assert g.state.young_wolf is None
    assert not [m for m in out if "mordu" in m.subject.lower()]
    g2 = LG()
    g2.deadline("bite")
    assert g2.state.young_wolf is None


def test_bite_rejections() -> None:
    """LG-610: a living player other than himself; only the master wolf; only in the window."""
    g = LG()
    assert "vous-même" in g.reply(g.send("alice", "MORDRE alice"))
    assert "pas ce pouvoir" in g.reply(g.send("bob", "MORDRE ivan"))
    g.deadline("bite")
    out = g.send("alice", "MORDRE ivan")
    assert "morsure n'est possible" in g.reply(out)
    assert g.state.young_wolf is None


def test_bite_on_the_elder_x01() -> None:
    """LG-X01, LG-317, LG-384, LG-D18: the elder is immune and both are told; no young wolf."""
    g = LG()
    g.send("alice", "MORDRE grace")
    out = g.deadline("bite")
    assert g.state.young_wolf is None and g.seat("grace").team == "villagers"
    assert any("immunisé" in m.body for m in g.notices_to("grace", out))
    assert any("grace est l'Ancien" in m.body for m in g.notices_to("alice", out))
    assert not g.state.elder_used  # LG-D18: the protection is still unused


def test_bitten_piper_and_thief() -> None:
    """LG-315, LG-316: a bitten piper becomes a Wolf; a bitten thief can never leave."""
    g = LG()
    g.send("alice", "MORDRE heidi")
    g.deadline("bite")
    assert g.seat("heidi").team == "wolves" and g.seat("heidi").role == "pied_piper"
    g = LG()
    g.send("alice", "MORDRE carol")
    g.deadline("bite")
    assert g.seat("carol").team == "wolves"
    g.deadline("election")
    out = g.send("carol", "DEVENIR LOUP")
    assert "morsure du Maître des loups" in g.reply(out)


def test_mayor_election_publishes_every_vote() -> None:
    """LG-205, LG-206, LG-400, LG-401, LG-500, LG-501, LG-502, LG-503, LG-504, LG-505, LG-506, LG-611, LG-705, LG-706, LG-D06."""
    g = LG()
    out = g.deadline("bite")
    assert any(m.public and "MAIRE nom" in m.body for m in out)  # LG-705
    g.send("ivan", "MAIRE judy")
    g.send("ivan", "MAIRE ivan")  # LG-501: self-vote, changes allowed (last counts)
    g.send("judy", "MAIRE ivan")
    g.send("bob", "MAIRE judy")
    out = g.deadline("election")
    assert g.state.mayor == "ivan"
    result = next(m for m in out if m.public and "devient Maire" in m.subject)
    assert "ivan → ivan" in result.body and "judy → ivan" in result.body
    assert "alice → pas de vote" in result.body  # LG-503: abstention published
    assert "ivan 2" in result.body and "judy 1" in result.body
    # LG-207: then Night 1
    assert g.state.phase == "night" and g.state.number == 1
    # LG-506: the mayor's condition is public: in a STATUS reply of anybody
    assert g.rules.status(g.state, "bob")["mayor"] == "ivan"
    # LG-503: a vote after the deadline is rejected
    assert "pas ouverte" in g.reply(g.send("nick", "MAIRE nick"))


def test_election_tie_and_empty_are_drawn() -> None:
    """LG-502, LG-D05: a tie, or no vote at all, is drawn at random and published."""
    g = LG()
    g.deadline("bite")
    g.send("ivan", "MAIRE ivan")
    g.send("judy", "MAIRE judy")
    out = g.deadline("election")
    assert g.state.mayor in ("ivan", "judy")
    assert any("Tirage au sort entre ivan et judy" in m.body for m in out)
    g = LG()
    g.deadline("bite")
    out = g.deadline("election")
    assert g.state.mayor in NAMES
    assert any("Personne n'a voté" in m.body for m in out)
    mayors = set()
    for seed in range(8):  # the draw is random, not the first tied name
        g = LG(seed=seed)
        g.deadline("bite")
        g.send("ivan", "MAIRE ivan")
        g.send("judy", "MAIRE judy")
        g.deadline("election")
        mayors.add(g.state.mayor)
    assert mayors == {"ivan", "judy"}


def test_game_id_and_roles_in_state_line() -> None:
    """LG-001: the game runs through the mail pipeline; the state line has the role ids."""
    g = LG()
    summary = g.table.summary()
    assert summary["game"] == "loup-garou"
    assert {p["name"]: p["role"] for p in summary["players"]} == ROLES
    assert all("conditions" in p for p in summary["players"])


def test_reserved_names_refused() -> None:
    """LG-D42: a nickname may not be a question word."""
    players = [{"name": n, "email": email(n)} for n in (*NAMES[:15], "Voyante")]
    with pytest.raises(SetupError):
        Table.new({"game": "loup-garou", "players": players}, datetime(2026, 1, 1, tzinfo=UTC))
    # published like the other games' (the demos and `pbem new-game` pick names with it)
    assert "voyante" in {fold(w) for w in rules_for("loup-garou").reserved}


def test_idiot_after_bite_option() -> None:
    """LG-D30 (1) alternative: the idiot is drawn after the bite among Villagers."""
    for seed in range(30):
        g = LG(options={"idiot_after_bite": True}, seed=seed)
        assert g.state.idiot is None
        g.send("alice", "MORDRE ivan")
        g.deadline("bite")
        assert g.state.idiot in VILLAGERS and g.state.idiot != "ivan"


def test_election_runoff_option() -> None:
    """LG-D05 alternative ``runoff``: a second vote among the tied, then a draw."""
    g = LG(options={"mayor_election_tie": "runoff"})
    g.deadline("bite")
    g.send("ivan", "MAIRE ivan")
    g.send("judy", "MAIRE judy")
    out = g.deadline("election")
    assert g.state.phase == "runoff" and g.state.mayor is None
    assert any("second tour entre eux seuls" in m.body for m in g.public(out))
    assert "ex æquo" in g.reply(g.send("nick", "MAIRE nick"))
    g.send("nick", "MAIRE judy")
    g.deadline("runoff")
    assert g.state.mayor == "judy" and g.state.phase == "night"


def test_election_concurrent_with_night1_option() -> None:
    """LG-D02 alternative: the election runs during Night 1; the Wolves' list comes first."""
    g = LG(options={"election_concurrent_with_night1": True})
    out = g.deadline("bite")
    assert g.state.phase == "night" and g.state.number == 1
    subjects = [m.subject for m in out]
    first_list = next(i for i, s in enumerate(subjects) if "Une information pour vous" in s)
    opened = next(i for i, m in enumerate(out) if m.public and "Élection" in m.subject)
    assert first_list < opened
    for n in NAMES:
        g.send(n, "MAIRE nick")
    g.send("alice", "TUER ivan")
    g.deadline("council")
    g.deadline("night")
    assert g.state.mayor == "nick" and g.state.phase == "day" and not g.alive("ivan")
    assert any("nick devient Maire" in m.subject for m in g.public())


def test_wolves_list_detail_option() -> None:
    """LG-D04 alternatives: names only, or names and pack status without the card."""
    g = LG(options={"wolves_list_detail": "names_only"})
    g.send("alice", "MORDRE eve")
    out = g.deadline("bite")
    body = next(
        m for m in g.notices_to("bob", out) if "Une information pour vous" in m.subject
    ).body
    assert "alice" in body and "eve" in body and "Maître" not in body and "Sorcière" not in body
    g = LG(options={"wolves_list_detail": "names_and_status"})
    g.send("alice", "MORDRE eve")
    out = g.deadline("bite")
    body = next(
        m for m in g.notices_to("bob", out) if "Une information pour vous" in m.subject
    ).body
    assert "eve : Jeune loup" in body and "Sorcière" not in body


def test_loupgarou_identities_are_one_table_of_records() -> None:
    """LG-010, LG-011, LG-224, LG-225, LG-385, LG-D19: the deck, the initial teams, the night
    verbs' owners, the loop's priorities and the powers the Ancien's death takes are read from
    the role table."""
    from pbem.games.loupgarou.roles import (
        INITIAL_TEAM,
        NIGHT_ORDER,
        NIGHT_ROLES,
        POWERED,
        ROLE_TABLE,
    )

    assert list(DECK.items()) == [(r.id, r.copies) for r in ROLE_TABLE]
    assert sum(DECK.values()) == 16 and DECK["villager"] == 8
    assert {r for r, t in INITIAL_TEAM.items() if t != "villagers"} == {
        "werewolf",
        "master_wolf",
        "pied_piper",
    }
    assert NIGHT_ROLES == {
        "become": "thief",
        "scan": "seer",
        "save": "witch",
        "poison": "witch",
        "ask": "little_girl",
        "lovers": "little_girl",
        "charm": "pied_piper",
    }
    assert NIGHT_ORDER == {"wolves": 5, "poison": 6}
    assert set(POWERED) == {"seer", "witch", "little_girl", "thief"}
