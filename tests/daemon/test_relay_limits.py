"""A relayed list that one poster cannot stall, and that never distributes pbem's private mail
(issue 10 items 15 and 16).

In-process (tests/support/inproc_daemon.py): the real coordinator and store on a tmp data directory,
the fake engine (``CMD <word>`` lines count, even phases are nights); what would be sent is
read from the outbox rows, and the sender task is driven by hand with a recording transport.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.smtp import SendResult
from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.daemon.config import AuthConfig, ListLimits
from pbem.daemon.limits import GlobalCap
from pbem.daemon.outbox import OutboxSender, make_row
from pbem.mail.envelope import TEST_ID_KEY, build
from pbem.mail.render import Renderer
from tests.mail.test_forwarded import FIXTURES
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import PLAYERS, T0, World
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, LIST, MODERATOR


def relay_world(tmp_path: Path, **daemon: Any) -> World:
    world = World(tmp_path, list_mode="relay", **daemon)
    setup = {
        "game": "fake",
        "game_id": "g1",
        "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
        "list": LIST,
        "admins": [ADMIN],
    }
    create_game(world.cfg, setup, world.engine, world.now)
    return world


def rows(world: World, kind: str) -> list[dict[str, Any]]:
    store = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
    return [r for r in store.outbox() if r.get("kind") == kind]


def text(row: dict[str, Any]) -> str:
    msg = email.message_from_bytes(row["raw"].encode("latin-1"), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return str(msg["Subject"]) + "\n" + str(text_of(msg))


def post(world: World, sender: str, body: str, **headers: str) -> EmailMessage:
    return mail(f"{sender}@example.test", body, to=LIST, **headers)


def feed(world: World, *msgs: EmailMessage) -> None:
    assert world.svc is not None
    assert set(world.svc.writer.handle_batch(world.fetched(*msgs)).values()) == {"processed"}


def feed_raw(world: World, raw: bytes) -> None:
    from pbem.adapters.imap import Fetched

    assert world.svc is not None
    world.uid += 1
    fetched = Fetched(world.uid, 1, len(raw), world.now, raw)
    assert world.svc.writer.handle_batch([fetched]) == {world.uid: "processed"}


# ---- item 15: pbem's private mail forwarded to the list -------------------------------------


@pytest.mark.parametrize(
    "fixture",
    [
        "relay-gmail-forward-role.eml",
        "relay-apple-mail-forward-role.eml",
        "relay-outlook-forward-role.eml",
        "relay-thunderbird-forward-role.eml",
    ],
)
def test_forwarded_role_mail_is_held_its_poster_and_the_game_master_told(
    tmp_path: Path, fixture: str
) -> None:
    world = relay_world(tmp_path)
    world.start()
    raw = (FIXTURES / fixture).read_bytes().replace(b"innocente !", b"innocente !\r\nCMD v1", 1)
    feed_raw(world, raw)
    assert not rows(world, "relay"), "never distributed"
    assert not world.words(), "its commands not counted"
    (notice,) = rows(world, "notice")
    assert notice["rcpts"] == ["alice@example.test"]
    assert "courrier privé du modérateur" in text(notice)
    (alert,) = rows(world, "alert")
    assert alert["rcpts"] == [ADMIN]
    assert "alice" in text(alert) and "private mail held" in text(alert)
    # a forwarded PUBLIC result is only debate: relayed
    feed_raw(world, (FIXTURES / "relay-gmail-forward-result.eml").read_bytes())
    assert len(rows(world, "relay")) == 1


def test_role_mail_attached_to_a_post_is_held(tmp_path: Path) -> None:
    world = relay_world(tmp_path)
    svc = world.start()
    _mid, role = build(
        key="g1/3/alice",
        sender=MODERATOR,
        to=("alice@example.test",),
        subject="[g1] Votre rôle",
        body="Vous êtes Loup-garou.\n",
        date=world.now,
        id_key=svc.id_key,
    )
    msg = post(world, "alice", "Preuve jointe.\nCMD v1\n")
    msg.add_attachment(email.message_from_bytes(role, policy=email.policy.default))
    feed(world, msg)
    assert not rows(world, "relay") and not world.words()
    assert len(rows(world, "alert")) == 1


# ---- item 16: one poster cannot stall a game ------------------------------------------------


def test_one_poster_is_limited_per_hour_told_once_and_the_limit_survives_a_restart(
    tmp_path: Path,
) -> None:
    """``[list] posts_per_hour``: alice's 4th post within the hour is neither relayed nor
    counted, she is told (once: the error budget) from when she may post again; bob posts
    freely; the window survives a restart; an hour later alice posts again."""
    world = relay_world(tmp_path, list_limits=ListLimits(posts_per_hour=3))
    world.start()
    for i in range(3):
        feed(world, post(world, "alice", f"Post {i}\nCMD a{i}\n"))
        world.now += timedelta(minutes=1)
    feed(world, post(world, "alice", "Post 3\nCMD a3\n"))
    assert len(rows(world, "relay")) == 3
    assert world.words() == {"a0": 1, "a1": 1, "a2": 1}
    (notice,) = rows(world, "notice")
    assert "déjà envoyé 3 messages" in text(notice)
    assert "à partir du dimanche 29 novembre à 13:00 UTC" in text(notice)  # 12:00 + 1 h
    world.start()  # a restart: the window is read back from the store
    feed(world, post(world, "alice", "Post 4\nCMD a4\n"))
    feed(world, post(world, "bob", "Hello\nCMD b0\n"))
    assert len(rows(world, "relay")) == 4 and "a4" not in world.words()
    assert len(rows(world, "notice")) == 1, "told once within the error budget"
    world.now += timedelta(hours=1)
    feed(world, post(world, "alice", "Back\nCMD a5\n"))
    assert len(rows(world, "relay")) == 5 and world.words()["a5"] == 1


def test_the_graveyards_limit_names_the_graveyard(tmp_path: Path) -> None:
    """Issue 25 follow-up: a post stopped on its way to the graveyard says so, not "the list"
    (the poster's hourly limit counts his posts to both)."""
    world = relay_world(tmp_path, list_limits=ListLimits(posts_per_hour=1), list_graveyard=True)
    world.start()
    grave = LIST.replace("@", "+cimetiere@")
    feed(world, post(world, "alice", "Hello the dead"))
    world.now += timedelta(minutes=1)
    feed(world, mail("alice@example.test", "Still here", to=grave))
    (notice,) = rows(world, "notice")
    told = text(notice)
    assert "[g1] Votre message n'a pas été diffusé au cimetière" in told
    assert "déjà envoyé 1 message dans l'heure, au cimetière ou sur la liste" in told
    assert "Vous pourrez de nouveau écrire au cimetière à partir du" in told
    assert "à la liste" not in told
    params = {"game": "g1", "reason": "too_many", "graveyard": True, "limit": 1, "until": T0}
    english = Renderer().text("daemon/post_not_relayed", "en", params)
    assert "You may write to the graveyard again from" in english
    assert "to the list" not in english


def test_over_long_posts_and_big_photos_are_not_relayed(tmp_path: Path) -> None:
    world = relay_world(tmp_path, list_limits=ListLimits(max_post_chars=500, max_post_bytes=50_000))
    world.start()
    feed(world, post(world, "alice", "bla " * 200 + "\nCMD a1\n"))
    photo = post(world, "bob", "Ma photo\nCMD b1\n")
    photo.add_attachment(b"\xff\xd8\xff" + bytes(80_000), "image", "jpeg", filename="IMG_0001.jpg")
    feed(world, photo)
    feed(world, post(world, "carol", "Short and sweet\nCMD c1\n"))
    assert [r["raw"].count("Short and sweet") for r in rows(world, "relay")] == [1]
    assert world.words() == {"c1": 1}
    notices = {r["rcpts"][0]: text(r) for r in rows(world, "notice")}
    assert "caractères ; au plus 500" in notices["alice@example.test"]
    assert "octets ; au plus 50000" in notices["bob@example.test"]


class Recorder:
    """A transport that accepts everything and records each mail's kind, in sending order."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        subject = email.message_from_bytes(raw)["Subject"]
        self.sent.append(str(subject))
        return SendResult(sent=list(rcpts))


def test_results_go_ahead_of_relayed_chat_which_keeps_to_its_share_of_the_cap(
    tmp_path: Path,
) -> None:
    """600 relayed posts queued before the day's result: the result goes first, and chat uses
    at most its share of the hourly cap, so the results and prompts of the next hour are not
    held behind it either."""
    store = GameStore.create(tmp_path, "g1", {"game": "fake"}, [], [])
    now = T0

    def row(key: str, kind: str, created: Any) -> dict[str, Any]:
        mid, raw = build(
            key=key,
            sender=MODERATOR,
            to=(LIST,),
            subject=key,
            body="x\n",
            date=created,
            id_key=TEST_ID_KEY,
        )
        return make_row(
            message_id=mid, raw=raw, rcpts=[LIST], mail_from=MODERATOR, now=created, kind=kind
        )

    store.commit(outbox=[row(f"chat{i}", "relay", now) for i in range(600)])
    store.commit(outbox=[row("result", "public", now + timedelta(seconds=1))])
    transport = Recorder()
    sender = OutboxSender(
        transport=transport,
        stores=lambda: [store],
        alert_store=store,  # type: ignore[arg-type]
        clock=lambda: now + timedelta(seconds=2),
        moderator=MODERATOR,
        admins=[],
        bounce_address=MODERATOR,
        cap=GlobalCap(200),
        chat_cap=GlobalCap(150, name="cap:relay"),
    )
    asyncio.run(sender.drain_once())
    assert transport.sent[0] == "result"
    assert len(transport.sent) == 151, "chat keeps to its share; 49 sends left for the game"
    store.commit(outbox=[row("prompt", "reply", now + timedelta(seconds=2))])
    asyncio.run(sender.drain_once())
    assert transport.sent[-1] == "prompt", "the next result is not held behind the chat"


# ---- item 16: held posts apart from the head, pruned with their phase -----------------------


def test_held_posts_bodies_are_kept_apart_from_the_head_and_go_with_their_entry(
    tmp_path: Path,
) -> None:
    """20 night posts with a 300 kB photo each: the head stays small (each commit rewrites it
    whole), the bodies are files under held/, read back intact, removed with their entry; a
    body left by a crash before its head commit is removed at the next open."""
    world = relay_world(tmp_path)
    svc = world.start()
    assert svc.deadlines.resolve("g1", "phase-1", world.now)  # night: the list is closed
    photos = []
    for i in range(20):
        msg = post(world, "alice", f"Photo {i}\n")
        msg.add_attachment(bytes([i]) * 300_000, "image", "jpeg", filename=f"IMG_{i}.jpg")
        photos.append(msg)
    feed(world, *photos)
    game = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
    assert len(game.held_entries()) == 20
    head = (world.cfg.data_dir / "games" / "g1" / "head.json").stat().st_size
    bodies = list((world.cfg.data_dir / "games" / "g1" / "held").iterdir())
    assert len(bodies) == 20 and head < 200_000, head
    assert all(b"IMG_" in b.read_bytes() for b in bodies)
    orphan = world.cfg.data_dir / "games" / "g1" / "held" / ("f" * 64 + ".eml")
    orphan.write_bytes(b"left by a crash")
    world.now += timedelta(hours=2)
    svc = world.start()  # the orphan goes at open
    assert not orphan.exists()
    assert svc.deadlines.resolve("g1", "phase-2", world.now)  # morning: all 20 relayed
    assert len(rows(world, "relay")) == 20
    assert not GameStore(world.cfg.data_dir / "games" / "g1", readonly=True).held_entries()
    assert not list((world.cfg.data_dir / "games" / "g1" / "held").iterdir())


def test_a_pending_confirmation_lapses_with_its_phase(tmp_path: Path) -> None:
    """External list, ``list_votes = confirm``: a vote posted in phase 1 waits for its
    confirmation; when phase 1 ends it lapses (held, with its body, no longer)."""
    world = World(tmp_path, auth=AuthConfig(("registered", "secret"), list_votes="confirm"))
    world.new_game()
    svc = world.start()
    feed(
        world, mail("alice@example.test", "CMD v1\n", to=LIST, List_Id="<game.lists.example.test>")
    )
    game_dir = world.cfg.data_dir / "games" / "g1"
    (entry,) = GameStore(game_dir, readonly=True).held_entries()
    assert entry["kind"] == "confirm" and "raw" not in json.dumps(entry)
    assert svc.deadlines.resolve("g1", "phase-1", world.now + timedelta(hours=2))
    assert not GameStore(game_dir, readonly=True).held_entries()
    assert not list((game_dir / "held").iterdir())


def test_list_limits_are_config_options_with_safe_defaults(tmp_path: Path) -> None:
    """``[list] posts_per_hour``, ``max_post_chars``, ``max_post_bytes``, ``relay_share``:
    on by default; a negative limit or a share outside (0, 1] is refused with its name."""
    from pbem.daemon.config import ConfigError, load

    base = (
        '[moderator]\naddress = "m@example.test"\n'
        '[imap]\nhost = "h"\nuser = "u"\npassword_file = "p"\n'
        '[smtp]\nhost = "h"\npassword_file = "p"\n'
        f'[daemon]\ndata_dir = "{tmp_path}"\n'
    )
    (tmp_path / "p").write_text("x")
    cfg_path = tmp_path / "pbem.toml"
    cfg_path.write_text(base)
    assert load(cfg_path).list_limits == ListLimits(30, 20_000, 2_000_000, 0.75)
    cfg_path.write_text(base + "[list]\nposts_per_hour = -1\nrelay_share = 1.5\n")
    with pytest.raises(ConfigError) as err:
        load(cfg_path)
    assert "list.posts_per_hour" in str(err.value) and "list.relay_share" in str(err.value)
