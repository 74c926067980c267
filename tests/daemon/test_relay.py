"""``[list] mode = "relay"``: the daemon is the list (issue 3 item 1; LG-D35, CAS-D28, AMB-009).

The list address is delivered to the moderator's mailbox (an alias at the MTA); the daemon
distributes accepted posts to every member itself, refuses the dead's posts, holds posts made
while the list is closed and relays them when it reopens, and authenticates list posts like
private mail (requirement 6: a spoofed or code-less public vote is not counted, and a SECRET
line never reaches the other players). Real Dovecot and aiosmtpd; the fake engine's even phases
are "nights" and its ``dead`` option names players who may not post.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    Daemon,
    close_phase,
    game_state,
    mail,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, MailStack

MEMBERS = ("alice", "bob", "carol", "dave")


@pytest.fixture
def relay_stack() -> Iterator[MailStack]:
    """No list server: mail to the list address lands in the moderator's INBOX."""
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    s = MailStack(users, aliases={LIST: MODERATOR}).start()
    try:
        yield s
    finally:
        s.close()


def _copies(stack: MailStack, user: str) -> list[EmailMessage]:
    """Relayed posts a member received (From the list, not results from the moderator)."""
    return [m for m in stack.messages(f"{user}@{DOMAIN}") if LIST in str(m["From"])]


def _notices(stack: MailStack, user: str) -> list[str]:
    return [
        str(text_of(m))
        for m in stack.messages(f"{user}@{DOMAIN}")
        if m["Auto-Submitted"] == "auto-replied"
    ]


def _phase(data: Path) -> int:
    events, _ = game_state(data, "r1")
    return max(int(e["n"]) for e in events if e["type"] == "phase")


@pytest.mark.slow(20)
def test_relay_distributes_refuses_holds_and_authenticates(
    relay_stack: MailStack, tmp_path: Path
) -> None:
    stack = relay_stack
    cfg = write_config(
        stack, tmp_path, list_mode="relay", auth='[auth]\nmethods = ["registered", "secret"]'
    )
    setup = {
        "game": "fake",
        "game_id": "r1",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in MEMBERS],
        # phases end by `pbem admin r1 CLOSE` (an event), never under the posts of the test
        "options": {"dead": ["bob"]},
        "list": LIST,
        "admins": [ADMIN],
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "r1", "--secrets"
    )
    assert r.returncode == 0, r.stderr
    codes = dict(re.findall(r"secret code for (\w+): (\w+)", r.stdout))
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        # phase 1, a "day": a post with its code is relayed to every member and counted
        send(
            stack,
            mail(f"alice@{DOMAIN}", f"Good morning!\nSECRET {codes['alice']}\nCMD vote1", to=LIST),
            mail(f"dave@{DOMAIN}", "CMD forged", to=LIST),  # requirement 6: no code
            mail(f"bob@{DOMAIN}", f"SECRET {codes['bob']}\nBoo from the grave", to=LIST),
            mail("stranger@example.org", "Buy cheap watches", to=LIST),
        )
        wait_for(
            lambda: all(_copies(stack, p) for p in MEMBERS) and _copies(stack, "admin"),
            what="alice's post relayed to every member and the game admin",
            log=d.log,
        )
        copy = _copies(stack, "carol")[0]
        assert copy["List-Id"] == "<game.lists.example.test>"
        assert copy["Reply-To"] == LIST and copy["X-Loop"] == MODERATOR
        assert str(copy["From"]).startswith("alice via r1")
        assert str(copy["Subject"]).startswith("[r1]")
        body = str(text_of(copy))
        assert "Good morning!" in body and codes["alice"] not in body, "the code never leaks"
        assert "SECRET" not in body
        # the copy names the poster by his game name only: his address is in no header
        assert f"alice@{DOMAIN}" not in "".join(f"{k}: {v}" for k, v in copy.items())
        events, _ = game_state(data, "r1")
        assert [e["word"] for e in events if e["type"] == "cmd"] == ["vote1"]
        # the code-less vote was not counted; dave is told at his registered address
        wait_for(lambda: _notices(stack, "dave"), what="auth notice to dave", log=d.log)
        wait_for(lambda: _notices(stack, "bob"), what="bob refused", log=d.log)
        assert any("dead do not post" in n for n in _notices(stack, "bob"))
        for p in MEMBERS:  # only alice's post went out: not dave's, bob's nor the stranger's
            assert len(_copies(stack, p)) == 1, p
        # results reach every member, with the list's headers
        results = [m for m in stack.messages(f"carol@{DOMAIN}") if m["Precedence"] == "bulk"]
        assert results and results[0]["List-Id"] == "<game.lists.example.test>"

        # phase 2, a "night": carol's post is held, then relayed when phase 3 opens
        close_phase(cfg, "r1")
        wait_for(lambda: _phase(data) == 2, what="the night", log=d.log)
        send(stack, mail(f"carol@{DOMAIN}", f"Psst\nSECRET {codes['carol']}", to=LIST))
        wait_for(
            lambda: any("held" in n for n in _notices(stack, "carol")),
            what="carol told her post is held",
            log=d.log,
        )
        status = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
        assert status["games"][0]["held_posts"] == 1  # still night: the operator sees it
        assert all(len(_copies(stack, p)) == 1 for p in MEMBERS), "held, not relayed"
        close_phase(cfg, "r1")
        wait_for(
            lambda: all(len(_copies(stack, p)) == 2 for p in MEMBERS),
            what="the held post relayed in the morning",
            log=d.log,
        )
        assert _phase(data) == 3
        held = [m for m in _copies(stack, "alice") if "Psst" in str(text_of(m))]
        assert len(held) == 1 and str(held[0]["From"]).startswith("carol via r1")
        assert d.stop() == 0
    finally:
        d.kill()
    head = json.loads((data / "games" / "r1" / "head.json").read_text())
    assert not head.get("held"), "nothing left held"
    # the daemon never sends to the list address itself: that would loop back to its INBOX
    posters = {f"{p}@{DOMAIN}" for p in MEMBERS} | {"stranger@example.org"}
    ours = [rcpts for sender, rcpts, _raw in stack.handler.received if sender not in posters]
    assert ours and not any(LIST in rcpts for rcpts in ours)


@pytest.mark.slow(15)
def test_external_list_votes_count_once_confirmed_from_the_registered_address(
    stack: MailStack, tmp_path: Path
) -> None:
    """Requirement 6 on an external list, ``[auth] list_votes = "auto"`` with secret codes
    (hence ``confirm``): a list vote counts only once its poster confirms it by a private
    reply from his registered address (with his code); a spoofed post is never counted, its
    confirmation request goes to the real player; a token confirms once."""
    cfg = write_config(stack, tmp_path, auth='[auth]\nmethods = ["registered", "secret"]')
    setup = {
        "game": "fake",
        "game_id": "c1",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in MEMBERS],
        "list": LIST,
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "c1", "--secrets"
    )
    assert r.returncode == 0, r.stderr
    codes = dict(re.findall(r"secret code for (\w+): (\w+)", r.stdout))
    data = tmp_path / "data"

    def words() -> list[str]:
        events, _ = game_state(data, "c1")
        return [e["word"] for e in events if e["type"] == "cmd"]

    def requests(user: str) -> list[EmailMessage]:
        return [m for m in stack.messages(f"{user}@{DOMAIN}") if "CONFIRM-" in str(m["Subject"])]

    d = Daemon(cfg).start()
    try:
        send(
            stack,
            mail(f"alice@{DOMAIN}", "I vote\nCMD v1", to=LIST),
            mail(f"bob@{DOMAIN}", "CMD forged", to=LIST, Received="from evil.example"),
        )
        wait_for(lambda: requests("alice") and requests("bob"), what="requests", log=d.log)
        assert words() == [], "nothing counts before a confirmation"
        status = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
        assert status["games"][0]["awaiting_confirmation"] == 2
        request = requests("alice")[0]
        assert "CMD v1" in str(text_of(request)) and "SECRET" in str(text_of(request))
        token = re.search(r"CONFIRM-([0-9a-f]{16})", str(request["Subject"]))
        assert token is not None
        no_code = mail(f"alice@{DOMAIN}", "yes", subject=f"Re: {request['Subject']}")
        send(stack, no_code)
        wait_for(lambda: _notices(stack, "alice")[1:], what="auth notice", log=d.log)
        assert words() == [], "a confirmation without the code is refused"
        quoted = "".join(f"> {line}\n" for line in str(text_of(request)).splitlines())
        reply = mail(
            f"alice@{DOMAIN}",
            f"SECRET {codes['alice']}\n{quoted}",  # every line quoted, as mail clients do
            subject=f"Re: {request['Subject']}",
        )
        send(stack, reply)
        wait_for(lambda: words() == ["v1"], what="the confirmed vote", log=d.log)
        again = mail(
            f"alice@{DOMAIN}", f"SECRET {codes['alice']}", subject=f"Re: {request['Subject']}"
        )
        send(stack, again)
        wait_for(lambda: not stack.messages(MODERATOR), what="the replay processed", log=d.log)
        assert words() == ["v1"], "a token confirms once; the spoofed vote never counts"
        assert d.stop() == 0
    finally:
        d.kill()


def test_a_post_reaches_the_game_whose_own_list_it_was_sent_to(tmp_path: Path) -> None:
    """Routing: a player in two games posts to the second game's own list (no tag, no
    plus-address): it reaches that game. In-process (tests/support/inproc_daemon.py)."""
    from pbem.cli.newgame import create_game
    from tests.support.inproc_daemon import PLAYERS as P3
    from tests.support.inproc_daemon import World

    world = World(tmp_path)
    for gid, lst in (("g1", f"one@lists.{DOMAIN}"), ("g2", f"two@lists.{DOMAIN}")):
        setup = {
            "game": "fake",
            "game_id": gid,
            "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in P3],
            "list": lst,
        }
        create_game(world.cfg, setup, world.engine, world.now)
    svc = world.start()
    post = mail(f"{P3[0]}@{DOMAIN}", "CMD second", to=f"two@lists.{DOMAIN}")
    assert svc.writer.handle_batch(world.fetched(post)) == {world.uid: "processed"}
    assert world.words("g2") == {"second": 1} and not world.words("g1")
