"""The day: votes, ties, lynch and the next night: CAS-236, CAS-237, CAS-238, CAS-239, CAS-306, CAS-400, CAS-401, CAS-402, CAS-403, CAS-404, CAS-405, CAS-406, CAS-407, CAS-408, CAS-409,
CAS-620, CAS-621, CAS-622, CAS-623, CAS-730, CAS-731, CAS-732, CAS-733, CAS-X05, CAS-D20, CAS-D21."""

from __future__ import annotations

from datetime import timedelta

from tests.chasse.scenario import DEADLINE, Game, mail, mails_to, notices, run, setup_line


def day1(kill: str | None = None, **kwargs: object) -> Game:
    g = Game(**kwargs)  # type: ignore[arg-type]
    g.until("W1")
    if kill:
        g.do("dave", f"KILL {kill}")
    g.until("day", 1)
    return g


def verdict(g: Game) -> dict[str, object]:
    (lynch,) = notices(g.last, "lynch")
    return dict(lynch.params)


def test_cas_400_620_votes_are_public_on_the_list() -> None:
    """CAS-400, CAS-620: a living player votes for a living player, on the list only."""
    g = day1()
    assert g.fails("alice", "VOTE dave", "private").reason == "vote_on_list"
    g.vote("alice", "dave")
    assert g.state.votes == {"alice": "dave"}


def test_cas_236_debate_text_on_the_list_is_not_an_error() -> None:
    """CAS-236, CAS-601: debate on the list is free text; only command lines are read."""
    mails, _state = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            DEADLINE,
            DEADLINE,
            mail("alice", "I think dave is lying.\nVOTE dave\nand that's that", "list"),
        ]
    )
    assert [m["subject"] for m in mails_to(mails, "alice")][-1].endswith("Your commands")
    assert "✓ VOTE dave" in mails_to(mails, "alice")[-1]["body"]
    assert "rejected" not in mails_to(mails, "alice")[-1]["body"].lower()


def test_cas_401_penny_vote_counts_double() -> None:
    """CAS-401: Penny's player's vote counts 2: peggy alone beats alice."""
    g = day1()
    g.vote("alice", "dave")
    g.vote("peggy", "erin")
    g.deadline()
    assert verdict(g)["lynched"] == "erin"
    assert verdict(g)["counts"] == [{"name": "erin", "count": 2}, {"name": "dave", "count": 1}]
    assert {"voter": "peggy", "target": "erin", "weight": 2} in verdict(g)["votes"]


def test_cas_402_621_change_and_withdraw() -> None:
    """CAS-402, CAS-621: until T_day a vote may change or be withdrawn; the last counts."""
    g = day1()
    g.vote("alice", "dave")
    g.vote("alice", "erin")
    g.vote("bob", "dave")
    g.do("bob", "RETIRER", "list")
    assert g.state.votes == {"alice": "erin"}
    assert g.fails("bob", "UNVOTE", "list").reason == "no_vote_to_withdraw"
    g.deadline()
    assert verdict(g)["lynched"] == "erin"


def test_cas_403_237_409_732_relative_majority_lynch_revealed() -> None:
    """CAS-403, CAS-237, CAS-409, CAS-732: most weighted votes (relative majority) is lynched,
    reveals his card publicly with the final tally (CAS-730)."""
    g = day1()
    for voter, target in (("alice", "dave"), ("bob", "dave"), ("carol", "erin"), ("niaj", "frank")):
        g.vote(voter, target)
    g.deadline()
    params = verdict(g)
    assert params["lynched"] == "dave" and params["role"] == "demon" and params["how"] == "majority"
    assert not g.alive("dave") and g.state.lynched == ("dave",)
    assert params["votes"][0] == {"voter": "alice", "target": "dave", "weight": 1}


def test_cas_404_no_vote_no_lynch() -> None:
    """CAS-404, CAS-732: no valid vote, nobody is lynched; the next night follows."""
    mails, state = run([setup_line(), DEADLINE, DEADLINE, DEADLINE, DEADLINE, DEADLINE])
    body = mails_to(mails, "list")[-2]["body"]
    assert "No votes." in body and "Nobody is lynched today." in body
    assert state["phase"] == "W1" and state["day"] == 2


def test_cas_238_306_733_712_next_night_announced() -> None:
    """CAS-238, CAS-306, CAS-733, CAS-712: after the lynch, "Night N falls" with T_W1 and T_end;
    every day has a vote (Day 2 opens after Night 2)."""
    g = day1()
    g.deadline()
    (night,) = notices(g.last, "night_start")
    assert night.public and night.params["number"] == 2
    assert set(night.params["schedule"]) == {"W1", "W2"}
    g.until("day", 2)
    g.vote("alice", "dave")
    assert g.state.votes == {"alice": "dave"}


def test_cas_730_running_tally_at_most_every_interval() -> None:
    """CAS-730, CAS-D21: a weighted running tally, at most once per ``tally_min_interval``."""
    g = day1()
    first = g.vote("peggy", "dave")
    assert notices(first, "tally")[0].params["counts"] == [{"name": "dave", "count": 2}]
    assert notices(g.vote("alice", "dave"), "tally") == []
    g.now += timedelta(minutes=15)
    (tally,) = notices(g.vote("bob", "erin"), "tally")
    assert tally.public and tally.params["counts"] == [
        {"name": "dave", "count": 3},
        {"name": "erin", "count": 1},
    ]


def test_cas_405_371_731_tie_penny_designates_the_victim() -> None:
    """CAS-405, CAS-371, CAS-731, CAS-622: tie with Penny's player alive: public "Tie between",
    a private prompt to him, then his public choice (he may answer on the list)."""
    g = day1()
    g.vote("alice", "dave")
    g.vote("bob", "erin")
    g.deadline()
    assert g.state.phase == "tiebreak"
    (tie,) = notices(g.last, "tie")
    assert (
        tie.public and tie.params["tied"] == ["dave", "erin"] and tie.params["breaker"] == "peggy"
    )
    (prompt,) = notices(g.last, "tie_prompt")
    assert prompt.to == ("peggy",) and prompt.params["mode"] == "choose"
    assert g.fails("alice", "CHOOSE dave").reason == "not_tiebreaker"
    assert g.fails("peggy", "CHOOSE alice").reason == "not_tied"  # CAS-408
    g.do("peggy", "DESIGNER erin", "list")
    params = verdict(g)
    assert (
        params["lynched"] == "erin" and params["how"] == "penny" and params["decided_by"] == "peggy"
    )


def test_cas_d20_penny_may_name_himself_when_tied() -> None:
    """CAS-D20 (1): Penny's player tied may designate himself."""
    g = day1()
    g.vote("peggy", "alice")
    g.vote("alice", "peggy")
    g.vote("bob", "peggy")
    g.deadline()
    g.do("peggy", "CHOOSE peggy")
    assert not g.alive("peggy")


def test_cas_406_407_x05_penny_dead_last_lynched_spares_one() -> None:
    """CAS-X05, CAS-406, CAS-407, CAS-623: Penny's player dead; Day 1's lynched player decides
    on Day 2 which of 2 tied is saved (SAUVER, privately); the other is eliminated."""
    g = day1(kill="peggy")
    g.vote("alice", "niaj")
    g.deadline()
    assert g.state.lynched == ("niaj",)
    g.until("day", 2)
    g.vote("alice", "dave")
    g.vote("bob", "erin")
    g.deadline()
    (tie,) = notices(g.last, "tie")
    assert tie.params["breaker"] == "niaj" and tie.params["mode"] == "spare"
    assert recipients_of(g, "tie_prompt") == {"niaj"}
    assert g.fails("niaj", "SPARE dave", "list").reason == "dead"  # CAS-D28: privately
    assert g.fails("niaj", "CHOOSE dave").reason == "tiebreak_mode"
    g.do("niaj", "SAUVER dave")
    params = verdict(g)
    assert params["lynched"] == "erin" and params["how"] == "last_lynched"
    assert g.alive("dave") and not g.alive("erin")


def recipients_of(g: Game, template: str) -> set[str]:
    return {p for n in notices(g.last, template) for p in n.to}


def test_cas_d20_three_tied_last_lynched_chooses_the_victim() -> None:
    """CAS-D20 (2): with 3 or more tied the last lynched names the one eliminated (DESIGNER)."""
    g = day1(kill="peggy")
    g.vote("alice", "niaj")
    g.deadline()
    g.until("day", 2)
    for voter, target in (("alice", "dave"), ("bob", "erin"), ("carol", "frank")):
        g.vote(voter, target)
    g.deadline()
    assert g.state.tie is not None and g.state.tie.mode == "choose"
    g.do("niaj", "CHOOSE frank")
    assert not g.alive("frank")


def test_cas_407_x05_penny_dead_no_lynch_yet_random_draw() -> None:
    """CAS-X05, CAS-407: Day 1, Penny's player dead, nobody lynched yet: a random draw at once."""
    g = day1(kill="peggy")
    g.vote("alice", "dave")
    g.vote("bob", "erin")
    g.deadline()
    params = verdict(g)
    assert params["how"] == "draw" and params["lynched"] in ("dave", "erin")
    assert params["tied"] == ["dave", "erin"] and g.state.phase == "W1"


def test_cas_d20_no_answer_random_draw_among_the_tied() -> None:
    """CAS-D20, CAS-D29, CAS-731: the tie-breaker silent for ``tiebreak_window``: random draw."""
    g = day1()
    g.vote("alice", "dave")
    g.vote("bob", "erin")
    g.deadline()
    assert (g.rules.deadlines(g.state)["tiebreak"] - g.now) == timedelta(hours=2)
    g.deadline()
    params = verdict(g)
    assert params["how"] == "draw" and params["lynched"] in ("dave", "erin")
    assert g.state.phase == "W1"


def test_cas_d20_tie_order_option() -> None:
    """CAS-D20 config: ``tie_order`` = random skips the tie-breakers."""
    g = day1(tie_order="random")
    g.vote("alice", "dave")
    g.vote("bob", "erin")
    g.deadline()
    assert verdict(g)["how"] == "draw"


def test_cas_409_lynched_lover_partner_dies_of_grief() -> None:
    """CAS-409, CAS-234: a lynched Lover takes his partner with him, announced with the lynch."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS niaj olivia")
    g.until("day", 1)
    g.vote("alice", "niaj")
    g.deadline()
    params = verdict(g)
    assert params["grief"] == [{"name": "olivia", "role": "innocent", "partner": "niaj"}]
    assert not g.alive("olivia")


def test_cas_d21_votes_outside_the_day_refused() -> None:
    """CAS-D21, CAS-604: no vote during the night."""
    g = Game()
    assert g.fails("alice", "VOTE dave", "list").reason == "no_vote_now"


def test_cas_d21_vote_for_a_dead_player_refused() -> None:
    """CAS-620, CAS-605: the target must be a living player (never tells a role)."""
    g = day1(kill="niaj")
    error = g.fails("alice", "VOTE niaj", "list")
    assert error.reason == "target_not_living" and dict(error.params) == {"name": "niaj"}


def test_cas_620_bold_name_on_the_list_is_a_vote() -> None:
    """CAS-620: the forum convention: a name in bold in a public post is a vote."""
    _mails, state = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            DEADLINE,
            DEADLINE,
            mail("alice", "Je vote **dave**", "list"),
            DEADLINE,
        ]
    )
    players = {p["name"]: p for p in state["players"]}
    assert not players["dave"]["alive"]
