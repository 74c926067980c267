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
