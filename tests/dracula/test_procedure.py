"""Procedure decisions: early closing, final orders, invalid votes (section 22.1–22.2)."""

from __future__ import annotations

from tests.dracula.scenario import NAMES, QUIET, Game, advance


def test_early_close_off_by_default() -> None:
    """DESIGN.md, AMB-001: transcripts close only at deadlines unless asked."""
    g = advance(Game(options=QUIET), 3)
    g.rooms({"Bob": "dungeons"})
    assert g.rules.ready_to_close(g.state) is None


def test_early_close_when_everyone_has_acted_or_passed() -> None:
    """AMB-001, CMD-16: mandatory actors act; optional ones act or PASS."""
    g = advance(Game(options={**QUIET, "early_close": True}), 3)
    g.rooms({"Bob": "dungeons"}, skip=("Cid",))
    assert g.rules.awaiting(g.state) == {"Cid"}
    assert g.rules.ready_to_close(g.state) is None
    g.do("Cid", "ROOM boudoir")
    assert g.rules.ready_to_close(g.state) == "rooms"
    g.close("rooms")
    # bite step: Dracula may bite (optional actor) until he passes
    assert g.rules.awaiting(g.state) == {"Ana"}
    g.do("Ana", "PASS")
    assert g.rules.ready_to_close(g.state) == "bites"


def test_early_close_through_the_mail_pipeline() -> None:
    """AMB-001, AMB-002: the last order closes the step; the notices go out at the close."""
    from tests.dracula.scenario import mail, table_from

    g = advance(Game(options={**QUIET, "early_close": True}), 3)
    g.rooms({"Bob": "dungeons"}, skip=("Cid",))
    table = table_from(g)
    step = table.receive(
        mail("Cid", "PIECE BOUDOIR", to="mj@example.org"), channel="private", now=g.now
    )
    table.apply(step)
    assert table.state.phase == "bites"
    subjects = [m.subject for m in step.outgoing]
    assert any(s.endswith(": bites") for s in subjects)


def test_invalid_vote_does_not_use_up_the_vote() -> None:
    """AMB-014: an invalid vote is not counted; the voter may vote again."""
    g2 = Game(options=QUIET)
    g2.close("day")
    g2.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g2.finish_night()
    g2.do("Cid", "VOTE Dan", "list")
    g2.close("day")
    g2.night({"Bob": "dungeons"})
    g2.finish_night()
    assert g2.fails("Eve", "VOTE Dan", "list") == "not_eligible"
    g2.do("Eve", "VOTE Fay", "list")
    assert g2.state.votes[-1][:2] == ("Eve", "Fay")


def test_private_orders_are_final() -> None:
    """AMB-007: the first valid order of a kind is final."""
    g = advance(Game(options=QUIET), 3)
    g.do("Cid", "ROOM boudoir")
    assert g.fails("Cid", "ROOM ballroom") == "order_final"
    assert g.fails("Cid", "CANCEL ROOM") == "orders_final"


def test_status_tells_only_own_state() -> None:
    """CMD-20, AMB-082: side, objects, curse; nothing about others."""
    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "stake")
    st = g.rules.status(g.state, "Cid")
    assert st["role"] == "human" and st["objects"] == ["stake"]
    assert "Ana" not in str({k: v for k, v in st.items() if k != "scores"})
    assert set(st["scores"]) == set(NAMES)


def test_early_night_waits_for_the_scheduled_morning() -> None:
    """AMB-002: with early closing, the morning is still posted at the scheduled end of the
    night; the list stays silent until then (DRA-082)."""
    g = advance(Game(options={**QUIET, "early_close": True}), 3)
    end = g.state.night_end
    assert end is not None
    g.rooms({"Bob": "dungeons"})
    g.close("rooms")  # at its deadline
    g.do("Ana", "PASS")
    g.mark()
    g._apply(g.rules.on_deadline(g.state, "bites", g.now, g.rng))  # closed early, now
    assert g.phase == "dawn_wait" and not g.public("morning")
    assert g.fails("Cid", "VOTE Dan", "list") in ("no_sanctuary_vote",)
    from pbem.core.errors import IllegalNow

    try:
        g.rules.on_post(g.state, "Cid", ["hello"], g.now)
    except IllegalNow as exc:
        assert exc.reason == "night_silence"
    else:
        raise AssertionError("posted before the morning")
    g.close("dawn_wait")
    assert g.now == end and g.public("morning") and g.phase == "day"
