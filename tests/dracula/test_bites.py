"""Bites, conversions, crucifix, garlic and stakes (sections 8, 9, 14.2, 14.3, 14.7)."""

from __future__ import annotations

from pbem.core.events import Resolved
from tests.dracula.scenario import QUIET, Game, advance


def night3() -> Game:
    """Night 3 room choice; Ana is Dracula, Bob a vampire since Night 1; hands empty."""
    return advance(Game(options=QUIET), 3)


def vetoes(g: Game) -> list[str | None]:
    trace = [e for e in g.log if isinstance(e, Resolved)][-1].trace
    return [t["vetoed_by"] for t in trace if t["kind"] == "bite"]


def test_obligations_and_abstention() -> None:
    """DRA-112, DRA-113, DRA-114, AMB-061: a normal vampire must bite, Dracula may abstain."""
    g = night3()
    g.rooms({"Ana": "boudoir", "Bob": "boudoir", "Cid": "boudoir"})
    g.close("rooms")
    prompts = {n.to[0]: n.params["status"] for n in g.notices("bite_prompt")}
    assert prompts == {"Ana": "may", "Bob": "must"}
    assert g.fails("Bob", "BITE NOBODY") == "must_bite"
    g.do("Ana", "BITE NOBODY")
    assert g.fails("Ana", "BITE Cid") == "order_final"  # AMB-007: the abstention is final
    g.do("Bob", "BITE Cid")
    assert g.fails("Bob", "BITE Ana") == "order_final"  # one bite per night (DRA-114)
    g.close("bites")
    assert g.side("Cid") == "vampire"


def test_missed_obligatory_bite_is_drawn_and_reported_at_end_of_night() -> None:
    """AMB-003, NTF-37: an obliged vampire who sends nothing bites at random, told at ORD-23."""
    g = night3()
    g.rooms({"Bob": "boudoir", "Cid": "boudoir"})
    g.close("rooms")
    g.mark()
    g.close("bites")
    g.finish_night()
    assert g.side("Cid") == "vampire"
    assert g.to("Bob", "defaults")[0].params["defaults"][0]["verb"] == "bite"


def test_alone_and_sanctuary_vampires_cannot_bite() -> None:
    """DRA-112, DRA-014, DRA-013, AMB-061: alone or in the sanctuary, no bite is asked."""
    g2 = Game(options=QUIET)
    g2.close("day")
    g2.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g2.finish_night()
    for voter in ("Cid", "Dan"):
        g2.do(voter, "VOTE Bob", "list")
    g2.do("Eve", "VOTE Cid", "list")
    g2.do("Fay", "VOTE Dan", "list")
    g2.close("day")
    assert set(g2.state.designated) == {"Bob", "Cid", "Dan"}
    g2.rooms({"Ana": "ballroom"})
    g2.mark()
    g2.close("rooms")
    prompts = {n.to[0]: n.params["status"] for n in g2.notices("bite_prompt")}
    assert prompts == {"Ana": "alone", "Bob": "sanctuary"}
    assert g2.fails("Bob", "BITE Cid") == "cannot_bite_sanctuary"  # DRA-014
    assert g2.fails("Ana", "BITE Cid") == "cannot_bite_alone"


def test_vampire_biting_vampire_wastes_the_bite() -> None:
    """DRA-115, DRA-116, DRA-143, AMB-060: nothing happens; both are told, not who."""
    g = night3()
    g.convert("Cid")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.do("Cid", "BITE Dan")
    g.mark()
    g.close("bites")
    assert g.to("Bob", "bit_vampire")[0].params["target"] == "Cid"
    assert g.to("Cid", "bitten_too")[0].params["count"] == 1
    assert "Bob" not in str(g.to("Cid", "bitten_too")[0].params)
    assert "Cid" not in g.state.seat("Bob").credits
    assert g.side("Dan") == "vampire"
    assert vetoes(g) == ["vampire", None]


def test_appendix_a5_several_biters_all_credited() -> None:
    """Appendix A.5, DRA-144, DRA-442: two vampires bite H: one conversion, both credited."""
    g = night3()
    g.convert("Cid")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Dan")
    g.do("Cid", "BITE Dan")
    g.mark()
    g.close("bites")
    assert g.to("Dan", "converted")[0].params["count"] == 2  # DRA-141
    assert "Dan" in g.state.seat("Bob").credits and "Dan" in g.state.seat("Cid").credits


def test_young_vampire_cannot_bite_the_same_night() -> None:
    """DRA-142: a player vampirised tonight is told at ORD-14, after the bite step: he can
    only bite from the next night, where he is an ordinary obliged vampire."""
    g = night3()
    g.rooms({"Bob": "boudoir", "Cid": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.close("bites")
    assert g.side("Cid") == "vampire"
    assert not g.rules.available(g.state, "Cid") or all(
        c.verb != "bite" for c in g.rules.available(g.state, "Cid")
    )
    g.finish_night()
    g.day()
    g.rooms({"Cid": "ballroom", "Dan": "ballroom", "Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    assert g.to("Cid", "bite_prompt")[0].params["status"] == "must"


def test_appendix_a3_crucifix() -> None:
    """Appendix A.3, DRA-270, DRA-271, DRA-272, DRA-273, DRA-274, DRA-117, AMB-042, AMB-062: two bites countered, 2 counted,
    the crucifix used up, nobody credited."""
    g = night3()
    g.convert("Cid")
    g.give("Dan", "crucifix")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Dan")
    g.do("Cid", "BITE Dan")
    g.mark()
    g.close("bites")
    assert g.side("Dan") == "human"
    assert len(g.to("Bob", "crucifix_biter")) == 1 and len(g.to("Cid", "crucifix_biter")) == 1
    assert g.to("Dan", "crucifix_holder")[0].params["count"] == 2
    assert "crucifix" not in g.state.seat("Dan").hand
    assert "Dan" not in g.state.seat("Bob").credits + g.state.seat("Cid").credits
    assert vetoes(g) == ["crucifix", "crucifix"]


def test_crucifix_not_used_without_a_bite() -> None:
    """AMB-042, DRA-270: no bite, no use."""
    g = night3()
    g.give("Dan", "crucifix")
    g.night({"Dan": "ballroom", "Bob": "dungeons"})
    g.finish_night()
    assert "crucifix" in g.state.seat("Dan").hand


def test_garlic_nausea_and_livid_complexion() -> None:
    """DRA-280, DRA-281, DRA-282, DRA-283, DRA-185, AMB-043: vampires in the garlic room cannot bite, are
    told of their nausea, and are named in the morning; the garlic user is not named."""
    g = night3()
    g.give("Cid", "garlic")
    g.do("Cid", "GARLIC")
    assert "garlic" not in g.state.seat("Cid").hand  # DRA-251: used up
    g.rooms({"Cid": "boudoir", "Bob": "boudoir", "Ana": "boudoir", "Dan": "boudoir"})
    g.mark()
    g.close("rooms")
    prompts = {n.to[0]: n.params for n in g.notices("bite_prompt")}
    assert prompts["Bob"]["status"] == "nausea" and prompts["Ana"]["status"] == "nausea"
    assert sorted(prompts["Bob"]["others"]) == ["Ana", "Cid", "Dan"]
    assert g.fails("Bob", "BITE Dan") == "cannot_bite_nausea"
    g.close("bites")
    g.finish_night()
    m = g.public("morning")[0]
    assert m.params["livid"] == ["Ana", "Bob"]
    assert "Cid" not in str(m.params["livid"])
    assert g.side("Dan") == "human"


def test_stake_kills_a_normal_vampire_and_identifies_dracula() -> None:
    """DRA-015, DRA-146, DRA-320, DRA-321, DRA-322, DRA-323, DRA-324, DRA-325, DRA-326, DRA-327, DRA-184, DRA-186, DRA-345, AMB-048, AMB-059:
    the scene is reported with the step-5 notices (ORD-14), not before the bite step closes."""
    g = Game(options=QUIET)
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    g.day()
    g.night({"Bob": "dungeons"})
    g.finish_night()  # stakes are normal objects: usable from Night 3 (DRA-206)
    g.clear_hands()
    g.give("Bob", "phonograph")
    for voter, target in (("Cid", "Bob"), ("Dan", "Ana"), ("Eve", "Cid")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    assert set(g.state.designated) == {"Ana", "Bob", "Cid"}
    g.give("Cid", "stake", "stake")
    assert g.fails("Cid", "STAKE Dan") == "stake_target"  # DRA-321
    assert g.fails("Dan", "STAKE Ana") in ("no_such_object", "stake_in_sanctuary")
    g.do("Cid", "STAKE Bob")
    g.rooms({"Dan": "boudoir"})
    g.mark()
    g.close("rooms")
    assert not g.notices("stake_scene", since_mark=False)  # DRA-146: not on receipt
    assert g.to("Cid", "optional_prompt")[0].params["what"] == "stake"  # NTF-18
    g.mark()
    g.close("bites")
    scenes = g.notices("stake_scene")[0]
    assert set(scenes.to) == {"Ana", "Bob", "Cid"}  # DRA-322: every occupant
    assert scenes.params["scenes"] == [{"user": "Cid", "target": "Bob", "outcome": "dies"}]
    assert g.to("Bob", "staked_dead")  # DRA-326
    assert not g.state.seat("Bob").alive
    g.finish_night()
    m = g.public("morning")[0]
    assert m.params["killed"] == [{"name": "Bob", "objects": ["phonograph"]}]  # DRA-184/186
    assert "Cid" not in str(m.params["killed"])  # the stake user stays secret (AMB-048)
    assert g.state.holder("phonograph") is None  # DRA-345: out of play
    assert g.fails("Bob", "VOTE Cid", "list") == "dead"  # DRA-326


def test_stake_on_dracula_and_on_a_human() -> None:
    """DRA-323, DRA-325: Dracula survives but is identified; a human survives."""
    g = Game(options=QUIET)
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    g.day()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    g.clear_hands()
    for voter, target in (("Cid", "Ana"), ("Dan", "Cid"), ("Eve", "Dan")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    g.give("Cid", "stake")
    g.give("Dan", "stake")
    g.do("Cid", "STAKE Ana")
    g.do("Dan", "STAKE Cid")
    g.rooms({})
    g.close("rooms")
    g.mark()
    g.close("bites")
    outcomes = {s["target"]: s["outcome"] for s in g.notices("stake_scene")[0].params["scenes"]}
    assert outcomes == {"Ana": "dracula", "Cid": "survives"}
    assert g.state.seat("Ana").alive and g.state.seat("Cid").alive
    g.finish_night()
    assert "dracula" not in str(g.public("morning")[0].params)  # not made public


def test_humans_in_sanctuary_cannot_be_bitten() -> None:
    """DRA-013, DRA-112: a vampire cannot target a sanctuary occupant from a room."""
    g = night3()
    g.rooms({"Bob": "boudoir", "Cid": "boudoir"})
    g.close("rooms")
    assert g.fails("Bob", "BITE Dan") == "not_in_your_room"
