"""Lupus in Tabula: setup, night, dawn, two-round vote, victory (LUP rule IDs cited)."""

from __future__ import annotations

from tests.support.game_by_mail import Game, address, lupus_roles


def test_setup_announces_deck_and_deals_roles_privately() -> None:
    """LUP-200, LUP-700, LUP-701, LUP-018, LUP-019: opening public, one role mail each."""
    g = Game(lupus_roles(8))
    opening = g.public(g.sent)[0]
    assert (
        "2 × Werewolf" in opening.body
        and "1 × Seer" in opening.body
        and "5 × Villager" in opening.body
    )
    for name in g.state.order:
        roles = [m for m in g.to(name, g.sent) if "Your role" in m.subject]
        assert len(roles) == 1
        assert g.state.seats[name].role.split("_")[0] in roles[0].body.lower().replace("-", "")
    # LUP-701: the werewolves are not told each other in the role message.
    role_mail = next(m for m in g.to("p1", g.sent) if "Your role" in m.subject)
    assert "p2" not in role_mail.body


def test_game_starts_with_night_one() -> None:
    """LUP-201, LUP-D03, LUP-710: Night 1 is announced publicly with its end."""
    g = Game(lupus_roles(8))
    assert g.phase == "night" and g.number == 1
    assert any("Night 1 falls" in m.subject for m in g.public(g.sent))


def test_wolves_victim_dies_at_dawn_and_is_announced_without_role() -> None:
    """LUP-213, LUP-217, LUP-220, LUP-300, LUP-730, LUP-D20, LUP-103."""
    g = Game(lupus_roles(8))
    g.mail("p1", "KILL p5")
    g.mail("p2", "KILL p5")
    g.deadline()
    assert not g.alive("p5")
    dawn = g.public_text()
    assert "p5 was torn apart" in dawn
    assert "Villager" not in dawn and "Werewolf" not in dawn
    assert g.phase == "debate"


def test_full_day_two_rounds_and_lynch() -> None:
    """LUP-222, LUP-223, LUP-224, LUP-225, LUP-400, LUP-401, LUP-402, LUP-403, LUP-404, LUP-405, LUP-406, LUP-407, LUP-408, LUP-409, LUP-410, LUP-740, LUP-741, LUP-742, LUP-743."""
    g = Game(lupus_roles(8))
    g.deadline()  # quiet night
    g.deadline()  # debate ends, round 1 opens
    assert g.phase == "round1"
    assert "round 1" in g.public_text().lower()
    for voter, target in [("p3", "p1"), ("p4", "p1"), ("p5", "p2"), ("p6", "p2"), ("p7", "p1")]:
        g.post(voter, f"VOTE {target}")
    g.deadline()
    assert g.phase == "defence"
    assert set(g.state.nominees) == {"p1", "p2"}
    result = g.public_text()
    assert "p3 → p1" in result and "p1 3" in result  # LUP-406 every vote, counts
    g.deadline()
    assert g.phase == "round2"
    g.post("p1", "VOTE p2")
    assert "Nominees do not vote" in g.reply()  # LUP-408
    g.post("p3", "VOTE p1")
    g.post("p4", "VOTE p1")
    g.deadline()
    assert not g.alive("p1")
    assert "p1 goes to the gallows" in g.public_text()
    assert "Werewolf" not in g.public_text()  # LUP-410: no role
    assert g.phase == "night" and g.number == 2


def test_villagers_win_when_last_wolf_is_lynched() -> None:
    """LUP-111, LUP-113, LUP-750, LUP-D21, LUP-D26: the whole faction wins, dead included."""
    g = Game(lupus_roles(8))
    g.mail("p1", "KILL p8")
    g.deadline()
    g.until("round1")
    for v in ("p3", "p4", "p5", "p6", "p7"):
        g.post(v, "VOTE p1")
    g.deadline()  # single nominee: lynched (LUP-D16)
    assert not g.alive("p1")
    g.until("round1", 2)
    for v in ("p3", "p4", "p5", "p6", "p7"):
        g.post(v, "VOTE p2")
    g.deadline()
    s = g.summary()
    assert s["status"] == "finished"
    assert s["side"] == "villagers"
    assert "p8" in s["winners"] and "p1" not in s["winners"]
    victory = g.public_text()
    assert "p1: Werewolf" in victory  # full reveal
    g.mail("p3", "STATUS")
    g.post("p4", "VOTE p5")
    assert "game is over" in g.reply()


def test_reply_lists_accepted_rejected_and_ignored() -> None:
    """LUP-602: one reply, canonical form with the deadline, reasons, ignored lines."""
    g = Game(lupus_roles(8))
    g.mail("p3", "Hello!\nSCAN p1\nSCAN nobody\nPROTECT p2")
    reply = g.reply()
    assert "✓ SCAN p1" in reply and "until" in reply
    assert '"nobody" is not a player' in reply
    assert "PROTECT p2 — Your role does not have this power." in reply
    assert "· Hello!" in reply
    assert [m.to for m in g.last] == [(address("p3"),)]


def test_french_replies_and_keywords() -> None:
    """LUP-601: keywords case- and accent-insensitive; the reply in the player's language."""
    g = Game(lupus_roles(8), lang="fr")
    g.mail("p1", "tuer P5")
    assert "✓ TUER p5" in g.reply()
    g.mail("p3", "sonder inconnu")
    assert "n'est pas un joueur" in g.reply()


def test_vote_by_bold_name_in_plain_text_and_html() -> None:
    """LUP-617: the forum convention, the name in bold, is a vote (plain ** or HTML <b>)."""
    g = Game(lupus_roles(8))
    g.until("round1")
    g.post("p3", "I am sure of it, my vote: **p1**")
    g.post("p4", "", html="<p>Je vote <b>p2</b></p><blockquote>VOTE p5</blockquote>")
    assert dict(g.state.votes) == {"p3": "p1", "p4": "p2"}
    g.post("p5", "**p1** or **p2**, I cannot choose")
    assert "several names in bold" in g.reply()
    assert "p5" not in g.state.votes
    g.post("p6", "Just debating, nothing in bold.")
    assert g.last == [] and "p6" not in g.state.votes


def test_non_player_and_ambiguous_names_get_specific_replies() -> None:
    """LUP-600, LUP-D28: unregistered senders are refused; an ambiguous prefix lists names."""
    roles = lupus_roles(8)
    roles["bobby"] = roles.pop("p8")
    roles["bobo"] = roles.pop("p7")
    g = Game(roles)
    g.mail("stranger@else.where", "KILL p5")
    assert "not registered" in g.last[0].body and g.last[0].to == ("stranger@else.where",)
    g.mail("p1", "KILL bob")
    assert '"bob" could be bobby and bobo' in g.reply()
    events = len(g.table.events)
    g.mail("p1", "KILL bobb")
    assert "✓ KILL bobby" in g.reply() and len(g.table.events) > events


def test_final_choices_are_acknowledged_as_final() -> None:
    """LUP-D18: with vote_changes_allowed off, the receipt says the vote is final."""
    g = Game(lupus_roles(8), options={"vote_changes_allowed": False})
    g.until("round1")
    g.post("p3", "VOTE p1")
    assert "✓ VOTE p1 (final)" in g.reply()


def test_early_close_is_reported_in_the_reply() -> None:
    """LUP-D29: when the last actor acts, the phase closes at once and he is told."""
    roles = lupus_roles(8)
    g = Game(roles, options={"early_close": True})
    for name in roles:
        if name != "p8":
            g.mail(name, "PASS")
    assert g.phase == "night"
    g.mail("p8", "PASS")
    assert g.phase == "debate"
    assert "closed early" in g.reply()


def test_pack_chat_with_no_living_partner_is_refused() -> None:
    """LUP-613: the relay needs another living werewolf to hear it."""
    g = Game(lupus_roles(8))
    g.until("round1")
    for v in ("p3", "p4", "p5"):
        g.post(v, "VOTE p2")
    g.deadline()
    g.until("night", 2)
    g.mail("p1", "PACK anyone?")
    assert "No other living player" in g.reply()


def test_unknown_name_reply_lists_the_players() -> None:
    """LUP-D28, LG-D42: an unknown name is rejected with the valid names and a suggestion."""
    g = Game(lupus_roles(8))
    g.mail("p1", "KILL p9")
    reply = g.reply()
    assert '"p9" is not a player.' in reply
    assert "Players: p1, p2, p3, p4, p5, p6, p7, p8." in reply


def test_unknown_name_reply_lists_the_dead_apart_lup_d28() -> None:
    """LUP-D28: « VOTE Zoé » listed the dead among « Joueurs », as names a vote could take;
    the living are listed, the dead apart, in French and English."""
    for lang, line, expected in (
        ("fr", "VOTE zoe", "Joueurs encore en jeu : p1, p2, p3, p4, p6, p7, p8 ; hors jeu : p5."),
        (
            "en",
            "VOTE zoe",
            "Players still in the game: p1, p2, p3, p4, p6, p7, p8; out of the game: p5.",
        ),
    ):
        g = Game(lupus_roles(8), lang=lang)
        g.mail("p1", "KILL p5")
        g.until("round1")
        g.mail("p4", line)
        assert expected in g.reply()
