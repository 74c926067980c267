"""A whole bot-played game as each player's mailbox: the mails exactly as the daemon writes
them (text and HTML), one mbox per reader, to open in a mail client (issue 15).

``python -m pbem.tools.mailboxes DIR [--game GAME] [--lang fr|en] [--seed N]`` (``make mailbox``)
writes ``DIR/<game>/<address>.mbox`` for every player and the game master; the public posts
are in every player's mailbox, as a list delivers them.
"""

from __future__ import annotations

import argparse
import mailbox
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from pbem.mail.envelope import TEST_ID_KEY, build_outgoing
from pbem.mail.threads import Addressing, dress
from pbem.table import Outgoing, Step, Table
from pbem.tools.bots import bot_mails
from pbem.tools.demo import Bots, demo_setup
from pbem.tools.simulate import EPOCH

GAMES = ("lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula")
GAME_MASTER = "mj-humain@village.example"


@dataclass(frozen=True)
class Delivered:
    """One mail as a reader finds it in his mailbox."""

    to: str
    raw: bytes
    mail: Outgoing


def play_and_deliver(
    game: str,
    lang: str = "fr",
    seed: int = 1,
    observe: Callable[[Table, Step, datetime], None] | None = None,
    bots: Bots = bot_mails,
    deliver: bool = True,
) -> tuple[Table, list[Delivered]]:
    """A bot game played to its end; every mail built as the daemon builds it and delivered to
    each reader (the list's posts to every player and the game master). ``observe`` is called
    after each step is applied, with the time it happened (a test answers the mails there);
    ``bots`` play (random legal moves unless a test adds its own mails). ``deliver=False``:
    the same game, with no mail built nor delivered (for an ``observe`` that reads the steps'
    mails: building them was about two fifths of a game's CPU)."""
    setup = demo_setup(game, 0, seed, lang)
    setup["admins"] = [GAME_MASTER]
    table, first = Table.new(setup, EPOCH)
    readers = sorted({p.email for p in table.setup.players} | {GAME_MASTER})
    delivered: list[Delivered] = []
    now = EPOCH

    # filed in its thread as the daemon files it (pbem.mail.threads, issue 15)
    how = Addressing(table.game_id, setup["moderator"], setup["list"])
    langs = {p.email.lower(): p.lang for p in table.setup.players}

    def commit(step: Step) -> None:
        table.apply(step)
        if observe is not None:
            observe(table, step, now)
        if not deliver:
            return
        for index, out in enumerate(step.outgoing):
            date = now + timedelta(milliseconds=index)
            reader = "" if out.public or not out.to else out.to[0].lower()
            lang = langs.get(reader, table.setup.lang)
            filed = dress(out, how, table.renderer, lang, TEST_ID_KEY)
            _mid, raw = build_outgoing(
                filed.mail,
                sender=setup["moderator"],
                date=date,
                id_key=TEST_ID_KEY,
                **filed.headers,
            )
            for to in readers if out.public else out.to:
                delivered.append(Delivered(to, raw, out))

    commit(first)
    rng = random.Random(seed)
    for _ in range(400):
        if table.finished or not table.deadlines():
            break
        for msg, channel in list(bots(table, rng)):
            commit(table.receive(msg, channel=channel, now=now))  # type: ignore[arg-type]
            if table.finished:
                break
        if table.finished:
            break
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        commit(table.on_deadline(key, now))
    return table, delivered


def write_mailboxes(directory: Path, game: str, lang: str = "fr", seed: int = 1) -> list[Path]:
    """Write one mbox per reader under ``directory/game``; returns their paths."""
    _table, delivered = play_and_deliver(game, lang, seed)
    folder = directory / game
    folder.mkdir(parents=True, exist_ok=True)
    by_reader: dict[str, list[bytes]] = {}
    for item in delivered:
        by_reader.setdefault(item.to, []).append(item.raw)
    paths = []
    for reader, raws in sorted(by_reader.items()):
        path = folder / f"{reader}.mbox"
        path.unlink(missing_ok=True)  # a new game, not appended to an older one
        box = mailbox.mbox(path)
        try:
            for raw in raws:
                box.add(raw)
            box.flush()
        finally:
            box.close()
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    """Write the mailbox of each reader of a bot-played game, for each game asked (all four by
    default)."""
    parser = argparse.ArgumentParser(
        prog="python -m pbem.tools.mailboxes",
        description="Write each reader's mailbox of a whole bot-played game (text and HTML).",
    )
    parser.add_argument("directory", type=Path)
    parser.add_argument("--game", choices=GAMES, action="append", help="default: all four")
    parser.add_argument("--lang", choices=("fr", "en"), default="fr")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for game in args.game or GAMES:
        paths = write_mailboxes(args.directory, game, args.lang, args.seed)
        print(f"{game}: {len(paths)} mailboxes in {args.directory / game}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Delivered", "play_and_deliver", "write_mailboxes"]
