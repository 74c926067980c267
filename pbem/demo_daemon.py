"""``pbem demo-daemon``: the real daemon, by real SMTP, with nothing to install (issue 3 item 8).

An embedded aiosmtpd server on loopback delivers into local Maildirs (one per address; the
list address fans out with a List-Id, like a mailing list). ``pbem serve``'s own code runs with
a :class:`~pbem.adapters.maildir.MaildirMailbox` in place of IMAP. Bot players (``pbem.bots``)
mail their orders by SMTP when a phase opens; deadlines are seconds; the public thread (what a
list subscriber receives) is printed as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import random
import socket
import tempfile
import textwrap
from datetime import UTC, datetime
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import aiosmtplib

from pbem.adapters.imap import ImapSettings
from pbem.adapters.maildir import MaildirMailbox, deliver, ensure
from pbem.adapters.smtp import SmtpSettings
from pbem.adapters.store import GameStore
from pbem.config import Config
from pbem.service import Service

MODERATOR = "mj@village.example"
LIST = "village@lists.village.example"
LIST_ID = "<village.lists.village.example>"
GAZETTE = "gazette@village.example"  # a list subscriber: what it receives is printed
DURATIONS = {
    "night_duration": "3s",
    "debate_duration": "2s",
    "round1_duration": "3s",
    "defence_duration": "1s",
    "round2_duration": "3s",
    "tally_min_interval": "1s",
}


class LocalMTA:
    """aiosmtpd handler: local Maildir delivery, unknown recipients refused at RCPT."""

    def __init__(self, root: Path, users: set[str], members: list[str]) -> None:
        self.root = root
        self.users = users
        self.members = members

    def box(self, addr: str) -> Path:
        local, _, domain = addr.lower().partition("@")
        return self.root / f"{local.split('+', 1)[0]}@{domain}"

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if self.box(address).name not in self.users and address.lower() != LIST:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        data: bytes = envelope.original_content or envelope.content
        for rcpt in envelope.rcpt_tos:
            if rcpt.lower() == LIST:
                for m in self.members:
                    deliver(self.box(m), f"List-Id: {LIST_ID}\r\n".encode() + data)
            else:
                deliver(self.box(rcpt), data)
        return "250 OK delivered"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _print_post(raw: bytes) -> None:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, email.message.EmailMessage)
    body = msg.get_body(("plain",))
    text = body.get_content() if body is not None else ""
    who = "the game master" if MODERATOR in str(msg["From"]) else str(msg["From"])
    print(f"\n┌─ {msg['Subject'] or '(no subject)'}   — {who}")
    for line in str(text).rstrip().splitlines():
        print("│ " + ("\n│ ".join(textwrap.wrap(line, 92)) if line else ""))
    print("└" + "─" * 40, flush=True)


async def run_demo_daemon(players: int, seed: int | None, lang: str) -> int:
    """Play one whole Lupus game through the real daemon; returns the exit status."""
    from aiosmtpd.controller import Controller

    from pbem.bots import bot_mails
    from pbem.cli_daemon import create_game
    from pbem.daemon import serve
    from pbem.demo import demo_setup
    from pbem.engine import Table

    seed = seed if seed is not None else random.SystemRandom().randrange(10**6)
    root = Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    setup = demo_setup("lupus-in-tabula", players, seed, lang)
    setup.update(moderator=MODERATOR, list=LIST, game_id="village", options=DURATIONS)
    emails = [p["email"] for p in setup["players"]]
    users = {*emails, MODERATOR, GAZETTE, "gm@village.example"}
    mail_root = root / "mail"
    for u in users:
        ensure(mail_root / u)
    port = _free_port()
    controller = Controller(
        LocalMTA(mail_root, users, [*emails, MODERATOR, GAZETTE]),
        hostname="127.0.0.1",
        port=port,
        ready_timeout=10,
    )
    controller.start()
    imap = ImapSettings(
        host="maildir", port=1, user=MODERATOR, password="", tls="none", poll_interval=0.5
    )
    cfg = Config(
        path=root / "demo.toml",
        moderator=MODERATOR,
        bounce=MODERATOR,
        admins=("gm@village.example",),
        list_address=LIST,
        list_id=LIST_ID.strip("<>"),
        language=lang,
        timezone="UTC",
        imap=imap,
        smtp=SmtpSettings("127.0.0.1", port, tls="none", timeout=10),
        data_dir=root / "data",
        outbound_cap_per_hour=100_000,
        autos_per_day=100_000,
        reminders_hours=(),
    )
    create_game(cfg, setup, Table, datetime.now(UTC))
    print(f"pbem demo: a Lupus game for {players} bots, seed {seed}, by SMTP on 127.0.0.1:{port}")
    print(f"state in {root}/data, mailboxes in {mail_root}")
    holder: dict[str, Service] = {}

    def keep(svc: Service) -> None:
        holder["svc"] = svc

    daemon = asyncio.create_task(
        serve(
            cfg,
            Table,
            mailbox=lambda: MaildirMailbox(mail_root / MODERATOR, imap),
            on_service=keep,
        )
    )
    rng = random.Random(seed)
    gazette = mail_root / GAZETTE / "new"
    store_dir = cfg.data_dir / "games" / "village"
    acted: set[Any] = set()
    finished_at: float | None = None
    loop = asyncio.get_running_loop()
    try:
        async with aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=10) as smtp:
            while not daemon.done():
                for p in sorted(gazette.iterdir(), key=lambda p: p.name):
                    _print_post(p.read_bytes())
                    p.rename(p.parent.parent / "cur" / p.name)
                gs = GameStore(store_dir, readonly=True)
                table = Table.load(gs.setup, gs.events())
                if table.finished:
                    finished_at = finished_at or loop.time()
                    if not gs.outbox() and loop.time() - finished_at > 2:
                        break
                else:
                    phase = tuple(sorted(table.deadlines().items()))
                    if phase and phase not in acted:
                        acted.add(phase)
                        for msg, _channel in bot_mails(table, rng):
                            msg["Message-ID"] = make_msgid(domain="village.example")
                            await smtp.send_message(msg)
                await asyncio.sleep(0.3)
    finally:
        if "svc" in holder:
            holder["svc"].request_stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(daemon, 30)
        controller.stop()
    summary = table.summary()
    print(f"\nWinners: {summary.get('side')}: {', '.join(summary['winners']) or 'nobody'}")
    for p in summary["players"]:
        print(
            f"  {p['name']:<10} {p['role']:<13} {p['team']:<12} {'alive' if p['alive'] else 'dead'}"
        )
    return 0 if table.finished else 1
