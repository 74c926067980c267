"""Issue 10, item 20: mail that reaches no game. A sender without a domain gets no reply; a
stranger (a player of no running game) gets the public minimum, or nothing, per ``[daemon]
strangers``; only a player learns game ids and addresses, his own games'.

Before, anyone who wrote got the list of running games and their addresses, and a From of
``alice`` got a reply addressed to ``alice``.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest

from pbem.adapters.imap import Fetched
from tests.support.inproc_daemon import World
from tests.support.mailstack import MODERATOR


def replies(world: World) -> dict[str, str]:
    """Each no-game reply's recipient and body text."""
    out = {}
    for row in world.daemon_store().outbox():
        msg = email.message_from_bytes(
            str(row["raw"]).encode("latin-1"), policy=email.policy.default
        )
        body = msg.get_body(("plain",))
        assert body is not None
        out[row["rcpts"][0]] = str(body.get_content())
    return out


def run(tmp_path: Path, **daemon: str) -> dict[str, str]:
    world = World(tmp_path, **daemon)
    try:
        world.new_game("g1")
        world.new_game("g2")  # alice, bob and carol play in both: a bare mail names neither
        svc = world.start()
        senders = ["alice@example.test", "zed@example.test", "alice", "frank@", ""]
        raws = [
            f"From: {s}\r\nTo: {MODERATOR}\r\nSubject: hi\r\nMessage-ID: <{i}@x.test>\r\n\r\n"
            "hello\r\n".encode()
            for i, s in enumerate(senders)
        ]
        svc.writer.handle_batch(
            [Fetched(i, 1, len(r), world.now, r) for i, r in enumerate(raws, 1)]
        )
        assert not world.daemon_store().shunt_rows()
        return replies(world)
    finally:
        world.close()


@pytest.mark.parametrize("policy", [None, "minimum", "silent", "games"])
def test_no_game_reply_follows_the_strangers_policy(policy: str | None, tmp_path: Path) -> None:
    sent = run(tmp_path, **({"strangers": policy} if policy else {}))
    # a player is told his own games, whatever the policy
    assert "moderator+g1@example.test" in sent["alice@example.test"]
    assert "moderator+g2@example.test" in sent["alice@example.test"]
    # never a reply to a sender without a domain
    assert set(sent) <= {"alice@example.test", "zed@example.test"}
    if policy == "silent":
        assert "zed@example.test" not in sent
    elif policy == "games":
        assert "moderator+g1@example.test" in sent["zed@example.test"]
    else:  # the safe default: the public minimum, no game named
        stranger = sent["zed@example.test"]
        assert "reached no game" in stranger and "g1" not in stranger and "g2" not in stranger


def test_strangers_policy_is_checked_in_the_config(tmp_path: Path) -> None:
    from pbem.daemon.config import ConfigError, load
    from tests.cli.test_new_game_input import config

    path = config(tmp_path)
    assert load(path).strangers == "minimum"  # the safe default
    path.write_text(path.read_text() + 'strangers = "everyone"\n')  # [daemon] is last
    with pytest.raises(ConfigError, match=r"daemon\.strangers"):
        load(path)


def test_a_stranger_is_offered_to_observe_only_where_a_game_takes_observers(
    tmp_path: Path,
) -> None:
    """Issue 25 follow-up: where pbem relays the list, the no-game reply says a stranger may
    follow a game (OBSERVER/SPECTATE), only for a game whose ``observers`` is not ``closed``;
    an external list's daemon never says it (its own subscription is the way in)."""
    from dataclasses import replace
    from datetime import timedelta
    from email.message import EmailMessage

    from pbem.cli.newgame import create_game
    from pbem.table import Table

    world = World(tmp_path, engine=Table, list_mode="relay", strangers="games")
    world.cfg = replace(world.cfg, engine="pbem.table:Table")
    for gid, observers in (("g1", "approve"), ("g2", "closed")):
        setup = {
            "game": "lupus-in-tabula",
            "game_id": gid,
            "players": [{"name": f"p{i}", "email": f"p{i}.{gid}@example.test"} for i in range(8)],
            "options": {"observers": observers},
            "list": f"{gid}@lists.example.test",
        }
        create_game(world.cfg, setup, Table, world.now)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "zed@example.test", MODERATOR, "hi"
    msg.set_content("hello")
    try:
        svc = world.start()

        def told(**cfg: str) -> str:
            replies = replace(svc.replies, cfg=replace(svc.cfg, **cfg))
            world.now += timedelta(days=1)  # past the error budget of the reply before
            (row,) = replies.no_game_reply(msg, "zed@example.test", world.now)
            parsed = email.message_from_bytes(
                row.raw.encode("latin-1"), policy=email.policy.default
            )
            body = parsed.get_body(("plain",))  # type: ignore[attr-defined]
            return str(body.get_content()).replace("\r\n", "\n")

        listed = told()
        assert "[g1] dans le sujet   (pour la suivre en spectateur : OBSERVER)" in listed
        assert "[g1] in the Subject   (to follow it as an observer: SPECTATE)" in listed
        assert "[g2] dans le sujet\n" in listed and "[g2] in the Subject\n" in listed
        minimum = told(strangers="minimum")
        assert "g1" not in minimum
        assert "Pour suivre une partie en spectateur, écrivez OBSERVER à son adresse" in minimum
        assert "To follow a game as an observer, write SPECTATE to its address" in minimum
        external = told(strangers="minimum", list_mode="external")
        assert "OBSERVER" not in external and "SPECTATE" not in external
    finally:
        world.close()


def test_a_game_masters_mistyped_game_id_is_named_with_his_games(tmp_path: Path) -> None:
    """The game master's PAUSE to ``moderator+villag7`` (a typo of village7) was told « you
    play in no running game. To play, ask the game master. »"""
    from tests.support.mailstack import ADMIN

    world = World(tmp_path)
    try:
        world.new_game("village7")
        svc = world.start()
        local, _, domain = MODERATOR.partition("@")
        raws = [
            f"From: {sender}\r\nTo: {local}+villag7@{domain}\r\nSubject: pause\r\n"
            f"Message-ID: <{i}@x.test>\r\n\r\nPAUSE\r\n".encode()
            for i, sender in enumerate([ADMIN, "zed@example.test"])
        ]
        svc.writer.handle_batch(
            [Fetched(i, 1, len(r), world.now, r) for i, r in enumerate(raws, 1)]
        )
        sent = replies(world)
    finally:
        world.close()
    master = sent[ADMIN]
    assert "aucune partie ne s'appelle « villag7 » ; vouliez-vous dire village7 ?" in master
    assert 'no game is called "villag7"; did you mean village7?' in master
    assert f"{local}+village7@{domain}" in master and "ask the game master" not in master
    # a stranger learns that the id is unknown, and nothing of the running games
    stranger = sent["zed@example.test"]
    assert 'no game is called "villag7"' in stranger and "village7" not in stranger
