"""Email mapping: conventions LUP-600, LUP-601, LUP-602, LUP-603, LUP-604, LUP-605, LUP-606, LUP-607, LUP-608 and commands LUP-610, LUP-611, LUP-612, LUP-613, LUP-614, LUP-615, LUP-616, LUP-617, LUP-618, LUP-619, LUP-620, LUP-621, LUP-622.

Bad input gets a specific private reply in the player's language and changes nothing.
"""

from __future__ import annotations

import pytest

from tests.lupus.scenario import FULL16, kill, rejected, unchanged, votes
from tests.support.game_by_mail import Game, address, lupus_roles


@pytest.fixture
def g() -> Game:
    return Game(lupus_roles(11, p4="medium", p5="possessed", p6="bodyguard"))


def test_unregistered_sender_is_refused_and_list_talk_ignored(g: Game) -> None:
    """LUP-600: a player is his registered address; strangers change nothing."""
    reply = unchanged(g, lambda: g.mail("stranger@else.org", "KILL p5"))
    assert "is not registered as a player" in reply
    assert g.last[0].to == ("stranger@else.org",)
    unchanged(g, lambda: g.post("stranger@else.org", "VOTE p1"))
    assert g.last == []


def test_commands_case_and_accent_insensitive_several_per_mail() -> None:
    """LUP-601, LUP-D28: keyword and names case/accent-insensitive; several commands per mail."""
    g = Game(FULL16, lang="fr")
    g.mail("p7", "Bonsoir\nPrOtÉgEr P5\nbla")
    assert "✓ PROTEGER p5" in g.reply()
    assert g.state.action("p7", "protect").targets == ("p5",)
    g.mail("p1", "tuer p13\nLOUPS on y va")
    assert "✓ TUER p13" in g.reply() and "✓ LOUPS on y va" in g.reply()


def test_each_private_command_gets_one_reply_with_deadline(g: Game) -> None:
    """LUP-602: accepted with what was recorded and until when; one reply per mail."""
    g.mail("p3", "scan P1\nPROTECT p2")
    replies = [m for m in g.last if m.auto == "auto-replied"]
    assert len(replies) == 1 and replies[0].to == (address("p3"),)
    assert "✓ SCAN p1 (until Tue 6 Jan 12:00 UTC" in g.reply()
    assert "✗ PROTECT p2 — Your role does not have this power." in g.reply()


def test_rejected_public_vote_gets_a_private_reply(g: Game) -> None:
    """LUP-602, LUP-411: the sender alone is told why; nothing public."""
    g.until("round1")
    reply = rejected(g, "p4", "VOTE nobody", post=True)
    assert '"nobody" is not a player' in reply


def test_new_command_replaces_cancel_removes_pass_records_nothing(g: Game) -> None:
    """LUP-603, LUP-621: same kind replaces; CANCEL removes; PASS records "no action"."""
    g.mail("p6", "PROTECT p4")
    g.mail("p6", "PROTECT p5")
    assert g.state.action("p6", "protect").targets == ("p5",)
    g.mail("p6", "CANCEL PROTECT")
    assert g.state.action("p6", "protect") is None
    g.mail("p6", "PROTECT p4")
    g.mail("p6", "PASS")
    assert g.state.action("p6", "protect") is None and g.state.action("p6", "pass")
    kill(g, "p4")
    g.deadline()
    assert not g.alive("p4")  # the cancelled protection did not save him


def test_an_order_replaced_in_the_same_mail_is_said_replaced_lup_603() -> None:
    """LUP-603: « TUER p4 / TUER p5 » in one mail showed both lines accepted « modifiable
    d'ici là », as if both stood; the earlier is said replaced by the later, in both
    languages, on the list too (LUP-617)."""
    g = Game(lupus_roles(11, p6="bodyguard"), lang="fr")
    g.mail("p1", "TUER p4\nTUER p5")
    assert "✓ TUER p4 (remplacée par TUER p5, plus bas)\n" in g.reply()
    assert "✓ TUER p5 (jusqu'au mardi 6 janvier à 12:00 UTC ; modifiable d'ici là)" in g.reply()
    assert g.state.action("p1", "kill").targets == ("p5",)
    g.mail("p6", "PROTEGER p4\nPROTEGER p5\nPROTEGER p7")
    assert "✓ PROTEGER p4 (remplacée par PROTEGER p7, plus bas)" in g.reply()
    assert "✓ PROTEGER p5 (remplacée par PROTEGER p7, plus bas)" in g.reply()
    g.mail("p6", "PROTEGER p4\nPROTEGER p6")  # the second refused: the first stands
    assert "✓ PROTEGER p4 (jusqu'au" in g.reply() and "remplacée" not in g.reply()
    g = Game(lupus_roles(11), lang="en")
    g.until("round1")
    g.post("p4", "VOTE p1\nVOTE p2")
    assert "✓ VOTE p1 (replaced by VOTE p2, below)\n" in g.reply()
    assert g.state.votes["p4"] == "p2"


def test_an_order_replaced_in_the_same_mail_is_told_to_no_one_lup_612_lup_d18() -> None:
    """LUP-603, LUP-D18, LUP-612: « VOTE p1 / VOTE p2 » in one post put « p4 → p1 » in the
    running tally on the list, a vote that never stood; « TUER p4 / TUER p5 » relayed both
    to the pack. Only what stands after the mail is told; the receipt names both lines."""
    g = Game(lupus_roles(11), lang="en")
    g.mail("p1", "KILL p4\nKILL p5")
    (relay,) = g.to("p2")
    assert "p1 votes to kill p5" in relay.body
    g.until("round1")
    g.post("p4", "VOTE p1\nVOTE p2")
    assert "✓ VOTE p1 (replaced by VOTE p2, below)" in g.reply()
    (tally,) = g.public()
    assert "p4 → p2" in tally.body and "p1" not in tally.body
    # the UNVOTE between withdrew a vote that never stood: only the last line stands
    g.post("p6", "VOTE p1\nUNVOTE\nVOTE p9")
    assert "✓ UNVOTE (replaced by VOTE p9, below)" in g.reply() and g.state.votes["p6"] == "p9"


def test_a_vote_withdrawn_in_the_same_post_is_shown_in_no_tally_lup_620_lup_d18() -> None:
    """LUP-408, LUP-620, LUP-D18: « VOTE p6 / RETIRER » in one round-2 post put « p1 → p6 »
    in the running tally on the list, though p1's vote was withdrawn at once, until the next
    tally. The withdrawn vote is told to no one; the receipt says it was withdrawn. With a
    vote standing from before, the RETIRER withdraws that one, and the tally shows it."""
    for lang, withdraw, said in (
        ("fr", "RETIRER", "(retirée plus bas)"),
        ("en", "UNVOTE", "(withdrawn below)"),
    ):
        g = Game(lupus_roles(8), lang=lang)
        g.mail("p1", "KILL p5")
        g.until("round1")
        for voter, target in (("p1", "p6"), ("p2", "p6"), ("p3", "p7"), ("p4", "p7")):
            g.post(voter, f"VOTE {target}")
        g.until("round2")
        assert g.state.nominees == ("p6", "p7")
        g.post("p1", f"VOTE p6\n{withdraw}")
        assert f"✓ VOTE p6 {said}" in g.reply()
        assert "p1" not in g.state.votes
        assert not [m for m in g.public() if "p6" in m.body]  # nothing stood: nothing told
        g.advance(3600)  # past the running tally's interval
        g.post("p2", "VOTE p7")
        g.advance(3600)
        g.post("p2", f"VOTE p6\n{withdraw}")
        assert "p2" not in g.state.votes
        (tally,) = g.public()
        assert "p2" not in tally.body  # his earlier vote withdrawn, the mail's own never shown


def test_a_chat_line_is_said_passed_on_not_changeable_lup_613() -> None:
    """LUP-613: « LOUPS texte » was acknowledged « (jusqu'au … ; modifiable d'ici là) »,
    but it is relayed at once and nothing of it can be changed."""
    g = Game(lupus_roles(11), lang="fr")
    g.mail("p1", "LOUPS on mange p4 ?\nLOUPS ou p5")
    assert "✓ LOUPS on mange p4 ? (message transmis)\n  ✓ LOUPS ou p5 (message transmis)\n" in (
        g.reply()
    )
    assert "modifiable" not in g.reply()
    g = Game(lupus_roles(11), lang="en")
    g.mail("p1", "PACK p4?")
    assert "✓ PACK p4? (message passed on)\n" in g.reply() and "until" not in g.reply()


def test_cancel_needs_a_keyword_and_a_pending_command(g: Game) -> None:
    """LUP-603, LUP-621: CANCEL alone or of nothing is refused, changes nothing: with
    nothing pending, CANCEL alone says there is nothing to cancel (not which to name)."""
    assert "You have no command pending: nothing to cancel." in rejected(g, "p6", "CANCEL")
    assert "You have no such command pending" in rejected(g, "p6", "CANCEL PROTECT")
    g.mail("p6", "PROTECT p4")
    assert "Say which command to cancel" in rejected(g, "p6", "CANCEL")


def test_cancel_vote_withdraws_like_unvote() -> None:
    """LUP-603, LUP-620, LUP-621: CANCEL VOTE is UNVOTE (a living voter does it on the list).

    Bug fixed: CANCEL VOTE used to crash the engine (naive time) once a tally was posted.
    """
    g = Game(lupus_roles(8))
    g.until("round1")
    g.post("p4", "VOTE p1")
    assert "Votes are public" in rejected(g, "p4", "CANCEL VOTE")
    g.post("p4", "UNVOTE")
    assert "p4" not in g.state.votes


def test_late_night_commands_are_rejected_and_phases_announced(g: Game) -> None:
    """LUP-604: each phase start is public with its deadline; late commands are refused."""
    assert "The night ends Tue 6 Jan 12:00 UTC" in g.public_text(g.sent)
    g.mail("p6", "PROTECT p4")
    g.deadline()
    assert g.phase == "debate"
    assert "only possible at night" in rejected(g, "p3", "SCAN p1")
    assert "only possible at night" in rejected(g, "p6", "CANCEL PROTECT")
    assert "Voting has not started yet: round 1 opens Wed 7 Jan 12:00 UTC" in rejected(
        g, "p4", "VOTE p1", post=True
    )


def _public_schedule(roles: dict[str, str], seer_dies: bool) -> list[tuple[str, object]]:
    g = Game(roles)
    if seer_dies:
        kill(g, "p3")
    out = []
    for _ in range(6):
        out.append((g.phase, dict(g.table.deadlines())))
        g.deadline()
    return out


def test_public_schedule_never_depends_on_hidden_information() -> None:
    """LUP-605: same deadlines whatever the deal and whether the Seer is alive."""
    base = _public_schedule(lupus_roles(9, p4="medium"), seer_dies=False)
    assert base == _public_schedule(lupus_roles(9), seer_dies=True)


def test_replies_never_reveal_roles(g: Game) -> None:
    """LUP-606: an invalid target is "not a living player" / "not allowed", never its role."""
    kill(g, "p3")
    g.deadline()
    g.until("night", 2)
    for sender, body in [("p6", "PROTECT p3"), ("p4", "SCAN p1"), ("p6", "KILL p1")]:
        reply = rejected(g, sender, body)
        assert "Werewolf" not in reply and "Seer" not in reply
    assert "p3 is not a living player" in rejected(g, "p6", "PROTECT p3")


def test_dead_players_commands_are_rejected(g: Game) -> None:
    """LUP-607, LUP-005: an eliminated player can no longer act, in any phase."""
    g.mail("p3", "SCAN p1")
    kill(g, "p3")
    g.deadline()
    assert "You have been eliminated" in rejected(g, "p3", "HELP\nPASS")
    assert "You have been eliminated" in rejected(g, "p3", "VOTE p1", post=True)
    g.until("night", 2)
    assert "You have been eliminated" in rejected(g, "p3", "SCAN p2")


def test_scan_validation(g: Game) -> None:
    """LUP-610: SCAN a living player other than himself, Seer only."""
    assert "cannot choose yourself" in rejected(g, "p3", "SCAN p3")
    assert "Your role does not have this power" in rejected(g, "p4", "SCAN p1")
    assert "Did you mean p1" in rejected(g, "p3", "SCAN px1")
    g.mail("p3", "SCAN p1")
    assert g.state.action("p3", "scan").targets == ("p1",)


def test_protect_validation(g: Game) -> None:
    """LUP-611: PROTECT a living player other than himself, Bodyguard only."""
    assert "cannot choose yourself" in rejected(g, "p6", "PROTECT p6")
    assert "Your role does not have this power" in rejected(g, "p7", "PROTECT p4")
    g.mail("p6", "PROTECT p1")  # a Werewolf may be protected: he does not know
    assert g.state.action("p6", "protect").targets == ("p1",)


def test_kill_validation_and_relay(g: Game) -> None:
    """LUP-612, LUP-712: KILL a living non-Werewolf; each vote relayed to the other wolves."""
    assert "p2 is a Werewolf" in rejected(g, "p1", "KILL p2")
    assert "Your role does not have this power" in rejected(g, "p5", "KILL p4")
    g.mail("p1", "KILL p4")
    relay = g.to("p2")
    assert len(relay) == 1 and "p1 votes to kill p4" in relay[0].body
    assert g.recipients() == {address("p1"), address("p2")}


def test_pack_chat_relayed_to_wolves_only(g: Game) -> None:
    """LUP-613: PACK text relayed with the sender's name, to the other Werewolves only."""
    g.mail("p1", "PACK let us take p4")
    assert g.text_to("p2").endswith("p1: let us take p4\n")
    assert g.recipients() == {address("p1"), address("p2")}
    assert "Your role does not have this power" in rejected(g, "p5", "PACK hello masters")
    assert "The text to send is missing" in rejected(g, "p1", "PACK")
    g.deadline()
    assert "only possible at night" in rejected(g, "p1", "PACK by day")


def test_seers_chat_only_with_two_seers() -> None:
    """LUP-614, LUP-D07: SEERS is refused to a lone Seer, relayed between two Seers."""
    g = Game(FULL16)
    assert "no other Seer" in rejected(g, "p4", "SEERS hello?")
    g.deadline()
    g.until("night", 2)
    g.mail("p12", "COPY p4")
    g.deadline()
    g.until("night", 3)
    g.mail("p12", "SEERS I probe p1")
    assert "p12: I probe p1" in g.text_to("p4")
    assert g.recipients() == {address("p4"), address("p12")}


def test_nominate_validation() -> None:
    """LUP-615, LUP-D11: NOMINATE any living player, himself included; Owl only."""
    g = Game(FULL16)
    g.mail("p8", "NOMINATE p8")
    assert g.state.action("p8", "nominate").targets == ("p8",)
    assert "Your role does not have this power" in rejected(g, "p13", "NOMINATE p1")


def test_copy_only_on_night_two() -> None:
    """LUP-616, LUP-380: COPY during Night 2 only, a living player other than himself."""
    g = Game(FULL16)
    assert "only possible during Night 2" in rejected(g, "p12", "COPY p4")
    g.until("night", 2)
    assert "cannot choose yourself" in rejected(g, "p12", "COPY p12")
    g.mail("p12", "COPY p1")
    assert g.state.action("p12", "copy").targets == ("p1",)


def test_round1_vote_public_on_living_player() -> None:
    """LUP-617, LUP-403: VOTE on the list for a living player; private or dead target refused."""
    g = Game(lupus_roles(8))
    kill(g, "p8")
    g.until("round1")
    assert "Votes are public" in rejected(g, "p4", "VOTE p1")
    assert "p8 is not a living player" in rejected(g, "p4", "VOTE p8", post=True)
    g.post("p4", "I think it is **p1**")  # the forum convention: the name in bold
    assert g.state.votes == {"p4": "p1"}


def test_round2_vote_must_name_a_nominee() -> None:
    """LUP-619, LUP-408: in round 2 a non-nominee votes for a nominee."""
    g = Game(lupus_roles(8))
    g.until("round1")
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    assert "p5 is not nominated: vote for p1 or p2" in rejected(g, "p3", "VOTE p5", post=True)
    g.post("p3", "VOTE p2")
    assert g.state.votes == {"p3": "p2"}


def test_unvote_withdraws(g: Game) -> None:
    """LUP-620: UNVOTE withdraws the voter's vote; without a vote it is refused."""
    g.until("round1")
    assert "no vote to withdraw" in rejected(g, "p4", "UNVOTE", post=True)
    g.post("p4", "VOTE p1")
    g.post("p4", "UNVOTE")
    assert g.state.votes == {}


def test_help_lists_what_the_player_may_do_now(g: Game) -> None:
    """LUP-622: HELP replies with the commands available to this player now."""
    g.mail("p3", "HELP")
    assert "SCAN" in g.reply() and "KILL" not in g.reply() and "PASS" in g.reply()
    g.mail("p1", "HELP")
    assert "KILL" in g.reply() and "PACK" in g.reply() and "SCAN" not in g.reply()


def test_status_tells_own_situation_only(g: Game) -> None:
    """LUP-622, LUP-D25: own role, partners known, phase, deadlines, pending, living."""
    g.mail("p1", "KILL p4")
    g.mail("p1", "STATUS")
    status = g.reply()
    assert "p1: Werewolf (the Werewolves), alive" in status
    assert "You know: p2" in status and "Your pending actions: KILL p4" in status
    assert "Phase: night 1, ends Tue 6 Jan 12:00 UTC" in status
    assert "Living players: p1, p2, p3" in status
    g.mail("p5", "STATUS")
    assert "Possessed" in g.reply() and "You know" not in g.reply()
    g.mail("p1", "CANCEL KILL")
    g.until("round1")
    votes(g, {"p3": "p1", "p4": "p2"})
    g.deadline()
    g.mail("p4", "STATUS")
    assert "Nominees: p1 and p2" in g.reply() and "Werewolf" not in g.reply()


def test_reply_in_the_players_language() -> None:
    """LUP-602, LUP-601: each player's reply is in his own language."""
    g = Game(lupus_roles(8), langs={"p3": "fr"})
    assert "Your role does not have this power" in rejected(g, "p4", "SCAN p1")
    assert "Vous ne pouvez pas vous choisir" in rejected(g, "p3", "SONDER p3")


def test_list_debate_without_commands_gets_no_reply() -> None:
    """LUP-221, LUP-302, LUP-305: debate on the list is free; it changes nothing, no reply."""
    g = Game(lupus_roles(8))
    g.until("debate")
    unchanged(g, lambda: g.post("p1", "I am a simple villager, trust me.\nLook at p4!"))
    assert g.last == []


def test_unknown_private_command_is_named() -> None:
    """LUP-602: a misspelt keyword is rejected with a suggestion."""
    g = Game(lupus_roles(8))
    assert "Unknown command" in rejected(g, "p3", "SACN p1")
    assert "ambiguous" not in g.reply()
    reply = unchanged(g, lambda: g.mail("p3", "just chatting"))
    assert "No command was found" in reply


def test_names_matched_case_accent_insensitive_and_by_unique_prefix() -> None:
    """LUP-D28, LUP-601: "zoe" and "ZOÉ" are Zoé; an ambiguous prefix is refused."""
    roles = lupus_roles(8)
    roles["Zoé"] = roles.pop("p8")
    g = Game(roles)
    g.mail("p1", "KILL zoe")
    g.mail("p2", "KILL ZOÉ")
    assert g.state.action("p1", "kill").targets == g.state.action("p2", "kill").targets
    assert g.state.action("p2", "kill").targets == ("Zoé",)
    assert "could be p1, p2, p3" in rejected(g, "p3", "SCAN p")


def test_command_in_the_subject_of_a_private_mail() -> None:
    """LUP-601, LUP-602: a private mail's Subject is read as a command line too ("Re:" off)."""
    g = Game(lupus_roles(8))
    g.mail("p3", "", subject="Re: SCAN p1")
    assert "✓ SCAN p1" in g.reply() and g.state.action("p3", "scan").targets == ("p1",)


def test_an_order_not_first_on_its_line_is_suggested_in_private_only_lup_601() -> None:
    """LUP-601: a command starts its line; « je sonde p1 » was listed as ignored with no word
    more. The Seer is asked whether he meant SONDER p1 (nothing done); no hint where prose is
    likelier: an order he may not give, words after it, a vote (said on the list), a post."""
    g = Game(lupus_roles(8), lang="fr")
    g.mail("p3", "Bonsoir,\nje sonde p1\nle loup sonde p2 demain\nje vote p2")
    reply = g.reply()
    assert (
        "· je sonde p1 — vouliez-vous dire SONDER p1 ? Une commande commence sa ligne.\n" in reply
    )
    assert "· Bonsoir,\n" in reply and "· le loup sonde p2 demain\n" in reply
    assert "· je vote p2\n" in reply
    assert g.state.action("p3", "scan") is None
    g.mail("p4", "je sonde p1")  # a villager: not his power
    assert "· je sonde p1\n" in g.reply()
    g = Game(lupus_roles(8), lang="en")
    g.mail("p1", "ok, I kill p5")
    assert "· ok, I kill p5 — did you mean KILL p5? A command starts its line.\n" in g.reply()
