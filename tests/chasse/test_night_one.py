"""Night 1 sub-phases L and C: Léo (CAS-210, CAS-360, CAS-361, CAS-362, CAS-363, CAS-364, CAS-365, CAS-366, CAS-610, CAS-611, CAS-710,
CAS-711, CAS-X01, CAS-X02, CAS-D03, CAS-D04, CAS-D05) and Coop (CAS-211, CAS-212,
CAS-330, CAS-331, CAS-332, CAS-333, CAS-334, CAS-612, CAS-717, CAS-718, CAS-D06)."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise

from pbem.core.events import PhaseStarted
from tests.chasse.scenario import (
    DEADLINE,
    T0,
    Game,
    deal,
    mail,
    mails_to,
    notices,
    recipients,
    run,
    setup_line,
)


def test_cas_220_night_one_has_four_subphases_in_order() -> None:
    """CAS-220: L (T_L), C (T_C), W1 (T_W1), W2 (T_end), then the day."""
    g = Game()
    phases = [(g.state.phase, g.state.number)]
    for _ in range(4):
        g.deadline()
        phases.append((g.state.phase, g.state.number))
    assert phases == [("L", 1), ("C", 1), ("W1", 1), ("W2", 1), ("day", 1)]
    starts = [e for e in g.events if isinstance(e, PhaseStarted)]
    durations = [
        (b.deadlines[b.phase] - a.deadlines[a.phase]).total_seconds() / 3600
        for a, b in pairwise(starts)
    ]
    assert durations == [6, 12, 6, 48]  # CAS-D02: coop 6 h, W1 12 h, W2 6 h; day 48 h


def test_cas_210_360_710_leo_is_told_the_two_leftover_roles() -> None:
    """CAS-210, CAS-360, CAS-710: Léo alone learns the 2 leftover roles by private message."""
    g = Game()
    (prompt,) = notices(g.events, "leo_prompt")
    assert prompt.to == ("ivan",) and prompt.params["leftover"] == ["demon", "innocent"]
    assert prompt.params["forced"] is False
    assert not any("leftover" in n.params for n in notices(g.events) if n.public)  # CAS-D03
    mails, _ = run([setup_line()])
    (leo,) = [m for m in mails_to(mails, "ivan") if "Night 1: your choice" in m["subject"]]
    assert (
        "Demon and Innocent" in leo["body"] and "TAKE role" in leo["body"] and "KEEP" in leo["body"]
    )


def test_cas_361_365_711_leo_takes_a_demon_and_joins_the_night_one_council() -> None:
    """CAS-361, CAS-365, CAS-711, CAS-222: at T_L Léo holds the Démon card, is told so, and is
    on the council list of the same night's W1 (CAS-D04)."""
    g = Game()
    g.do("ivan", "TAKE DEMON")
    events = g.deadline()
    assert g.role("ivan") == "demon"
    (told,) = notices(events, "leo_result")
    assert told.to == ("ivan",) and told.params == {"role": "demon", "changed": True}
    events = g.until("W1")
    prompts = notices(events, "council_prompt")
    assert "ivan" in recipients(events, "council_prompt")
    assert prompts[0].params["council"] == ["dave", "erin", "frank", "ivan", "judy"]
    g.do("ivan", "KILL niaj")  # a council member of Night 1 already
    assert g.state.action("ivan", "kill") is not None  # type: ignore[arg-type]


def test_cas_364_d03_the_leo_card_becomes_a_leftover_card() -> None:
    """CAS-364, CAS-D03: after the exchange the Léo card is one of the 2 leftover cards."""
    g = Game()
    g.do("ivan", "TAKE INNOCENT")
    g.deadline()
    assert g.state.leftover == ("demon", "leo")
    assert g.rules.summary(g.state)["leftover"] == ["demon", "leo"]


def test_cas_363_611_keep_leaves_leo_an_innocent_equivalent() -> None:
    """CAS-363, CAS-611, CAS-D05: KEEP keeps the Léo card; Phoebe sees "Léo"; no power."""
    g = Game()
    g.do("ivan", "TAKE DEMON")
    g.do("ivan", "KEEP")  # replaces the TAKE (CAS-603)
    events = g.deadline()
    assert g.role("ivan") == "leo" and g.state.leftover == ("demon", "innocent")
    assert notices(events, "leo_result")[0].params == {"role": "leo", "changed": False}
    g.until("W1")
    g.do("alice", "SCAN ivan")
    events = g.deadline()
    assert notices(events, "phoebe_result")[0].params["role"] == "leo"
    assert g.fails("ivan", "TAKE DEMON").reason == "subphase_only"


def test_cas_d04_no_answer_keeps_the_card() -> None:
    """CAS-D04, CAS-D29: without an answer by T_L Léo keeps his card (not forced)."""
    g = Game()
    g.deadline()
    assert g.role("ivan") == "leo"


def test_cas_x01_362_two_demons_force_leo() -> None:
    """CAS-X01, CAS-362, CAS-D04: leftovers Démon+Démon: KEEP is rejected; without an answer
    he receives a Démon at T_L and is on the Night 1 council list."""
    roles = deal(niaj="demon", dave="innocent", erin="demon", frank="innocent")
    g = Game(roles=roles, leftover=("demon", "demon"))
    assert notices(g.events, "leo_prompt")[0].params["forced"] is True
    error = g.fails("ivan", "KEEP")
    assert error.reason == "leo_must_take"
    assert "keep" not in {c.verb for c in g.rules.available(g.state, "ivan")}  # type: ignore[arg-type]
    g.deadline()
    assert g.role("ivan") == "demon" and g.state.leftover == ("demon", "leo")
    events = g.until("W1")
    assert "ivan" in notices(events, "council_prompt")[0].params["council"]


def test_cas_610_take_must_name_a_leftover_role() -> None:
    """CAS-610: PRENDRE names one of the 2 leftover roles; only Léo, only in sub-phase L."""
    g = Game()
    assert g.fails("ivan", "TAKE PHOEBE").reason == "not_a_leftover"
    assert g.fails("alice", "TAKE DEMON").reason == "not_your_role"
    g.do("ivan", "PRENDRE démon")  # French keyword, accents and case ignored
    assert g.state.action("ivan", "take").word == "demon"  # type: ignore[arg-type, union-attr]


def test_cas_x02_leo_takes_coop_and_designates_the_lovers() -> None:
    """CAS-X02: leftovers Coop and Innocent, Léo takes Coop: in sub-phase C of Night 1 he
    designates the Lovers; the Léo card is now a leftover."""
    roles = deal(carol="demon")
    g = Game(roles=roles, leftover=("coop", "innocent"))
    g.do("ivan", "TAKE COOP")
    events = g.deadline()
    assert g.role("ivan") == "coop" and g.state.leftover == ("innocent", "leo")
    assert recipients(events, "coop_prompt") == {"ivan"}  # CAS-717
    g.do("ivan", "LOVERS alice bob")
    events = g.deadline()
    assert g.state.lovers == ("alice", "bob")
    assert recipients(events, "lovers") == {"alice", "bob"}


def test_cas_366_226_leo_undealt_subphase_l_still_runs() -> None:
    """CAS-366, CAS-226: the Léo card is a leftover: nobody is called, but sub-phase L keeps
    its public schedule and deadline."""
    g = Game(
        roles=deal(ivan="innocent", niaj="innocent", olivia="innocent", peggy="demon"),
        leftover=("leo", "innocent"),
    )
    assert g.state.phase == "L" and "L" in g.rules.deadlines(g.state)
    assert notices(g.events, "leo_prompt") == []
    assert "L" in notices(g.events, "night_start")[0].params["schedule"]
    events = g.deadline()
    assert notices(events, "leo_result") == [] and g.state.phase == "C"


def test_cas_211_330_331_612_717_coop_designates_two_lovers_himself_included() -> None:
    """CAS-211, CAS-330, CAS-331, CAS-612, CAS-717: Coop is prompted in C and may name himself."""
    g = Game()
    events = g.deadline()
    (prompt,) = notices(events, "coop_prompt")
    assert prompt.to == ("carol",)
    g.do("carol", "AMOUREUX carol dave")
    g.deadline()
    assert g.state.lovers == ("carol", "dave")
    assert g.rules.summary(g.state)["players"][2]["conditions"] == ["lover"]


def test_cas_612_lovers_must_be_two_distinct_players() -> None:
    """CAS-612: two distinct living players; only Coop; only in sub-phase C of Night 1."""
    g = Game()
    assert g.fails("carol", "LOVERS alice bob").reason == "subphase_only"
    g.deadline()
    assert g.fails("carol", "LOVERS alice alice").reason == "same_name_twice"
    assert g.fails("carol", "LOVERS alice").reason == "missing_names"
    assert g.fails("alice", "LOVERS alice bob").reason == "not_your_role"


def test_cas_212_334_718_d06_each_lover_told_his_partner_only() -> None:
    """CAS-212, CAS-334, CAS-718, CAS-D06: each Lover learns his partner's name, not his role
    (``lovers_told_partner_role`` false); with the option, the role too."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS alice dave")
    events = g.deadline()
    told = {n.to[0]: n.params for n in notices(events, "lovers")}
    assert told == {
        "alice": {"partner": "dave", "role": None},
        "dave": {"partner": "alice", "role": None},
    }
    g = Game(lovers_told_partner_role=True)
    g.deadline()
    g.do("carol", "LOVERS alice dave")
    events = g.deadline()
    assert {n.to[0]: n.params["role"] for n in notices(events, "lovers")} == {
        "alice": "demon",
        "dave": "phoebe",
    }


def test_cas_333_d06_no_designation_no_lovers() -> None:
    """CAS-333, CAS-D06: no valid designation by T_C: no Lovers (or random pair with the option)."""
    g = Game()
    g.until("W1")
    assert g.state.lovers == () and notices(g.events, "lovers") == []
    g = Game(lovers_if_missing="random")
    g.until("W1")
    assert len(g.state.lovers) == 2 and len(notices(g.events, "lovers")) == 2


def test_cas_332_a_demon_and_a_good_may_be_lovers() -> None:
    """CAS-332: a Demon and a Force of Good may be Lovers (accepted)."""
    mails, state = run(
        [
            setup_line(),
            DEADLINE,
            mail("carol", "LOVERS dave niaj"),
            DEADLINE,
        ]
    )
    assert state["lovers"] == ["dave", "niaj"]
    assert "in love with niaj" in mails_to(mails, "dave")[-2]["body"] or any(
        "in love with niaj" in m["body"] for m in mails_to(mails, "dave")
    )


def test_cas_d02_subphase_durations_are_options() -> None:
    """CAS-D02: ``leo_duration``, ``coop_duration``, ``w1_duration``, ``w2_duration`` set the
    sub-phases; the public schedule of Night 1 follows them."""
    g = Game(leo_duration="1h", coop_duration="2h", w1_duration="3h", w2_duration="4h")
    (night,) = notices(g.events, "night_start")
    hours = {
        k: (datetime.fromisoformat(v) - g.now).total_seconds() / 3600
        for k, v in night.params["schedule"].items()
    }
    assert hours == {"L": 1, "C": 3, "W1": 6, "W2": 10}
    g.until("day", 1)
    assert (g.now - T0).total_seconds() / 3600 == 10
