"""The idle count: derived from the event log (a pure fold), up by one at each close where the
rules awaited the seat and it gave no order, back to zero at any order (docs/seats.md)."""

from __future__ import annotations

from pbem.core.idle import idle_streaks
from pbem.core.ids import PlayerId
from tests.desk.desk_game import ADMIN, DeskGame
from tests.support.game_by_mail import address


def counts(g: DeskGame) -> dict[PlayerId, int]:
    scanned = idle_streaks(g.table.events)
    # the Table's kept count (extended close after close, issue 23) says the same as a scan
    assert g.table.idle_count().counts() == scanned
    return scanned


def warnings(g: DeskGame, name: str) -> list[str]:
    return [m.body for m in g.sent if m.to == (address(name),) and "not played for" in m.subject]


def test_only_phases_where_the_seat_is_awaited_count() -> None:
    """A Lupus villager is awaited in the day's ballots, never at night (LUP-216)."""
    g = DeskGame("lupus-in-tabula")
    g.deadline()  # night 1: only the wolves and the seer were awaited
    assert counts(g) == {PlayerId("p1"): 1, PlayerId("p2"): 1, PlayerId("p3"): 1}


def test_an_order_resets_the_count_and_silence_counts_again() -> None:
    g = DeskGame("lupus-in-tabula")
    g.mail("p1", "KILL p5")
    g.deadline()  # night 1: p1 gave an order, p2 and the seer did not
    assert PlayerId("p1") not in counts(g) and counts(g)[PlayerId("p2")] == 1
    g.until("round1")
    g.deadline()  # round 1 closes: p1 voted nothing
    assert counts(g)[PlayerId("p1")] == 1


def test_an_explicit_pass_is_an_answer() -> None:
    """CAS-603: PASS says "nothing from me this time": the seat is not idle."""
    passing, silent = DeskGame("chasse-aux-sorcieres"), DeskGame("chasse-aux-sorcieres")
    phoebe = PlayerId("alice")
    while phoebe not in silent.table.awaiting():
        passing.deadline()
        silent.deadline()
    passing.mail("alice", "PASS")
    assert phoebe not in passing.table.awaiting()  # accepted: she has answered
    passing.deadline()
    silent.deadline()
    assert counts(silent)[phoebe] == 1
    assert phoebe not in counts(passing)


def test_warning_after_two_silent_phases_when_nothing_is_awaited_now() -> None:
    g = DeskGame("lupus-in-tabula")
    g.until("round1")  # night 1 and the debate: p4 (villager) was never awaited
    assert warnings(g, "p4") == []
    g.deadline()  # round 1: 1
    g.until("round1", 2)
    assert warnings(g, "p4") == []
    g.deadline()  # round 1 of day 2: 2; the defence opens, where nobody is awaited
    (warning,) = warnings(g, "p4")
    assert "in each of the last 2 phases" in warning
    assert "Nothing is awaited from you right now" in warning


def test_warning_names_what_is_awaited_now_and_until_when() -> None:
    """The Maître des loups, silent at the election (warned after one silent phase here; the
    optional bite counts nothing, LG-D03), is warned as the council opens (LG-220): TUER/KILL,
    before the council's deadline."""
    g = DeskGame("loup-garou", options={"idle_warn_after": 1})
    g.deadline()  # the bite window: nothing
    g.deadline()  # the Mayor's election: 1
    assert g.state.phase == "night"
    (warning,) = warnings(g, "alice")
    assert "What the game awaits from you now, before " in warning
    assert "KILL" in warning
    assert g.table.renderer.when(min(g.table.deadlines().values()), "en") in warning


def test_rollback_voids_the_close_and_closing_again_warns_again() -> None:
    """ROLLBACK: the voided close no longer counts; the phase closing again counts it anew."""
    g = DeskGame("lupus-in-tabula")
    while not warnings(g, "p3"):
        g.deadline()
    assert counts(g)[PlayerId("p3")] == 2
    g.admin("ROLLBACK 24h")
    assert counts(g)[PlayerId("p3")] == 1
    g.deadline()
    assert counts(g)[PlayerId("p3")] == 2 and len(warnings(g, "p3")) == 2


def test_warnings_change_nothing_the_rules_draw() -> None:
    """Warnings are kernel notices: the same game with the policy off draws the same."""
    on, off = (
        DeskGame("lupus-in-tabula"),
        DeskGame("lupus-in-tabula", options={"idle_warn_after": 0, "idle_act_after": 0}),
    )
    for g in (on, off):
        for _ in range(10):
            if not g.table.finished:
                g.deadline()
    assert any("not played for" in m.subject for m in on.sent)
    assert on.table.ruled[1:] == off.table.ruled[1:]  # all but GameCreated's options


def test_zero_thresholds_turn_the_policy_off() -> None:
    g = DeskGame(
        "lupus-in-tabula",
        options={"idle_warn_after": 0, "idle_act_after": 0, "on_idle": "remove"},
    )
    for _ in range(12):
        if g.table.finished:
            break
        g.deadline()
    assert not [m for m in g.sent if "not played for" in m.subject]
    assert not [m for m in g.sent if m.to == (ADMIN,)]
    assert not [m for m in g.sent if "leaves the game" in m.subject]


def test_a_chat_with_the_pack_is_an_order_that_resets_the_count() -> None:
    """The players' rules (« le moindre ordre … remet le compte à zéro »; LUP-613's pack
    chat): a wolf who only talked with his pack was told his phases closed « sans rien de votre
    part » (issue 22); his chat is an answer, his silent partner's count goes on."""
    g = DeskGame("lupus-in-tabula", options={"idle_warn_after": 1})
    g.mail("p1", "PACK courage")
    g.mail("p3", "SCAN p4")
    g.deadline()  # night 1 closes: p1 talked with his pack, p2 said nothing
    assert PlayerId("p1") not in counts(g) and counts(g)[PlayerId("p2")] == 1
    assert warnings(g, "p1") == [] and len(warnings(g, "p2")) == 1


def test_a_warning_never_says_nothing_is_awaited_beside_a_prompt_of_the_same_phase() -> None:
    """Issue 22: the Little Girl, warned as the night opens, was told « Rien n'est attendu de
    vous » with the council's deadline in the same second as her prompt « Nuit : votre
    question » (until the night's end): the warning lists what she may send, until when."""
    g = DeskGame("loup-garou", lang="fr", options={"idle_warn_after": 1, "idle_act_after": 0})
    g.deadline()  # the bite window
    g.deadline()  # the election: frank (the Little Girl) voted nothing
    assert g.state.phase == "night"
    (prompt,) = [m for m in g.to("frank") if "votre question" in m.subject]
    (warning,) = [m.body for m in g.to("frank") if "pas joué depuis" in m.subject]
    assert "Rien n'est attendu" not in warning, warning
    assert "Ce que vous pouvez envoyer maintenant" in warning and "QUESTION" in warning
    night_end = g.table.renderer.when(max(g.table.deadlines().values()), "fr")
    assert night_end in warning and night_end in prompt.body


def test_an_event_that_names_no_order_is_passed_over_without_reading_it() -> None:
    """The count reads only the events that may change it (issue 23): a close, a vote, a
    private notice, a death, an order; a deal's commitment is passed over unread."""
    from unittest import mock

    from pbem.core import idle
    from pbem.core.events import DealCommitted, PhaseClosed, VoteSet

    log = [
        PhaseClosed("day", 0, (PlayerId("a"), PlayerId("b"))),
        DealCommitted("salt", "digest"),
        VoteSet("round1", PlayerId("a"), PlayerId("b")),
        PhaseClosed("night", 0, (PlayerId("a"), PlayerId("b"))),
    ]
    with mock.patch.object(idle, "actor_of", wraps=idle.actor_of) as read:
        assert idle_streaks(log) == {PlayerId("a"): 1, PlayerId("b"): 2}
    assert [c.args[0] for c in read.call_args_list] == [log[2]]


def test_a_side_window_inside_a_phase_counts_nobody_cas_d18_lg_d31() -> None:
    """CAS-D18: Prue's revenge window closes hours into the day, whose vote runs on; its close
    counted every living player who had not voted yet, so the day's own close counted them a
    second time (warnings after one silent day, the game master told « ne joue plus »). A
    dead Mayor's sash (LG-D31) is the same. Such a close counts no one."""
    g = DeskGame("chasse-aux-sorcieres")
    g.until("W1")
    g.mail("dave", "KILL bob")  # Prue, the Demons' victim: her revenge opens at dawn
    g.until("day")
    assert set(g.table.deadlines()) == {"day", "revenge"}
    before = counts(g)
    assert g.earliest()[0] == "revenge"
    # the day's silent voters are still awaited meanwhile (reminders, STATUT): only the
    # window's close holds nobody to account
    assert {PlayerId("peggy"), PlayerId("niaj")} <= g.table.awaiting()
    g.deadline()  # the revenge window closes: the vote is still open
    assert counts(g) == before
    assert not [m for m in g.last if "not played for" in m.subject]
    g.deadline()  # the day closes: its silent voters count once
    assert all(counts(g)[p] == before.get(p, 0) + 1 for p in map(PlayerId, ("peggy", "niaj")))
    g = DeskGame("loup-garou")
    g.until("night", 1)
    assert g.table.state.mayor is not None
    mayor = g.table.state.mayor
    g.mail("alice", f"KILL {mayor}")
    g.mail("bob", f"KILL {mayor}")
    g.until("day")
    assert set(g.table.deadlines()) == {"day", "sash"}  # the Mayor (the witch) died at night
    before = counts(g)
    assert g.earliest()[0] == "sash"
    assert g.table.awaiting()  # the day's voters, awaited while the sash is pending
    g.deadline()
    assert counts(g) == before


def test_the_optional_bite_counts_no_one_idle_lg_311_lg_d03() -> None:
    """LG-311, LG-D03: the master wolf *may* bite; letting the window pass is his choice, not a
    silence: he is reminded meanwhile (a once-a-game power) but its close counts no one."""
    g = DeskGame("loup-garou")
    master = PlayerId("alice")
    assert g.table.awaiting() == {master}
    g.deadline()  # the bite window closes without a bite
    assert master not in counts(g)
