"""How a game's mail is filed in its players' mailboxes: one thread per phase on the list, one
thread per player's private exchanges per turn, who it is from and where a reply goes, and the
game a reply to the bare moderator address belongs to (issue 15).

Pure: the daemon calls :func:`dress` on each engine ``Outgoing`` before building its bytes
(:func:`pbem.mail.envelope.build_outgoing`) and :func:`thread_game` when routing a mail.

- **Subject.** Every mail of one thread has the same Subject, « [village1] Jour 2 » on the list
  and « [village1] Nuit 2 et jour 2 (privé) » for a player's own mail of that turn
  (:func:`private_phase`), because Gmail groups a conversation by Subject as well as by
  References; the mail's own title (« Jour 2 : premier tour du vote ») becomes the first line
  of its text. Mail that belongs to no phase (the AIDE and
  REGLES answers, the daemon's notices) keeps its title, with the game's id as its tag.
- **References.** A list post refers to its phase's root (:func:`pbem.mail.envelope.
  thread_root`), a private mail to the root of the player's thread of that phase (a private
  Message-ID: a post quoting it on a relayed list is recognised as private, pbem.mail.
  forwarded). Receipts answer the player's own mail (In-Reply-To) and refer to the root too.
- **From and Reply-To.** ``From: "MJ village1" <moderator@…>`` (``[moderator] from_name``);
  private mail has ``Reply-To: moderator+village1@…``, so a plain Reply reaches the game; a list
  post has ``Reply-To`` the list (``[list] reply_to``), so a reply is debate for everyone.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from pbem.mail.envelope import domain_of, id_game, message_id

REPLY_TO_POLICIES = ("list", "none")
"""``[list] reply_to``: ``list`` (default) puts the list address in the Reply-To of pbem's list
posts, so that a plain Reply is public; ``none`` adds none and leaves it to the list's own
settings (Mailman's ``reply_goes_to_list``, a Google group's "reply to"), a plain Reply then
going to the From: the moderator, privately."""

DEFAULT_FROM_NAME = "MJ {game}"
"""``[moderator] from_name``: the From's display name of a game's mail; ``{game}`` is its id."""


class Renders(Protocol):
    """The renderer's methods this module uses (pbem.mail.render.Renderer)."""

    def text(self, template: str, lang: str, params: Any) -> str: ...
    def text_kept(self, template: str, lang: str, params: Any) -> str: ...


class Mail(Protocol):
    """The fields of an engine ``Outgoing`` this module reads (a frozen dataclass)."""

    @property
    def to(self) -> tuple[str, ...]: ...
    @property
    def public(self) -> bool: ...
    @property
    def subject(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def thread(self) -> str: ...


M = TypeVar("M", bound=Mail)


@dataclass(frozen=True)
class Note:
    """One of the daemon's own mails about a game (a reminder), shaped like an engine
    ``Outgoing`` so that :func:`dress` files it in the reader's thread."""

    key: str
    to: tuple[str, ...]
    public: bool
    subject: str
    body: str
    thread: str
    in_reply_to: str | None = None
    auto: str = "auto-generated"
    html: str = ""
    """Its HTML alternative (pbem.mail.html), if any."""


@dataclass(frozen=True)
class Phase:
    """A phase as players read it, from a notice's thread key (``night-2``, ``round-1-day-3``)."""

    kind: str
    """``opening``, ``night``, ``day``, ``morning``, ``round`` (a Dracula round's start),
    ``final`` (its final phase), ``end`` (of a round, or of the game); ``turn`` (a night and
    the next day, for a player's private thread: :func:`private_phase`)."""
    number: int | None = None
    round: int | None = None


_KEY = re.compile(
    r"(?:round-(?P<round>\d+)(?:-(?P<rkind>night|morning|day)-(?P<rnumber>\d+)"
    r"|-(?P<rstep>end|final))?"
    r"|(?P<kind>night|day)-(?P<number>\d+)"
    r"|(?P<step>opening|end))\Z"
)


def phase_of(thread: str) -> Phase | None:
    """The phase a thread key names (the part after ``game/``), None for no phase (the replies
    to AIDE and REGLES, the desk's notices)."""
    return _phase(thread.rpartition("/")[2])


@functools.lru_cache(maxsize=256)  # the few phases of any game, read at every receipt (issue 23)
def _phase(key: str) -> Phase | None:
    m = _KEY.match(key)
    if m is None:
        return None
    if m["round"] is not None:
        round_ = int(m["round"])
        if m["rkind"]:
            return Phase(m["rkind"], int(m["rnumber"]), round_)
        return Phase(m["rstep"] or "round", None, round_)
    if m["kind"]:
        return Phase(m["kind"], int(m["number"]))
    return Phase(m["step"])


def private_phase(phase: Phase) -> Phase:
    """The phase of a player's private thread: in the werewolf games a night and the day after
    it are one ``turn``, because the night's results (the Seer's vision, the victim's name to
    the pack) come at dawn, among the day's notices (LUP-720, LG-720), and belong with the
    night's prompt and the receipts of the orders they answer."""
    if phase.round is None and phase.kind in ("night", "day") and phase.number is not None:
        return Phase("turn", phase.number)
    return phase


def thread_subject(renderer: Renders, lang: str, game: str, phase: Phase, *, private: bool) -> str:
    """The Subject of every mail of one thread (``common/thread``): « [village1] Nuit 1 »."""
    params = {
        "game": game,
        "kind": phase.kind,
        "number": phase.number or 0,
        "round": phase.round or 0,
        "private": private,
    }
    # every mail of a thread has this Subject: rendered once while the renderer keeps it
    # (plain params, a bounded store: Renderer.text_kept), not once per mail (issue 23)
    return " ".join(renderer.text_kept("common/thread", lang, params).split())


_TAG = re.compile(r"\[[^\]\n]*\]\s*")


def retag(subject: str, game: str) -> str:
    """``subject`` with the game's id in its leading ``[tag]`` (the templates write the
    game's title there, « [Lupus in Tabula] », which names no game when several are played);
    a Subject without one is left as it is."""
    if not subject.startswith("["):
        return subject
    return f"[{game}] {_TAG.sub('', subject, count=1)}".rstrip()


def title_of(subject: str) -> str:
    """A template's Subject without its ``[tag]``: the mail's title."""
    return (_TAG.sub("", subject, count=1) if subject.startswith("[") else subject).strip()


def headed(title: str, body: str) -> str:
    """``body`` under its ``title``, underlined (the digest keeps such a heading as it is)."""
    if not title:
        return body
    return f"{title}\n{'=' * len(title)}\n\n{body}"


def plus_address(moderator: str, game: str) -> str:
    """The game's own address: ``moderator+village1@example.org``."""
    local, _, domain = moderator.partition("@")
    return f"{local}+{game}@{domain}" if domain else moderator


def display_name(fmt: str, game: str) -> str:
    """The From's display name for ``game`` (``fmt``: ``[moderator] from_name``)."""
    return fmt.replace("{game}", game).strip()


# every receipt of a player's phase refers to it: two HMACs once per player and phase, not
# once per mail (issue 23); a few players' threads of a few games at a time
@functools.lru_cache(maxsize=1024)
def private_root(thread: str, recipient: str, domain: str, id_key: bytes, game: str) -> str:
    """The root every private mail of one player's thread of one phase refers to: a private
    id (it names the player's thread: never referred to in public)."""
    key = f"thread:{thread}:{recipient.strip().lower()}"
    return message_id(key, domain, id_key, public=False, game=game)


@dataclass(frozen=True)
class Addressing:
    """How one game's mail is addressed: its id, the moderator and list addresses and the
    daemon's policies (``[moderator] from_name``, ``[list] reply_to``)."""

    game: str
    moderator: str
    list_address: str
    from_name: str = DEFAULT_FROM_NAME
    reply_to: str = "list"


@dataclass(frozen=True)
class Dressed:
    """What :func:`dress` gives: the mail (Subject and text filed in its thread) and the
    keyword arguments of :func:`pbem.mail.envelope.build_outgoing` for its headers."""

    mail: Any
    headers: dict[str, Any]

    @property
    def thread(self) -> str:
        """The root of the player's thread a private mail is filed in, else ``""``: the
        outbox coalesces only the replies of one thread (pbem.daemon.outbox)."""
        roots = self.headers.get("references", ())
        return str(roots[0]) if roots else ""


def addressed(how: Addressing, *, public: bool) -> dict[str, Any]:
    """The keyword arguments of :func:`pbem.mail.envelope.build` that say whose a game's mail
    is and where a Reply goes: the game in its Message-ID, the From's display name, the
    Reply-To (the list for a list post, the game's plus-address for private mail)."""
    headers: dict[str, Any] = {
        "game": how.game,
        "display": display_name(how.from_name, how.game),
    }
    if not public:
        headers["reply_to"] = plus_address(how.moderator, how.game)
    elif how.reply_to == "list" and how.list_address:
        headers["reply_to"] = how.list_address
    return headers


def dress(out: M, how: Addressing, renderer: Renders, lang: str, id_key: bytes) -> Dressed:
    """File one engine mail in its thread (see the module's docstring); ``lang`` is its
    reader's (the game's for a list post)."""
    domain = domain_of(how.moderator)
    phase = phase_of(out.thread) if out.thread.startswith(how.game + "/") else None
    headers = addressed(how, public=out.public)
    if phase is None:
        subject = retag(out.subject, how.game)
        page = with_subject(getattr(out, "html", ""), out.subject, subject)
        mail = _replace(out, subject=subject, **({"html": page} if page else {}))
        return Dressed(mail, headers)
    if not out.public:
        phase = private_phase(phase)
    subject = thread_subject(renderer, lang, how.game, phase, private=not out.public)
    body = headed(title_of(out.subject), out.body)
    page = with_subject(getattr(out, "html", ""), out.subject, subject)
    mail = _replace(out, subject=subject, body=body, **({"html": page} if page else {}))
    if not out.public and out.to:  # a list post's root is added by build (its thread)
        thread = f"{how.game}/turn-{phase.number}" if phase.kind == "turn" else out.thread
        headers["references"] = (private_root(thread, out.to[0], domain, id_key, how.game),)
    return Dressed(mail, headers)


def _replace(out: M, **changes: Any) -> M:
    return dataclasses.replace(out, **changes)  # type: ignore[type-var]


def with_subject(page: str, old: str, new: str) -> str:
    """A mail's HTML alternative (pbem.mail.html) under its new Subject: its ``<title>``, and
    the Subject of its quick actions' ``mailto:`` links (« Re: » and the Subject), so that the
    answer they write stays in the thread and names the game."""
    if not page or old == new:
        return page
    page = page.replace(_subject_link(old), _subject_link(new))
    return page.replace(f"<title>{html.escape(old)}</title>", f"<title>{html.escape(new)}</title>")


@functools.lru_cache(maxsize=512)
def _subject_link(subject: str) -> str:
    """The ``subject=`` of a quick action's ``mailto:`` link answering ``subject``: a few
    Subjects recur in every mail of a game, quoted once while they do (issue 23)."""
    return f"subject={quote(_re(subject), safe='')}"


def _re(subject: str) -> str:
    """A reply's Subject, as the quick actions write it (pbem.mail.quickactions.reply_subject)."""
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def current_thread(notices: Iterable[Any]) -> str:
    """The thread key of the phase in play: the last notice's that names a phase (``notices``
    newest first, events of any kind; those with no ``thread`` are skipped)."""
    for event in notices:
        thread = getattr(event, "thread", "")
        if isinstance(thread, str) and phase_of(thread) is not None:
            return thread
    return ""


_MSG_ID = re.compile(r"<[^<>\s]+>")
_NEWEST = 20


def thread_game(headers: Sequence[str], id_key: bytes) -> str | None:
    """The game (lower-cased id) a mail answers: the first of pbem's own Message-IDs in its
    ``In-Reply-To`` then its ``References`` (newest first) that names a game. Only ids this key
    signed count (:func:`pbem.mail.envelope.id_game`): a made-up id routes nowhere."""
    for value in headers:
        # the newest ids only: a hostile References of thousands costs two HMACs each
        for mid in list(reversed(_MSG_ID.findall(value or "")))[:_NEWEST]:
            game = id_game(mid, id_key)
            if game is not None:
                return game
    return None


def noted(outgoing: Sequence[M], to: str, note: str) -> tuple[M, ...]:
    """``outgoing`` with ``note`` above the text of the reply to ``to`` (the receipt of the
    mail being answered: private, ``auto-replied``)."""
    mails = list(outgoing)
    for index, out in enumerate(mails):
        mine = [t.lower() for t in out.to] == [to.lower()]
        if not out.public and mine and getattr(out, "auto", "") == "auto-replied":
            body = f"{note.strip()}\n\n{out.body}"
            page = str(getattr(out, "html", ""))
            if "</h1>" in page:  # the HTML alternative says it too, under its title
                para = f'<p style="margin:0 0 12px">{html.escape(note.strip())}</p>'
                page = page.replace("</h1>", "</h1>" + para, 1)
            mails[index] = _replace(out, body=body, **({"html": page} if page else {}))
            break
    return tuple(mails)
