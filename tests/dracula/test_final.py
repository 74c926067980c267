"""The end of a round: all humans bitten (section 18), the final phase (section 19), scores."""

from __future__ import annotations

from pbem.core.events import PlayerDied
from pbem.core.ids import PlayerId
from pbem.games.dracula.events import Converted
from tests.dracula.scenario import NAMES, QUIET, Game, advance


def final(humans: tuple[str, ...] = ("Cid", "Dan", "Eve"), rounds: int = 1) -> Game:
    """The final phase with exactly ``humans`` left; Ana is Dracula, credited with Bob."""
    g = advance(Game(options={**QUIET, "rounds": rounds}), 5)
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.phase == "final_choice"
    for p in NAMES:
        if p not in humans and g.side(p) == "human":
            g.convert(p)
    return g


def test_final_phase_opens_after_night5_revealing_sides_not_dracula() -> None:
    """DRA-460, DRA-461, DRA-462, DRA-463, NTF-41."""
    g = final()
    start = g.public("final_start")[0]
    assert "Ana" in start.params["vampires"] and "dracula" not in str(start.params).lower()
    assert len(start.params["humans"]) == 11


def test_appendix_a6_final_phase_dracula_burned_by_one() -> None:
    """Appendix A.6, DRA-464, DRA-465, DRA-466, DRA-467, DRA-468, DRA-469, DRA-470, DRA-471, DRA-472, DRA-466: H3 flees (1), H1 burns D with 2 flames (5),
    H2 fights (2), all vampires die. DRA-004: finding Dracula is what pays a human most."""
    g = final()
    g.do("Eve", "FLEE Cid", "list")
    assert g.fails("Eve", "FIGHT", "list") == "choice_final"  # DRA-465
    g.do("Cid", "FIGHT", "list")
    g.do("Dan", "FIGHT", "list")
    assert g.fails("Fay", "FIGHT", "list") == "humans_only"
    assert g.fails("Cid", "FIGHT") == "final_on_list"  # DRA-464: public
    g.mark()
    g.close("final_choice")
    recap = g.public("final_recap")[0]  # DRA-469
    assert recap.params["fighters"] == [{"name": "Cid", "flames": 2}, {"name": "Dan", "flames": 1}]
    assert recap.params["fled"] == ["Eve"]
    assert g.fails("Dan", "FLAME Ana Fay") == "too_many_flames"
    assert g.fails("Dan", "FLAME Eve") == "flame_target"
    g.do("Cid", "FLAME Ana Fay")  # DRA-470: privately
    g.do("Dan", "FLAME Fay")
    g.close("flames")
    points = g.public("round_end")[0].params["points"]
    assert points["Cid"] == 5 and points["Dan"] == 2 and points["Eve"] == 1
    assert all(points[v] == 0 for v in NAMES if v not in ("Cid", "Dan", "Eve"))
    assert not any(g.state.seat(v).alive for v in NAMES if g.side(v) == "vampire")


def test_appendix_a6_two_killers_share() -> None:
    """Appendix A.6 variant, DRA-473: two fighters designated Dracula: 2 each."""
    g = final()
    g.do("Eve", "FLEE Cid", "list")
    g.do("Cid", "FIGHT", "list")
    g.do("Dan", "FIGHT", "list")
    g.close("final_choice")
    g.do("Cid", "FLAME Ana Fay")
    g.do("Dan", "FLAME Ana")
    g.mark()
    g.close("flames")
    points = g.public("round_end")[0].params["points"]
    assert (points["Cid"], points["Dan"], points["Eve"]) == (2, 2, 1)


def test_appendix_a6_dracula_survives() -> None:
    """Appendix A.6 variant, DRA-474, DRA-475, AMB-067: the fighters die; each surviving
    vampire earns max(1, credits); the burned V earns nothing."""
    g = final()
    g.do("Eve", "FLEE Cid", "list")
    g.do("Cid", "FIGHT", "list")
    g.do("Dan", "FIGHT", "list")
    g.close("final_choice")
    g.do("Cid", "FLAME Fay Fay")  # two flames on one vampire (AMB-065)
    g.do("Dan", "FLAME Fay")
    g.mark()
    g.close("flames")
    points = g.public("round_end")[0].params["points"]
    assert points["Cid"] == points["Dan"] == 0 and points["Eve"] == 1
    assert not g.state.seat("Cid").alive and not g.state.seat("Dan").alive
    assert points["Ana"] == 1  # credited with Bob
    assert points["Bob"] == 1  # bonus point (DRA-474)
    assert points["Fay"] == 0  # burned (AMB-067)
    result = g.public("final_result")[0]
    assert result.params["burned"] == ["Fay"] and not result.params["dracula_burned"]


def test_nobody_fights_and_default_flee() -> None:
    """AMB-064, AMB-066: silent humans flee (1 point), Dracula survives, no flame step."""
    g = final()
    g.mark()
    g.close("final_choice")
    points = g.public("round_end")[0].params["points"]
    assert (points["Cid"], points["Dan"], points["Eve"]) == (1, 1, 1)
    assert g.rules.outcome(g.state) is not None


def test_flame_chain_and_cycle() -> None:
    """AMB-063: flames follow flee designations to a fighter; a cycle loses them."""
    g = final(("Cid", "Dan", "Eve", "Fay"))
    g.do("Cid", "FLEE Dan", "list")
    g.do("Dan", "FLEE Eve", "list")
    g.do("Eve", "FIGHT", "list")
    g.do("Fay", "FIGHT", "list")
    g.close("final_choice")
    assert g.state.flames == {"Eve": 3, "Fay": 1}
    g2 = final(("Cid", "Dan", "Eve"))
    g2.do("Cid", "FLEE Dan", "list")
    g2.do("Dan", "FLEE Cid", "list")
    g2.do("Eve", "FIGHT", "list")
    g2.close("final_choice")
    assert g2.state.flames == {"Eve": 1}


def test_fled_humans_leave_the_discussion() -> None:
    """DRA-476, DRA-477: the final phase is public talk, but not for fled humans or the dead."""
    g = final()
    assert g.rules.on_post(g.state, "Fay", ["I am not Dracula"], g.now) == []
    g.do("Eve", "FLEE Cid", "list")
    from pbem.core.errors import IllegalNow

    try:
        g.rules.on_post(g.state, "Eve", ["wait"], g.now)
    except IllegalNow as exc:
        assert exc.reason == "out_of_play"
    else:
        raise AssertionError("a fled human posted")


def test_all_humans_bitten_ends_the_round() -> None:
    """DRA-002, DRA-025, DRA-440, DRA-441, DRA-442, DRA-443, DRA-444, AMB-068, AMB-077: the night ends, the morning is
    posted, then the round ends; 1 point per human, none for a dead vampire or no victim."""
    g = advance(Game(options={**QUIET, "rounds": 2}), 3)
    g._apply([Converted("Hal", ("Gus",)), Converted("Gus", ()), PlayerDied("Gus", "stake")])
    for p in NAMES:
        if p not in ("Cid",) and g.side(p) == "human":
            g.convert(p)
    g.mark()
    g.night({"Bob": "boudoir", "Cid": "boudoir"}, {"Bob": "Cid"}, default="torture")
    g.finish_night()
    assert g.public("morning")  # AMB-077
    end = g.public("round_end")[0]
    assert end.params["ending"] == "all_bitten"
    points = end.params["points"]
    assert points["Bob"] == 1 and points["Ana"] == 1  # Ana bit Bob on Night 1
    assert points["Gus"] == 0  # dead (DRA-443)
    assert points["Cid"] == 0 and points["Dan"] == 0  # no victim, no bonus (DRA-444)
    assert g.state.round == 2 and g.phase == "day"  # DRA-490
    assert g.state.scores["Bob"] == 1  # cumulative


def test_scores_accumulate_over_rounds() -> None:
    """DRA-006, DRA-009, DRA-490, AMB-075: everything but the scores is reset."""
    g = final(rounds=2)
    g.close("final_choice")
    assert g.state.round == 2
    assert g.state.scores["Cid"] == 1
    assert all(g.state.seat(p).alive and not g.state.seat(p).cursed for p in NAMES)
    assert sum(1 for p in NAMES if g.side(p) == "vampire") == 1
    assert g.state.floor["ballroom"] == ("phonograph",)


def test_bold_final_choice() -> None:
    """AMB-081, DRA-464: **fuir Dan** / **combattre** in bold are the final choices."""
    g = final()
    flee = g.rules.bold_command(g.state, "Cid", ["fuir Dan"])
    fight = g.rules.bold_command(g.state, "Dan", ["FIGHT"])
    assert flee is not None and flee.verb == "flee" and flee.targets == ("Dan",)
    assert fight is not None and fight.verb == "fight"


def test_amb_063_a_flee_towards_a_vampire_is_told_its_flame_goes_to_chance() -> None:
    """AMB-063: « FUIR Chloé » towards a vampire is accepted as a flee whose flame goes to a
    random fighter, and the reply says so beside the refused name; the final phase's buttons
    propose only real choices: a flee towards another living human, never a bare FUIR nor a
    vampire."""
    from datetime import timedelta

    from pbem.core.commands import Command
    from pbem.core.errors import PartlyRefused
    from pbem.games.dracula.events import FinalChoice
    from pbem.mail.quickactions import quick_actions

    g = final()
    try:
        g.do("Eve", "FLEE Ana", "list")
    except PartlyRefused as exc:
        assert exc.reason == "flee_recipient" and exc.refused == ("Ana",)
        assert list(exc.events) == [FinalChoice(PlayerId("Eve"), "flee", None)]
    else:
        raise AssertionError("a flee towards a vampire was taken as a flee towards him")
    assert not g.rules.offers(g.state, Command("flee"))
    assert not g.rules.offers(g.state, Command("flee", (PlayerId("Ana"),)))
    assert g.rules.offers(g.state, Command("flee", (PlayerId("Cid"),)))
    actions = quick_actions(
        g.rules,
        g.state,
        "FUIR nom ou COMBATTRE",
        readers=list(g.state.order),
        lang="fr",
        now=g.now + timedelta(seconds=1),
        subject="[g] Manche 1 : la phase finale",
        private_address="mj@example.org",
        list_address="liste@example.org",
        public=True,
    )
    flees = sorted(a.command for a in actions if a.command.startswith("FUIR"))
    assert flees == ["FUIR Cid", "FUIR Dan", "FUIR Eve"]
    assert any(a.command == "COMBATTRE" for a in actions)


def test_amb_063_a_flee_towards_a_vampire_is_accepted_with_its_reason_beside_it() -> None:
    """AMB-063: « **FUIR Ana** » towards a vampire is an accepted flee: the receipt shows
    « ✓ FUIR » with why its flame goes to chance beside it, and nothing under « Refusées
    (rien n'a été changé) »: an accepted order's parts are never shown as refused (in French
    and in English)."""
    from tests.dracula.scenario import mail, table_from

    g = final()
    for lang, line, taken, why, refused in (
        ("fr", "**FUIR Ana**", "✓ FUIR (définitif)", "Ana n'est pas un autre humain", "Refusées"),
        ("en", "**FLEE Ana**", "✓ FLEE (final)", "Ana is not another human", "Rejected"),
    ):
        step = table_from(g, lang=lang).receive(mail("Eve", line), channel="list", now=g.now)
        (reply,) = [m for m in step.outgoing if "/reply/" in m.key]
        assert f"{taken}\n    {why}" in reply.body, reply.body
        assert refused not in reply.body and "✗" not in reply.body, reply.body
