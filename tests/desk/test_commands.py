"""The game master's desk in each of the four games, through the Table (issue 14)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from pbem.core.events import GameEnded
from pbem.core.outcome import Termination
from pbem.desk.preview import preview_step
from tests.desk.desk_game import ADMIN, GAMES, DeskGame
from tests.support.game_by_mail import address

pytestmark = pytest.mark.parametrize("game", GAMES)


def test_pause_across_a_deadline_freezes_it_and_resume_restores_the_time_left(
    game: str,
) -> None:
    g = DeskGame(game)
    key, due = g.earliest()
    g.advance(3600)
    left = due - g.now
    g.admin("PAUSE")
    assert "PAUSE" in g.admin_reply()
    assert g.table.paused and g.table.deadlines() == {}
    assert "paused" in g.public_text()
    events = len(g.table.events)
    # the deadline passes while paused: it does not fire
    g.now = due + timedelta(hours=30)
    assert g.table.on_deadline(key, g.now).events == ()
    assert len(g.table.events) == events
    g.admin("REPRISE")
    assert not g.table.paused
    assert g.table.deadlines()[key] - g.now == left
    assert "resumes" in g.public_text()


def test_a_close_in_a_pause_opens_a_phase_that_waits_for_the_resume(game: str) -> None:
    """CLORE in a pause opened the next phase, whose post gave deadlines that did not run,
    and nobody said so; REPRISE then moved them by the whole pause, the part before the close
    included. The players are told the phase waits; REPRISE gives it the time it had."""
    g = DeskGame(game)
    g.admin("PAUSE")
    g.advance(2 * 3600)
    g.admin("CLOSE")
    assert g.table.paused and g.table.deadlines() == {}
    assert g.public()[-1].subject.endswith("The game stays paused")
    opened = g.now
    left = {k: d - opened for k, d in g.table.rules.deadlines(g.table.state).items()}
    g.advance(5 * 3600)
    g.admin("RESUME")
    assert {k: d - g.now for k, d in g.table.deadlines().items()} == left


def test_extend_moves_the_phase_deadline_and_tells_every_player(game: str) -> None:
    g = DeskGame(game)
    _, due = g.earliest()
    before = dict(g.table.deadlines())
    g.admin("EXTEND 24h")
    assert {k: v - timedelta(hours=24) for k, v in g.table.deadlines().items()} == before
    # the list reaches every player; it gives the new deadline
    (post,) = g.public()
    assert "Deadline extended" in post.subject
    assert g.table.renderer.when(due + timedelta(hours=24), "en") in post.body


def test_close_resolves_the_phase_now_exactly_as_its_deadline(game: str) -> None:
    g, twin = DeskGame(game), DeskGame(game)
    key, _ = g.earliest()
    g.advance(600)
    twin.advance(600)
    expected = twin.table.on_deadline(key, twin.now)
    g.admin("CLOSE")
    assert [m.body for m in g.last if m.to != (ADMIN,)] == [m.body for m in expected.outgoing]
    closed, *rest = g.table.events[-len(expected.events) :]
    marker, *same = expected.facts
    assert rest == same  # the same resolution; its marker says the game master closed it
    assert closed == replace(marker, at=g.now)  # the archive's log of his acts (issue 22)


def test_roles_gives_the_whole_table_to_the_game_master_only(game: str) -> None:
    g = DeskGame(game)
    g.admin("ROLES")
    assert [m.to for m in g.last] == [(ADMIN,)]
    reply = g.admin_reply()
    for seat in g.names:
        assert f"  - {seat}: " in reply


def test_announce_posts_on_the_list_as_the_game_master(game: str) -> None:
    g = DeskGame(game)
    g.admin("ANNOUNCE The game resumes on Monday, sorry for the wait.")
    (post,) = g.public()
    assert "announcement" in post.subject
    assert "The game resumes on Monday, sorry for the wait." in post.body


def test_end_with_a_side_ends_the_game_and_reveals_every_card(game: str) -> None:
    g = DeskGame(game)
    side = g.table.rules.side_of(g.table.state, g.names[1])
    assert side
    g.admin(f"END {side}")
    outcome = g.table.rules.outcome(g.table.state)
    assert outcome is not None and outcome.termination == Termination.ADMIN
    assert outcome.side == side
    assert set(outcome.winners) == {
        n for n in g.names if g.table.rules.side_of(g.table.state, n) == side
    }
    assert g.table.finished and g.table.deadlines() == {}
    text = g.public_text()
    for name in g.names:
        assert name in text
    # no more command: the game is over
    g.admin("CLOSE")
    assert "The game is over." in g.admin_reply()


def test_end_without_a_side_nobody_wins_and_an_unknown_side_is_rejected(game: str) -> None:
    g = DeskGame(game)
    g.admin("END martians")
    assert "No side" in g.admin_reply() and not g.table.finished
    g.admin("END NONE")  # a bare END line ends a mail's text (signatures, quotes)
    ended = [e for e in g.table.events if isinstance(e, GameEnded)]
    assert ended == [GameEnded(Termination.ADMIN, None, ())]
    assert "Nobody wins." in g.public_text()


def test_a_bare_end_from_the_shell_ends_the_game_with_no_winner(game: str) -> None:
    g = DeskGame(game)
    g._commit(g.table.admin_lines(["END"], ADMIN, g.now, "shell"))
    outcome = g.table.rules.outcome(g.table.state)
    assert outcome is not None and outcome.side is None and outcome.winners == ()


def test_preview_matches_the_real_close_byte_for_byte_and_sends_nothing_else(
    game: str,
) -> None:
    g = DeskGame(game)
    key, _ = g.earliest()
    g.advance(600)
    events = len(g.table.events)
    g.admin("PREVIEW")
    assert [m.to for m in g.last] == [(ADMIN,)]  # only the reply to the game master
    assert len(g.table.events) == events  # nothing changed
    shown = g.admin_reply()
    preview = preview_step(g.table, g.now)
    real = g.table.on_deadline(key, g.now)
    assert preview == real  # same events, same mails, same keys
    for mail in real.outgoing:
        assert mail.body in shown and mail.subject in shown


def test_rollback_reopens_the_phase_and_closing_again_draws_the_same(game: str) -> None:
    g = DeskGame(game)
    phase, number = g.phase, g.number
    key, _ = g.earliest()
    g.advance(600)
    at = g.now
    first = g.table.on_deadline(key, at)
    g._commit(first)
    g.advance(3600)
    g.admin("ROLLBACK 24h")
    assert (g.phase, g.number) == (phase, number)
    assert min(g.table.deadlines().values()) == g.now + timedelta(hours=24)
    assert "Resolution cancelled" in g.public_text()
    for name in g.names:  # each player is told which of his orders stand
        assert "Your orders after the rollback" in g.text_to(name)
    # nothing was re-applied: the phase closes again exactly as it did
    again = g.table.close(key, at)
    assert again.facts == first.facts
    assert [m.body for m in again.outgoing] == [m.body for m in first.outgoing]
    # the voided events stay in the log (its audit trail)
    assert all(e in g.table.events for e in first.facts)


def test_help_lists_the_desk_commands(game: str) -> None:
    g = DeskGame(game)
    g.admin("HELP")
    reply = g.admin_reply()
    for word in ("PAUSE", "RESUME", "EXTEND", "CLOSE", "ROLES", "ANNOUNCE", "END", "PREVIEW"):
        assert word in reply


def test_a_player_sending_pause_is_refused_as_an_unknown_command(game: str) -> None:
    """A forged admin command from a player's address: a player command, refused."""
    g = DeskGame(game)
    player = g.names[0]
    g.mail(player, "PAUSE")
    assert not g.table.paused
    assert "PAUSE" in g.reply() and "✗" in g.reply()
    assert [m.to for m in g.last] == [(address(player),)]


def test_a_stranger_sending_pause_is_refused(game: str) -> None:
    g = DeskGame(game)
    g.mail("mallet@evil.example", "PAUSE\nEND")
    assert not g.table.paused and not g.table.finished
    assert [m.to for m in g.last] == [("mallet@evil.example",)]
