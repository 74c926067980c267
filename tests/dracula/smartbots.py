"""Dracula-aware random players: legal-looking orders built from what each player knows
(his room, his objects, his flames), so play-outs reach every object and ending."""

from __future__ import annotations

import random
from collections.abc import Iterator
from email.message import EmailMessage

from pbem.core.ids import PlayerId
from pbem.games.dracula.manor import ORDINARY, ROOM_WORDS, SANCTUARY
from pbem.games.dracula.state import DraculaState
from pbem.table import Table
from pbem.tools.bots import plain_mail

ROOM_KEY = {r: w[0] for r, w in ROOM_WORDS.items()}


def _line(s: DraculaState, p: PlayerId, verb: str, rng: random.Random) -> str | None:
    others = [q for q in s.living() if q != p]
    pos = s.position(p)
    here = [q for q in s.present(pos) if q != p] if pos else []
    if verb == "room":
        if s.phase == "dracula_room":
            rooms = [r for r in ORDINARY if s.present(r)] or list(ORDINARY)
        else:
            rooms = [s.declared[p]] if s.seat(p).cursed and p in s.declared else list(ORDINARY)
        return f"PIECE {ROOM_KEY[rng.choice(rooms)]}"
    if verb in ("magnifier", "garlic", "candle", "key"):
        return {"magnifier": "LOUPE", "garlic": "AIL", "candle": "BOUGIE", "key": "CLEF"}[verb]
    if verb == "paint":
        return "PEINDRE {{ x }} Bob ment\nSubject: nope\nFIN"
    if verb == "stake":
        pool = [q for q in s.present(SANCTUARY) if q != p]
        return f"PIEU {rng.choice(pool)}" if pool else None
    if verb == "bite":
        return f"MORDRE {rng.choice(here)}" if here else None
    if verb == "abstain":
        return "MORDRE PERSONNE"
    if verb == "dance":
        return f"DANSER {rng.choice(here)} je suis humain" if here else None
    if verb == "reply":
        return "REPONDRE qui es-tu ?"
    if verb == "curse":
        return "MAUDIRE " + " ".join(rng.sample(others, min(len(others), rng.randint(1, 2))))
    if verb == "telepathy":
        return "TELEPATHIE mordez les grands"
    if verb == "flame":
        vampires = s.vampires()
        n = s.flames.get(p, 0)
        return "FLAMME " + " ".join(rng.choice(vampires) for _ in range(n)) if vampires else None
    if verb == "pass":
        return "PASSE"
    return None


def _public(s: DraculaState, p: PlayerId, verb: str, rng: random.Random) -> str | None:
    if verb == "vote":
        pool = [q for q in s.living() if not s.seat(q).sanctuary_used]
        return f"Mon vote : **{rng.choice(pool)}**" if pool else None
    if verb == "partner":
        paired = set(s.pairs) | set(s.pairs.values())
        pool = [q for q in s.living() if q != p and q not in s.designated and q not in paired]
        return f"COEQUIPIER {rng.choice(pool)}" if pool else None
    if verb == "flee":
        pool = [q for q in s.humans() if q != p]
        return f"Je fuis : **fuir {rng.choice(pool)}**" if pool else "**fuir**"
    if verb == "fight":
        return "**COMBATTRE**"
    return None


def smart_mails(table: Table, rng: random.Random) -> Iterator[tuple[EmailMessage, str]]:
    s: DraculaState = table.state
    rules = table.rules
    for spec in table.setup.players:
        p = spec.name
        if s.outcome is not None or not s.seat(p).alive:
            continue
        verbs = [
            c.verb for c in rules.available(s, p) if c.verb not in ("help", "status", "cancel")
        ]
        if s.phase == "day" and s.seat(p).cursed and p not in s.posted and rng.random() < 0.8:
            room = ROOM_KEY[rng.choice(ORDINARY)]
            body = f"Je suis maudit ! Ce soir : **{room}**"
            yield plain_mail(spec.email, table.setup.list_address, body + "\n"), "list"
            continue
        rng.shuffle(verbs)
        for verb in verbs[:2]:
            if rng.random() < 0.15:
                continue
            public = _public(s, p, verb, rng)
            if public is not None:
                yield plain_mail(spec.email, table.setup.list_address, public + "\n"), "list"
                continue
            line = _line(s, p, verb, rng)
            if line is not None:
                yield plain_mail(spec.email, table.setup.moderator, line + "\n"), "private"
