"""Bot players who make random legal moves: for ``make demo``, property tests and benchmarks.

A bot knows only what the rules let it send (``Rules.available``) and the players' names; it
writes the command line a person would write and mails it, privately or to the list.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import compat32

from pbem.core.commands import Command, Player, Players, Text, Word
from pbem.core.errors import CommandError
from pbem.core.ids import PlayerId
from pbem.table import Table
from pbem.tools.simulate import EPOCH

_CHAT = ("Je me méfie de tout le monde.", "I trust nobody tonight.", "Courage !")


def bot_mails(table: Table, rng: random.Random) -> Iterator[tuple[EmailMessage, str]]:
    """One round of mails: each player may send one command the rules allow him now.

    A single-name command is tried against the rules (``decide`` is pure) on a few names and
    sent with the first one they accept, so bots make legal moves; players who share a verb
    tend to agree on the name (a pack's victim, a mob's suspect), as people do.
    """
    state = table.state
    rules = table.rules
    names: list[str] = list(rules.names(state))
    favourite: dict[str, str] = {}
    for spec in table.setup.players:
        options = [
            c
            for c in rules.available(state, spec.name)
            if c.verb not in ("help", "status", "cancel")
        ]
        if not options or rng.random() < 0.1:
            continue
        command = rng.choice(options)
        words = [command.keyword(spec.lang)]
        for arg in command.args:
            if isinstance(arg, Player):
                words.append(_legal_name(table, spec.name, command.verb, names, favourite, rng))
            elif isinstance(arg, Players):
                most = min(arg.count, len(names))
                words += rng.sample(names, rng.randint(1, most) if arg.at_most else most)
            elif isinstance(arg, Word):
                words.append(rng.choice(list(arg.choices.values()))[0])
            elif isinstance(arg, Text):
                words.append(rng.choice(_CHAT))
        line = " ".join(words)
        channel = "list" if command.public else "private"
        if command.public and rng.random() < 0.5 and command.verb == "vote":
            line = f"Mon vote : **{words[-1]}**"
        to = table.setup.list_address if command.public else table.setup.moderator
        yield plain_mail(spec.email, to, line + "\n"), channel


def _legal_name(
    table: Table,
    actor: str,
    verb: str,
    names: list[str],
    favourite: dict[str, str],
    rng: random.Random,
) -> str:
    """A name the rules accept for ``verb`` (the shared favourite first), else a random one."""
    rules, state = table.rules, table.state
    channel = "list" if any(c.verb == verb and c.public for c in rules.all_commands) else "private"
    candidates = rng.sample(names, min(6, len(names)))
    if verb in favourite and rng.random() < 0.7:
        candidates.insert(0, favourite[verb])
    for name in candidates:
        try:
            rules.decide(state, PlayerId(actor), Command(verb, (PlayerId(name),)), EPOCH, channel)
        except CommandError:
            continue
        favourite.setdefault(verb, name)
        return name
    return candidates[0]


def plain_mail(sender: str, to: str, body: str) -> EmailMessage:
    """A minimal text/plain mail, built without the header parsing ``EmailMessage`` does."""
    msg = EmailMessage(policy=compat32)
    msg["From"] = sender
    msg["To"] = to
    msg.set_payload(body.encode("utf-8"), None)
    msg["Content-Type"] = 'text/plain; charset="utf-8"'
    msg["Content-Transfer-Encoding"] = "8bit"
    return msg
