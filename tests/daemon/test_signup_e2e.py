"""Sign-ups through the real daemon, Dovecot and SMTP (issue 13): the game master opens a game
with `pbem open-game`, the list gets the announcement, every player joins by mail (to the
game's plus-address, or with its [tag] in the Subject), the game starts when full, and each
player receives his role card and the first night's prompts. Then a substitute takes a wolf's
seat mid-game (`pbem seat replace`): he gets the seat's file, his KILL is applied, the old
address is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.signup.engine import with_signups
from pbem.table import Table
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, mail, pbem, send, wait_for, write_config
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, ListConfig, MailStack

PLUS = MODERATOR.replace("moderator@", "moderator+village@")
ZOE = f"zoe@{DOMAIN}"


@pytest.fixture
def signup_stack() -> Iterator[MailStack]:
    """The daemon tests' stack with a mailbox for the substitute (the game master subscribes
    him to the external list)."""
    players = [f"{p}@{DOMAIN}" for p in PLAYERS]
    s = MailStack(
        [MODERATOR, ADMIN, *players, ZOE], [ListConfig(LIST, [*players, ZOE, MODERATOR])]
    ).start()
    try:
        yield s
    finally:
        s.close()


def _subjects(stack: MailStack, who: str) -> list[str]:
    return [str(m["Subject"]) for m in stack.messages(who)]


def _text(stack: MailStack, who: str) -> str:
    """Everything ``who`` received (private replies due together come as one digest)."""
    return "\n".join(
        f"{m['Subject']}\n{m.get_body(('plain',)).get_content()}"  # type: ignore[union-attr]
        for m in stack.messages(who)
    )


def test_a_game_opened_joined_by_mail_and_started_when_full(
    signup_stack: MailStack, tmp_path: Path
) -> None:
    stack = signup_stack
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        extra_daemon="outbound_cap_per_hour = 100000\nautos_per_day = 1000",
    )
    r = pbem(
        cfg,
        "open-game",
        "--id",
        "village",
        "--game",
        "lupus-in-tabula",
        "--seats",
        str(len(PLAYERS)),
        "--deadline",
        "2d",
        "--lang",
        "en",
        "--count-every",
        "0",
    )
    assert r.returncode == 0, r.stderr
    assert "opened for sign-ups" in r.stdout
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: all(
                any("Sign-ups open" in s for s in _subjects(stack, f"{p}@example.test"))
                for p in PLAYERS
            ),
            what="the announcement on the list",
            log=d.log,
        )
        for i, p in enumerate(PLAYERS):
            pronoun = " she" if i % 2 else ""
            if i % 2:  # half by the plus-address, half by the [tag] in the Subject
                send(stack, mail(f"{p}@example.test", f"JOIN {p.capitalize()}{pronoun}", to=PLUS))
            else:
                send(
                    stack,
                    mail(
                        f"{p}@example.test",
                        f"JOIN {p.capitalize()}{pronoun}",
                        to=MODERATOR,
                        subject="[village] sign-up",
                    ),
                )
        data = tmp_path / "data"

        def started() -> Table | None:
            gs = GameStore(data / "games" / "village", readonly=True)
            table = with_signups(Table).load(gs.setup, gs.events())
            return table if isinstance(table, Table) else None

        table = wait_for(started, what="the game started when full", log=d.log)
        assert sorted(table.player_emails.values()) == sorted(f"{p}@example.test" for p in PLAYERS)
        assert table.genders == {p.capitalize(): "f" for i, p in enumerate(PLAYERS) if i % 2}
        # every player: a receipt, his role card, and the first night on the list
        wait_for(
            lambda: all(
                "Your sign-up to Lupus in Tabula is recorded" in _text(stack, f"{p}@example.test")
                and f"{p.capitalize()}, you are " in _text(stack, f"{p}@example.test")
                and "Night 1" in _text(stack, f"{p}@example.test")
                for p in PLAYERS
            ),
            what="receipts, role cards and the first night on the list",
            log=d.log,
        )
        roles = {p["name"]: p["role"] for p in table.summary()["players"]}
        wolves = [n for n, role in roles.items() if role == "werewolf"]
        wait_for(
            lambda: all(
                "Choose tonight's victim with KILL" in _text(stack, f"{w.lower()}@example.test")
                for w in wolves
            ),
            what="the wolves' first prompt",
            log=d.log,
        )
        counts = [s for s in _subjects(stack, f"{PLAYERS[0]}@example.test") if "Sign-ups:" in s]
        assert counts, "the list saw the count move"
        wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)

        # a substitute mid-game (issue 13): the first wolf's seat goes to Zoe from the shell
        wolf = wolves[0]
        old = f"{wolf.lower()}@example.test"
        victim = next(n for n in roles if n not in wolves)
        r = pbem_in_process(cfg, "seat", "replace", "village", wolf, ZOE, "--name", "Zoe")
        assert r.returncode == 0, r.stderr
        wait_for(
            lambda: (
                f"You take {wolf}'s place" in _text(stack, ZOE)
                and "Zoe, you are " in _text(stack, ZOE)
            ),  # the role card, re-rendered for her
            what="Zoe's hand-over packet",
            log=d.log,
        )
        send(stack, mail(ZOE, f"KILL {victim}", to=PLUS))
        wait_for(
            lambda: f"✓ KILL {victim}" in _text(stack, ZOE), what="Zoe's KILL applied", log=d.log
        )
        send(stack, mail(old, f"KILL {victim}", to=PLUS))
        wait_for(
            lambda: "no longer plays in this game" in _text(stack, old),
            what="the old address refused",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()
