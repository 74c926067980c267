"""A player in two games at once answers with a plain Reply (issue 15), through the real daemon,
Dovecot and SMTP: a prompt of each game and a list post of each, the way Gmail and Apple Mail
write a Reply (To: the Reply-To, In-Reply-To/References, « Re: » Subject, the quote below);
each order reaches its own game, with a real list and with pbem as the list. And a Gmail reply
to the bare moderator address, its Subject edited (no plus-address, no tag), still reaches its
game through References, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, game_state, mail, send, write_config
from tests.support.daemon_process import wait_for as harness_wait
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, MailStack

ALICE = "alice@example.test"
NAMES = [p.capitalize() for p in PLAYERS]
HOURS = {  # long phases: the test closes them itself (the desk's CLOSE), nothing races it
    "night_duration": "10h",
    "debate_duration": "10h",
    "round1_duration": "10h",
    "defence_duration": "10h",
    "round2_duration": "10h",
}


def wait_for(pred: Callable[[], Any], what: str, log: Callable[[], str]) -> Any:
    """The harness's wait, long enough for a machine shared with other test runs: each step
    is one or two mails through Dovecot and the daemon."""
    return harness_wait(pred, timeout=90, what=what, log=log)


def _new_game(cfg: Path, gid: str, lang: str, roles: dict[str, str]) -> None:
    setup = {
        "game": "lupus-in-tabula",
        "seed": 3,
        "lang": lang,
        "players": [{"name": n, "email": f"{n.lower()}@example.test"} for n in NAMES],
        "roles": {n: roles.get(n, "villager") for n in NAMES},
        "options": HOURS,
        "list": LIST,
    }
    path = cfg.parent / f"setup-{gid}.json"
    path.write_text(json.dumps(setup))
    r = pbem_in_process(cfg, "new-game", "--setup", str(path), "--id", gid)
    assert r.returncode == 0, r.stderr


def _find(
    stack: MailStack, user: str, subject: str, text: str = "", title: str = ""
) -> EmailMessage | None:
    """The first mail of ``user`` with this Subject, holding ``text``, under this ``title``
    (its own title, the first line of its text under a thread's Subject)."""
    for m in stack.messages(user):
        body = m.get_body(("plain",))
        content = str(body.get_content()) if body is not None else ""
        first = (content.splitlines() or [""])[0]
        if str(m["Subject"]) == subject and text in content and first.startswith(title):
            return m
    return None


def _reply(parent: EmailMessage, who: str, body: str, *, client: str) -> EmailMessage:
    """A plain Reply as ``client`` writes it: to the Reply-To (else the From), the parent's
    References and Message-ID, « Re: » and the parent's text quoted below."""
    m = EmailMessage()
    m["From"] = f"{who.capitalize()} <{who}@example.test>"
    m["To"] = str(parent["Reply-To"] or parent["From"])
    m["Subject"] = "Re: " + str(parent["Subject"])
    m["Message-ID"] = make_msgid(domain="mail.gmail.com" if client == "gmail" else "icloud.com")
    mid = str(parent["Message-ID"])
    m["In-Reply-To"] = mid
    m["References"] = " ".join([*str(parent.get("References", "")).split(), mid])
    part = parent.get_body(("plain",))
    quoted = "\n".join("> " + line for line in str(part.get_content() if part else "").splitlines())
    if client == "gmail":  # Gmail: « Le mar. 1 déc. 2026 à 19:00, X <a> a écrit : »
        intro = f"Le mar. 1 déc. 2026 à 19:00, {parent['From']} a écrit :"
    else:  # Apple Mail: « > Le 1 déc. 2026 à 19:00, X <a> a écrit : » then a blank line
        intro = f"> Le 1 déc. 2026 à 19:00, {parent['From']} a écrit :\n>"
    m.set_content(f"{body}\n\n{intro}\n{quoted}\n")
    return m


def _answer(stack: MailStack, order: EmailMessage) -> EmailMessage | None:
    """pbem's answer to ``order`` in Alice's mailbox."""
    mid = order["Message-ID"]
    return next((m for m in stack.messages(ALICE) if m["In-Reply-To"] == mid), None)


def _events(tmp: Path, gid: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in game_state(tmp / "data", gid)[0] if e["type"] == kind]


def _close(cfg: Path, gid: str) -> None:
    r = pbem_in_process(cfg, "admin", gid, "CLOSE")
    assert r.returncode == 0, r.stderr


@pytest.fixture
def relay_stack() -> Iterator[MailStack]:
    """No list server: mail to the list address lands in the moderator's INBOX (pbem is the
    list, ``[list] mode = "relay"``)."""
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    s = MailStack(users, aliases={LIST: MODERATOR}).start()
    try:
        yield s
    finally:
        s.close()


@pytest.mark.parametrize("mode", ["external", "relay"])
def test_a_player_in_two_games_answers_each_mail_with_reply_and_reaches_its_game(
    mode: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Both list modes: a real list that fans the posts out, or pbem itself as the list."""
    stack: MailStack = request.getfixturevalue("stack" if mode == "external" else "relay_stack")
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        extra_daemon="outbound_cap_per_hour = 100000\nautos_per_day = 1000",
        list_mode=mode,
    )
    # village1 (French): Alice is the Seer; village2 (English): Alice hunts with the pack
    _new_game(cfg, "village1", "fr", {"Alice": "seer", "Grace": "werewolf", "Heidi": "werewolf"})
    _new_game(cfg, "village2", "en", {"Alice": "werewolf", "Bob": "werewolf", "Carol": "seer"})
    d = Daemon(cfg).start()
    try:
        prompt1 = wait_for(
            lambda: _find(stack, ALICE, "[village1] Nuit 1 et jour 1 (privé)", "vision"),
            what="village1's night prompt",
            log=d.log,
        )
        prompt2 = wait_for(
            lambda: _find(stack, ALICE, "[village2] Night 1 and day 1 (private)", "KILL"),
            what="village2's night prompt",
            log=d.log,
        )
        for prompt, gid in ((prompt1, "village1"), (prompt2, "village2")):
            assert str(prompt["From"]) == f"MJ {gid} <{MODERATOR}>"
            assert prompt["Reply-To"] == f"moderator+{gid}@example.test"
        # a plain Reply to each prompt, from Gmail and from Apple Mail
        scan = _reply(prompt1, "alice", "SONDER Bob", client="gmail")
        kill = _reply(prompt2, "alice", "KILL Dave", client="apple")
        send(stack, scan, kill)
        wait_for(
            lambda: (
                _events(tmp_path, "village1", "ActionSet")
                and _events(tmp_path, "village2", "ActionSet")
            ),
            what="both orders applied",
            log=d.log,
        )
        assert _events(tmp_path, "village1", "ActionSet") == [
            {
                "type": "ActionSet",
                "actor": "Alice",
                "verb": "scan",
                "targets": ["Bob"],
                "word": None,
            }
        ]
        assert _events(tmp_path, "village2", "ActionSet") == [
            {
                "type": "ActionSet",
                "actor": "Alice",
                "verb": "kill",
                "targets": ["Dave"],
                "word": None,
            }
        ]
        # each receipt answers her mail, in the thread of her prompt
        for prompt, order in ((prompt1, scan), (prompt2, kill)):
            receipt = wait_for(lambda o=order: _answer(stack, o), what="a receipt", log=d.log)  # type: ignore[misc]
            assert str(receipt["Subject"]) == str(prompt["Subject"])
            assert str(receipt["References"]).split()[0] == str(prompt["References"]).split()[0]

        # Gmail, to the bare address (the Reply-To dropped), the Subject edited: References
        changed = _reply(prompt2, "alice", "KILL Erin", client="gmail")
        changed.replace_header("To", MODERATOR)
        changed.replace_header("Subject", "Re: orders")
        send(stack, changed)
        wait_for(
            lambda: len(_events(tmp_path, "village2", "ActionSet")) == 2,
            what="the order reached village2 through References",
            log=d.log,
        )
        assert _events(tmp_path, "village2", "ActionSet")[-1]["targets"] == ["Erin"]
        routed = wait_for(lambda: _answer(stack, changed), what="its receipt", log=d.log)
        text = str(routed.get_body(("plain",)).get_content())
        assert "went to the game village2" in text and "moderator+village2@example.test" in text
        page = routed.get_body(("html",))  # and the HTML alternative, which Gmail shows
        assert page is not None and "went to the game village2" in str(page.get_content())
        assert len(_events(tmp_path, "village1", "ActionSet")) == 1  # nothing in village1

        # to the votes: the pack of village1 kills Frank, then both nights and debates close
        send(stack, mail("grace@example.test", "TUER Frank", to="moderator+village1@example.test"))
        for gid in ("village1", "village2"):
            _close(cfg, gid)  # the night
        posts = {}
        # the call to vote by its title (the dawn names the rounds too)
        calls = {
            "village1": "Jour 1 : premier tour du vote",
            "village2": "Day 1: round 1 of the vote",
        }
        for gid, day in (("village1", "Jour 1"), ("village2", "Day 1")):
            wait_for(
                lambda g=gid, t=day: _find(stack, ALICE, f"[{g}] {t}"),  # type: ignore[misc]
                what=f"{gid}'s dawn",
                log=d.log,
            )
            _close(cfg, gid)  # the debate: the first round of votes opens
            posts[gid] = wait_for(
                lambda g=gid, t=day: _find(stack, ALICE, f"[{g}] {t}", title=calls[g]),  # type: ignore[misc]
                what=f"{gid}'s call to vote",
                log=d.log,
            )
        for gid, post in posts.items():
            assert str(post["From"]) == f"MJ {gid} <{MODERATOR}>" and post["Reply-To"] == LIST
            if mode == "relay":  # pbem is the list: it says how to post to it
                assert post["List-Post"] == f"<mailto:{LIST}>"
        # a plain Reply to each list post goes to the list (its Reply-To), which both games use
        send(
            stack,
            _reply(posts["village1"], "alice", "VOTE Carol", client="apple"),
            _reply(posts["village2"], "alice", "VOTE Grace", client="gmail"),
        )
        wait_for(
            lambda: (
                _events(tmp_path, "village1", "VoteSet")
                and _events(tmp_path, "village2", "VoteSet")
            ),
            what="both votes counted",
            log=d.log,
        )
        votes = {
            gid: [(e["voter"], e["target"]) for e in _events(tmp_path, gid, "VoteSet")]
            for gid in ("village1", "village2")
        }
        assert votes == {"village1": [("Alice", "Carol")], "village2": [("Alice", "Grace")]}
        assert d.stop() == 0
    finally:
        d.kill()
