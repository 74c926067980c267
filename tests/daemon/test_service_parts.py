"""The service holds composition, not policy (issue 11): its parts are objects given what they
read and what they call, each of which can be made and used alone; none is a mixin of the
service."""

from __future__ import annotations

import ast
import asyncio
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pbem.daemon
from pbem.daemon.limits import SenderLimits
from pbem.daemon.ports import Game
from pbem.daemon.queue import WorkQueue
from pbem.daemon.replies import Replies
from pbem.daemon.routing import Router
from pbem.daemon.service import Service
from pbem.daemon.work import Call
from pbem.mail.render import shared_renderer
from tests.support import fake_table
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import make_cfg
from tests.support.mailstack import MODERATOR

DAEMON = Path(pbem.daemon.__file__).parent


def test_the_service_inherits_no_part_and_no_part_takes_the_whole_service() -> None:
    assert Service.__mro__ == (Service, object)
    for module in sorted(DAEMON.rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        assert 'disable-error-code="misc"' not in text, module
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.args.args:
                first = node.args.args[0]
                assert not (
                    first.arg == "self"
                    and first.annotation is not None
                    and ast.unparse(first.annotation) == "Service"
                ), f"{module.name}: {node.name} takes self: Service"


@dataclass
class _Store:
    """What the router reads of a game's store: its id and setup."""

    game_id: str
    setup: dict[str, Any]


def _game(gid: str, players: list[str]) -> Game:
    setup = {
        "game": "fake",
        "game_id": gid,
        "players": [{"name": p, "email": f"{p}@example.test"} for p in players],
        "list": "",
    }
    return Game(_Store(gid, setup), fake_table.Table(setup, gid), set())  # type: ignore[arg-type]


def test_the_router_is_made_and_used_alone(tmp_path: Path) -> None:
    cfg = make_cfg(tmp_path)
    games = {"g1": _game("g1", ["alice", "bob"]), "g2": _game("g2", ["carol", "bob"])}
    replies = Replies(cfg, shared_renderer(), b"k" * 32, SenderLimits(5, 5, 5, 5), games, Counter())
    router = Router(cfg, games, b"k" * 32, {MODERATOR}, replies)
    local, _, domain = MODERATOR.partition("@")
    assert router.route(mail("bob@example.test", "x", to=f"{local}+g2@{domain}")) is games["g2"]
    assert router.route_how(mail("alice@example.test", "x"))[1] == "sender"  # her only game
    assert router.route(mail("bob@example.test", "x")) is None  # in two games, none named
    assert router.route(mail("bob@example.test", "x", subject="[g1] vote")) is games["g1"]
    assert router.channel(mail("bob@example.test", "x")) == "private"


def test_the_work_queue_stops_once_and_refuses_new_work() -> None:
    stopped: list[str] = []

    async def go() -> None:
        work = WorkQueue(on_stop=[lambda: stopped.append("hook")])
        queued = work.submit_nowait(Call(lambda: None))
        work.request_stop()
        work.request_stop()  # a second SIGTERM changes nothing
        assert work.stopping and work.is_stopping()
        assert work.submit_nowait(Call(lambda: None)).cancelled()
        await work.sleep(3600)  # returns at once: the stop came
        work.cancel_left()
        assert queued.cancelled()

    asyncio.run(go())
    assert stopped == ["hook"]
