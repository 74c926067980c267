"""How a mail finds its game when it answers one of pbem's mails (issue 15), in process: the
plus-address, a list of one game and a ``[tag]`` keep their order; then the game the answered
mail names (In-Reply-To, References), before the sender's only game; only for a running game
he is in. The reply says which game a mail reached when only the thread named it.
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.cli.newgame import create_game
from pbem.daemon.message import parse
from pbem.daemon.service import Service
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import World
from tests.support.mailstack import MODERATOR


@pytest.fixture
def games(tmp_path: Path) -> tuple[World, Service, str]:
    """g1 and g2, where alice, bob and carol play both; g3, where dave plays alone."""
    world = World(tmp_path)
    world.new_game("g1")
    world.new_game("g2")
    setup = {
        "game": "fake",
        "game_id": "g3",
        "players": [{"name": "dave", "email": "dave@example.test"}],
        "list": "other@lists.example.test",
    }
    create_game(world.cfg, setup, world.engine, world.now)
    svc = world.start()
    opening = next(r for r in svc.games["g1"].store.outbox() if r["kind"] == "public")
    return world, svc, str(opening["message_id"])


def _answer(
    sender: str, parent: str, *, to: str = MODERATOR, subject: str = "Re: x"
) -> EmailMessage:
    """A Gmail-like Reply to ``parent``, to the bare address unless ``to`` says otherwise."""
    return mail(sender, "CMD w\n", to=to, subject=subject, In_Reply_To=parent, References=parent)


def _route(svc: Service, msg: EmailMessage, sender: str) -> tuple[str | None, str]:
    game, how = svc.router.route_how(parse(bytes(msg)), None, sender)
    return (game.id if game else None), how


def test_a_reply_naming_no_game_reaches_the_game_of_the_mail_it_answers(
    games: tuple[World, Service, str],
) -> None:
    world, svc, g1_post = games
    alice = "alice@example.test"
    assert _route(svc, _answer(alice, g1_post), alice) == ("g1", "thread")
    # the existing order first: plus-address, then tag
    assert _route(svc, _answer(alice, g1_post, to="moderator+g2@example.test"), alice)[0] == "g2"
    assert _route(svc, _answer(alice, g1_post, subject="Re: [g2] x"), alice) == ("g2", "tag")
    # an id only pbem's key could sign names a game: a made-up one routes nowhere
    forged = g1_post.replace(".g1@", ".g2@")
    assert _route(svc, _answer(alice, forged), alice) == (None, "")
    # dave is not in g1: his reply to its post goes to his only game, as before
    assert _route(svc, _answer("dave@example.test", g1_post), "dave@example.test") == (
        "g3",
        "sender",
    )
    world.close()


def test_a_finished_games_thread_leads_to_the_senders_running_game(
    games: tuple[World, Service, str],
) -> None:
    """Many write to us anew by answering an old mail: a finished game is not chosen."""
    world, svc, _g1_post = games
    g3_post = next(r for r in svc.games["g3"].store.outbox() if r["kind"] == "public")
    svc.games["g3"].table.finished = True
    dave = "dave@example.test"
    assert _route(svc, _answer(dave, str(g3_post["message_id"])), dave) == (None, "")
    world.close()


def test_the_reply_says_which_game_the_thread_led_to(games: tuple[World, Service, str]) -> None:
    world, svc, g1_post = games
    svc.writer.handle_batch(world.fetched(_answer("alice@example.test", g1_post)))
    assert world.words("g1")["w"] == 1 and world.words("g2")["w"] == 0
    (reply,) = [r for r in svc.games["g1"].store.outbox() if r["kind"] == "reply"]
    msg = email.message_from_bytes(str(reply["raw"]).encode("latin-1"), policy=email.policy.default)
    text = str(msg.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    # in the player's language (the fake engine's: French), first in the reply
    assert text.startswith(
        "Votre message ne nommait aucune partie : il a été rattaché à la partie g1"
    )
    assert "moderator+g1@example.test" in text
    # through the plus-address nothing needs saying
    svc.writer.handle_batch(
        world.fetched(_answer("bob@example.test", g1_post, to="moderator+g1@example.test"))
    )
    bobs = [r for r in svc.games["g1"].store.outbox() if r["rcpts"] == ["bob@example.test"]]
    assert bobs and all("rattach" not in str(r["raw"]) for r in bobs)
    world.close()


def test_a_player_of_several_games_is_told_a_reply_reaches_its_game(
    games: tuple[World, Service, str],
) -> None:
    """The no-game reply tells a player of several games the simplest way: Reply."""
    world, svc, _g1_post = games
    svc.writer.handle_batch(world.fetched(mail("alice@example.test", "CMD w\n", subject="hi")))
    (row,) = world.daemon_store().outbox()
    msg = email.message_from_bytes(str(row["raw"]).encode("latin-1"), policy=email.policy.default)
    text = str(msg.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert "répondez (« Répondre ») à un courriel de la partie voulue" in text
    assert "answer (Reply) a mail of the game you mean" in text
    world.close()
