"""What a relaying daemon (``[list] mode = "relay"``) must never distribute: a player's secret
code (issue 10 item 10), references to private mail and guessable Message-IDs (item 13).

In-process (tests/support/inproc_daemon.py): the real coordinator and store on a tmp data directory,
the fake engine; what would be sent is read from the game's outbox rows.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import hashlib
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.idkey import KEY_FILE, message_id_key
from pbem.adapters.imap import Fetched
from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.daemon.config import AuthConfig
from pbem.mail.envelope import build, id_kind
from pbem.table import Table
from tests.mail.test_relay_copy import CLIENTS, CODE, FIXTURES, everything
from tests.support.inproc_daemon import PLAYERS, T0, World, make_cfg
from tests.support.mailstack import LIST


def relay_world(tmp_path: Path, **daemon: Any) -> World:
    return World(tmp_path, list_mode="relay", **daemon)


def _rows(world: World, kind: str, gid: str = "g1") -> list[dict[str, Any]]:
    store = GameStore(world.cfg.data_dir / "games" / gid, readonly=True)
    return [r for r in store.outbox() if r.get("kind") == kind]


def _fetched(world: World, raw: bytes) -> list[Fetched]:
    world.uid += 1
    return [Fetched(world.uid, 1, len(raw), world.now, raw)]


@pytest.mark.parametrize("fixture", CLIENTS)
def test_relayed_post_of_every_mail_client_carries_no_secret_code(
    tmp_path: Path, fixture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 10: alice's post with her SECRET line, as Gmail, Apple Mail (the code in the
    Subject too), Outlook and Thunderbird send it (text + HTML alternative): authenticated by
    the code, her vote counted, and the copy every member gets carries the code nowhere."""
    world = relay_world(tmp_path, auth=AuthConfig(("registered", "secret")))
    monkeypatch.setattr("pbem.adapters.codes.new_code", lambda: CODE)
    setup = {
        "game": "fake",
        "game_id": "g1",
        "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
        "list": LIST,
    }
    create_game(world.cfg, setup, world.engine, world.now, secrets=True)
    svc = world.start()
    raw = (FIXTURES / fixture).read_bytes()
    assert svc.writer.handle_batch(_fetched(world, raw)) == {world.uid: "processed"}
    assert world.words() == {"vote1": 1}, "authenticated by the code, the vote counted"
    (row,) = _rows(world, "relay")
    assert sorted(row["rcpts"]) == [f"{p}@example.test" for p in PLAYERS]
    copy = row["raw"].encode("latin-1")
    assert CODE not in everything(copy)
    assert "jevotecontre" in everything(copy)


def test_message_id_key_is_made_once_in_the_data_dir_and_shared_with_new_game(
    tmp_path: Path,
) -> None:
    """Item 13: ``pbem new-game`` (before the daemon ever ran) and the daemon use one key,
    made once in the data directory (owner-only) and kept across restarts, so a replayed or
    resent mail keeps its Message-ID; another data directory has another key."""
    world = relay_world(tmp_path)
    world.new_game()
    key = (world.cfg.data_dir / KEY_FILE).read_text().strip()
    assert len(bytes.fromhex(key)) == 32
    assert (world.cfg.data_dir / KEY_FILE).stat().st_mode & 0o077 == 0
    svc = world.start()
    assert svc.id_key.hex() == key
    assert world.start().id_key.hex() == key, "a restart keeps the key"
    (opening,) = _rows(world, "public")
    assert id_kind(opening["message_id"], svc.id_key) == "public"
    other = make_cfg(tmp_path / "other")
    assert message_id_key(other.data_dir) != svc.id_key


def test_role_mails_message_ids_give_no_role_away(tmp_path: Path) -> None:
    """Item 13: a Lupus game's opening, as ``pbem new-game`` queues it (role mails included):
    the Message-IDs were sha256(game/event/player), so anyone knowing the game id and the
    names found who got which private mail (the wolves' one gave them away). None of the ids
    may be found again from the game id, an event number and a name."""
    from pbem.tools.demo import demo_setup

    cfg = make_cfg(tmp_path)
    setup = {**demo_setup("lupus-in-tabula", 0, 3, "fr"), "game_id": "v1"}
    table, rows, _codes = create_game(cfg, setup, Table, T0)
    private = [r for r in rows if r["kind"] == "reply"]
    assert len(private) >= len(table.player_emails)
    names = list(table.player_emails)
    guesses = {
        hashlib.sha256(f"v1/{i}/{name}".encode()).hexdigest()[:32]: (i, name)
        for i in range(len(rows) + 50)
        for name in names
    }
    found = [guesses[r["message_id"][1:33]] for r in private if r["message_id"][1:33] in guesses]
    assert found == [], f"roles recovered from Message-IDs: {found}"


def test_relayed_answer_to_a_role_mail_refers_to_public_mail_only(tmp_path: Path) -> None:
    """Item 13: alice answers her private mail on the list (In-Reply-To: its Message-ID) and
    keeps the opening post in References: the copy drops the private reference, keeps the
    public one, so the list thread holds and nobody learns that she got that mail."""
    world = relay_world(tmp_path)
    world.new_game()
    svc = world.start()
    (opening,) = _rows(world, "public")
    private_id, _raw = build(
        key="g1:notice:x:1",
        sender=world.cfg.moderator,
        to=("alice@example.test",),
        subject="Your role",
        body="wolf\n",
        date=world.now,
        id_key=svc.id_key,
    )
    post = email.message.EmailMessage()
    post["From"] = "alice@example.test"
    post["To"] = LIST
    post["Subject"] = "Re: Your role"
    post["Message-ID"] = "<reply-1@example.test>"
    post["In-Reply-To"] = private_id
    post["References"] = f"{opening['message_id']} {private_id}"
    post.set_content("Good evening.\n")
    assert svc.writer.handle_batch(world.fetched(post)) == {world.uid: "processed"}
    (row,) = _rows(world, "relay")
    copy = email.message_from_bytes(row["raw"].encode("latin-1"), policy=email.policy.default)
    assert copy["In-Reply-To"] is None
    assert str(copy["References"]) == opening["message_id"]
    assert private_id not in row["raw"]
