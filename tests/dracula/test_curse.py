"""The shaman's grimoire, curses and the cursed player's obligations on the list (15.3)."""

from __future__ import annotations

from pbem.core.errors import PartlyRefused
from pbem.core.ids import PlayerId
from pbem.games.dracula.orders import said_curse
from tests.dracula.scenario import QUIET, Game, advance, mail, table_from


def cursed_game() -> Game:
    """Cid holds the grimoire on Night 2 and curses Dan and himself; now Day 3."""
    g = advance(Game(options=QUIET), 2)
    g.give("Cid", "grimoire")
    g.do("Cid", "CURSE Dan Cid")
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.phase == "day" and g.state.number == 3
    return g


def test_curse_notices_and_morning_count() -> None:
    """DRA-370, DRA-371, DRA-372, DRA-373, DRA-182, AMB-054, AMB-055, NTF-45."""
    g = cursed_game()
    assert sorted(p for n in g.notices("cursed") for p in n.to) == ["Cid", "Dan"]
    assert g.public("morning")[0].params["cursed"] == 2
    assert sorted(p for n in g.notices("curse_reminder") for p in n.to) == ["Cid", "Dan"]
    assert g.state.seat("Dan").cursed and g.state.seat("Cid").cursed  # self-curse (DRA-372)


def test_at_most_two_distinct_curse_targets_a_night_in_total() -> None:
    """DRA-371, AMB-053: two distinct targets a night IN TOTAL, over any number of orders; only
    the extra names are rejected. (Decision: AMB-053 is the spec's reading of DRA-371 « au plus
    deux joueurs par nuit »: it limits the targets, not the orders, so a second MAUDIRE the
    same night is taken while it stays within two, and a third name is refused alone.)"""
    g = advance(Game(options=QUIET), 2)
    g.give("Cid", "grimoire")
    try:
        g.do("Cid", "CURSE Dan Eve Fay")
    except PartlyRefused as exc:
        assert (exc.reason, exc.kept, exc.refused) == ("curse_extra", ("Dan", "Eve"), ("Fay",))
        g._apply(list(exc.events))
    else:
        raise AssertionError("a third name must be refused")
    assert g.fails("Cid", "CURSE Fay") == "curses_spent"
    assert g.fails("Eve", "CURSE Dan") == "no_such_object"
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.state.seat("Dan").cursed and g.state.seat("Eve").cursed
    assert not g.state.seat("Fay").cursed


def test_a_second_curse_order_the_same_night_is_taken() -> None:
    """AMB-053: MAUDIRE Dan, then MAUDIRE Eve the same night: both cursed; a repeat adds
    nothing; a third target is refused."""
    g = advance(Game(options=QUIET), 2)
    g.give("Cid", "grimoire")
    g.do("Cid", "CURSE Dan")
    assert "curse" in {c.verb for c in g.rules.available(g.state, PlayerId("Cid"))}
    assert g.fails("Cid", "CURSE Dan") == "curse_repeated"
    g.do("Cid", "CURSE Eve")
    assert "curse" not in {c.verb for c in g.rules.available(g.state, PlayerId("Cid"))}
    assert g.fails("Cid", "CURSE Fay") == "curses_spent"
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.state.seat("Dan").cursed and g.state.seat("Eve").cursed
    assert not g.state.seat("Fay").cursed


def test_a_curse_with_three_names_is_answered_kept_and_refused_by_mail() -> None:
    """AMB-053 through the mail pipeline: the receipt accepts the two names kept and refuses
    the third with its reason, in one reply; the refused line is a command, « ✗ MAUDIRE
    Fay », not a bare « ✗ Fay » (in French and in English)."""
    g = advance(Game(options=QUIET), 2)
    g.give("Cid", "grimoire")
    table = table_from(g)
    step = table.receive(
        mail("Cid", "CURSE Dan Eve Fay", to="moderator@example.org"), channel="private", now=g.now
    )
    (reply,) = [m for m in step.outgoing if "/reply/" in m.key]
    assert "✓ CURSE Dan Eve" in reply.body
    assert "✗ CURSE Fay — Two targets at most a night" in reply.body
    french = table_from(g, lang="fr").receive(
        mail("Cid", "MAUDIRE Dan Eve Fay", to="moderator@example.org"), channel="private", now=g.now
    )
    (reply,) = [m for m in french.outgoing if "/reply/" in m.key]
    assert "✓ MAUDIRE Dan Eve" in reply.body
    assert "✗ MAUDIRE Fay — Deux cibles au plus par nuit" in reply.body
    table.apply(step)
    assert [o.targets for (a, v), o in table.state.orders.items() if v == "curse"] == [
        ("Dan", "Eve")
    ]


def test_cursed_first_post_must_declare() -> None:
    """DRA-374, DRA-375, DRA-377, AMB-056, NTF-06: a non-compliant first post is bounced;
    a compliant one fixes the destination, which cannot change."""
    g = cursed_game()
    table = table_from(g)
    step = table.receive(mail("Dan", "Hello everybody"), channel="list", now=g.now, relay=True)
    table.apply(step)
    assert len(step.outgoing) == 1 and not step.outgoing[0].public
    assert '"I am cursed!"' in step.outgoing[0].body  # the English phrase to an English reader
    assert "Dan" not in table.state.declared
    step = table.receive(
        mail("Dan", "Je suis maudit ! Ce soir je vais au **boudoir**."), channel="list", now=g.now
    )
    table.apply(step)
    assert table.state.declared["Dan"] == "boudoir"
    assert "Dan" in table.state.posted
    step = table.receive(mail("Dan", "PIECE BAL"), channel="list", now=g.now)
    table.apply(step)
    assert table.state.declared["Dan"] == "boudoir"  # DRA-377
    assert "boudoir" in step.outgoing[0].body or "Your destination" in step.outgoing[0].body


def test_cursed_private_room_must_match_declaration() -> None:
    """DRA-378, AMB-056.5: the private room must be the declared one; silence uses it."""
    g = cursed_game()
    g._apply(g.rules.on_post(g.state, "Dan", ["I am cursed! **ballroom**"], g.now))
    g._apply(g.rules.on_post(g.state, "Cid", ["Je suis maudit ! **geôles**"], g.now))
    g.close("day")
    assert g.fails("Dan", "ROOM boudoir") == "declared_room"
    g.do("Dan", "ROOM ballroom")
    g.rooms({"Bob": "dungeons"}, default="torture", skip=("Cid",))  # Cid sends nothing
    g.mark()
    g.close("rooms")
    assert g.state.position("Cid") == "dungeons"
    assert g.state.order_of("Cid", "room").default  # type: ignore[union-attr]


def test_cursed_without_declaration_gets_a_public_random_room() -> None:
    """DRA-376, AMB-056.6, NTF-07: no post, no destination: drawn and announced at dusk."""
    g = cursed_game()
    g._apply(g.rules.on_post(g.state, "Dan", ["Je suis maudit ! **boudoir**"], g.now))
    g.mark()
    g.close("day")
    defaults = g.public("dusk")[0].params["cursed_defaults"]
    assert [d["name"] for d in defaults] == ["Cid"]
    assert g.state.declared["Cid"] == defaults[0]["room"]


def test_cursed_exceptions_designation_and_key() -> None:
    """DRA-379: designated or key users are released from the declared room."""
    g = cursed_game()
    g._apply(g.rules.on_post(g.state, "Dan", ["Je suis maudit ! **boudoir**"], g.now))
    g._apply(g.rules.on_post(g.state, "Cid", ["Je suis maudit ! **boudoir**"], g.now))
    g.do("Eve", "VOTE Dan", "list")
    g.close("day")
    assert g.state.position("Dan") == "sanctuary"
    g.give("Cid", "key")
    g.do("Cid", "KEY")
    assert g.state.position("Cid") == "sanctuary"


def test_night_silence_and_dead_players() -> None:
    """DRA-082, DRA-326, AMB-009: the list is closed at night; the dead do not post. (The
    daemon moderates the list here; on an external list the post is flagged publicly, see
    tests/table/test_list_relay.py.)"""
    g = advance(Game(options=QUIET), 3)
    table = table_from(g)
    step = table.receive(mail("Eve", "I saw Bob!"), channel="list", now=g.now, relay=True)
    assert len(step.outgoing) == 1 and "night" in step.outgoing[0].body.lower()
    assert not step.events
    night_start = g.public("night_start", since_mark=False)[-1]
    assert night_start.public and night_start.params["night"] == 3


def test_late_curse_after_dawn_pickup() -> None:
    """DRA-370, AMB-021, AMB-053, NTF-33: a grimoire picked up at dawn may still curse."""
    g = Game(options=QUIET)
    g.close("day")
    g.mark()
    g.night({"Ana": "boudoir", "Bob": "boudoir", "Cid": "torture"}, {"Ana": "Bob"}, "ballroom")
    assert g.phase == "dawn_curse"
    assert g.to("Cid", "dawn_curse")
    g.do("Cid", "CURSE Eve")
    g.close("dawn_curse")
    assert g.state.seat("Eve").cursed
    assert g.to("Eve", "cursed")


def test_flag_mode_posts_the_violation_publicly() -> None:
    """AMB-056.4 (curse_enforcement = flag), NTF-06: the post goes through, flagged publicly;
    a later bold room fixes the destination."""
    g = advance(Game(options={**QUIET, "curse_enforcement": "flag"}), 2)
    g.give("Cid", "grimoire")
    g.do("Cid", "CURSE Dan")
    g.night({"Bob": "dungeons"})
    g.finish_night()
    g.mark()
    g._apply(g.rules.on_post(g.state, "Dan", ["Bonjour !"], g.now))
    flag = g.public("curse_flag")
    assert flag and flag[0].params["player"] == "Dan"
    cmd = g.rules.bold_command(g.state, "Dan", ["salle de torture"])
    assert cmd is not None and cmd.verb == "declare" and cmd.word == "torture"


def test_night_posts_flagged_publicly_in_flag_mode() -> None:
    """AMB-009 (out_of_turn_posts = flag), DRA-082: the post is noted publicly."""
    g = advance(Game(options={**QUIET, "out_of_turn_posts": "flag"}), 3)
    g.mark()
    g._apply(g.rules.on_post(g.state, "Eve", ["psst"], g.now))
    flag = g.public("post_flag")
    assert flag and flag[0].params == {"player": "Eve", "reason": "night_silence"}


def test_amb_056_a_cursed_woman_writes_maudite_and_punctuation_varies() -> None:
    """AMB-056.3, DRA-374: « Je suis maudite ! » is the curse phrase too (the seed writes the
    masculine; a cursed woman writes correct French), as are its usual variations of case,
    spaces and closing punctuation; a word that goes on is not the phrase."""
    g = cursed_game()
    g._apply(g.rules.on_post(g.state, "Dan", ["Je suis maudite ! **salle de bal**"], g.now))
    g._apply(g.rules.on_post(g.state, "Cid", ["JE SUIS MAUDITE. Ce soir : **geôles**"], g.now))
    assert g.state.declared == {"Dan": "ballroom", "Cid": "dungeons"}
    phrases = g.state.options.curse_phrases
    for line in (
        "Je suis maudit ! **boudoir**",
        "je suis maudite **boudoir**",
        "Je suis maudite !!! **boudoir**",
        "Je  suis   Maudite, hélas : **boudoir**",
        "I am cursed. **boudoir**",
    ):
        assert said_curse(line, phrases), line
    for line in ("Je suis mauditement en retard **boudoir**", "Je suis là **boudoir**"):
        assert not said_curse(line, phrases), line
