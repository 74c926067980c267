"""Piper, Paige and the morning: CAS-216, CAS-217, CAS-225, CAS-230, CAS-231, CAS-232, CAS-233, CAS-234, CAS-235, CAS-305,
CAS-340..CAS-355, CAS-617, CAS-618, CAS-720, CAS-721, CAS-722, CAS-X04, CAS-D14..CAS-D17, CAS-D27."""

from __future__ import annotations

from tests.chasse.scenario import DEADLINE, Game, mail, mails_to, notices, run, setup_line


def at_w2(victim: str | None = "niaj", **kwargs: object) -> Game:
    g = Game(**kwargs)  # type: ignore[arg-type]
    g.until("W1")
    if victim:
        g.do("dave", f"KILL {victim}")
    g.deadline()
    assert g.state.phase == "W2"
    return g


def dawn_params(g: Game) -> dict[str, object]:
    (dawn,) = notices(g.last, "dawn")
    return dict(dawn.params)


def test_cas_230_231_305_neither_acted_one_death() -> None:
    """CAS-230, CAS-231, CAS-305, CAS-720: neither acted: the Demons' victim dies, is named
    publicly with his role, the vote opens until T_day."""
    g = at_w2()
    g.deadline()
    assert not g.alive("niaj") and g.state.phase == "day"
    params = dawn_params(g)
    assert params["dead"] == [{"name": "niaj", "role": "innocent"}]
    assert params["deadline"] == g.rules.deadlines(g.state)["day"].isoformat()
    assert params["lines"] == {"piper": False, "paige": False}


def test_cas_x04_231_342_353_both_acted_only_pipers_victim() -> None:
    """CAS-X04, CAS-231, CAS-342, CAS-343, CAS-353: victim alice, Piper burns bob, Paige heals
    alice: the morning lists only bob; "Piper used her power", "Paige used her power"."""
    g = at_w2("alice")
    g.do("grace", "BURN bob")
    g.do("heidi", "HEAL")
    g.deadline()
    assert g.alive("alice") and not g.alive("bob")
    params = dawn_params(g)
    assert params["dead"] == [{"name": "bob", "role": "prue"}]
    assert params["lines"] == {"piper": True, "paige": True}
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "KILL alice"),
            DEADLINE,
            mail("grace", "BURN bob"),
            mail("heidi", "HEAL alice"),
            DEADLINE,
        ]
    )
    body = mails_to(mails, "list")[-1]["body"]
    assert "bob, who was Prue" in body and "alice" not in body
    assert "Piper's power was used tonight." in body and "Paige's power was used tonight." in body


def test_cas_231_paige_healed_nobody_dies() -> None:
    """CAS-231, CAS-353, CAS-720: Paige healed and Piper did not strike: "Nobody was eliminated"."""
    g = at_w2()
    g.do("heidi", "GUERIR niaj")
    g.deadline()
    assert g.alive("niaj") and dawn_params(g)["dead"] == []
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "KILL niaj"),
            DEADLINE,
            mail("heidi", "HEAL"),
            DEADLINE,
        ]
    )
    assert "Nobody was eliminated tonight." in mails_to(mails, "list")[-1]["body"]


def test_cas_231_342_piper_strikes_without_heal_two_deaths_alphabetical() -> None:
    """CAS-231, CAS-342, CAS-D16 (1): two deaths, listed alphabetically without saying which
    came from Piper."""
    g = at_w2("olivia")
    g.do("grace", "BURN carol")
    g.deadline()
    params = dawn_params(g)
    assert params["dead"] == [
        {"name": "carol", "role": "coop"},
        {"name": "olivia", "role": "innocent"},
    ]
    assert params["burned"] is None


def test_cas_d16_attribute_piper_kill_option() -> None:
    """CAS-D16 (1) alternative: ``attribute_piper_kill`` names Piper's victim."""
    g = at_w2("olivia", attribute_piper_kill=True)
    g.do("grace", "BURN carol")
    g.deadline()
    assert dawn_params(g)["burned"] == "carol"


def test_cas_340_345_355_once_per_game_and_no_longer_called() -> None:
    """CAS-340, CAS-345, CAS-350, CAS-355, CAS-D16 (4): once used, the power is spent: no prompt,
    BURN/HEAL refused, and no usage line again."""
    g = at_w2()
    g.do("grace", "BURN olivia")
    g.do("heidi", "HEAL")
    g.deadline()
    g.deadline()  # T_day
    g.do("erin", "KILL peggy")
    w2 = g.deadline()
    assert notices(w2, "piper_prompt") == [] and notices(w2, "paige_prompt") == []
    assert g.fails("grace", "BURN carol").reason == "power_used"
    assert g.fails("heidi", "HEAL").reason == "power_used"
    g.deadline()
    assert dawn_params(g)["lines"] == {}


def test_cas_341_351_prompted_every_night_until_used() -> None:
    """CAS-216, CAS-217, CAS-341, CAS-351: unused powers: prompted again next night."""
    g = at_w2()
    g.deadline()
    g.deadline()
    g.deadline()  # Night 2 W1 -> W2
    assert {n.to[0] for n in notices(g.last, "piper_prompt") + notices(g.last, "paige_prompt")} == {
        "grace",
        "heidi",
    }


def test_cas_617_d14_burn_targets() -> None:
    """CAS-617, CAS-D14: a living player, not herself, not the Demons' victim; W2 only."""
    g = at_w2()
    assert g.fails("grace", "BURN grace").reason == "not_yourself"
    assert g.fails("grace", "BURN niaj").reason == "target_is_victim"
    assert g.fails("alice", "BURN bob").reason == "not_your_role"
    g.do("grace", "BRULER bob")
    assert g.state.action("grace", "burn").targets == ("bob",)  # type: ignore[arg-type, union-attr]


def test_cas_618_d15_heal_needs_a_victim_and_only_the_victim() -> None:
    """CAS-618, CAS-D15: HEAL needs a victim; a given name must be the victim."""
    g = at_w2()
    assert g.fails("heidi", "HEAL olivia").reason == "not_demons_victim"
    g = at_w2(victim=None)
    assert g.fails("heidi", "HEAL").reason == "no_victim_tonight"


def test_cas_352_paige_heals_herself() -> None:
    """CAS-352: Paige heals herself when she is the Demons' victim."""
    g = at_w2("heidi")
    assert notices(g.last, "paige_prompt")[0].params["self_victim"] is True
    g.do("heidi", "HEAL")
    g.deadline()
    assert g.alive("heidi")


def test_cas_d27_piper_killed_by_the_demons_still_strikes() -> None:
    """CAS-D27, CAS-D14: Piper is the Demons' victim: her kill still happens."""
    g = at_w2("grace")
    g.do("grace", "BURN olivia")
    g.deadline()
    assert not g.alive("grace") and not g.alive("olivia")


def test_cas_d15_paige_burned_still_heals() -> None:
    """CAS-D15: Paige is Piper's victim the same night: her heal still happens."""
    g = at_w2("niaj")
    g.do("grace", "BURN heidi")
    g.do("heidi", "HEAL")
    g.deadline()
    assert g.alive("niaj") and not g.alive("heidi")


def test_cas_233_344_354_d16_usage_lines_even_when_leftover() -> None:
    """CAS-233, CAS-344, CAS-354, CAS-D16 (4): the Piper and Paige lines are printed every
    morning while unused, even for a leftover card, and stop once the card is revealed."""
    from tests.chasse.scenario import deal

    g = Game(
        roles=deal(grace="innocent", peggy="demon", dave="innocent"), leftover=("piper", "demon")
    )
    g.until("W1")
    g.do("erin", "KILL heidi")
    g.until("day", 1)
    params = dawn_params(g)
    assert params["dead"] == [{"name": "heidi", "role": "paige"}]
    # The lines are those of the powers unused at dusk (Paige was alive and unused at dusk).
    assert params["lines"] == {"piper": False, "paige": False}
    g.deadline()
    g.until("day", 2)
    assert dawn_params(g)["lines"] == {"piper": False}  # Paige revealed: never mentioned again


def test_cas_232_dead_players_are_out() -> None:
    """CAS-232, CAS-005: an eliminated player reveals his card and may no longer act."""
    g = at_w2()
    g.deadline()
    assert g.fails("niaj", "VOTE dave", "list").reason == "dead"
    assert g.rules.summary(g.state)["players"][11]["alive"] is False


def test_cas_234_d16_grief_death_announced_separately() -> None:
    """CAS-234, CAS-335, CAS-D16 (2): a Lover killed at night: his partner dies of grief,
    announced as such."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS niaj olivia")
    g.deadline()
    g.do("dave", "KILL niaj")
    g.until("day", 1)
    assert not g.alive("olivia")
    params = dawn_params(g)
    assert params["dead"] == [{"name": "niaj", "role": "innocent"}]
    assert params["grief"] == [{"name": "olivia", "role": "innocent", "partner": "niaj"}]


def test_cas_235_722_prue_killed_by_demons_may_retaliate() -> None:
    """CAS-235, CAS-722: Prue killed by the Demons: public "Prue may retaliate before T" and a
    private prompt to her."""
    g = at_w2("bob")
    g.deadline()
    params = dawn_params(g)
    assert params["revenge"] == {
        "prue": "bob",
        "until": g.rules.deadlines(g.state)["revenge"].isoformat(),
    }
    (prompt,) = notices(g.last, "revenge_prompt")
    assert prompt.to == ("bob",) and prompt.params["after"] == "dawn"


def test_cas_325_d17_prue_burned_by_piper_does_not_retaliate() -> None:
    """CAS-325, CAS-D17: Prue eliminated by Piper only does not retaliate (``any`` does)."""
    g = at_w2("niaj")
    g.do("grace", "BURN bob")
    g.deadline()
    assert g.state.revenge is None and dawn_params(g)["revenge"] is None
    g = at_w2("niaj", prue_revenge_triggers="any")
    g.do("grace", "BURN bob")
    g.deadline()
    assert g.state.revenge is not None and g.state.revenge.prue == "bob"


def test_cas_225_resolution_order_in_the_trace() -> None:
    """CAS-225: step 10 (Piper) then step 11 (Paige's veto), recorded in the night's trace."""
    from pbem.core.events import Resolved

    g = at_w2("alice")
    g.do("grace", "BURN bob")
    g.do("heidi", "HEAL")
    g.deadline()
    (trace,) = [e for e in g.last if isinstance(e, Resolved)]
    assert [(t["cause"], t["vetoed_by"]) for t in trace.trace] == [
        ("demons", "paige"),
        ("piper", None),
    ]


def test_cas_335_either_lover_dying_kills_the_other() -> None:
    """CAS-335: whichever of the two Lovers dies first, the other dies of grief."""
    for victim, partner in (("niaj", "olivia"), ("olivia", "niaj")):
        g = Game()
        g.deadline()
        g.do("carol", "LOVERS niaj olivia")
        g.deadline()
        g.do("dave", f"KILL {victim}")
        g.until("day", 1)
        assert not g.alive(victim) and not g.alive(partner)
        assert g.state.seat(partner).cause == "grief"  # type: ignore[arg-type]
