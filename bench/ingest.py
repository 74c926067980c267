"""End-to-end ingest: commands per second from IMAP to committed state and queued reply, as a
ratio against a raw imapclient batched fetch + stdlib parse of the same messages, same run
(issue 3 item 10; target ratio at least 0.5).

Both sides run against a private Dovecot on loopback (tests/support/mailstack.py). The pipeline
side is the daemon's own code path: ``ImapLoop.fetch_pending`` → ``Writer.handle_batch`` (per mail: hash,
ledger check, parse, hygiene, routing, ``Table.receive``, its events + outbox rows + ledger key in
one transaction; the batch announced by one in-flight write (crash-loop containment) and made
durable by one group commit) → ``settle`` (UID MOVE). The table is the test fake (one event per command), so the
figure is the daemon's overhead, not a game's rules.
Run: PYTHONPATH=. python bench/ingest.py [N]
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from imapclient import IMAPClient

from pbem.adapters.imap import ImapMailbox
from pbem.daemon.config import load
from tests.support.daemon_process import mail, new_fake_game, write_config
from tests.support.mailstack import LIST, MODERATOR, PLAYERS, Dovecot, ListConfig, MailStack


class NoScheduler:
    def arm(self, job: Any, when: Any, callback: Any) -> None:
        pass

    def disarm_game(self, game_id: str, keep: Any) -> None:
        pass


class NoTransport:
    async def send(self, mail_from: str, rcpts: Any, raw: bytes) -> Any:
        raise AssertionError("not sending in this benchmark")


def raw_fetch_parse(stack: MailStack, batch: int) -> float:
    t = time.perf_counter()
    with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=30) as c:
        c.login(MODERATOR, Dovecot.password(MODERATOR))
        c.select_folder("INBOX")
        uids = sorted(c.search("ALL"))
        for i in range(0, len(uids), batch):
            chunk = uids[i : i + batch]
            data = c.fetch(chunk, ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]"])
            for u in chunk:
                m = email.message_from_bytes(data[u][b"BODY[]"], policy=email.policy.default)
                body = m.get_body(("plain",))
                assert body is not None and "CMD" in body.get_content()
    return time.perf_counter() - t


async def pipeline(cfg_path: Path) -> tuple[float, int]:
    from pbem.daemon.service import Service
    from tests.support import fake_table

    cfg = load(cfg_path)
    svc = Service(
        cfg=cfg, engine=fake_table.Table, transport=NoTransport(), scheduler=NoScheduler()
    )  # type: ignore[arg-type]
    svc.open()
    box = ImapMailbox(cfg.imap)
    await asyncio.to_thread(box.connect)
    t = time.perf_counter()
    fetched = await svc.imap.fetch_pending(box)
    done: dict[int, Any] = {}
    for i in range(0, len(fetched), cfg.group_commit):
        done.update(svc.writer.handle_batch(fetched[i : i + cfg.group_commit]))
    await svc.imap.settle(box, done)
    elapsed = time.perf_counter() - t
    box.close()
    svc.close()
    assert all(v == "processed" for v in done.values())
    return elapsed, len(fetched)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    users = [MODERATOR, *(f"{p}@example.test" for p in PLAYERS)]
    stack = MailStack(users, [ListConfig(LIST, users)]).start()
    try:
        with tempfile.TemporaryDirectory(prefix="pbembench") as d:
            tmp = Path(d)
            cfg = write_config(
                stack, tmp, extra_imap="batch = 100", extra_daemon="autos_per_day = 1000000"
            )
            new_fake_game(cfg, "g1", list(PLAYERS))
            for i in range(n):
                m = mail(f"{PLAYERS[i % len(PLAYERS)]}@example.test", f"CMD w{i}\n")
                stack.inject(bytes(m), MODERATOR, sender=str(m["From"]))
            raw = min(raw_fetch_parse(stack, 100) for _ in range(3))
            pipe, count = asyncio.run(pipeline(cfg))
            assert count == n
    finally:
        stack.close()
    r, p = n / raw, n / pipe
    print(
        f"{n} messages: raw batched fetch + parse {r:,.0f} msg/s; daemon pipeline "
        f"(hash, parse, route, receive, commit with outbox + ledger, MOVE) {p:,.0f} cmd/s; "
        f"ratio {p / r:.2f} (target >= 0.5)"
    )


if __name__ == "__main__":
    main()
