"""Night 4 partners (section 13) and telepathy (section 16)."""

from __future__ import annotations

from tests.dracula.scenario import QUIET, Game, advance


def pairing(**options: object) -> Game:
    """The Day 4 pairing window, with Dan, Eve, Fay designated for Night 4."""
    g = advance(Game(options={**QUIET, **options}), 3)
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for voter, target in (("Ana", "Dan"), ("Bob", "Eve"), ("Cid", "Fay")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    assert g.phase == "pairing"
    return g


def test_pairing_posts_are_public_and_final() -> None:
    """DRA-222, DRA-223, DRA-224, AMB-030: the first to post chooses; the named cannot."""
    g = pairing()
    assert g.fails("Cid", "PARTNER Gus") == "partner_on_list"
    g.do("Cid", "PARTNER Gus", "list")
    assert g.fails("Gus", "PARTNER Hal", "list") == "already_paired"  # DRA-224
    assert g.fails("Cid", "PARTNER Hal", "list") == "already_paired"  # DRA-223
    assert g.fails("Hal", "PARTNER Dan", "list") == "partner_unavailable"  # designated
    assert g.fails("Dan", "PARTNER Hal", "list") == "in_sanctuary"
    cmd = g.rules.bold_command(g.state, "Hal", ["Ivy"])
    assert cmd is not None and cmd.verb == "partner"


def test_random_pairs_and_odd_player_alone() -> None:
    """DRA-220, DRA-225, DRA-231, NTF-09: 10 players out of the sanctuary: 5 pairs; with 9, one
    stays alone and chooses his room as usual."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.mark()
    g.close("pairing")
    pairs = g.public("pairs")[0]
    assert len(pairs.params["pairs"]) == 5 and pairs.params["alone"] == []
    assert {"naming": "Cid", "named": "Gus"} in pairs.params["pairs"]
    # with one designated player fewer, one is alone
    g2 = advance(Game(options=QUIET), 3)
    g2.night({"Bob": "dungeons"})
    g2.finish_night()
    g2.do("Ana", "VOTE Dan", "list")
    g2.do("Bob", "VOTE Eve", "list")
    g2.close("day")
    g2.mark()
    g2.close("pairing")
    alone = g2.public("pairs")[0].params["alone"]
    assert len(alone) == 1
    from pbem.games.dracula.night import must_choose_room

    assert must_choose_room(g2.state, alone[0])  # DRA-231


def test_named_partner_chooses_and_naming_partner_is_told() -> None:
    """DRA-226, DRA-227, DRA-228, DRA-229, AMB-002: same room; told at ORD-07."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    assert g.fails("Cid", "ROOM boudoir") == "partner_chooses"
    g.clear_hands()
    g.give("Cid", "candle")
    g.do("Cid", "CANDLE")  # DRA-229: objects used with the room choice
    g.do("Gus", "ROOM ballroom")
    assert not g.notices("partner_room")
    g.rooms({"Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    assert g.to("Cid", "partner_room")[0].params == {"partner": "Gus", "room": "ballroom"}
    assert g.state.position("Cid") == g.state.position("Gus") == "ballroom"
    assert "ballroom" in g.state.room_of_use("candle")


def test_key_escapes_a_partner() -> None:
    """DRA-230, AMB-031: the named partner with the key still names the room for the other."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.clear_hands()
    g.give("Gus", "key")
    g.do("Gus", "KEY")
    g.do("Gus", "ROOM boudoir")
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")
    assert g.state.position("Gus") == "sanctuary"
    assert g.state.position("Cid") == "boudoir"


def test_key_escape_naming_partner_chooses() -> None:
    """AMB-031 key_escape_room = naming_partner_chooses: the named partner escaping with the
    key names nothing; the naming partner is asked at ORD-06 and goes where he chooses."""
    g = pairing(key_escape_room="naming_partner_chooses")
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.clear_hands()
    g.give("Gus", "key")
    g.do("Gus", "KEY")
    assert g.fails("Gus", "ROOM boudoir") == "key_used"
    assert g.fails("Cid", "ROOM ballroom") == "partner_chooses"  # not before ORD-06
    g.rooms({"Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    assert g.phase == "magnifier"
    assert g.to("Cid", "partner_key")[0].params["partner"] == "Gus"
    assert g.rules.awaiting(g.state) == {"Cid"}
    assert "room" in {c.verb for c in g.rules.available(g.state, "Cid")}
    g.do("Cid", "ROOM ballroom")
    g.close("magnifier")
    assert g.phase == "bites"
    assert g.state.position("Gus") == "sanctuary"
    assert g.state.position("Cid") == "ballroom"
    assert not g.to("Cid", "partner_room")


def test_key_escape_naming_partner_chooses_key_after_room() -> None:
    """AMB-031 naming_partner_chooses: a room chooser who named a room keeps it (no key)."""
    g = pairing(key_escape_room="naming_partner_chooses")
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.clear_hands()
    g.give("Gus", "key")
    g.do("Gus", "ROOM boudoir")
    assert g.fails("Gus", "KEY") == "room_already_chosen"


def test_key_escape_naming_partner_silent_gets_a_random_room() -> None:
    """AMB-031 naming_partner_chooses, AMB-003: a silent naming partner gets a random room."""
    g = pairing(key_escape_room="naming_partner_chooses")
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.clear_hands()
    g.give("Gus", "key")
    g.do("Gus", "KEY")
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")
    g.close("magnifier")
    assert g.state.order_of("Cid", "room").default  # type: ignore[union-attr]
    assert g.state.position("Cid") in ("boudoir", "ballroom", "dungeons", "torture")


def test_night4_positions_show_pairs_in_the_morning() -> None:
    """AMB-079: the Night 4 morning positions show the pairs."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert {"naming": "Cid", "named": "Gus"} in g.public("morning")[0].params["pairs"]


def test_telepathy_by_day_reaches_the_vampires_at_once() -> None:
    """DRA-420, DRA-421, DRA-422, DRA-424, DRA-431, AMB-071, NTF-04: once a round, anonymous."""
    g2 = Game(options=QUIET)
    g2.close("day")
    g2.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g2.finish_night()
    assert g2.fails("Bob", "TELEPATHY hi") == "not_dracula"
    g2.mark()
    g2.do("Ana", "TELEPATHY Bite the tall ones")
    sent = g2.notices("telepathy")
    assert len(sent) == 1 and sent[0].to == ("Bob",) and "Ana" not in str(sent[0].params)
    assert g2.fails("Ana", "TELEPATHY again") == "telepathy_used"


def test_telepathy_with_no_vampire_is_refused_and_not_used() -> None:
    """AMB-071: Day 1, nobody to receive: refused, the power is kept."""
    g = Game()
    assert g.fails("Ana", "TELEPATHY hello") == "telepathy_nobody"
    assert not g.state.telepathy_used


def test_telepathy_at_night_waits_for_the_morning() -> None:
    """DRA-425, DRA-187, NTF-39, AMB-071: delivered in the morning, to the new vampires too."""
    g = Game(options=QUIET)
    g.close("day")
    g.rooms({"Ana": "boudoir", "Bob": "boudoir"})
    g.close("rooms")
    g.do("Ana", "TELEPATHY Welcome, child")
    g.do("Ana", "ROOM boudoir")
    g.mark()
    g.close("dracula_room")
    assert not g.notices("telepathy")
    g.do("Ana", "BITE Bob")
    g.close("bites")
    g.finish_night()
    sent = g.notices("telepathy")
    assert len(sent) == 1 and sent[0].to == ("Bob",)
    assert sent[0].params["text"] == "Welcome, child"


def test_telepathy_held_for_the_administrator() -> None:
    """DRA-423, AMB-072: with an administrator, the text waits for approval; a refusal does
    not use up the power; an approval delivers it."""
    from tests.dracula.scenario import mail, table_from

    g = Game(options={**QUIET, "telepathy_review": "admin"})
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    table = table_from(g, admins=["admin@example.org"])
    step = table.receive(
        mail("Ana", "TELEPATHIE écrivez 42 partout", to="mj@example.org"),
        channel="private",
        now=g.now,
    )
    table.apply(step)
    review = [m for m in step.outgoing if m.to == ("admin@example.org",)]
    assert review and "42" in review[0].body
    assert not [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert not table.state.telepathy_used
    refuse = mail("Admin", "REFUSER un code de reconnaissance", to="mj@example.org")
    step = table.receive(refuse, channel="private", now=g.now)
    table.apply(step)
    told = [m for m in step.outgoing if m.to == ("ana@example.org",)]
    assert told and "code de reconnaissance" in told[-1].body
    assert not table.state.telepathy_used and table.state.telepathy_pending is None
    step = table.receive(
        mail("Ana", "TELEPATHIE mordez", to="mj@example.org"), channel="private", now=g.now
    )
    table.apply(step)
    step = table.receive(
        mail("Admin", "APPROUVER", to="mj@example.org"), channel="private", now=g.now
    )
    table.apply(step)
    assert [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert table.state.telepathy_used


def test_night4_magnifier_and_partners() -> None:
    """AMB-032, AMB-047, DRA-229: a naming partner may use a magnifier for information only;
    a named partner using one makes both partners undetermined to other users."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.do("Hal", "PARTNER Ivy", "list")
    g.close("pairing")
    g.clear_hands()
    for p in ("Cid", "Ivy"):
        g.give(p, "magnifier")
        g.do(p, "MAGNIFIER")
    g.rooms({"Bob": "dungeons", "Gus": "boudoir"})
    g.close("rooms")
    cid = {r["name"]: r["position"] for r in g.to("Cid", "magnifier_report")[0].params["report"]}
    assert cid["Ivy"] == "undetermined" and cid["Hal"] == "undetermined"
    assert cid["Gus"] == "boudoir"
    assert g.fails("Cid", "ROOM ballroom") == "partner_chooses"
    g.do("Ivy", "ROOM torture")
    g.close("magnifier")
    assert g.state.position("Cid") == "boudoir" and g.state.position("Hal") == "torture"


def test_cursed_named_partner_must_use_his_declared_room() -> None:
    """AMB-034: a cursed named partner chooses his declared room for the pair."""
    g = pairing()
    from pbem.games.dracula.events import Cursed, Declared

    g._apply([Cursed("Gus"), Declared("Gus", "ballroom")])
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    assert g.fails("Gus", "ROOM boudoir") == "declared_room"
    g.do("Gus", "ROOM ballroom")
    assert g.state.position("Cid") == "ballroom"


def test_naming_partner_paints_where_he_ends_up() -> None:
    """AMB-033, AMB-044, AMB-057: the painting goes to the room the named partner chose."""
    g = pairing()
    g.do("Cid", "PARTNER Gus", "list")
    g.close("pairing")
    g.clear_hands()
    g.give("Cid", "paintkit")
    g.do("Cid", "PAINT la bête est parmi nous")
    g.do("Gus", "ROOM ballroom")
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")
    assert g.state.paintings["ballroom"][0] == "Cid"


def test_cursed_obligation_does_not_apply_to_the_pairing_window() -> None:
    """AMB-035: after the Day 4 dusk the cursed declaration is over for the day."""
    g = pairing()
    from pbem.games.dracula.events import Cursed

    g._apply([Cursed("Cid")])
    assert g.rules.on_post(g.state, "Cid", ["On se met ensemble ?"], g.now) == []
