"""Issue 10, item 12: a mail without a From (or with an unreadable one) is nobody's mail, even
in a game stored before setups were checked, where a player's address may be empty."""

from __future__ import annotations

from email.message import EmailMessage

from pbem.mail.inbound import parse_bytes
from pbem.table import Table, TableSetup
from pbem.tools.simulate import EPOCH

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]


def setup(alice_email: str) -> dict[str, object]:
    return {
        "game": "lupus-in-tabula",
        "lang": "en",
        "players": [
            {"name": n, "email": alice_email if n == "alice" else f"{n}@example.org"} for n in NAMES
        ],
        "roles": {
            n: {"alice": "werewolf", "bob": "werewolf", "carol": "seer"}.get(n, "villager")
            for n in NAMES
        },
    }


def stored_game_with_an_empty_address() -> Table:
    """A game as an older pbem stored it: alice's address is empty (new-game accepted it)."""
    table, step = Table.new(setup("alice@example.org"), EPOCH)
    table.apply(step)
    return Table(TableSetup.from_mapping(setup("")), table.rules, list(table.events))


def test_mail_without_from_never_counts_as_a_players() -> None:
    table = stored_game_with_an_empty_address()
    for raw in (
        b"To: mj@example.org\r\nSubject: x\r\n\r\nKILL dave\r\n",  # no From at all
        b"From: \r\nTo: mj@example.org\r\n\r\nKILL dave\r\n",  # an empty one
        b"From: <>\r\nTo: mj@example.org\r\n\r\nKILL dave\r\n",  # the null address
    ):
        step = table.receive(parse_bytes(raw), channel="private", now=EPOCH)
        assert step.events == () and step.outgoing == ()


def test_mail_from_the_player_still_counts() -> None:
    table, step = Table.new(setup("alice@example.org"), EPOCH)
    table.apply(step)
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.org>"
    msg.set_content("KILL dave")
    step = table.receive(msg, channel="private", now=EPOCH)
    assert step.events and step.outgoing[0].to == ("alice@example.org",)
