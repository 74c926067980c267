"""Prue's revenge: CAS-235, CAS-239, CAS-320, CAS-321, CAS-322, CAS-323, CAS-324, CAS-325, CAS-619, CAS-722, CAS-X06, CAS-D18."""

from __future__ import annotations

from tests.chasse.scenario import DEADLINE, Game, mail, mails_to, notices, run, setup_line


def prue_killed_at_night() -> Game:
    g = Game()
    g.until("W1")
    g.do("dave", "KILL bob")
    g.until("day", 1)
    assert g.state.revenge is not None
    return g


def prue_lynched() -> Game:
    g = Game()
    g.until("day", 1)
    g.vote("peggy", "bob")
    g.deadline()
    assert g.state.phase == "revenge"
    return g


def test_cas_320_619_722_revenge_after_the_demons_kill() -> None:
    """CAS-320, CAS-321, CAS-619, CAS-722: dead Prue sends VENGEANCE privately: the victim is
    eliminated at once and published with his role."""
    g = prue_killed_at_night()
    events = g.do("bob", "VENGEANCE dave")
    assert not g.alive("dave") and g.state.revenge is None
    (strike,) = notices(events, "revenge")
    assert strike.public and strike.params["target"] == "dave" and strike.params["role"] == "demon"
    assert g.state.phase == "day"  # CAS-D18: the day goes on


def test_cas_722_revenge_by_mail() -> None:
    """CAS-722: "Prue may retaliate before T" publicly, then "Prue strikes X, who was <role>"."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "KILL bob"),
            DEADLINE,
            DEADLINE,
            mail("bob", "REVENGE erin"),
        ]
    )
    public = mails_to(mails, "list")
    assert (
        "bob, who was Prue, was killed by the Demons: they may retaliate before"
        in public[-2]["body"]
    )
    assert public[-1]["body"].strip() == "Prue (bob) strikes erin, who was a Demon."
    (prompt,) = [m for m in mails_to(mails, "bob") if "Your decision" in m["subject"]]
    assert "REVENGE name" in prompt["body"]
    assert "✓ REVENGE erin (final)" in mails_to(mails, "bob")[-1]["body"]  # CAS-602


def test_cas_322_revenge_target_any_other_living_player() -> None:
    """CAS-322, CAS-619: a living player; only the dead Prue, only while asked."""
    g = Game()
    g.until("W1")
    g.do("dave", "KILL bob")
    g.until("day", 1)
    assert g.fails("alice", "REVENGE dave").reason == "no_revenge_now"
    assert g.fails("niaj", "REVENGE bob").reason == "no_revenge_now"
    assert g.fails("bob", "REVENGE bob").reason == "target_not_living"
    g.do("bob", "REVENGE judy")  # Billie, council member: any player
    assert not g.alive("judy")
    assert g.fails("bob", "REVENGE erin").reason == "dead"  # only once


def test_cas_323_revenge_victim_lover_dies_of_grief() -> None:
    """CAS-323: the revenge victim is eliminated, revealed, and the Lovers rule applies."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS niaj olivia")
    g.deadline()
    g.do("dave", "KILL bob")
    g.until("day", 1)
    events = g.do("bob", "REVENGE niaj")
    assert not g.alive("olivia")
    (strike,) = notices(events, "revenge")
    assert strike.params["grief"] == [{"name": "olivia", "role": "innocent", "partner": "niaj"}]


def test_cas_324_revenge_optional_window_closes() -> None:
    """CAS-324, CAS-D18, CAS-D29: no answer within ``revenge_window``: "Prue did not retaliate"."""
    g = prue_killed_at_night()
    assert (g.state.revenge.until - g.now).total_seconds() == 4 * 3600  # type: ignore[union-attr]
    g.deadline("revenge")
    (closed,) = notices(g.last, "revenge")
    assert closed.params["target"] is None and g.state.phase == "day"
    assert g.fails("bob", "REVENGE dave").reason == "dead"


def test_cas_d18_votes_by_or_for_the_revenge_victim_are_void() -> None:
    """CAS-D18: during the day the vote continues; votes by or for the revenge victim are void."""
    g = prue_killed_at_night()
    g.vote("dave", "alice")
    g.vote("alice", "carol")
    g.vote("carol", "dave")
    g.vote("niaj", "dave")
    g.do("bob", "REVENGE dave")
    g.deadline("day")
    (lynch,) = notices(g.last, "lynch")
    assert lynch.params["lynched"] == "carol"
    assert lynch.params["counts"] == [{"name": "carol", "count": 1}]


def test_cas_320_lynched_prue_retaliates_and_239_night_waits() -> None:
    """CAS-320, CAS-235 with "lynched", CAS-239: the night starts only after the revenge."""
    g = prue_lynched()
    (lynch,) = notices(g.last, "lynch")
    assert lynch.params["revenge"] is not None
    assert notices(g.last, "night_start") == []
    assert notices(g.last, "revenge_prompt")[0].params["after"] == "lynch"
    events = g.do("bob", "REVENGE erin")
    assert not g.alive("erin")
    assert g.state.phase == "W1" and g.state.number == 2
    assert notices(events, "night_start")[0].params["number"] == 2


def test_cas_239_lynched_prue_silent_night_after_window() -> None:
    """CAS-239, CAS-D18: no revenge: the night starts when the window closes."""
    g = prue_lynched()
    g.deadline()
    assert [n.template for n in notices(g.last)][:2] == ["chasse/revenge", "chasse/night_start"]
    assert g.state.phase == "W1"


def test_cas_x06_104_revenge_on_the_last_demon_ends_the_game() -> None:
    """CAS-X06, CAS-104, CAS-D22 (b): Prue killed by the Demons names the last Demon: the Forces
    of Good win immediately after the revenge."""
    g = Game()
    g.until("day", 1)
    g.vote("peggy", "dave")
    g.deadline()
    g.until("day", 2)
    g.vote("peggy", "erin")
    g.deadline()
    g.until("W1", 3)
    g.do("frank", "KILL bob")
    g.until("day", 3)
    assert g.state.revenge is not None and g.side is None
    events = g.do("bob", "REVENGE frank")
    assert g.side == "good"
    assert [n.template for n in notices(events)] == ["chasse/revenge", "chasse/victory"]


def test_cas_602_vote_reply_names_t_day_during_a_revenge_window() -> None:
    """CAS-602: "accepted, until when it can be changed": a vote during Prue's revenge window
    can be changed until T_day, not until the end of the window."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "KILL bob"),
            DEADLINE,
            DEADLINE,
            mail("alice", "VOTE dave", "list"),
        ]
    )
    reply = mails_to(mails, "alice")[-1]["body"]
    assert "VOTE dave (until Fri 9 Jan 00:00 UTC" in reply


def test_cas_d21_self_vote_allowed() -> None:
    """CAS-D21: a player may vote for himself."""
    g = prue_killed_at_night()
    g.vote("alice", "alice")
    assert g.state.votes == {"alice": "alice"}
