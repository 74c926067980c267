"""The day: the sanctuary vote and dusk (sections 4 and 5)."""

from __future__ import annotations

from tests.dracula.scenario import QUIET, Game, advance


def day2(options: dict[str, object] | None = None) -> Game:
    g = Game(options={**QUIET, **(options or {})})
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    assert g.phase == "day" and g.state.number == 2
    return g


def test_appendix_a1_tie_break_by_speed() -> None:
    """Appendix A.1, DRA-048, DRA-049, AMB-012: B (2 at #3), A (#5), C (#6); D is out."""
    g = day2()
    g.state  # noqa: B018
    votes = [("Eve", "Cid"), ("Fay", "Dan"), ("Gus", "Dan"), ("Hal", "Eve")]
    votes += [("Ivy", "Cid"), ("Jon", "Eve"), ("Kim", "Fay")]
    for voter, target in votes:  # A=Cid, B=Dan, C=Eve, D=Fay
        g.do(voter, f"VOTE {target}", "list")
    g.mark()
    g.close("day")
    assert g.state.designated == ("Dan", "Cid", "Eve")
    dusk = g.public("dusk")[0]  # DRA-070, AMB-006, AMB-015: public, with counts
    assert [d["name"] for d in dusk.params["designated"]] == ["Dan", "Cid", "Eve"]
    assert [d["votes"] for d in dusk.params["designated"]] == [2, 2, 2]


def test_everyone_votes_once_publicly_and_cannot_change() -> None:
    """DRA-042, DRA-043, DRA-044, DRA-045, AMB-011: one public vote each, vampires too."""
    g = day2()
    assert g.fails("Cid", "VOTE Dan") == "vote_on_list"  # DRA-044: a vote is public
    g.do("Ana", "VOTE Dan", "list")  # Dracula votes too (DRA-043)
    g.do("Bob", "VOTE Bob", "list")  # self-vote allowed (AMB-011)
    assert g.fails("Ana", "VOTE Cid", "list") == "vote_final"  # DRA-045
    assert len(g.state.votes) == 2


def test_bold_name_is_a_vote() -> None:
    """DRA-044, AMB-081: a name in bold on the list is a vote."""
    g = day2()
    cmd = g.rules.bold_command(g.state, "Cid", ["Dan"])
    assert cmd is not None and cmd.verb == "vote" and cmd.targets == ("Dan",)


def test_lost_vote_after_dusk() -> None:
    """DRA-046: a player who has not voted before dusk loses his vote."""
    g = day2()
    g.do("Cid", "VOTE Dan", "list")
    g.close("day")
    assert g.state.designated == ("Dan",)  # nobody else voted: seats stay empty (QUIET)
    assert g.fails("Eve", "VOTE Fay", "list") == "no_sanctuary_vote"


def test_no_second_designated_night_but_key_nights_do_not_count() -> None:
    """DRA-047, DRA-050, DRA-312: designated once per round; a key night is a bonus."""
    g = day2()
    g.do("Cid", "VOTE Dan", "list")
    g.close("day")
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.fails("Eve", "VOTE Dan", "list") == "not_eligible"
    g2 = advance(Game(options=QUIET), 3)
    g2.give("Cid", "key")
    g2.do("Cid", "KEY")
    g2.night({"Bob": "dungeons"})
    g2.finish_night()
    g2.do("Eve", "VOTE Cid", "list")  # the key night did not use up his designated night
    assert g2.state.votes[-1][:2] == ("Eve", "Cid")


def test_designated_stay_in_sanctuary_and_send_no_room() -> None:
    """DRA-023, DRA-071, DRA-081: designated players spend the night in the sanctuary."""
    g = day2()
    g.do("Cid", "VOTE Dan", "list")
    g.close("day")
    assert g.fails("Dan", "ROOM boudoir") == "in_sanctuary"
    assert g.fails("Eve", "ROOM sanctuary") == "sanctuary_not_a_room"
    g.night({"Bob": "dungeons"})
    g.finish_night()
    pos = {p["name"]: p["position"] for p in g.public("morning", False)[-1].params["positions"]}
    assert pos["Dan"] == "sanctuary"


def test_fill_empty_seats_random_keeps_three_per_night() -> None:
    """DRA-016, DRA-024, AMB-013: three seats every night, filled at random for lack of votes;
    over Nights 2–5 exactly 12 distinct players are designated and one never is."""
    g = Game()
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    designated: list[str] = []
    for _ in range(4):
        g.day()
        assert len(g.state.designated) == 3
        designated += g.state.designated
        g.night({"Bob": "dungeons"})
        g.finish_night()
    assert len(set(designated)) == 12


def test_dusk_day4_opens_the_pairing() -> None:
    """DRA-072, DRA-220, DRA-221: after the Day 4 designation, a pairing window."""
    g = advance(Game(options=QUIET), 3)
    g.night({"Bob": "dungeons"})
    g.finish_night()
    g.do("Cid", "VOTE Dan", "list")
    g.mark()
    g.close("day")
    assert g.phase == "pairing"
    opened = g.public("pairing_open")[0]
    assert "Dan" not in opened.params["players"] and len(opened.params["players"]) == 12


def _rendered(template: str, params: dict[str, object]) -> tuple[str, str]:
    from pbem.mail.render import Renderer

    r = Renderer()
    full = {"game": "Dracula", "name": "Ana", **params}
    return r.text(f"dracula/{template}", "fr", full), r.text(f"dracula/{template}", "en", full)


def test_amb_015_publish_tally_false_names_who_stays_without_counts() -> None:
    """AMB-015 publish_tally = false: dusk names the three designated players, without
    their counts nor the ranking (the default gives both: test_appendix_a1…)."""
    g = day2({"publish_tally": False})
    for voter, target in [("Eve", "Cid"), ("Fay", "Dan"), ("Gus", "Dan"), ("Hal", "Eve")]:
        g.do(voter, f"VOTE {target}", "list")
    g.mark()
    g.close("day")
    assert g.state.designated == ("Dan", "Cid", "Eve")
    (dusk,) = g.public("dusk")
    assert dusk.params["designated"] == [{"name": "Dan"}, {"name": "Cid"}, {"name": "Eve"}]
    assert dusk.params["ranking"] == []
    fr, en = _rendered("dusk", dict(dusk.params))
    assert "sanctuaire cette nuit : Dan, Cid et Eve." in fr
    assert "sanctuary tonight: Dan, Cid and Eve." in en
    assert "voix" not in fr and "Classement" not in fr and "vote" not in en


def test_amb_015_running_tally_posts_the_votes_at_most_every_interval() -> None:
    """AMB-015 running_tally = true: a vote brings a public tally on the list (every vote so
    far, the counts in dusk's order: DRA-048's speed breaks a tie), then none until
    tally_min_interval has passed; a new day starts afresh."""
    from datetime import timedelta

    g = day2({"running_tally": True, "tally_min_interval": "30min"})
    g.mark()
    g.do("Eve", "VOTE Cid", "list")
    (first,) = g.public("tally")
    assert first.params["votes"] == [{"voter": "Eve", "target": "Cid"}]
    g.now += timedelta(minutes=10)
    g.do("Fay", "VOTE Dan", "list")
    g.do("Gus", "VOTE Dan", "list")
    assert len(g.public("tally")) == 1  # within the interval: no tally
    g.now += timedelta(minutes=25)
    g.do("Hal", "VOTE Cid", "list")
    second = g.public("tally")[1].params
    assert [v["voter"] for v in second["votes"]] == ["Eve", "Fay", "Gus", "Hal"]
    # Dan reached 2 votes (Gus) before Cid (Hal): Dan ranks first
    assert second["ranking"] == [{"name": "Dan", "votes": 2}, {"name": "Cid", "votes": 2}]
    fr, en = _rendered("tally", dict(second))
    assert "décompte provisoire" in fr.splitlines()[0] and "Décompte : Dan 2, Cid 2." in fr
    assert "  Eve → Cid" in fr and "Count: Dan 2, Cid 2." in en
    g.close("day")
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.phase == "day" and g.state.number == 3 and g.state.last_tally is None
    g.mark()
    g.do("Ivy", "VOTE Jon", "list")  # the next day's first vote is tallied at once
    assert g.public("tally")[0].params["votes"] == [{"voter": "Ivy", "target": "Jon"}]


def test_amb_015_no_running_tally_by_default() -> None:
    """AMB-015 running_tally = false (default): a vote posts nothing."""
    g = day2()
    g.mark()
    g.do("Eve", "VOTE Cid", "list")
    assert not g.public("tally")
