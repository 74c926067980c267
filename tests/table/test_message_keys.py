"""Every mail a game sends has its own key, hence its own Message-ID: the daemon's outbox
removes a sent row by that id, so two mails sharing one would lose the second (and a
resent mail must keep its id: keys are derived from the game, never random)."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from pbem.table import Table
from pbem.tools.bots import plain_mail
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_mail_of_a_whole_game_has_its_own_key(game: str, seed: int) -> None:
    table, step = Table.new(demo_setup(game, 0, seed, "fr" if seed % 2 else "en"), EPOCH)
    table.apply(step)
    sent = list(step.outgoing) + play(table, random.Random(seed))
    assert table.finished
    dups = {k: n for k, n in Counter(o.key for o in sent).items() if n > 1}
    assert not dups
    again, step = Table.new(demo_setup(game, 0, seed, "fr" if seed % 2 else "en"), EPOCH)
    again.apply(step)
    assert [o.key for o in list(step.outgoing) + play(again, random.Random(seed))] == [
        o.key for o in sent
    ]


def test_a_receipts_key_is_the_sha256_of_its_mail_its_sender_and_the_log_length() -> None:
    """A receipt's key derives from the mail's Message-ID, its sender and the log's length
    (a resent mail keeps its id); each mail's hash starts from an empty SHA-256 copied, never
    from the last mail's (issue 23)."""
    table, step = Table.new(demo_setup("lupus-in-tabula", 0, 1, "fr"), EPOCH)
    table.apply(step)
    player = table.setup.players[0]
    for text in ("AIDE", "STATUT"):
        msg = plain_mail(player.email, table.setup.moderator, text)
        msg["Message-ID"] = f"<{text}@example.org>"
        length = len(table.events)
        reply = table.receive(msg, channel="private", now=EPOCH).outgoing[0]
        wanted = hashlib.sha256(f"<{text}@example.org>|{player.email}|{length}".encode())
        assert reply.key == f"{table.game_id}/reply/{wanted.hexdigest()[:16]}"
