"""Removing a seat (``RETIRER``/``REMOVE``, and the idle policy's removal): the announcement,
and per game the death triggers that fire or not, each citing the rule it rests on
(docs/seats.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.core.errors import CommandError
from pbem.core.events import PlayerDied, SeatRemoved
from pbem.core.ids import PlayerId
from pbem.games.dracula.events import Designated
from pbem.games.loupgarou.state import MayorChanged, PowersLost
from pbem.games.removal import removal_events
from tests.chasse.scenario import Game as Chasse
from tests.chasse.scenario import notices
from tests.desk.desk_game import ADMIN, GAMES, DeskGame
from tests.support.game_by_mail import address


def remove(g: Chasse, player: str, reason: str = "") -> list[Any]:
    """A removal on the rules-level Chasse harness (what the desk runs)."""
    new = removal_events(
        g.rules,
        g.state,
        PlayerId(player),
        reason=reason,
        by=ADMIN,
        now=g.now,
        rng=random.Random(1),
    )
    return g._apply(new)


# -- the desk command, every game ---------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_remove_by_the_game_master_kills_the_seat_and_announces_it(game: str) -> None:
    g = DeskGame(game)
    name = g.names[3]
    g.admin(f"REMOVE {name} away until Sunday")
    assert "REMOVE" in g.admin_reply()
    assert not g.alive(name)
    (post,) = [m for m in g.public() if "leaves the game" in m.subject]
    assert "The game master has removed" in post.body
    assert "(reason: away until Sunday)" in post.body
    # removal_reveal = "as_death": the card shows where a death shows it; never in Lupus
    # (Loup-Garou's as its deaths do, with the team and every condition: LG-100)
    shown = "dave was the Seer, on the Villagers team." if game == "loup-garou" else "Role: "
    assert (shown in post.body) == (game != "lupus-in-tabula")
    assert any(m.to == (address(name),) and "left the game" in m.subject for m in g.last)
    removed = [e for e in g.table.events if isinstance(e, SeatRemoved)]
    assert removed == [SeatRemoved(PlayerId(name), "away until Sunday", ADMIN)]
    assert PlayerDied(PlayerId(name), "removed") in g.table.events


@pytest.mark.parametrize("game", GAMES)
def test_remove_is_refused_for_a_seat_already_out(game: str) -> None:
    g = DeskGame(game)
    name = g.names[3]
    g.admin(f"REMOVE {name}")
    events = len(g.table.events)
    g.admin(f"REMOVE {name}")
    assert "no longer in the game" in g.admin_reply()
    assert len(g.table.events) == events


def test_lupus_removal_keeps_the_card_secret_as_any_death_does() -> None:
    """LUP-103: roles are never revealed during the game, "eliminated ... or otherwise"."""
    g = DeskGame("lupus-in-tabula")
    g.admin("REMOVE p4")
    (post,) = [m for m in g.public() if "leaves the game" in m.subject]
    assert "Role" not in post.body
    g = DeskGame("lupus-in-tabula", options={"removal_reveal": "always"})
    g.admin("REMOVE p4")
    (post,) = [m for m in g.public() if "leaves the game" in m.subject]
    assert "Role: Villager." in post.body


def test_removal_reveal_never_hides_the_card_where_a_death_shows_it() -> None:
    """LG-100 shows a dead player's card; ``removal_reveal = "never"`` hides a removed one's."""
    g = DeskGame("loup-garou", options={"removal_reveal": "never"})
    g.admin("REMOVE dave")
    (post,) = [m for m in g.public() if "leaves the game" in m.subject]
    assert "Role" not in post.body


def test_removal_announcement_agrees_with_the_player_in_french() -> None:
    """« Alice a été retirée » when she said "f"; a neutral wording when unknown."""
    g = DeskGame("lupus-in-tabula", lang="fr", genders={"p4": "f"})
    g.admin("RETIRER p4")
    (post,) = [m for m in g.public() if "quitte la partie" in m.subject]
    assert post.body.startswith("p4 a été retirée de la partie par le meneur.")
    g.admin("RETIRER p5 absent")
    post = [m for m in g.public() if "quitte la partie" in m.subject][-1]
    assert post.body.startswith("Le meneur a retiré p5 de la partie (raison : absent).")


def test_desk_help_lists_remove() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.admin("AIDE")
    assert "RETIRER nom [raison]" in g.admin_reply()


# -- Lupus in Tabula ----------------------------------------------------------------------


def test_lupus_removing_the_last_wolves_ends_the_game_at_once() -> None:
    """LUP-110: the victory is checked on the removal."""
    g = DeskGame("lupus-in-tabula")
    g.admin("REMOVE p1\nREMOVE p2")
    assert g.table.finished
    assert g.table.rules.outcome(g.state).side == "villagers"


def test_lupus_removed_player_is_no_ghost_and_his_vote_is_withdrawn() -> None:
    """LUP-501, LUP-502, LUP-620: only the torn apart or lynched become ghosts; a removed
    player is gone, and his vote is withdrawn."""
    g = DeskGame("lupus-in-tabula", options={"ghost_variant": True})
    g.until("round1")
    g.post("p4", "VOTE p5")
    g.admin("REMOVE p4")
    assert PlayerId("p4") not in g.state.votes
    assert PlayerId("p4") not in g.state.ghosts()


# -- Loup-Garou -----------------------------------------------------------------------------


def loupgarou_night1(mayor: str = "ivan") -> DeskGame:
    g = DeskGame("loup-garou", lang="fr")
    g.deadline()  # the bite window
    for n in g.names:
        g.mail(n, f"MAIRE {mayor}")
    g.deadline()  # the election
    assert g.state.phase == "night" and g.state.mayor == mayor
    return g


def test_loupgarou_removing_a_lover_kills_the_other_of_grief() -> None:
    """LG-422: the other Lover dies of grief, whatever took the first."""
    g = loupgarou_night1()
    g.mail("frank", "AMOUREUX nick olivia")
    g.until("night", 2)
    g.mail("frank", "AMOUREUX nick olivia")
    g.until("day", 2)
    assert g.state.lovers == ("nick", "olivia")
    g.admin("RETIRER nick")
    assert not g.alive("olivia") and g.state.seat("olivia").cause == "grief"
    (post,) = [m for m in g.public() if "quitte la partie" in m.subject]
    assert "olivia meurt de chagrin" in post.body


def test_loupgarou_removal_reveals_identity_team_and_conditions_as_any_death() -> None:
    """LG-100 (LG-399): a death shows the player's identity, his team and every condition at
    the moment of death; a removal and the grief death it brings are deaths like the others
    (issue 22: the announcement showed the card only)."""
    g = loupgarou_night1(mayor="nick")
    g.mail("frank", "AMOUREUX nick olivia")
    g.until("night", 2)
    g.mail("frank", "AMOUREUX nick olivia")
    g.until("day", 2)
    g.admin("RETIRER nick")
    (post,) = [m for m in g.public() if "quitte la partie" in m.subject]
    team = "dans l'équipe des Villageois"
    assert f"nick était un Simple villageois, {team} ; nick portait l'écharpe de Maire" in (
        post.body
    ), post.body
    assert "nick portait l'écharpe de Maire et faisait partie du couple d'Amoureux" in post.body
    grief = "olivia meurt de chagrin, inconsolable de la mort de nick. olivia était"
    assert grief in post.body and "olivia faisait partie du couple d'Amoureux" in post.body


def test_loupgarou_removed_mayor_is_followed_by_a_drawn_mayor() -> None:
    """LG-404, LG-D31: the removed Mayor passes no sash; a living player is drawn."""
    g = loupgarou_night1(mayor="ivan")
    g.admin("RETIRER ivan")
    changed = [e for e in g.table.events if isinstance(e, MayorChanged)]
    assert len(changed) == 1 and changed[0].by is None
    assert g.alive(changed[0].mayor) and g.state.mayor == changed[0].mayor
    new_mayor = [m for m in g.public() if "écharpe de Maire passe" in m.subject]
    assert "(tirage au sort : ivan n'a pas choisi)" in new_mayor[0].body


def test_loupgarou_removed_elder_takes_the_villagers_powers() -> None:
    """LG-385 (« quand l'ancien meurt »): any death of the Ancien, a removal included."""
    g = loupgarou_night1()
    g.admin("RETIRER grace")
    (lost,) = [e for e in g.table.events if isinstance(e, PowersLost)]
    assert "dave" in lost.players and "eve" in lost.players  # the Voyante, the Sorcière
    assert "alice" not in lost.players  # LG-D19: the Wolves keep theirs


def test_loupgarou_removing_both_wolves_ends_the_game() -> None:
    """LG-110, LG-114 (b)."""
    g = loupgarou_night1()
    g.admin("RETIRER alice\nRETIRER bob")
    assert g.table.finished and g.table.rules.outcome(g.state).side == "villagers"


def test_loupgarou_removed_voter_s_vote_no_longer_counts() -> None:
    """LG-623 (a vote stands until withdrawn), docs/seats.md: a removal withdraws the seat's
    vote of the day, as his own ``ANNULER`` would; nobody is lynched on it."""
    g = loupgarou_night1(mayor="ivan")
    g.until("day", 1)
    g.post("judy", "VOTE nick")
    g.admin("RETIRER judy")
    assert "judy" not in g.state.votes
    g.deadline()
    assert g.alive("nick")


# -- Chasse aux sorcières -------------------------------------------------------------------


def test_chasse_removing_a_lover_kills_the_other_of_grief() -> None:
    """CAS-234, CAS-335: if one Lover dies, the other dies of grief at once."""
    g = Chasse()
    g.deadline()
    g.do("carol", "LOVERS niaj olivia")
    g.deadline()
    events = remove(g, "niaj")
    assert not g.alive("olivia") and g.state.seat("olivia").cause == "grief"
    (post,) = [e for e in events if getattr(e, "template", "") == "seats/removed"]
    assert post.params["deaths"][0]["name"] == "olivia"


def test_chasse_removed_prue_takes_no_revenge() -> None:
    """CAS-320, CAS-325, CAS-D17: only a Prue killed by the Demons or lynched retaliates."""
    g = Chasse()
    g.until("day", 1)
    events = remove(g, "bob")
    assert not g.alive("bob")
    assert notices(events, "revenge_prompt") == []
    assert g.state.revenge is None


def test_chasse_removed_cole_ends_the_cole_power() -> None:
    """CAS-395: step 9 is no longer played once the holder of the Cole card is eliminated."""
    g = Chasse()
    assert g.state.cole_active()
    remove(g, "mallory")
    assert not g.state.cole_active()


def test_chasse_removing_the_demons_lets_the_forces_of_good_win() -> None:
    """CAS-101: no Demon left."""
    g = Chasse()
    for demon in ("dave", "erin", "frank"):
        remove(g, demon)
    assert g.side == "good"


def test_chasse_removed_voter_s_vote_no_longer_counts() -> None:
    """CAS-621 (a vote stands until withdrawn), docs/seats.md: a removal withdraws it."""
    g = Chasse()
    g.until("day", 1)
    g.vote("alice", "niaj")
    remove(g, "alice")
    assert "alice" not in g.state.votes
    g.deadline()
    assert g.alive("niaj")


# -- Dracula ----------------------------------------------------------------------------


def test_dracula_holder_cannot_be_removed() -> None:
    """DRA-015, DRA-325: Dracula leaves no round before its end: replace him instead."""
    g = DeskGame("dracula")
    g.admin("REMOVE ana")
    assert "holds Dracula" in g.admin_reply()
    assert g.alive("ana")


def test_dracula_removed_seat_stays_out_of_the_next_rounds_and_scores_nothing() -> None:
    """DRA-326, DRA-443, AMB-068, AMB-075: out for the round and, removed, for the match."""
    g = DeskGame("dracula", options={"rounds": 2})
    g.admin("REMOVE bob")
    for _ in range(60):
        if g.state.round == 2 or g.table.finished:
            break
        g.deadline()
    assert g.state.round == 2
    assert not g.alive("bob") and g.state.seat("bob").cause == "removed"
    assert g.state.scores["bob"] == 0  # every seat still in the round scored at least 1
    assert min(n for p, n in g.state.scores.items() if p != "bob") >= 1
    assert g.state.dracula() != "bob"


def test_dracula_removed_voter_s_vote_no_longer_counts_at_dusk() -> None:
    """DRA-326, AMB-011, AMB-014: only a living player's vote counts; a player removed during
    the day loses the vote he cast that day (AMB-012's order is over the votes left)."""
    g = DeskGame("dracula")
    g.until("day", 2)
    for voter, target in [("bob", "cid"), ("dan", "cid"), ("eve", "fay")]:
        g.post(voter, f"VOTE {target}")
    g.post("gus", "VOTE fay")
    g.post("hal", "VOTE gus")
    g.admin("REMOVE dan")
    assert all(voter != "dan" for voter, _, _ in g.state.votes)
    g.deadline()
    (dusk,) = [e for e in g.table.events if isinstance(e, Designated)]
    assert dict(dusk.counts) == {"cid": 1, "fay": 2, "gus": 1}
    assert dusk.players == ("fay", "cid", "gus")


def test_dracula_removed_in_the_pairing_window_frees_the_partner_to_pair_again() -> None:
    """AMB-030 (a pair is two living players), DRA-225, DRA-231: a seat removed while the
    Night 4 pairing window is open leaves its pair; the partner is told, may pair again, and is
    otherwise paired at random at the close. The removed seat is in no posted pair (NTF-09)."""
    g = DeskGame("dracula")
    g.until("pairing")
    unpaired = [p for p in g.state.living() if p not in g.state.designated]
    unpaired.remove(g.state.dracula())  # DRA-015: Dracula cannot be removed
    naming, named, other = unpaired[0], unpaired[1], unpaired[2]
    g.post(naming, f"PARTNER {named}")
    assert g.state.pairs == {naming: named}
    g.admin(f"REMOVE {named}")
    assert g.state.pairs == {}
    (told,) = [m for m in g.to(naming) if "your partner has left" in m.subject]
    assert f"{named} has left the game" in told.body and "PARTNER name" in told.body
    g.post(naming, f"PARTNER {other}")  # DRA-223 binds his own choice, not the removal
    assert g.state.pairs == {naming: other}
    g.deadline()
    (posted,) = [m for m in g.public() if "Night 4 partners" in m.subject]
    assert named not in posted.body
    assert all(named not in (a, b) for a, b in g.state.pairs.items())


def test_dracula_removed_in_the_pairing_window_leaves_the_naming_partner_free() -> None:
    """The same when the removed seat had named its partner: the named partner is back among
    the unpaired and the close pairs him (AMB-030) unless he is the odd one out (DRA-225)."""
    g = DeskGame("dracula")
    g.until("pairing")
    unpaired = [p for p in g.state.living() if p not in g.state.designated]
    unpaired.remove(g.state.dracula())  # DRA-015: Dracula cannot be removed
    naming, named = unpaired[0], unpaired[1]
    g.post(naming, f"PARTNER {named}")
    g.admin(f"REMOVE {naming}")
    assert g.state.pairs == {}
    assert any("your partner has left" in m.subject for m in g.to(named))
    g.deadline()
    paired = {p for pair in g.state.pairs.items() for p in pair}
    assert naming not in paired
    left = [p for p in unpaired if p != naming]
    assert len(paired) == len(left) - len(left) % 2
    assert named in paired or len(left) % 2 == 1


def test_removal_refused_for_a_name_not_at_the_table() -> None:
    g = DeskGame("lupus-in-tabula")
    g.admin("REMOVE nobody")
    assert "rejected" in g.admin_reply().lower()
    with pytest.raises(CommandError):
        removal_events(
            g.table.rules,
            g.state,
            PlayerId("p9"),
            reason="",
            by=ADMIN,
            now=g.now,
            rng=random.Random(0),
        )


def lupus_round2() -> DeskGame:
    g = DeskGame("lupus-in-tabula")
    g.until("round1")
    for voter, target in [("p3", "p5"), ("p4", "p5"), ("p6", "p7"), ("p8", "p7"), ("p1", "p6")]:
        g.post(voter, f"VOTE {target}")
    g.until("round2")
    assert set(g.state.nominees) == {"p5", "p7"}
    return g


def test_lupus_removed_nominee_leaves_round_two_to_the_other() -> None:
    """LUP-408, LUP-409: round 2 is between the nominees still in the game; a vote for the
    removed one counts for nobody."""
    g = lupus_round2()
    g.post("p3", "VOTE p5")
    g.post("p4", "VOTE p5")
    g.post("p6", "VOTE p7")
    g.admin("REMOVE p5")
    assert g.state.nominees == ("p7",)
    g.deadline()
    assert g.state.seat("p5").cause == "removed"  # never "lynched" after his removal
    assert not g.alive("p7") and g.state.seat("p7").cause == "lynch"


def test_lupus_with_every_nominee_removed_nobody_is_lynched() -> None:
    g = lupus_round2()
    g.admin("REMOVE p5\nREMOVE p7")
    g.deadline()
    assert g.state.seat("p5").cause == g.state.seat("p7").cause == "removed"
    (result,) = [m for m in g.last if "round 2 result" in m.subject]
    assert "No nominee is left: nobody is lynched today." in result.body


def test_loupgarou_tied_player_removed_is_out_of_the_mayors_tiebreak() -> None:
    """LG-527, LG-D32: the silent Mayor's draw picks among the tied still in the game."""
    g = loupgarou_night1(mayor="ivan")
    g.until("day", 1)
    g.post("judy", "VOTE nick")
    g.post("peggy", "VOTE olivia")
    g.deadline()
    assert g.state.phase == "tiebreak" and set(g.state.tied) == {"nick", "olivia"}
    g.admin("RETIRER nick")
    g.deadline()
    assert g.state.seat("nick").cause == "removed"
    assert g.state.seat("olivia").cause == "lynch"


@pytest.mark.parametrize(
    ("genders", "said"),
    [
        ({"nick": "f", "olivia": "f"}, "les ex æquo ont toutes quitté la partie."),
        ({"nick": "m", "olivia": "f"}, "les ex æquo ont tous quitté la partie."),
        ({}, "les ex æquo ont tous quitté la partie."),
    ],
)
def test_loupgarou_every_tied_player_removed_no_lynch_agrees_with_them(
    genders: dict[str, str], said: str
) -> None:
    """LG-D32 (docs/seats.md): with every tied player removed before the Mayor decides,
    nobody is lynched; the announcement agrees with the tied (« toutes » for women only)."""
    g = DeskGame("loup-garou", lang="fr", genders=genders)
    g.deadline()  # the bite window
    for n in g.names:
        g.mail(n, "MAIRE ivan")
    g.deadline()  # the election
    g.until("day", 1)
    g.post("judy", "VOTE nick")
    g.post("peggy", "VOTE olivia")
    g.deadline()
    assert g.state.phase == "tiebreak" and set(g.state.tied) == {"nick", "olivia"}
    g.admin("RETIRER nick\nRETIRER olivia")
    g.deadline()
    (post,) = [m for m in g.last if "le lynchage" in m.subject]
    assert f"Pas de lynchage aujourd'hui : {said}" in post.body


def test_chasse_tied_player_removed_is_out_of_the_tiebreak_draw() -> None:
    """CAS-405, CAS-D20, CAS-D29: Penny's silent tie-break draws among the tied left."""
    g = Chasse()
    g.until("day", 1)
    g.vote("alice", "niaj")
    g.vote("bob", "olivia")
    g.deadline()
    assert g.state.tie is not None and set(g.state.tie.tied) == {"niaj", "olivia"}
    remove(g, "niaj")
    g.deadline()
    assert g.state.seat("niaj").cause == "removed"
    assert g.state.seat("olivia").cause == "lynch"


def test_a_seat_removed_for_inactivity_gets_no_prompt_of_the_phase_it_is_removed_at() -> None:
    """Issue 22: the Seer removed as the night opens was sent that night's SCAN prompt a
    second before her removal notice; the close that removes her mails her only the notice."""
    g = DeskGame(
        "lupus-in-tabula",
        options={"idle_warn_after": 0, "idle_act_after": 3, "on_idle": "remove"},
    )
    while g.alive("p3"):
        for p in g.living():  # everyone plays but the Seer
            if p == "p3":
                continue
            if g.phase == "night" and p in ("p1", "p2"):
                g.mail(p, "KILL p8")
            elif g.phase in ("round1", "round2"):
                g.post(p, f"VOTE {'p7' if p != 'p7' else 'p6'}")
        g.deadline()
    assert g.phase == "night"
    to_her = [m.subject for m in g.last if m.to == (address("p3"),)]
    assert to_her and all("left the game" in s for s in to_her), to_her
    assert any(m.to == (address("p4"),) for m in g.last) or g.public()  # the night opened
