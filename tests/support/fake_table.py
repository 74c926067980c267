"""A tiny Table with the engine contract, for daemon tests that must count applications exactly.

Each ``CMD <word>`` line of a private mail from a player is one event; each deadline closes the
phase and opens the next. Deterministic, pure, does not mutate on ``receive``/``on_deadline``.

List posts (for the relay mode): players named in the ``dead`` option may not post (refused);
even phases are "nights", when the list is closed (held when the daemon relays the list,
refused otherwise); other posts are relayed, and their ``CMD`` lines count like private ones.

A game master (setup ``admins``): each ``ADMIN <word>`` line of his private mail is one
``admin`` event; his list posts are relayed (as the real engine's are). ``pbem admin GAME CLOSE``
(or ``CLORE``) closes the phase now, exactly as its deadline would (the desk's CLORE): a test
gives a phase that must not end under it a long deadline, and closes it by this event.

Test poisons: ``BOOM`` in a mail raises while ``$FAKE_ENGINE_BOOM`` names an existing file;
``DIE`` kills the process with SIGKILL while ``$FAKE_ENGINE_DIE`` does. A game created with the
option ``deadline_poison = "boom"`` (or ``"die"``) raises (or is SIGKILLed) in ``on_deadline``
while ``$FAKE_ENGINE_DEADLINE`` names an existing file. A gate: ``GATE`` in a mail, while
``$FAKE_ENGINE_GATE`` names a directory, makes ``reached`` there and holds the engine until
``open`` exists there (a minute at most), so that a test's fault lands at that mail.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class Outgoing:
    key: str
    to: tuple[str, ...]
    public: bool
    subject: str
    body: str
    in_reply_to: str | None
    thread: str
    auto: str


@dataclass(frozen=True)
class Step:
    events: tuple[dict[str, Any], ...] = ()
    outgoing: tuple[Outgoing, ...] = ()
    post: str | None = None
    deferred: tuple[str, ...] = ()


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain", "html"))
    if part is None:
        return ""
    try:
        return str(part.get_content())
    except (LookupError, ValueError, AssertionError):
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


@dataclass
class Table:
    setup: Mapping[str, Any]
    game_id: str
    phase: int = 1
    deadline: datetime | None = None
    commands: list[tuple[str, str]] = field(default_factory=list)
    commands_by_phase: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    finished: bool = False

    @property
    def player_emails(self) -> Mapping[str, str]:
        return {p["name"]: p["email"].lower() for p in self.setup["players"]}

    @property
    def player_langs(self) -> Mapping[str, str]:
        return {p["name"]: p.get("lang", "fr") for p in self.setup["players"]}

    @property
    def minutes(self) -> float:
        return float(self.setup.get("options", {}).get("phase_minutes", 60))

    @classmethod
    def new(cls, setup: Mapping[str, Any], now: datetime) -> tuple[Table, Step]:
        t = cls(setup, str(setup["game_id"]))
        dl = now + timedelta(minutes=float(setup.get("options", {}).get("phase_minutes", 60)))
        ev = {"type": "phase", "n": 1, "deadline": dl.isoformat()}
        out = Outgoing(
            key=f"{t.game_id}:start",
            to=(setup["list"],),
            public=True,
            subject=f"[{t.game_id}] phase 1 begins",
            body="Phase 1 begins.\n",
            in_reply_to=None,
            thread=f"{t.game_id}:1",
            auto="auto-generated",
        )
        step = Step((ev,), (out,))
        t.apply(step)
        return t, step

    @classmethod
    def load(cls, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Table:
        t = cls(setup, str(setup["game_id"]))
        t.apply(Step(tuple(dict(e) for e in events)))
        return t

    def apply(self, step: Step) -> None:
        for e in step.events:
            if e["type"] == "phase":
                self.phase = int(e["n"])
                self.deadline = datetime.fromisoformat(e["deadline"])
            elif e["type"] == "cmd":
                self.commands.append((e["player"], e["word"]))
                self.commands_by_phase.setdefault(int(e["phase"]), []).append(
                    (e["player"], e["word"])
                )
            elif e["type"] == "end":
                self.finished = True
                self.deadline = None

    def _notice(self, to: str, mid: str | None, body: str) -> Outgoing:
        return Outgoing(
            f"{self.game_id}:notice:{mid}:{self.phase}",
            (to,),
            False,
            "Re: your post",
            body + "\n",
            mid,
            f"{self.game_id}:{self.phase}",
            "auto-replied",
        )

    def _list_verdict(self, name: str, relay: bool) -> str:
        if name in self.setup.get("options", {}).get("dead", []):
            return "refused: the dead do not post"
        if self.phase % 2 == 0:
            return "hold" if relay else "refused: the list is closed at night"
        return "relay"

    def release(self, msg: EmailMessage, now: datetime) -> Step:
        sender = (getaddresses([str(msg.get("From", ""))])[0][1] or "").lower()
        name = {v: k for k, v in self.player_emails.items()}.get(sender)
        if name is None:
            return Step(post="relay")
        verdict = self._list_verdict(name, True)
        if verdict.startswith("refused"):
            mid = msg.get("Message-ID")
            return Step(
                (), (self._notice(sender, mid, "held post dropped: " + verdict),), "refused"
            )
        return Step(post=verdict)

    def receive(
        self,
        msg: EmailMessage,
        *,
        channel: Literal["private", "list"],
        now: datetime,
        relay: bool = False,
        confirm: Literal["ask", "apply"] | None = None,
        strong: bool = True,
        admins: Sequence[str] = (),
        graveyard: str = "",  # the daemon's graveyard (issue 25): its posts read as the list's
    ) -> Step:
        sender = (getaddresses([str(msg.get("From", ""))])[0][1] or "").lower()
        names = {v: k for k, v in self.player_emails.items()}
        mid = msg.get("Message-ID")
        name = names.get(sender)
        if name is None and sender in {a.lower() for a in self.setup.get("admins", [])}:
            return self._admin(msg, sender, channel, mid)
        if name is None:
            return Step(
                (),
                (
                    Outgoing(
                        f"{self.game_id}:err:{mid}:{sender}",
                        (sender,),
                        False,
                        "Re: not a player",
                        "You are not a player of this game.\n",
                        mid,
                        f"{self.game_id}:{self.phase}",
                        "auto-replied",
                    ),
                ),
            )
        if channel == "list" and confirm != "apply":
            verdict = self._list_verdict(name, relay)
            if verdict != "relay":
                note = "held until the list reopens" if verdict == "hold" else verdict
                post = "hold" if verdict == "hold" else "refused"
                return Step((), (self._notice(sender, mid, note),), post)
        boom = os.environ.get("FAKE_ENGINE_BOOM")
        if boom and os.path.exists(boom) and "BOOM" in _text(msg):
            raise RuntimeError("the engine crashed on this mail (test poison)")
        gate = os.environ.get("FAKE_ENGINE_GATE")
        if gate and "GATE" in _text(msg):
            # a mail that holds the engine until the test opens the gate: a fault lands while
            # the daemon is at this mail, however fast the machine (F3 during the drain)
            Path(gate, "reached").touch()
            for _ in range(6000):
                if Path(gate, "open").exists():
                    break
                time.sleep(0.01)
        die = os.environ.get("FAKE_ENGINE_DIE")
        if die and os.path.exists(die) and "DIE" in _text(msg):
            # a poison that kills the PROCESS (a segfault in a C extension, the OOM killer)
            os.kill(os.getpid(), signal.SIGKILL)
        words = []
        for line in _text(msg).splitlines():
            if line.startswith(">"):
                continue
            parts = line.strip().split()
            if len(parts) == 2 and parts[0].upper() == "CMD":
                words.append(parts[1])
        if confirm == "ask" and words:
            return Step(post="relay", deferred=tuple(f"CMD {w}" for w in words))
        events = tuple(
            {"type": "cmd", "player": name, "word": w, "phase": self.phase} for w in words
        )
        body = ("accepted: " + " ".join(words)) if words else "error: no command"
        key = f"{self.game_id}:reply:{mid}:{','.join(words)}"
        reply = Outgoing(
            key,
            (self.player_emails[name],),
            False,
            f"Re: {msg.get('Subject', '')}",
            body + "\n",
            mid,
            f"{self.game_id}:{self.phase}",
            "auto-replied",
        )
        if channel == "list":
            return Step(events, (reply,) if words else (), "relay")
        return Step(events, (reply,))

    def _admin(self, msg: EmailMessage, sender: str, channel: str, mid: str | None) -> Step:
        if channel == "list":
            return Step(post="relay")
        words = [
            parts[1]
            for parts in (line.split() for line in _text(msg).splitlines())
            if len(parts) == 2 and parts[0].upper() == "ADMIN"
        ]
        events = tuple({"type": "admin", "word": w} for w in words)
        reply = Outgoing(
            f"{self.game_id}:admin:{mid}",
            (sender,),
            False,
            f"Re: {msg.get('Subject', '')}",
            "admin accepted: " + " ".join(words) + "\n",
            mid,
            f"{self.game_id}:{self.phase}",
            "auto-replied",
        )
        return Step(events, (reply,))

    def admin_lines(
        self,
        lines: Sequence[str],
        sender: str,
        now: datetime,
        key: str,
        *,
        reply_to: Sequence[str] = (),
    ) -> Step:
        """``pbem admin``: ``CLOSE``/``CLORE`` closes the phase in play now, as its deadline
        would (the desk's CLORE); any other line is one ``admin`` event."""
        closing = any(line.strip().upper() in ("CLOSE", "CLORE") for line in lines)
        if closing and not self.finished:
            return self.on_deadline(f"phase-{self.phase}", now)
        events = tuple({"type": "admin", "word": line.strip()} for line in lines)
        return Step(events)

    def awaiting(self) -> frozenset[str]:
        acted = {p for p, _w in self.commands_by_phase.get(self.phase, [])}
        return frozenset(n for n in self.player_emails if n not in acted)

    def deadlines(self) -> Mapping[str, datetime]:
        if self.finished or self.deadline is None:
            return {}
        return {f"phase-{self.phase}": self.deadline}

    def on_deadline(self, key: str, now: datetime) -> Step:
        if key not in self.deadlines():
            return Step()
        poison = self.setup.get("options", {}).get("deadline_poison")
        armed = os.environ.get("FAKE_ENGINE_DEADLINE")
        if poison and armed and os.path.exists(armed):
            if poison == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError("the engine crashed resolving this deadline (test poison)")
        n = self.phase + 1
        last = int(self.setup.get("options", {}).get("phases", 1000))
        if n > last:
            ev: dict[str, Any] = {"type": "end"}
        else:
            dl = max(now, self.deadline or now) + timedelta(minutes=self.minutes)
            ev = {"type": "phase", "n": n, "deadline": dl.isoformat()}
        out = Outgoing(
            f"{self.game_id}:result:{self.phase}",
            (self.setup["list"],),
            True,
            f"[{self.game_id}] phase {self.phase} result",
            f"Phase {self.phase} closed with {len(self.commands)} commands.\n",
            None,
            f"{self.game_id}:{self.phase}",
            "auto-generated",
        )
        return Step((ev,), (out,))
