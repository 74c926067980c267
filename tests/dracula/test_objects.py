"""Normal objects, the Night 2 distribution and the special objects (sections 12, 14, 15)."""

from __future__ import annotations

from pbem.games.dracula.events import Assigned, Moved
from pbem.games.dracula.manor import NORMAL_OBJECTS
from tests.dracula.scenario import NAMES, QUIET, Game, advance, designated_night_3


def night2() -> Game:
    """Night 2 room choice; Eve picked up the phonograph alone in the ballroom on Night 1."""
    g = Game(options=QUIET)
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir", "Eve": "ballroom"}, {"Ana": "Bob"})
    g.finish_night()
    g.close("day")
    assert g.phase == "rooms" and g.state.number == 2
    return g


def test_night2_assignment_is_a_permutation_of_the_eleven_objects() -> None:
    """DRA-200, DRA-201, DRA-202, DRA-203, DRA-250, AMB-025: 11 objects, one per human."""
    g = night2()
    assigned = g.state.assignment
    assert sorted(assigned.values()) == sorted(NORMAL_OBJECTS) and len(NORMAL_OBJECTS) == 11
    assert set(assigned) == set(g.state.humans())
    assert all(not g.state.seat(p).hand for p in NAMES if p != "Eve")  # not yet handed


def test_objects_unusable_on_night2_then_received_at_dawn() -> None:
    """DRA-204, DRA-206, AMB-026: nothing can be used on Night 2; each human is told his object."""
    g = night2()
    assert g.fails("Cid", "GARLIC") == "no_such_object"
    g.give("Cid", "garlic")  # even an object held on Night 2 waits for Night 3
    assert g.fails("Cid", "GARLIC") == "objects_from_night3"
    g.clear_hands()
    g.give("Eve", "phonograph")
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for p, obj in g.state.assignment.items():
        raise AssertionError(f"undelivered {p} {obj}")
    received = {n.to[0]: n.params["objects"] for n in g.notices("received_object")}
    assert len(received) == 11 and all(len(v) == 1 for v in received.values())
    assert all(received[p][0] in g.state.seat(p).hand for p in received)


def test_appendix_a2_undelivered_object_lies_on_the_floor() -> None:
    """Appendix A.2, DRA-205, DRA-161: P's candle falls in the ballroom, Q takes it and his stake."""
    g = night2()
    objects = dict(g.state.assignment)
    cid_old, dan_old = objects["Cid"], objects["Dan"]
    objects["Cid"], objects["Dan"] = "candle", "stake"
    for p, o in objects.items():  # keep the multiset: swap whoever held them
        if p not in ("Cid", "Dan") and o in ("candle", "stake"):
            objects[p] = cid_old if o == "candle" and cid_old not in ("candle",) else dan_old
    g._apply([Assigned(objects)])
    g.rooms({"Bob": "ballroom", "Cid": "ballroom", "Dan": "ballroom"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.mark()
    g.close("bites")
    g.finish_night()
    assert g.side("Cid") == "vampire"
    assert g.to("Dan", "received_object")[0].params["objects"] == ["stake"]
    assert g.to("Dan", "picked_up")[0].params["objects"] == ["candle"]
    assert sorted(g.state.seat("Dan").hand) == ["candle", "stake"]
    assert g.state.floor["ballroom"] == ()


def test_vampirised_human_drops_normal_objects_keeps_special() -> None:
    """DRA-253, DRA-254, DRA-256, DRA-344, DRA-255: normal objects fall, special ones stay."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "stake", "candle", "phonograph")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir", "Eve": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.close("bites")
    assert g.state.seat("Cid").hand == ("phonograph",)
    assert sorted(g.state.floor["boudoir"]) == ["candle", "paintkit", "stake"]
    g.finish_night()
    assert sorted(g.state.floor["boudoir"]) == ["candle", "paintkit", "stake"]  # two humans


def test_only_humans_use_normal_objects_once() -> None:
    """DRA-251, DRA-252, AMB-040: a use consumes the object; vampires cannot use them."""
    g = advance(Game(options=QUIET), 3)
    g.give("Bob", "garlic")
    assert g.fails("Bob", "GARLIC") == "humans_only"
    g.give("Cid", "candle")
    g.do("Cid", "CANDLE")
    assert "candle" not in g.state.seat("Cid").hand
    assert g.fails("Cid", "CANDLE") == "order_final"


def test_appendix_a4_thief_against_lone_human() -> None:
    """Appendix A.4, DRA-361, DRA-362, ORD-17, ORD-18, AMB-052."""
    for with_h2 in (True, False):
        g = advance(Game(options=QUIET), 3)
        g._apply([Moved(("manual",), "floor:dungeons", "hand:Ana", "test")])
        g._apply([Moved(("stake",), "gone", "floor:dungeons", "test")])
        rooms = {"Ana": "dungeons", "Cid": "dungeons", "Bob": "boudoir"}
        if with_h2:
            rooms["Dan"] = "dungeons"
        g.mark()
        g.night(rooms, {"Ana": "NOBODY"})
        g.finish_night()
        if with_h2:
            assert g.state.floor["dungeons"] == ()
            assert g.to("Ana", "destroyed")[0].params["objects"] == ["stake"]
            assert "stake" not in g.state.seat("Cid").hand
        else:
            assert "stake" in g.state.seat("Cid").hand
            assert not g.to("Ana", "destroyed")


def test_human_thief_picks_up_even_with_other_humans() -> None:
    """DRA-360, DRA-361, AMB-051: the report at nightfall; a human holder takes the floor."""
    g2 = Game(options=QUIET)
    g2.close("day")
    g2.night({"Ana": "boudoir", "Bob": "boudoir", "Eve": "dungeons"}, {"Ana": "Bob"})
    g2.mark()
    g2.finish_night()
    assert "manual" in g2.state.seat("Eve").hand
    g2.mark()
    g2.close("day")  # Night 2 falls: the thief's report
    report = g2.to("Eve", "thief_report")[0].params["floor"]
    assert report["ballroom"] == ["phonograph"] and report["torture"] == ["grimoire"]
    g2.night({"Eve": "ballroom", "Fay": "ballroom", "Bob": "dungeons"})
    g2.finish_night()
    assert "phonograph" in g2.state.seat("Eve").hand  # with Fay, another human


def test_candle_report_at_end_of_night_to_everyone_present() -> None:
    """DRA-290, DRA-291, DRA-292, DRA-293, AMB-045, AMB-046: all present learn who bit whom, uses, pickups."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "candle")
    g.do("Cid", "CANDLE")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.mark()
    g.close("rooms")
    assert not g.notices("candle_report")  # DRA-293: nobody knows during the night
    assert "candle" not in str(g.to("Bob", "bite_prompt")[0].params)
    g.do("Bob", "BITE Dan")
    g.close("bites")
    g.finish_night()
    reports = g.notices("candle_report")
    kinds = [line["kind"] for line in reports[0].params["lines"]]
    assert "pickup" in kinds  # the report comes after dawn (ORD-22): Cid took the paintkit
    assert sorted(reports[0].to) == ["Bob", "Cid", "Dan"]
    lines = reports[0].params["lines"]
    assert {
        "kind": "bite",
        "actor": "Bob",
        "targets": ["Dan"],
        "objects": [],
        "outcome": "vampirised",
        "text": "",
    } in lines
    assert any(line["kind"] == "candle" and line["actor"] == "Cid" for line in lines)


def test_magnifier_report_and_late_choice() -> None:
    """DRA-300, DRA-301, DRA-302, DRA-303, DRA-304, AMB-047: users learn every position, not each other's; the key user
    appears in the sanctuary; they choose after the report."""
    g = advance(Game(options=QUIET), 3)
    for p in ("Cid", "Dan"):
        g.give(p, "magnifier")
        g.do(p, "MAGNIFIER")
    g.give("Eve", "key")
    g.do("Eve", "KEY")
    assert g.fails("Cid", "ROOM boudoir") == "wait_for_report"
    g.rooms({"Fay": "ballroom", "Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    assert g.phase == "magnifier"
    report = {r["name"]: r["position"] for r in g.to("Cid", "magnifier_report")[0].params["report"]}
    assert report["Dan"] == "undetermined" and report["Eve"] == "sanctuary"
    assert report["Fay"] == "ballroom" and "Cid" not in report
    g.do("Cid", "ROOM ballroom")
    g.do("Dan", "ROOM boudoir")
    g.close("magnifier")
    assert g.state.position("Cid") == "ballroom"


def test_sanctuary_key() -> None:
    """DRA-310, DRA-311, DRA-312, DRA-313, DRA-314, DRA-016, DRA-304: the key user spends the night in the sanctuary,
    the occupants are told, and he may be staked there."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "key")
    g.do("Cid", "KEY")
    assert g.fails("Cid", "ROOM boudoir") == "key_used"
    assert g.state.position("Cid") == "sanctuary"
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")
    assert g.state.present("sanctuary") == ["Cid"]


def test_key_user_joins_designated_and_can_be_staked() -> None:
    """DRA-313, DRA-314, DRA-016: four in the sanctuary; occupants told at ORD-07."""
    g = Game(options=QUIET)
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    g.day()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for voter, target in (("Fay", "Dan"), ("Gus", "Eve"), ("Hal", "Fay")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    g.clear_hands()
    g.give("Cid", "key")
    g.give("Dan", "stake")
    g.do("Cid", "KEY")
    assert g.fails("Dan", "STAKE Cid") == "stake_target"  # not yet announced (AMB-048)
    g.rooms({"Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    joined = g.notices("key_joined")[0]
    assert sorted(joined.to) == ["Dan", "Eve", "Fay"] and joined.params["user"] == "Cid"
    assert len(g.state.present("sanctuary")) == 4
    g.do("Dan", "STAKE Cid")
    g.close("bites")
    assert g.notices("stake_scene")[0].params["scenes"][0]["outcome"] == "survives"


def test_painting() -> None:
    """DRA-390, DRA-391, DRA-392, DRA-393, DRA-165, AMB-057: one message per room, read by humans at dawn,
    every dawn of the round; player text stays data."""
    g = advance(Game(options=QUIET), 2)
    g.give("Cid", "paintkit")
    text = "{{ 7*7 }} Bob ment\nSubject: injected"
    g.do("Cid", f"PAINT {text}")
    g.rooms({"Cid": "ballroom", "Dan": "ballroom", "Ana": "ballroom", "Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    g.do("Ana", "BITE NOBODY")
    g.close("bites")
    g.finish_night()
    painting = g.notices("painting")[0]
    assert sorted(painting.to) == ["Cid", "Dan"] and painting.params["text"] == text
    assert g.state.paintings["ballroom"][1] == text
    g.day()
    g.do("Cid", "PAINT again")
    g.mark()
    g.night({"Cid": "ballroom", "Eve": "ballroom", "Bob": "dungeons"})
    g.finish_night()
    assert g.to("Cid", "paint_void")  # DRA-391, NTF-36
    assert sorted(g.notices("painting")[0].to) == ["Cid", "Eve"]  # DRA-393
    assert g.state.paintings["ballroom"][1] == text


def test_phonograph_waltz_and_reply() -> None:
    """DRA-118, DRA-145, DRA-400, DRA-401, DRA-402, DRA-403, DRA-404, DRA-405, DRA-406, AMB-058: the holder sees his room, dances, the
    partner gets an anonymous message at step 5 and may reply once; a dancing vampire bites."""
    g = advance(Game(options=QUIET), 3)
    g.give("Bob", "phonograph")
    g.rooms({"Bob": "ballroom", "Cid": "ballroom", "Dan": "ballroom"})
    g.mark()
    g.close("rooms")
    prompt = g.to("Bob", "phonograph_prompt")[0]
    assert sorted(prompt.params["others"]) == ["Cid", "Dan"]
    g.do("Bob", "DANCE Cid I am human, trust me")
    g.do("Bob", "BITE Dan")
    g.mark()
    g.close("bites")
    waltz = g.to("Cid", "waltz")[0]
    assert waltz.params["text"] == "I am human, trust me" and "Bob" not in str(waltz.params)
    assert g.side("Dan") == "vampire"  # DRA-406
    assert g.phase == "dance_reply"
    assert g.fails("Dan", "REPLY hi") == "no_waltz"
    g.do("Cid", "REPLY who are you?")
    assert not g.notices("waltz_reply")  # AMB-002: delivered at the close
    g.close("dance_reply")
    assert g.to("Bob", "waltz_reply")[0].params["text"] == "who are you?"


def test_special_objects_are_picked_up_and_killed_holders_lose_them() -> None:
    """DRA-012, DRA-164, DRA-340, DRA-342, DRA-343, DRA-346: special objects lie in their
    rooms, are picked up like normal ones and are reusable, even by a vampire."""
    g = Game(options=QUIET)
    g.close("day")
    g.night(
        {"Ana": "boudoir", "Bob": "boudoir", "Cid": "torture"}, {"Ana": "Bob"}, default="ballroom"
    )
    g.finish_night()
    assert "grimoire" in g.state.seat("Cid").hand
    g.day()
    g.rooms({"Bob": "dungeons", "Cid": "torture"}, default="ballroom")
    g.do("Cid", "CURSE Dan")
    g.close("rooms")
    g.close("bites")
    g.finish_night()
    g.day()
    g.do("Cid", "CURSE Eve")  # reusable (DRA-343)
    assert "grimoire" in g.state.seat("Cid").hand


def test_thief_vampirised_tonight_destroys_instead() -> None:
    """AMB-052, DRA-160, DRA-362: the holder's side is taken after tonight's conversions."""
    for with_h2 in (True, False):
        g = advance(Game(options=QUIET), 3)
        g._apply([Moved(("manual",), "floor:dungeons", "hand:Cid", "test")])
        g._apply([Moved(("stake",), "gone", "floor:dungeons", "test")])
        rooms = {"Bob": "dungeons", "Cid": "dungeons", "Eve": "boudoir"}
        if with_h2:
            rooms["Dan"] = "dungeons"
        g.mark()
        g.night(rooms, {"Bob": "Cid"})
        g.finish_night()
        assert g.side("Cid") == "vampire" and "manual" in g.state.seat("Cid").hand  # DRA-344
        if with_h2:  # Dan is now the only human there: he picks up first (ORD-17)
            assert "stake" in g.state.seat("Dan").hand and not g.to("Cid", "destroyed")
        else:
            assert g.to("Cid", "destroyed")[0].params["objects"] == ["stake"]


def test_phonograph_in_the_sanctuary_and_staked_dancer() -> None:
    """AMB-058 (dance_in_sanctuary), AMB-049: a holder staked the same night still dances."""
    g = advance(Game(options=QUIET), 2)
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for voter, target in (("Cid", "Bob"), ("Dan", "Cid"), ("Eve", "Dan")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    g.clear_hands()
    g.give("Bob", "phonograph")
    g.give("Cid", "stake")
    g.do("Cid", "STAKE Bob")
    g.rooms({})
    g.mark()
    g.close("rooms")
    assert sorted(g.to("Bob", "phonograph_prompt")[0].params["others"]) == ["Cid", "Dan"]
    g.do("Bob", "DANCE Dan adieu")
    g.close("bites")
    assert not g.state.seat("Bob").alive
    assert g.to("Dan", "waltz")[0].params["text"] == "adieu"


def test_room_objects_not_with_the_key_nor_in_the_sanctuary() -> None:
    """AMB-041: garlic, candle and painting act on an ordinary room."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "key", "garlic", "paintkit")
    g.do("Cid", "KEY")
    assert g.fails("Cid", "GARLIC") == "not_with_key"
    assert g.fails("Cid", "PAINT hello") == "not_with_key"
    g.give("Dan", "candle", "key")
    g.do("Dan", "CANDLE")
    assert g.fails("Dan", "KEY") in ("not_with_key", "order_final")


def test_vampire_holder_uses_special_objects() -> None:
    """AMB-050, DRA-346: special objects work for a vampire holder (here the grimoire)."""
    g = advance(Game(options=QUIET), 3)
    g.give("Bob", "grimoire")
    g.do("Bob", "CURSE Cid")
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.state.seat("Cid").cursed


def test_the_magnifier_step_offers_objects_to_the_magnifier_users_only() -> None:
    """ORD-06, DRA-302, AMB-044: after the report only the magnifier users choose again, with
    their objects; a player who chose his room and objects before is not offered his garlic
    or candle again (he would be refused « pas maintenant »)."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "magnifier", "garlic")
    g.give("Fay", "candle")
    g.do("Cid", "MAGNIFIER")
    g.rooms({"Fay": "ballroom", "Bob": "dungeons"})
    g.close("rooms")
    assert g.phase == "magnifier"
    offered = {p: g.rules.available_verbs(g.state, p) for p in ("Cid", "Fay")}
    assert "garlic" in offered["Cid"] and "room" in offered["Cid"]
    assert "candle" not in offered["Fay"]
    assert g.fails("Fay", "CANDLE") == "not_now"
    g.do("Cid", "GARLIC")
    g.do("Cid", "ROOM boudoir")


def test_amb_041_room_objects_in_the_sanctuary_option() -> None:
    """AMB-041 room_objects_in_sanctuary = true: a designated occupant may use garlic and a
    candle (never a magnifier or the key), a key user may paint: the garlic nauseates the
    sanctuary's vampire, named livid in the morning (AMB-043); the candle reports the
    sanctuary; the painting is read there at dawn (AMB-057)."""
    from pbem.core.ids import PlayerId
    from pbem.mail.render import Renderer

    g = designated_night_3({**QUIET, "room_objects_in_sanctuary": True})
    g.give("Cid", "garlic", "magnifier")
    g.give("Dan", "candle")
    g.give("Eve", "key", "paintkit")
    assert {"garlic"} <= g.rules.available_verbs(g.state, PlayerId("Cid"))
    assert "magnifier" not in g.rules.available_verbs(g.state, PlayerId("Cid"))
    assert g.fails("Cid", "MAGNIFIER") == "in_sanctuary"
    g.do("Cid", "GARLIC")
    g.do("Dan", "CANDLE")
    g.do("Eve", "KEY")
    assert "paint" in g.rules.available_verbs(g.state, PlayerId("Eve"))
    g.do("Eve", "PAINT Bob est un vampire")
    g.rooms({})
    g.mark()
    g.close("rooms")
    assert g.to("Bob", "bite_prompt")[0].params["status"] == "nausea"
    g.close("bites")
    g.finish_night()
    assert g.public("morning")[0].params["livid"] == ["Bob"]
    (report,) = g.notices("candle_report")
    assert report.params["room"] == "sanctuary"
    assert sorted(report.to) == ["Bob", "Cid", "Dan", "Eve"]
    kinds = {line["kind"] for line in report.params["lines"]}
    assert {"garlic", "nausea", "candle", "paint"} <= kinds
    (painting,) = g.notices("painting")
    assert sorted(painting.to) == ["Cid", "Dan", "Eve"] and painting.params["room"] == "sanctuary"
    params = {"game": "Dracula", **painting.params}
    assert "Sur les murs du sanctuaire" in Renderer().text("dracula/painting", "fr", params)
    assert "sanctuary" in Renderer().text("dracula/painting", "en", params)
