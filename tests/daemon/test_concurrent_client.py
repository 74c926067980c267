"""F15 against a real Dovecot: a human's mail client on the moderator's mailbox (RELIABILITY §7.4).

While the daemon processes a burst of commands, a second IMAP session logged in as the same user
marks mail ``\\Seen`` and unmarks it, deletes and expunges some mail in INBOX (before and during
the run) and some already in Processed, and files its own mail into Processed. Invariants:
``\\Seen`` is not state (a read mail is processed); every mail left in INBOX is applied exactly
once; a mail expunged before the daemon saw it is not applied, one expunged during the run at most
once; mail deleted from Processed is not re-applied; the other client's own mail is never moved or
expunged (only UID MOVE of our own UIDs); the daemon neither crashes nor drops its connection when
one of its UIDs vanishes before its MOVE (Dovecot: ``NO [EXPUNGEISSUED]``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

from imapclient import IMAPClient

from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    wait_for,
    write_config,
)
from tests.support.mailstack import MODERATOR, PLAYERS, Dovecot, MailStack

SEEN = b"\\Seen"


def _words_of(c: IMAPClient, uids: list[int]) -> dict[int, str]:
    """UID -> the command word, read from the Subject (``orders wN``) without setting \\Seen."""
    out = {}
    for uid, data in c.fetch(uids, ["BODY.PEEK[HEADER.FIELDS (SUBJECT)]"]).items():
        raw = data.get(b"BODY[HEADER.FIELDS (SUBJECT)]", b"")
        if isinstance(raw, bytes) and b"orders " in raw:
            out[uid] = raw.split(b"orders ", 1)[1].split()[0].decode()
    return out


def _expunge(c: IMAPClient, uids: list[int]) -> None:
    c.delete_messages(uids)
    c.expunge(uids)  # UID EXPUNGE: the human's client, like ours, removes only its own picks


def test_webmail_client_marking_and_deleting_concurrently(stack: MailStack, tmp_path: Path) -> None:
    rng = random.Random(15)
    cfg = write_config(stack, tmp_path)
    players = list(PLAYERS)
    new_fake_game(cfg, "g1", players, phase_minutes=60)
    data = tmp_path / "data"
    n = 0

    def inject(k: int) -> None:
        nonlocal n
        for _ in range(k):
            who = players[n % len(players)]
            m = mail(f"{who}@example.test", f"CMD w{n}", subject=f"orders w{n}")
            stack.inject(bytes(m), MODERATOR, sender=f"{who}@example.test")
            n += 1

    inject(30)
    other = IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=10)
    other.login(MODERATOR, Dovecot.password(MODERATOR))
    for folder in ("Processed", "Quarantine"):
        if not other.folder_exists(folder):
            other.create_folder(folder)
    marker = mail("human@example.test", "filed by hand", subject="my own note")
    other.append("Processed", bytes(marker), flags=[SEEN])
    other.append("Quarantine", bytes(marker))
    other.select_folder("INBOX")
    words = _words_of(other, other.search("ALL"))
    uids = sorted(words)
    read_before = {words[u] for u in uids[:20]}
    other.add_flags(uids[:20], [SEEN])  # the human read 20 of them: still commands
    gone_before = {words[u] for u in uids[20:24]}
    _expunge(other, uids[20:24])  # and deleted 4 before the daemon ever saw them
    racy: set[str] = set()  # expunged from INBOX while the daemon runs: applied 0 or 1 times
    from_processed: set[str] = set()

    d = Daemon(cfg).start()
    try:
        for _ in range(12):  # the burst goes on while the human clicks around
            inject(3)
            other.noop()
            now = _words_of(other, other.search("ALL"))
            if now:
                pick = sorted(now)
                other.add_flags(pick, [SEEN])
                other.remove_flags(pick[::2], [SEEN])
                victim = rng.choice(pick)
                racy.add(now[victim])
                _expunge(other, [victim])
            other.select_folder("Processed")
            done = {u: w for u, w in _words_of(other, other.search("ALL")).items()}
            if done:
                victim = rng.choice(sorted(done))
                from_processed.add(done[victim])
                _expunge(other, [victim])
            other.select_folder("INBOX")
            time.sleep(0.15)
        assert d.alive(), d.log()
        everything = {f"w{i}" for i in range(n)}
        must = everything - gone_before - racy

        def applied() -> Counter[str]:
            return Counter(str(e["word"]) for e in game_state(data, "g1")[0] if e["type"] == "cmd")

        wait_for(
            lambda: must <= set(applied()) and not stack.messages(MODERATOR),
            what="every surviving command applied and INBOX drained",
            log=d.log,
        )
        got = applied()
        assert all(got[w] == 1 for w in must), {w: got[w] for w in must if got[w] != 1}
        assert read_before - gone_before - racy <= set(got), "a \\Seen mail was not processed"
        assert not gone_before & set(got), "a mail expunged before the fetch was applied"
        assert all(got[w] <= 1 for w in racy)
        assert max(got.values()) == 1 and set(got) <= everything
        assert from_processed <= set(got)  # deleted from Processed after its commit: kept
        # the human's own mail was never touched: only UID MOVE of the daemon's own UIDs
        for folder in ("Processed", "Quarantine"):
            mine = [m for m in stack.messages(MODERATOR, folder) if m["Subject"] == "my own note"]
            assert len(mine) == 1, folder
        assert d.stop() == 0
        assert "Traceback" not in d.log()
    finally:
        other.logout()
        d.kill()
