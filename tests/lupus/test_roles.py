"""The roles (LUP-300..LUP-384, LUP-D05..LUP-D14, LUP-D23)."""

from __future__ import annotations

from tests.lupus.scenario import FULL16, all_text, kill, rejected, votes
from tests.support.game_by_mail import Game, address, lupus_roles

WOLVES3 = ("p1", "p2", "p3")


def converted(target: str) -> Game:
    """FULL16 after Night 2 with the Mythomaniac p12 designating ``target``."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", f"COPY {target}")
    g.deadline()
    return g


# -- Werewolves -------------------------------------------------------------------------------


def test_wolves_victim_is_the_most_voted() -> None:
    """LUP-300, LUP-213, LUP-D05: one vote each, changeable; the most voted dies."""
    g = Game(FULL16)
    g.mail("p1", "KILL p13")
    g.mail("p2", "KILL p14")
    g.mail("p3", "KILL p14")
    g.mail("p2", "KILL p13")  # changed until T_end
    g.deadline()
    assert not g.alive("p13") and g.alive("p14")
    assert "The pack chose p13." in g.text_to("p3")


def test_wolves_tie_is_drawn_among_the_tied() -> None:
    """LUP-300, LUP-D05 (wolves_tie=random): a draw among the tied, told to the pack."""
    dead = set()
    for seed in range(6):
        g = Game(lupus_roles(8), seed=seed)
        g.mail("p1", "KILL p4")
        g.mail("p2", "KILL p5")
        g.deadline()
        assert len(g.living()) == 7
        (victim,) = {"p4", "p5"} - set(g.living())
        dead.add(victim)
        assert f"The pack chose {victim} (drawn at random among p4 and p5)" in g.text_to("p1")
    assert dead == {"p4", "p5"}


def test_wolves_know_each_other_from_night_one() -> None:
    """LUP-301, LUP-D05: the list at the start of Night 1 and of every night."""
    g = Game(lupus_roles(8))
    for wolf in ("p1", "p2"):
        assert "the Werewolves are: p1 and p2" in g.text_to(wolf, g.sent)
    start = len(g.sent)
    g.until("night", 2)
    assert "the Werewolves are: p1 and p2" in g.text_to("p2", g.sent[start:])


def test_wolves_may_not_target_a_wolf() -> None:
    """LUP-300, LUP-D05: valid targets are living non-Werewolves."""
    g = Game(lupus_roles(8))
    assert "p2 is a Werewolf" in rejected(g, "p1", "KILL p2")


# -- Seer -------------------------------------------------------------------------------------


def test_seer_learns_werewolf_or_not_and_nothing_more() -> None:
    """LUP-310, LUP-D06: exactly "X is a Werewolf" / "X is not a Werewolf"."""
    for target, answer in [("p1", "p1 is a Werewolf."), ("p6", "p6 is not a Werewolf.")]:
        g = Game(FULL16)
        g.mail("p4", f"SCAN {target}")
        g.deadline()
        (mail,) = [m for m in g.to("p4") if "vision" in m.subject]
        assert mail.body.strip() == answer


def test_seer_probes_once_per_night_last_choice_counts() -> None:
    """LUP-310, LUP-603: one probe a night; a new SCAN replaces the previous one."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p1")
    g.mail("p4", "SCAN p6")
    g.deadline()
    visions = [m for m in g.to("p4") if "vision" in m.subject]
    assert len(visions) == 1 and "p6 is not a Werewolf" in visions[0].body


def test_possessed_hamster_and_unconverted_myth_are_not_werewolves() -> None:
    """LUP-D06, LUP-330: the Possessed, the Werehamster, the Mythomaniac are "not a Werewolf"."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p6")
    g.deadline()
    assert "p6 is not a Werewolf" in g.text_to("p4")
    g.until("night", 2)
    g.mail("p4", "SCAN p12")
    g.deadline()
    assert "p12 is not a Werewolf" in g.text_to("p4")


def test_seer_designating_hamster_kills_him_with_the_victim() -> None:
    """LUP-312, LUP-372, LUP-217: the Werehamster dies together with the torn-apart player."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p11")
    kill(g, "p13", WOLVES3)
    g.deadline()
    assert not g.alive("p11") and not g.alive("p13")
    assert "p11 and p13 were torn apart" in g.public_text()


def test_werewolf_mythomaniac_is_seen_as_werewolf() -> None:
    """LUP-313, LUP-383, LUP-D06: by the Seer (from Night 3) and by the Medium."""
    g = converted("p1")
    g.until("night", 3)
    g.mail("p4", "SCAN p12")
    g.deadline()
    assert "p12 is a Werewolf" in g.text_to("p4")
    g.until("round1", 3)
    votes(g, {p: "p12" for p in ("p4", "p5", "p7", "p8", "p13", "p14")})
    g.deadline()
    assert not g.alive("p12")
    g.until("night", 4)
    assert "p12, lynched on Day 3, was a Werewolf" in g.text_to("p5")


# -- Medium -----------------------------------------------------------------------------------


def test_medium_learns_about_yesterdays_lynch() -> None:
    """LUP-320, LUP-D10: at the start of Night N>=2, about Day N-1; nothing on Night 1."""
    g = Game(lupus_roles(9, p4="medium"))
    assert "voice of the dead" not in g.text_to("p4", g.sent)
    g.until("round1")
    votes(g, {"p3": "p1", "p4": "p1", "p5": "p1"})
    g.deadline()
    assert not g.alive("p1")
    assert "p4, p1, lynched on Day 1, was a Werewolf." in g.text_to("p4")
    assert g.recipients() == {address("p4"), address("p2"), address("p3")}
    g.until("round1", 2)
    votes(g, {"p3": "p5", "p4": "p5"})
    g.until("night", 3)
    assert "p5, lynched on Day 2, was not a Werewolf." in g.text_to("p4", g.sent)


def test_medium_sees_the_hamster_as_a_villager() -> None:
    """LUP-321, LUP-373, LUP-375: a lynched Werehamster "was not a Werewolf"."""
    g = Game(lupus_roles(9, p4="medium", p5="werehamster"))
    g.until("round1")
    votes(g, {"p3": "p5", "p4": "p5"})
    g.deadline()
    assert not g.alive("p5")
    assert "p5, lynched on Day 1, was not a Werewolf." in g.text_to("p4")


def test_dead_medium_gets_nothing() -> None:
    """LUP-D10, LUP-D24: a dead Medium gets no answer."""
    g = Game(lupus_roles(9, p4="medium"))
    kill(g, "p4")
    g.until("night", 2)
    assert g.to("p4") == []


# -- Possessed --------------------------------------------------------------------------------


def test_possessed_and_wolves_do_not_know_each_other() -> None:
    """LUP-330, LUP-331, LUP-D23, LUP-701: neither side is told who the other is."""
    g = Game(lupus_roles(10, p4="possessed"))
    assert "you do not know who they are" in g.text_to("p4", g.sent)
    assert "p1" not in g.text_to("p4", g.sent).replace("p10", "")
    for wolf in ("p1", "p2"):
        assert "p4" not in g.text_to(wolf, g.sent)


# -- Bodyguard --------------------------------------------------------------------------------


def test_bodyguard_protects_the_same_player_on_consecutive_nights() -> None:
    """LUP-340, LUP-341, LUP-D09: the protected victim survives; no rule against repeating."""
    g = Game(lupus_roles(11, p4="bodyguard"))
    for night in (1, 2):
        g.until("night", night)
        g.mail("p4", "PROTECT p5")
        kill(g, "p5")
        g.deadline()
        assert g.alive("p5")
        assert "Nobody was torn apart tonight" in g.public_text()


def test_bodyguard_is_not_told_and_does_not_stop_the_probe() -> None:
    """LUP-D09, LUP-D13: no word to the Bodyguard; the probe of the Werehamster still kills."""
    g = Game(lupus_roles(11, p4="bodyguard", p5="werehamster"))
    g.mail("p4", "PROTECT p5")
    g.mail("p3", "SCAN p5")
    g.deadline()
    assert not g.alive("p5")
    assert g.to("p4") == []


# -- Owl --------------------------------------------------------------------------------------


def owl_day(pick: str, ballot: dict[str, str], kill_pick: bool = False) -> Game:
    g = Game(lupus_roles(12, p4="owl"))
    g.mail("p4", f"NOMINATE {pick}")
    if kill_pick:
        kill(g, pick)
    g.until("round1")
    votes(g, ballot)
    g.deadline()
    return g


def test_owl_designee_is_nominated_with_the_top_voted() -> None:
    """LUP-350, LUP-351, LUP-405, LUP-D11: the Owl's player plus the most voted."""
    g = owl_day("p9", {"p3": "p5", "p4": "p5", "p6": "p7"})
    assert g.state.nominees == ("p9", "p5")
    assert "p9 (nominated by the Owl) and p5" in g.public_text()


def test_owl_designee_who_is_top_voted_takes_the_next_best() -> None:
    """LUP-D11 (3): if the Owl's player is the top vote-getter, the other is the next best."""
    g = owl_day("p5", {"p3": "p5", "p4": "p5", "p6": "p7"})
    assert g.state.nominees == ("p5", "p7")


def test_owl_may_designate_himself() -> None:
    """LUP-D11 (1): any living player, the Owl included."""
    g = owl_day("p4", {"p3": "p5"})
    assert g.state.nominees == ("p4", "p5")


def test_owl_designee_dead_lapses() -> None:
    """LUP-D11 (2), LUP-405: a designee dead at round 1 is not nominated."""
    g = owl_day("p9", {"p3": "p5", "p4": "p6"}, kill_pick=True)
    assert g.state.nominees == ("p5", "p6")


def test_owl_designee_alone_is_lynched_without_votes() -> None:
    """LUP-D16, LUP-D11: only the Owl's player and no votes: he is lynched without round 2."""
    g = owl_day("p9", {})
    assert not g.alive("p9") and (g.phase, g.number) == ("night", 2)
    assert "p9 (nominated by the Owl) is the only nominee and is lynched" in g.public_text()


def test_owl_choice_applies_to_that_day_only() -> None:
    """LUP-351, LUP-D11 (2): the choice of Night N applies to Day N."""
    g = owl_day("p9", {"p3": "p5", "p4": "p6"})
    g.until("round1", 2)
    votes(g, {"p3": "p6", "p4": "p7"})
    g.deadline()
    assert g.alive("p9") and g.state.nominees == ("p6", "p7")


# -- Masons -----------------------------------------------------------------------------------


def test_masons_learn_each_other_on_night_one() -> None:
    """LUP-360, LUP-D12: each Mason is told the other's name; nobody else is."""
    g = Game(lupus_roles(13, p4="mason", p5="mason"))
    mails = [m for m in g.sent if "Masons" in m.subject]
    assert sorted(m.to[0] for m in mails) == [address("p4"), address("p5")]
    assert "the other Mason is p5" in g.text_to("p4", g.sent)
    assert "the other Mason is p4" in g.text_to("p5", g.sent)
    assert "Your role does not have this power" in rejected(g, "p4", "PACK hello p5")


# -- Werehamster ------------------------------------------------------------------------------


def test_hamster_survives_the_wolves_without_being_told() -> None:
    """LUP-370, LUP-371, LUP-D13: he does not die and is not told he was attacked."""
    g = Game(lupus_roles(15, p4="werehamster"))
    kill(g, "p4")
    g.deadline()
    assert g.alive("p4") and g.to("p4") == []
    assert "Nobody was torn apart" in g.public_text()


def test_hamster_can_be_lynched() -> None:
    """LUP-375, LUP-D13: he can be eliminated by the lynch like any player."""
    g = Game(lupus_roles(15, p4="werehamster"))
    g.until("round1")
    votes(g, {"p3": "p4"})
    g.deadline()
    assert not g.alive("p4")


# -- Mythomaniac ------------------------------------------------------------------------------


def test_myth_copying_a_wolf_becomes_a_wolf_and_hunts_from_night_three() -> None:
    """LUP-380, LUP-381, LUP-382, LUP-D08, LUP-D14: told at dawn; votes in the council."""
    g = converted("p2")
    assert "You are now a Werewolf. The Werewolves are: p1, p2, p3 and p12" in g.text_to("p12")
    assert "p12, the Mythomaniac, imitated one of you" in g.text_to("p1")
    g.until("night", 3)
    assert "the Werewolves are: p1, p2, p3 and p12" in g.text_to("p1", g.sent[-30:])
    g.mail("p12", "KILL p13")
    assert "p12 votes to kill p13" in g.text_to("p1")
    g.mail("p1", "KILL p14")
    g.mail("p2", "KILL p13")
    g.deadline()
    assert not g.alive("p13") and g.alive("p14")


def test_myth_copying_the_seer_shares_one_probe() -> None:
    """LUP-381, LUP-382, LUP-D07: one probe per night, the last received; both get it."""
    g = converted("p4")
    assert "You are now a Seer, with p4" in g.text_to("p12")
    assert "joins you" in g.text_to("p4")
    g.until("night", 3)
    g.mail("p4", "SCAN p1")
    assert "p4 wants to probe p1" in g.text_to("p12")
    g.mail("p12", "SCAN p6")
    g.deadline()
    for seer in ("p4", "p12"):
        assert "p6 is not a Werewolf" in g.text_to(seer)
        assert "p1 is" not in g.text_to(seer)


def test_second_seer_continues_alone() -> None:
    """LUP-D07: if one Seer dies, the other continues alone."""
    g = converted("p4")
    g.until("night", 3)
    kill(g, "p4", WOLVES3)
    g.deadline()
    g.until("night", 4)
    g.mail("p12", "SCAN p2")
    g.deadline()
    assert "p2 is a Werewolf" in g.text_to("p12")


def test_myth_copying_anyone_else_stays_a_villager() -> None:
    """LUP-384, LUP-D14: "neither a Werewolf nor the Seer": no role, no power."""
    g = converted("p6")
    assert "p6 is neither a Werewolf nor the Seer" in g.text_to("p12")
    assert g.state.seats["p12"].role == "mythomaniac"
    g.until("night", 3)
    assert "Your role does not have this power" in rejected(g, "p12", "SCAN p1")


def test_myth_silent_means_no_change() -> None:
    """LUP-380, LUP-D14 (myth_if_missing=none): no designation, no change, no message."""
    g = Game(FULL16)
    g.until("night", 2)
    g.deadline()
    assert g.state.seats["p12"].role == "mythomaniac"
    assert "imitation" not in all_text(g, "p12")


def test_myth_cannot_designate_a_dead_player() -> None:
    """LUP-D14 (6), LUP-616: a dead player cannot be designated."""
    g = Game(FULL16)
    kill(g, "p13", WOLVES3)
    g.until("night", 2)
    assert "p13 is not a living player" in rejected(g, "p12", "COPY p13")


def test_lupus_cards_are_one_table_of_records() -> None:
    """LUP-015, LUP-016, LUP-100..LUP-102, LUP-216: the facts of each card are read from the
    role table (deck order, minimum table, copies, side, owned verb and its priority)."""
    from pbem.games.lupus.roles import (
        KNOW_EACH_OTHER,
        NIGHT_ORDER,
        NIGHT_VERBS,
        ROLE_TABLE,
        ROLES,
        SPECIAL_MINIMUM,
        TEAMS,
        acts_on_night,
    )

    assert tuple(r.id for r in ROLE_TABLE) == ROLES
    assert list(SPECIAL_MINIMUM.items()) == [
        ("seer", 8),
        ("medium", 9),
        ("possessed", 10),
        ("bodyguard", 11),
        ("owl", 12),
        ("mason", 13),
        ("werehamster", 15),
        ("mythomaniac", 16),
    ]
    assert NIGHT_ORDER == {"scan": 1, "protect": 2, "kill": 3, "nominate": 4, "copy": 5}
    assert NIGHT_VERBS == {
        "kill": "werewolf",
        "scan": "seer",
        "protect": "bodyguard",
        "nominate": "owl",
        "copy": "mythomaniac",
    }
    assert {r: t for r, t in TEAMS.items() if t != "villagers"} == {
        "werewolf": "werewolves",
        "possessed": "werewolves",
        "werehamster": "werehamster",
    }
    assert {"werewolf", "seer", "mason"} == KNOW_EACH_OTHER
    assert next(r for r in ROLE_TABLE if r.id == "mason").copies == 2
    # LUP-380: the Mythomaniac acts (and is prompted) on Night 2 only
    assert not acts_on_night("mythomaniac", 1) and acts_on_night("mythomaniac", 2)
    assert acts_on_night("owl", 1) and not acts_on_night("villager", 1)
