"""Dracula's orders: the command table (section 23) and what each command may do.

The ``Orders`` mixin holds one ``_do_<verb>`` handler per command; ``Dracula.decide`` dispatches
to them. A handler raises a CommandError (and changes nothing) or returns the order's events.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from pbem.core.commands import Command, CommandSpec, Player, Players, Text, Word
from pbem.core.errors import Amended, IllegalNow, InvalidSyntax, PartlyRefused, refuse
from pbem.core.events import Event, VoteSet, private, public
from pbem.core.game import ADMIN
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.games.dracula import night
from pbem.games.dracula.events import (
    Declared,
    FinalChoice,
    Moved,
    Order,
    Paired,
    TallyPosted,
    Telepathy,
    TelepathyHeld,
)
from pbem.games.dracula.manor import (
    CANDLE,
    GARLIC,
    GRIMOIRE,
    KEY,
    MAGNIFIER,
    PAINTKIT,
    PHONOGRAPH,
    ROOM_LABELS,
    ROOM_WORDS,
    SANCTUARY,
    STAKE,
)
from pbem.games.dracula.state import DraculaPhase, DraculaState, evolve

ROOMS_AND_SANCTUARY: Mapping[str, tuple[str, ...]] = {
    **ROOM_WORDS,
    SANCTUARY: ("SANCTUAIRE", "SANCTUARY"),
}
# the sanctuary is read, to be refused with its reason (DRA-081), never listed as a room
_ROOM = (Word(ROOMS_AND_SANCTUARY, labels=ROOM_LABELS, unlisted=frozenset({SANCTUARY})),)
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), (Player(),), public=True),  # CMD-01
    CommandSpec("partner", ("COEQUIPIER",), ("PARTNER",), (Player(),), public=True),  # CMD-02
    CommandSpec("room", ("PIECE", "SALLE"), ("ROOM",), _ROOM),  # CMD-04 (private first)
    CommandSpec("declare", ("PIECE", "SALLE"), ("ROOM",), _ROOM, public=True),  # CMD-03
    CommandSpec("magnifier", ("LOUPE",), ("MAGNIFIER",)),  # CMD-05
    CommandSpec("garlic", ("AIL",), ("GARLIC",)),  # CMD-06
    CommandSpec("candle", ("BOUGIE",), ("CANDLE",)),  # CMD-07
    CommandSpec("key", ("CLEF", "CLE"), ("KEY",)),  # CMD-08
    CommandSpec("paint", ("PEINDRE",), ("PAINT",), (Text(multiline=True),)),  # CMD-09
    CommandSpec("stake", ("PIEU",), ("STAKE",), (Player(),)),  # CMD-10
    CommandSpec("bite", ("MORDRE",), ("BITE",), (Player(),)),  # CMD-11
    CommandSpec("abstain", ("MORDRE PERSONNE",), ("BITE NOBODY",)),  # CMD-11
    CommandSpec("dance", ("DANSER",), ("DANCE",), (Player(), Text(multiline=True))),  # CMD-12
    CommandSpec("reply", ("REPONDRE",), ("REPLY",), (Text(multiline=True),)),  # CMD-13
    # CMD-14: any number of names parse; the rules keep two distinct a night (AMB-053)
    CommandSpec("curse", ("MAUDIRE",), ("CURSE",), (Players(24, at_most=True),)),
    CommandSpec("telepathy", ("TELEPATHIE",), ("TELEPATHY",), (Text(multiline=True),)),  # CMD-15
    CommandSpec("flee", ("FUIR",), ("FLEE",), (Player(optional=True),), public=True),  # CMD-17
    CommandSpec("fight", ("COMBATTRE",), ("FIGHT",), (), public=True),  # CMD-18
    CommandSpec(
        "flame", ("FLAMME", "FLAMMES"), ("FLAME", "FLAMES"), (Players(12, True, False),)
    ),  # CMD-19
)

ADMIN_COMMANDS: tuple[CommandSpec, ...] = (  # AMB-072
    CommandSpec("approve", ("APPROUVER",), ("APPROVE",)),
    CommandSpec("refuse", ("REFUSER",), ("REFUSE", "REJECT"), (Text(optional=True),)),
)

NIGHT_PHASES: tuple[DraculaPhase, ...] = (
    "rooms",
    "dracula_room",
    "magnifier",
    "bites",
    "dance_reply",
    "dawn_curse",
)
SILENT_PHASES: tuple[DraculaPhase, ...] = (
    *NIGHT_PHASES,
    "dawn_wait",
)  # DRA-082: nightfall to morning
CHOICE_PHASES: tuple[DraculaPhase, ...] = ("rooms", "magnifier")
EARLY_PHASES: tuple[DraculaPhase, ...] = (
    *NIGHT_PHASES,
    "final_choice",
    "flames",
)  # AMB-001: the day is for talking  # ORD-04 / ORD-06: object uses with the room
NORMAL_USES = {"magnifier": MAGNIFIER, "garlic": GARLIC, "candle": CANDLE, "key": KEY}


_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])")
_ROOM_KEYWORDS = ("piece", "salle", "room")


def said_curse(line: str, phrases: Sequence[str]) -> bool:
    """AMB-056.3, DRA-374: ``line`` begins with a curse phrase as people write it: in either
    gender (« Je suis maudite ! »: the seed's phrase is the masculine, a cursed woman writes
    the feminine), any case and accents, any spaces, and any closing punctuation or none
    (« Je suis maudit. », « JE SUIS MAUDITE !!! », « Je suis maudit, je vais… »); a word
    that goes on (« maudits », « mauditement ») is not the phrase."""
    first = fold(line).replace(" ", "")
    for phrase in phrases:
        bare = fold(phrase).replace(" ", "").rstrip("!.?…")
        forms = {bare, bare + "e"} if bare.endswith("maudit") else {bare}
        for form in forms:
            rest = first[len(form) :] if first.startswith(form) else None
            if rest is not None and not (rest[:1].isalnum()):
                return True
    return False


def cursed_declaration(lines: Sequence[str], phrases: Sequence[str]) -> str | None:
    """AMB-056.3: the room a compliant cursed post declares, or None if it is not compliant.

    The first line begins with the curse phrase (case, accents and the spaces before "!"
    ignored) and the post names exactly one ordinary room, in bold or on a PIECE/ROOM line.
    """
    if not lines:
        return None
    if not said_curse(lines[0], phrases):
        return None
    spellings = {" ".join(fold(w).split()): r for r, ws in ROOM_WORDS.items() for w in ws}
    found: set[str] = set()
    for line in lines:
        for a, b in _BOLD.findall(line):
            key = " ".join(fold(a or b).split())
            if key in spellings:
                found.add(spellings[key])
        words = fold(line).split()
        if words and words[0] in _ROOM_KEYWORDS:
            key = " ".join(words[1:])
            if key in spellings:
                found.add(spellings[key])
    return found.pop() if len(found) == 1 else None


def eligible(s: DraculaState, p: PlayerId) -> bool:
    """DRA-047, DRA-050, DRA-312: no second designated night; key nights do not count."""
    seat = s.seats[p]
    return seat.alive and not seat.sanctuary_used


def vote_refusal(s: DraculaState, actor: PlayerId, c: Command, ch: str) -> IllegalNow | None:
    """Why a sanctuary vote is refused, None if it is taken (the bots try one on many names,
    issue 23)."""
    if ch != "list":
        return IllegalNow("vote_on_list")  # DRA-044
    if s.phase != "day" or s.number < 2:
        return IllegalNow("no_sanctuary_vote")  # DRA-022, AMB-014
    if s.has_voted(actor):
        return IllegalNow("vote_final")  # DRA-045
    target = c.targets[0]
    if not s.seats[target].alive:
        return IllegalNow("target_not_living", name=target)
    if not eligible(s, target):
        return IllegalNow("not_eligible", name=target)  # DRA-047
    if target == actor and not s.options.allow_self_vote:
        return IllegalNow("not_yourself")
    return None


def vote_ranking(s: DraculaState) -> tuple[dict[PlayerId, int], list[PlayerId]]:
    """Today's sanctuary votes: each target's count, and the targets best first, on a tie
    whoever reached his total first (DRA-048)."""
    counts: dict[PlayerId, int] = {}
    reached: dict[PlayerId, int] = {}
    for _, target, seq in s.votes:
        counts[target] = counts.get(target, 0) + 1
        reached[target] = seq  # the sequence number of his c-th vote
    return counts, sorted(counts, key=lambda p: (-counts[p], reached[p]))


def running_tally(s: DraculaState, vote: VoteSet, now: datetime) -> list[Event]:
    """AMB-015 ``running_tally``: the vote, then the tally after it on the list, unless
    today's last tally is younger than ``tally_min_interval`` (as LUP-D18, CAS-730)."""
    last = s.last_tally
    if last is not None and now - last < s.options.tally_min_interval:
        return [vote]
    after = evolve(s, vote)
    counts, ranking = vote_ranking(after)
    tally = public(
        "dracula/tally",
        f"round-{s.round}-day-{s.number}",
        round=s.round,
        day=s.number,
        votes=[{"voter": v, "target": t} for v, t, _ in after.votes],
        ranking=[{"name": p, "votes": counts[p]} for p in ranking],
    )
    return [vote, TallyPosted(now), tally]


def partner_refusal(s: DraculaState, actor: PlayerId, c: Command, ch: str) -> IllegalNow | None:
    """Why a Night 4 partner is refused, None if he is taken (the bots try one on many names,
    issue 23)."""
    if ch != "list":
        return IllegalNow("partner_on_list")  # DRA-222
    if s.phase != "pairing":
        return IllegalNow("no_pairing_now")
    target = c.targets[0]
    if actor in s.designated:
        return IllegalNow("in_sanctuary")
    if actor in s.pairs or s.is_named(actor):
        return IllegalNow("already_paired")  # DRA-223, DRA-224
    if target == actor:
        return IllegalNow("not_yourself")
    if (
        not s.seats[target].alive
        or target in s.designated
        or target in s.pairs
        or s.is_named(target)
    ):
        return IllegalNow("partner_unavailable", name=target)
    return None


def _given(s: DraculaState, actor: PlayerId, verb: str, phases: Sequence[str]) -> IllegalNow | None:
    """:meth:`Orders._night_order`'s refusal, None if the order may be given now."""
    if s.phase not in phases:
        return IllegalNow("not_now")
    if (actor, verb) in s.orders:
        return IllegalNow("order_final")  # AMB-007
    return None


_STAKE_PHASES = ("rooms", "dracula_room", "magnifier", "bites")


def _object_refusal(s: DraculaState, actor: PlayerId, obj: str) -> IllegalNow | None:
    """Why ``actor`` may not use ``obj`` at all tonight, None if he may: only a human uses an
    object (DRA-252), one in his hand, from Night 3 (DRA-206, AMB-026)."""
    seat = s.seats[actor]
    if not seat.human:
        return IllegalNow("humans_only")
    if obj not in seat.hand:
        return IllegalNow("no_such_object", object=obj)
    if s.number <= 2:
        return IllegalNow("objects_from_night3")
    return None


def stake_refusal(s: DraculaState, actor: PlayerId, c: Command) -> IllegalNow | None:
    """Why a stake is refused, None if it is taken (the bots try one on many names)."""
    if (given := _given(s, actor, "stake", _STAKE_PHASES)) is not None:
        return given
    if (unusable := _object_refusal(s, actor, STAKE)) is not None:
        return unusable
    if s.position(actor) != SANCTUARY:
        return IllegalNow("stake_in_sanctuary")  # DRA-320
    target = c.targets[0]
    in_sanctuary = target in s.designated or (s.phase == "bites" and (target, "key") in s.orders)
    if target == actor or not in_sanctuary or not s.seats[target].alive:
        return IllegalNow("stake_target", name=target)  # DRA-321, AMB-048
    return None


def dance_refusal(
    s: DraculaState, actor: PlayerId, c: Command
) -> IllegalNow | InvalidSyntax | None:
    """Why a waltz is refused, None if it is taken (the bots try one on many names)."""
    if (given := _given(s, actor, "dance", ("bites",))) is not None:
        return given
    if PHONOGRAPH not in s.seats[actor].hand:
        return IllegalNow("no_such_object", object=PHONOGRAPH)
    if s.position(actor) == SANCTUARY and not s.options.dance_in_sanctuary:
        return IllegalNow("no_dance_here")  # AMB-058
    target = c.targets[0]
    if target == actor or s.position(target) != s.position(actor) or not s.seats[target].alive:
        return IllegalNow("not_in_your_room", name=target)  # DRA-401
    if len(c.text) > s.options.dance_max_chars:
        return InvalidSyntax("text_too_long", limit=s.options.dance_max_chars)
    return None


class Orders:
    """The command handlers of :class:`~pbem.games.dracula.rules.Dracula`."""

    # day ------------------------------------------------------------------------------------

    def _do_vote(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        refuse(vote_refusal(s, actor, c, ch))
        vote = VoteSet(f"day-{s.number}", actor, c.targets[0], s.seq + 1)
        if s.options.running_tally:  # AMB-015
            return running_tally(s, vote, now)
        return [vote]

    def _do_partner(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        refuse(partner_refusal(s, actor, c, ch))
        return [Paired(actor, c.targets[0])]

    def _do_declare(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if not s.seats[actor].cursed:
            raise IllegalNow("not_cursed")
        if s.phase != "day":
            raise IllegalNow("declare_by_day")
        if c.word == SANCTUARY or c.word is None:
            raise IllegalNow("sanctuary_not_a_room")
        if actor in s.declared:
            if s.declared[actor] == c.word:
                return []  # the same room again (a PIECE line of the declaring post)
            raise IllegalNow("declared_already", room=s.declared[actor])  # DRA-377
        return [Declared(actor, c.word)]

    def _do_telepathy(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if not s.seats[actor].dracula:
            raise IllegalNow("not_dracula")
        if s.telepathy_used:
            raise IllegalNow("telepathy_used")  # DRA-420: once per round
        if s.telepathy_pending is not None:
            raise IllegalNow("telepathy_pending")  # AMB-072
        recipients = [v for v in s.vampires() if not s.seats[v].dracula]
        at_night = s.phase in SILENT_PHASES
        if not recipients and not at_night:
            raise IllegalNow("telepathy_nobody")  # AMB-071
        if s.options.telepathy_review == "admin":  # AMB-072: held for the administrator
            t = f"round-{s.round}-telepathy"
            return [
                TelepathyHeld(c.text),
                private("dracula/telepathy_review", [ADMIN], t, text=c.text, round=s.round),
            ]
        return self._deliver_telepathy(s, c.text)

    def _deliver_telepathy(self, s: DraculaState, text: str) -> list[Event]:
        """DRA-424, DRA-425: by day as soon as possible, by night in the morning."""
        recipients = [v for v in s.vampires() if not s.seats[v].dracula]
        if s.phase in SILENT_PHASES:
            return [Telepathy(text, True)]
        t = f"round-{s.round}-day-{s.number}"
        notices = [private("dracula/telepathy", recipients, t, text=text)] if recipients else []
        return [Telepathy(text, False), *notices]

    def admin(self, state: DraculaState, command: Command, now: datetime) -> list[Event]:
        """AMB-072: the administrator approves or refuses a held telepathy."""
        s = state
        text = s.telepathy_pending
        if text is None or s.outcome is not None:
            raise IllegalNow("nothing_to_review")
        if command.verb == "approve":
            return [TelepathyHeld(text, True, True), *self._deliver_telepathy(s, text)]
        reason = command.text
        return [
            TelepathyHeld(text, True, False, reason),
            private(
                "dracula/telepathy_refused",
                [s.dracula()],
                f"round-{s.round}-telepathy",
                reason=reason,
            ),
        ]

    # night ------------------------------------------------------------------------------------

    def _night_order(
        self, s: DraculaState, actor: PlayerId, verb: str, phases: Sequence[str]
    ) -> None:
        refuse(_given(s, actor, verb, phases))

    def _do_room(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        room = c.word or ""
        if room == SANCTUARY:
            raise IllegalNow("sanctuary_not_a_room")  # DRA-081
        if s.phase == "dracula_room":
            if not s.seats[actor].dracula:
                raise IllegalNow("not_now")
            if (actor, "room") in s.orders:
                raise IllegalNow("order_final")
            if not s.present(room):
                raise IllegalNow("empty_room")  # AMB-020
            return [Order(actor, "room", (), room)]
        self._night_order(s, actor, "room", CHOICE_PHASES)
        if actor in s.designated:
            raise IllegalNow("in_sanctuary")  # DRA-071
        if s.number == 1 and s.seats[actor].dracula:
            raise IllegalNow("dracula_last")  # DRA-102
        alone = s.phase == "magnifier" and s.left_to_choose(actor)  # AMB-031
        if s.named_partner(actor) is not None and not alone:
            raise IllegalNow("partner_chooses", partner=s.named_partner(actor))  # DRA-227
        magnified = (actor, "magnifier") in s.orders or alone
        if s.phase == "rooms" and magnified:
            raise IllegalNow("wait_for_report")  # DRA-302
        if s.phase == "magnifier" and not magnified:
            raise IllegalNow("not_now")
        still_names = s.options.key_escape_room == "named_partner_still_names"  # AMB-031
        if (actor, "key") in s.orders and (s.naming_partner(actor) is None or not still_names):
            raise IllegalNow("key_used")
        declared = s.declared.get(actor)
        if s.seats[actor].cursed and declared is not None and declared != room:
            raise IllegalNow("declared_room", room=declared)  # DRA-378, AMB-056.5
        return [Order(actor, "room", (), room)]

    def _use_object(self, s: DraculaState, actor: PlayerId, verb: str) -> list[Event]:
        """CMD-05 … CMD-08: a normal object used with the room choice (AMB-040, AMB-041)."""
        obj = NORMAL_USES[verb]
        self._night_order(s, actor, verb, CHOICE_PHASES)
        if s.phase == "magnifier" and (actor, "magnifier") not in s.orders:
            raise IllegalNow("not_now")  # ORD-06 is the magnifier users' second choice
        refuse(_object_refusal(s, actor, obj))
        # AMB-041 room_objects_in_sanctuary: garlic and candle act in the sanctuary too (with
        # the key, or for a designated occupant, who still chooses no room: no magnifier, key)
        anywhere = s.options.room_objects_in_sanctuary and verb in ("garlic", "candle")
        if actor in s.designated and not anywhere:
            raise IllegalNow("in_sanctuary")  # AMB-041
        if verb == "magnifier" and s.phase != "rooms":
            raise IllegalNow("not_now")
        if verb == "magnifier" and (actor, "room") in s.orders:
            raise IllegalNow("room_already_chosen")  # DRA-300
        key = (actor, "key") in s.orders
        if verb in ("garlic", "candle") and key and not anywhere:
            raise IllegalNow("not_with_key")
        if (
            verb == "key"
            and not s.options.room_objects_in_sanctuary
            and any(s.order_of(actor, v) for v in ("garlic", "candle", "paint"))
        ):
            raise IllegalNow("not_with_key")
        still_names = s.options.key_escape_room == "named_partner_still_names"  # AMB-031
        if (
            verb == "key"
            and (actor, "room") in s.orders
            and (s.naming_partner(actor) is None or not still_names)
        ):
            raise IllegalNow("room_already_chosen")
        return [Order(actor, verb), Moved((obj,), f"hand:{actor}", "gone", "used")]

    def _do_magnifier(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "magnifier")

    def _do_garlic(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "garlic")

    def _do_candle(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        return self._use_object(s, actor, "candle")

    def _do_key(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if any(s.order_of(p, "key") for p in s.living()):
            raise IllegalNow("order_final")  # one key (DRA-016)
        return self._use_object(s, actor, "key")

    def _do_paint(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "paint", CHOICE_PHASES)
        if PAINTKIT not in s.seats[actor].hand:
            raise IllegalNow("no_such_object", object=PAINTKIT)
        sanctuary = actor in s.designated or (actor, "key") in s.orders
        if sanctuary and not s.options.room_objects_in_sanctuary:
            raise IllegalNow("not_with_key")  # AMB-041
        if len(c.text) > s.options.paint_max_chars:
            raise InvalidSyntax("text_too_long", limit=s.options.paint_max_chars)
        return [Order(actor, "paint", (), None, c.text)]

    def _do_stake(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        refuse(stake_refusal(s, actor, c))
        target = c.targets[0]
        return [Order(actor, "stake", (target,)), Moved((STAKE,), f"hand:{actor}", "gone", "used")]

    def _do_bite(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "bite", ("bites",))
        if (actor, "abstain") in s.orders:
            raise IllegalNow("order_final")  # AMB-007
        if s.seats[actor].human:
            raise IllegalNow("not_a_vampire")
        status = night.bite_status(s, actor)
        if status in ("sanctuary", "alone", "nausea"):
            raise IllegalNow(f"cannot_bite_{status}")  # DRA-112
        target = c.targets[0]
        if target == actor or s.position(target) != s.position(actor) or not s.seats[target].alive:
            raise IllegalNow("not_in_your_room", name=target)  # DRA-111
        return [Order(actor, "bite", (target,))]

    def _do_abstain(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "bite", ("bites",))
        self._night_order(s, actor, "abstain", ("bites",))
        if not s.seats[actor].dracula:
            raise IllegalNow("must_bite")  # DRA-113
        if s.number == 1:
            raise IllegalNow("must_bite_night1")  # DRA-101
        return [Order(actor, "abstain")]

    def _do_dance(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        refuse(dance_refusal(s, actor, c))
        return [Order(actor, "dance", (c.targets[0],), None, c.text)]

    def _do_reply(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if s.phase != "dance_reply":
            raise IllegalNow("not_now")
        if s.dance is None or s.dance[1] != actor:
            raise IllegalNow("no_waltz")  # DRA-405
        sent = len(s.replies(actor))
        if sent >= s.options.dance_replies:
            raise IllegalNow("order_final")  # AMB-058: dance_replies
        if len(c.text) > s.options.dance_max_chars:
            raise InvalidSyntax("text_too_long", limit=s.options.dance_max_chars)
        verb = "reply" if sent == 0 else f"reply#{sent + 1}"
        return [Order(actor, verb, (), None, c.text)]

    def _do_curse(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        if s.phase not in NIGHT_PHASES:
            raise IllegalNow("not_now")
        if GRIMOIRE not in s.seats[actor].hand:
            raise IllegalNow("no_such_object", object=GRIMOIRE)
        dead = [t for t in c.targets if not s.seats[t].alive]
        if dead:
            raise IllegalNow("target_not_living", name=dead[0])
        # DRA-371, AMB-053: at most two distinct targets a night IN TOTAL, over any number of
        # orders; only the names beyond the two are refused, the others are taken
        earlier = [o for (a, v), o in s.orders.items() if a == actor and v.startswith("curse")]
        tonight = {t for o in earlier for t in o.targets}
        new = [t for t in dict.fromkeys(c.targets) if t not in tonight]
        room = 2 - len(tonight)
        if room <= 0:
            raise IllegalNow("curses_spent")
        if not new:
            raise IllegalNow("curse_repeated", names=list(c.targets))
        kept, extra = new[:room], new[room:]
        verb = "curse" if not earlier else f"curse#{len(earlier) + 1}"
        order: list[Event] = [Order(actor, verb, tuple(kept))]  # DRA-372: oneself included
        if s.options.curse_notice == "immediate":  # AMB-054, NTF-35 at once
            told = [t for t in kept if not s.seats[t].cursed]
            order += [private("dracula/cursed", [t], night.thread(s)) for t in told]
        if extra:
            raise PartlyRefused("curse_extra", events=order, kept=kept, refused=extra, names=extra)
        return order

    # final phase -------------------------------------------------------------------------------

    def _final_choice(self, s: DraculaState, actor: PlayerId, ch: str) -> None:
        if ch != "list":
            raise IllegalNow("final_on_list")  # DRA-464
        if s.phase != "final_choice":
            raise IllegalNow("not_now")
        if not s.seats[actor].human:
            raise IllegalNow("humans_only")
        if actor in s.choices:
            raise IllegalNow("choice_final")  # DRA-465

    def _do_flee(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._final_choice(s, actor, ch)
        recipient = c.targets[0] if c.targets else None
        if recipient is not None and (recipient == actor or recipient not in s.humans()):
            # AMB-063: accepted as a flee, the flame goes to a random fighter; the receipt says
            # so beside the accepted flee (a vampire, the player himself: nothing is refused)
            chosen = [FinalChoice(actor, "flee", None)]
            raise Amended(
                "flee_recipient", events=chosen, kept=[], refused=[recipient], name=recipient
            )
        return [FinalChoice(actor, "flee", recipient)]

    def _do_fight(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._final_choice(s, actor, ch)
        return [FinalChoice(actor, "fight")]

    def _do_flame(
        self, s: DraculaState, actor: PlayerId, c: Command, now: datetime, ch: str
    ) -> list[Event]:
        self._night_order(s, actor, "flame", ("flames",))
        held = s.flames.get(actor, 0)
        if not held:
            raise IllegalNow("no_flame")
        if len(c.targets) > held:
            raise IllegalNow("too_many_flames", count=held)  # DRA-470
        wrong = [t for t in c.targets if t not in s.vampires()]
        if wrong:
            raise IllegalNow("flame_target", name=wrong[0])  # AMB-065
        return [Order(actor, "flame", c.targets)]
