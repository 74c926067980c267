"""Transcripts where one player goes idle: the others are random legal bots (pbem/bots.py),
the idle player simply has no line. Built by driving a Table, then replayed by ``simulate``,
so that the scenario is exactly what a game master would dry-run with ``pbem simulate``."""

from __future__ import annotations

import json
import random
from typing import Any

from pbem.table import Table
from pbem.tools.bots import bot_mails
from pbem.tools.simulate import EPOCH, simulate
from tests.desk.desk_game import ADMIN, deal
from tests.support.game_by_mail import address


def setup_line(
    game: str,
    *,
    idle: tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
    bench: tuple[str, ...] = (),
    lang: str = "fr",
    gender: str = "f",
) -> dict[str, Any]:
    dealt = deal(game)
    players = [{"name": n, "email": address(n)} for n in dealt["roles"]]
    for p in players:
        if p["name"] in idle:
            p["gender"] = gender
    setup: dict[str, Any] = {
        "game": game,
        "seed": 3,
        "lang": lang,
        "players": players,
        "roles": dealt["roles"],
        "options": {**dealt.get("options", {}), **(options or {})},
        "admins": [ADMIN],
        "list": "list@example.org",
        "bench": [{"name": b, "email": address(b)} for b in bench],
    }
    if "leftover" in dealt:
        setup["leftover"] = dealt["leftover"]
    return {"setup": setup}


def idle_transcript(setup: dict[str, Any], idle: tuple[str, ...], deadlines: int) -> list[str]:
    """``deadlines`` phases where every player but the ``idle`` ones may act (bots), each
    followed by its deadline."""
    table, step = Table.new(setup["setup"], EPOCH)
    table.apply(step)
    rng = random.Random(5)
    lines = [json.dumps(setup)]
    now = EPOCH
    for _ in range(deadlines):
        if table.finished or not table.deadlines():
            break
        for msg, channel in list(bot_mails(table, rng)):
            if msg["From"] in {address(i) for i in idle}:
                continue
            body = msg.get_payload(decode=True).decode()
            to = "list" if channel == "list" else "moderator"
            lines.append(json.dumps({"mail": {"from": msg["From"], "to": to, "body": body}}))
            table.apply(table.receive(msg, channel=channel, now=now))  # type: ignore[arg-type]
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        table.apply(table.on_deadline(key, now))
        lines.append(json.dumps({"deadline": True}))
    return lines


def run(lines: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The mails ``pbem simulate`` sends for ``lines``, and its final state line."""
    out = list(simulate(lines))
    mails = [o["mail"] for o in out if "mail" in o]
    return mails, out[-1]["state"]
