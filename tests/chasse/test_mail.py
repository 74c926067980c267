"""The email mapping: CAS-600, CAS-601, CAS-602, CAS-603, CAS-604, CAS-605, CAS-606, CAS-607, CAS-624, CAS-625, CAS-D28, CAS-D29, CAS-D31, and the
rejection replies in both languages."""

from __future__ import annotations

import pytest

from pbem.core.errors import CommandError
from pbem.core.events import Notice
from tests.chasse.scenario import (
    DEADLINE,
    NAMES,
    Game,
    mail,
    mails_to,
    notices,
    run,
    setup_line,
)


def replies(mails: list[dict[str, object]], who: str) -> list[str]:
    return [str(m["body"]) for m in mails_to(mails, who) if "command" in str(m["subject"])]


def test_cas_600_unregistered_sender_rejected() -> None:
    """CAS-600: a player is identified by his registered address; other senders are rejected."""
    mails, _ = run([setup_line(), {"mail": {"from": "eve@evil.org", "body": "KILL alice"}}])
    (reply,) = [m for m in mails if m["to"] == ["eve@evil.org"]]
    assert "not registered" in reply["body"]


def test_cas_601_602_several_commands_free_text_and_replies() -> None:
    """CAS-601, CAS-602: one mail, several command lines and free text; a reply lists what was
    accepted (with the deadline) and what was rejected, and ignores the rest."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "Hello moderator\nCOUNCIL niaj?\nKILL niaj\nKILL dave"),
        ]
    )
    (body,) = replies(mails, "dave")
    assert "✓ COUNCIL niaj?" in body and "✓ KILL niaj (until" in body
    assert "✗ KILL dave — You cannot choose yourself." in body
    assert "Hello moderator" in body  # listed as ignored


def test_cas_602_rejected_public_command_gets_a_private_reply() -> None:
    """CAS-602: a rejected public vote gets a private reply to its sender."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            DEADLINE,
            DEADLINE,
            mail("dave", "VOTE dave", "list"),
            mail("carol", "VOTE nobody", "list"),
        ]
    )
    (body,) = replies(mails, "carol")
    assert "✗" in body and "nobody" in body
    assert mails_to(mails, "carol")[-1]["to"] == ["carol@example.org"]


def test_cas_603_624_replace_cancel_and_pass() -> None:
    """CAS-603, CAS-624: a new command replaces the old; ANNULER removes it; RIEN records
    "no action"."""
    g = Game()
    g.until("W1")
    g.do("alice", "SCAN dave")
    g.do("alice", "SCAN erin")
    assert g.state.action("alice", "scan").targets == ("erin",)  # type: ignore[arg-type, union-attr]
    g.do("alice", "ANNULER SONDER")
    assert g.state.action("alice", "scan") is None  # type: ignore[arg-type]
    assert g.fails("alice", "CANCEL SCAN").reason == "nothing_to_cancel"
    assert g.fails("alice", "CANCEL").reason == "nothing_standing"  # nothing left to cancel
    g.do("alice", "RIEN")
    assert g.state.action("alice", "pass") is not None  # type: ignore[arg-type]
    g.deadline()
    assert notices(g.last, "phoebe_result") == []
    g.until("day")
    assert g.fails("alice", "PASS").reason == "nothing_to_pass"


def test_cas_603_cancel_a_vote() -> None:
    """CAS-603: ANNULER VOTE withdraws the vote."""
    g = Game()
    g.until("day")
    g.vote("alice", "dave")
    g.do("alice", "CANCEL VOTE", "list")
    assert g.state.votes == {}


def test_cas_604_late_commands_rejected() -> None:
    """CAS-604: each phase start is announced with its deadline; a command of a closed
    sub-phase is rejected."""
    g = Game()
    g.until("W2")
    assert g.fails("alice", "SCAN dave").reason == "subphase_only"
    assert g.fails("ivan", "TAKE DEMON").reason == "subphase_only"
    mails, _ = run([setup_line(), DEADLINE, DEADLINE, DEADLINE, mail("alice", "SCAN dave")])
    (body,) = replies(mails, "alice")
    assert "only during the council's turn" in body


def test_cas_605_replies_never_reveal_hidden_information() -> None:
    """CAS-605: an invalid target is "not a living player", never a role; a non-member's KILL
    is refused without telling who the council is."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            DEADLINE,
            DEADLINE,
            mail("mallory", "VOTE dave", "list"),
            DEADLINE,
            mail("alice", "SCAN dave"),
            mail("niaj", "KILL alice"),
        ]
    )
    alice, niaj = replies(mails, "alice")[-1], replies(mails, "niaj")[-1]
    assert "dave is not a living player." in alice and "Demon" not in alice
    assert "Your role does not have this power." in niaj
    for word in ("Demon", "dave", "erin", "frank", "judy", "council"):
        assert word not in niaj


def test_cas_606_d28_dead_players_cannot_act() -> None:
    """CAS-606, CAS-005, CAS-D28: every command of a dead player is rejected except the revenge
    and tie-break when asked; nothing is relayed from the dead."""
    g = Game()
    g.until("W1")
    g.do("dave", "KILL erin")
    g.until("day")
    assert g.fails("erin", "VOTE alice", "list").reason == "dead"
    assert g.fails("erin", "PASS").reason == "dead"
    g.deadline()
    assert g.fails("erin", "COUNCIL hello").reason == "dead"
    assert g.fails("erin", "KILL alice").reason == "dead"
    assert "erin" not in g.state.council()
    assert [c.verb for c in g.rules.available(g.state, "erin")] == ["help", "status"]  # type: ignore[arg-type]


def test_cas_607_d27_notifications_only_from_the_mapping() -> None:
    """CAS-607, CAS-D27: over whole games, every notice is one of the §9.3 templates; the dead
    receive only the prompts meant for them (revenge, tie-break)."""
    import random

    from pbem.table import Table
    from pbem.tools.demo import demo_setup, play
    from pbem.tools.simulate import EPOCH

    mapping = {
        "opening",
        "role",
        "penny",
        "night_start",
        "leo_prompt",
        "leo_result",
        "coop_prompt",
        "lovers",
        "phoebe_prompt",
        "council_prompt",
        "cole_prompt",
        "council_relay",
        "council_chat",
        "phoebe_result",
        "council_victim",
        "cole_result",
        "cole_target",
        "piper_prompt",
        "paige_prompt",
        "dawn",
        "revenge_prompt",
        "revenge",
        "tally",
        "tie",
        "tie_prompt",
        "lynch",
        "victory",
    }
    for seed in range(6):
        table, step = Table.new(demo_setup("chasse-aux-sorcieres", 0, seed, "en"), EPOCH)
        table.apply(step)
        play(table, random.Random(seed))
        state = table.rules.new_state()
        for event in table.events:
            # the seats' notices (idle warnings, docs/seats.md) carry no game information
            if isinstance(event, Notice) and not event.template.startswith("seats/"):
                assert event.template.removeprefix("chasse/") in mapping
                if not event.public:
                    for who in event.to:
                        if not state.alive(who):
                            assert event.template in ("chasse/revenge_prompt", "chasse/tie_prompt")
            state = table.rules.evolve(state, event)


def test_cas_625_status_reply() -> None:
    """CAS-625: STATUT: own card, faction, Lover partner, Penny, phase, deadlines, pending
    actions, living players; HELP lists the commands possible now."""
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            mail("carol", "LOVERS peggy niaj"),
            DEADLINE,
            mail("peggy", "SWAP alice\nSTATUS"),
            mail("mallory", "SWAP alice\nSTATUS\nHELP"),
        ]
    )
    peggy = replies(mails, "peggy")[-1]
    assert "Your situation, peggy: Innocent (the Forces of Good), in play." in peggy
    assert "You are in love with niaj" in peggy and "Penny assists you" in peggy
    mallory = replies(mails, "mallory")[-1]
    assert "Cole (the Forces of Good)" in mallory and "Penny assists peggy." in mallory
    assert "Phase: the council's turn (night 1), ends" in mallory
    assert "pending actions: SWAP alice" in mallory
    assert "Players in play: alice, bob" in mallory
    assert "SWAP" in mallory and "COUNCIL" not in mallory.split("Possible commands")[-1]


def test_cas_d31_early_close() -> None:
    """CAS-D31: sub-phases end at their deadline by default; with ``early_close`` a night
    sub-phase closes only when every living player has acted or passed."""
    lines = [setup_line(early_close=True)]
    lines += [
        mail(p, "PASS")
        for p in (
            "alice",
            "bob",
            "carol",
            "dave",
            "erin",
            "frank",
            "grace",
            "heidi",
            "judy",
            "mallory",
            "niaj",
            "olivia",
            "peggy",
        )
    ]
    _, state = run(lines)
    assert state["phase"] == "L"
    _, state = run([*lines, mail("ivan", "KEEP")])
    assert state["phase"] == "C"
    _, state = run([setup_line(), *lines[1:], mail("ivan", "KEEP")])
    assert state["phase"] == "L"


def test_rejections_are_specific_in_french() -> None:
    """Bad input gets a specific reply in the player's language (CAS-602), e.g. Léo forced."""
    roles = {
        "alice": "phoebe",
        "bob": "prue",
        "carol": "coop",
        "dave": "innocent",
        "erin": "demon",
        "frank": "innocent",
        "grace": "piper",
        "heidi": "paige",
        "ivan": "leo",
        "judy": "billie",
        "mallory": "cole",
        "niaj": "demon",
        "olivia": "innocent",
        "peggy": "innocent",
    }
    mails, _ = run(
        [
            setup_line(roles, ("demon", "demon"), lang="fr"),
            mail("ivan", "GARDER"),
            mail("ivan", "PRENDRE PHOEBE"),
            mail("alice", "SONDER ivan"),
        ]
    )
    ivan = replies(mails, "ivan")
    assert "Les deux cartes restantes sont des Démons : vous devez en prendre une" in ivan[0]
    assert "Ce rôle n'est pas une des cartes restantes (Démon, Démon)." in ivan[1]
    assert "que pendant le temps du conseil" in replies(mails, "alice")[0]


def test_cas_d31_early_close_day() -> None:
    """CAS-D31: a day closes early only with ``early_close_day`` and every living vote in."""
    voters = NAMES[:13]  # every player but peggy
    lines = [setup_line(early_close_day=True), DEADLINE, DEADLINE, DEADLINE, DEADLINE]
    lines += [mail(v, "VOTE dave", "list") for v in voters]
    _, state = run(lines)
    assert state["phase"] == "day"
    _, state = run([*lines, mail("peggy", "VOTE dave", "list")])
    assert state["phase"] == "W1" and state["day"] == 2


def test_cas_604_stale_deadline_is_ignored_and_awaiting_lists_the_callers() -> None:
    """CAS-604: a timer of a closed sub-phase changes nothing; the reminders go to the players
    called in the current sub-phase who have not answered yet."""
    g = Game()
    g.until("W1")
    assert g.rules.on_deadline(g.state, "L", g.now, g.rng) == []
    assert g.rules.awaiting(g.state) == {"alice", "dave", "erin", "frank", "judy", "mallory"}
    g.do("alice", "SCAN dave")
    g.do("judy", "PASS")
    assert g.rules.awaiting(g.state) == {"dave", "erin", "frank", "mallory"}
    g.do("dave", "KILL niaj")
    g.deadline()
    assert g.rules.awaiting(g.state) == {"grace", "heidi"}


def test_cas_005_d28_list_closed_to_the_dead_and_at_night() -> None:
    """CAS-005, CAS-D28: a post on the list by a dead player, or by anyone at night when
    ``list_closed_at_night`` (default), is refused with a private explanation; by day the
    living debate freely; with the option off the night list is open."""
    g = Game()
    with pytest.raises(CommandError) as night:
        g.rules.on_post(g.state, "alice", ["hello"], g.now)  # type: ignore[arg-type]
    assert night.value.reason == "night_silence"
    mails, _ = run([setup_line(), mail("alice", "Bonsoir à tous", "list")])
    assert "At night nobody posts on the list" in replies(mails, "alice")[-1]
    g.until("W1")
    g.do("dave", "KILL niaj")
    g.until("day")
    assert g.rules.on_post(g.state, "alice", ["I suspect dave"], g.now) == []  # type: ignore[arg-type]
    mails, _ = run(
        [
            setup_line(),
            DEADLINE,
            DEADLINE,
            mail("dave", "KILL niaj"),
            DEADLINE,
            DEADLINE,
            mail("niaj", "I was innocent! VOTE dave", "list"),
        ]
    )
    assert "You have been eliminated" in replies(mails, "niaj")[-1]
    open_night = Game(list_closed_at_night=False)
    assert open_night.rules.on_post(open_night.state, "alice", ["hi"], open_night.now) == []  # type: ignore[arg-type]
