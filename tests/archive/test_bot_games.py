"""The bot games the archive tests share are played once per run and loaded from their log on
each worker: a loaded game is the game as played, event for event, page for page."""

from __future__ import annotations

from pbem.record.archive import archive_files
from tests.archive.bot_games import VETO_SEED, bot_setup, played, whole_game


def test_a_shared_bot_game_is_the_game_as_played() -> None:
    loaded = whole_game("lupus-in-tabula", "en")
    game = played(
        bot_setup("lupus-in-tabula", "en", VETO_SEED["lupus-in-tabula"]),
        VETO_SEED["lupus-in-tabula"],
    )
    assert loaded.events == game.events and loaded.state == game.state
    assert archive_files(loaded) == archive_files(game)
