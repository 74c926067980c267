"""IMAP in (imapclient), blocking: the service runs these calls in a worker thread.

The consumer algorithm of RELIABILITY §3.4: ``UID SEARCH ALL`` on INBOX (it only holds unprocessed
mail, because processed mail is moved away), ``RFC822.SIZE`` + ``INTERNALDATE`` first so the size
cap is checked before any body is fetched, then batched ``BODY.PEEK[]`` (never sets ``\\Seen``:
``\\Seen`` is not our state, requirement 2). Acknowledgement is ``UID MOVE`` after the commit, or
``UID COPY`` + ``STORE \\Deleted`` + ``UID EXPUNGE`` of our own UIDs when MOVE is missing (a plain
EXPUNGE would also delete other clients' ``\\Deleted`` mail).

Liveness (§3.4): a killed server can make ``idle_check`` return ``[]`` as if nothing happened, so
every IDLE is bounded (re-issued well within RFC 2177's 29 minutes), sockets have timeouts, and a
NOOP round-trip follows every IDLE; errors surface as :class:`ImapDown` for the caller to reconnect.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import select
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError, ProtocolError

from pbem.adapters.login import LoginRefused, imap_refusal, server_text, without_code
from pbem.adapters.reach import unreachable
from pbem.adapters.servers import ImapSettings as ImapSettings
from pbem.adapters.tls import client_context
from pbem.core.errors import PbemError
from pbem.mail.partial import MAX_TEXT_PARTS, assemble, sections, text_plan, text_size

log = logging.getLogger(__name__)

#: What a dropped or restarted server raises (imaplib.abort is an IMAP4.error subclass).
NETWORK_ERRORS: tuple[type[BaseException], ...] = (
    imaplib.IMAP4.error,
    IMAPClientError,
    OSError,
    socket.timeout,
    EOFError,
)


class ImapDown(PbemError):
    """The connection is gone or unusable: reconnect with backoff."""


#: the most of a large mail's header that is read (its sender, to answer him)
HEADER_CAP = 65_536


@dataclass(frozen=True)
class Fetched:
    """One inbound message as fetched; ``raw`` is None when it is over the size cap and its
    text could not be read apart (``header`` then holds its header, to answer the sender).
    ``text_only``: ``raw`` is the mail rebuilt from its text parts (:mod:`pbem.mail.partial`)."""

    uid: int
    uidvalidity: int
    size: int
    internaldate: datetime
    raw: bytes | None
    header: bytes | None = None
    text_only: bool = False


def _utc(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return datetime.now(UTC)


def _uid_set(uids: Sequence[int]) -> list[str]:
    """``UID SEARCH`` criteria for exactly these UIDs."""
    return ["UID", ",".join(str(u) for u in uids)]


def _at_eof(c: IMAPClient) -> bool:
    """True if the peer closed a plain socket (a killed server makes idle_check return [])."""
    try:
        sock = c.socket()
        if isinstance(sock, ssl.SSLSocket):
            return False  # cannot peek through TLS: the bounded IDLE + NOOP catches it
        r, _, _ = select.select([sock], [], [], 0)
        return bool(r) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class ImapMailbox:
    """One IMAP connection with INBOX selected."""

    def __init__(self, settings: ImapSettings) -> None:
        self.s = settings
        self.client: IMAPClient | None = None
        self.uidvalidity = 0
        self.seen_uid = 0  # the highest UID listed so far: anything above it is new mail
        self.delimiter = "/"
        self.prefix = ""
        self.has_move = False
        self.has_idle = False
        self.interrupt = threading.Event()

    # ---- connection ---------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether a connection is open."""
        return self.client is not None

    def connect(self) -> None:
        """Log in, read the namespace and capabilities, create our folders, select INBOX."""
        s = self.s
        ctx = client_context(s.verify_certs) if s.tls != "none" else None
        try:
            c = IMAPClient(
                s.host, port=s.port, ssl=s.tls == "tls", ssl_context=ctx, timeout=s.timeout
            )
            c.normalise_times = False
            if s.tls == "starttls":
                c.starttls(ctx)
            self._login(c)
            self.client = c
            self._read_namespace()
            self.has_move = c.has_capability("MOVE")
            self.has_idle = c.has_capability("IDLE") and s.use_idle
            for name in (s.processed, s.quarantine):
                folder = self.folder(name)
                if not c.folder_exists(folder):
                    c.create_folder(folder)
            info = c.select_folder(s.inbox)
            self.uidvalidity = int(info[b"UIDVALIDITY"])
            self.seen_uid = 0
        except NETWORK_ERRORS as exc:
            self.close()
            # the retry's journal line says what to change (a wrong host, port or TLS mode)
            raise ImapDown(unreachable("IMAP", s.host, s.port, s.tls, s.timeout, exc)) from exc

    def _login(self, c: IMAPClient) -> None:
        """LOGIN; a refusal of the credentials is :class:`LoginRefused` (permanent), not
        :class:`ImapDown` (retried)."""
        try:
            c.login(self.s.user, self.s.password)
        except LoginError as exc:
            reply = server_text(exc)
            dropped = isinstance(exc.__context__, imaplib.IMAP4.abort)
            if dropped or not imap_refusal(reply):
                raise  # a connection lost during LOGIN, or [UNAVAILABLE]: an outage
            with contextlib.suppress(*NETWORK_ERRORS):
                c.shutdown()
            raise LoginRefused(
                "IMAP", self.s.user, f"{self.s.host}:{self.s.port}", without_code(reply)
            ) from None

    def _read_namespace(self) -> None:
        """The hierarchy delimiter and personal prefix come from the server, never assumed."""
        c = self._c()
        try:
            ns = c.namespace()
            if ns.personal:
                prefix, delim = ns.personal[0]
                self.prefix = prefix or ""
                self.delimiter = delim or "/"
                return
        except NETWORK_ERRORS:
            pass
        folders = c.list_folders("", "")
        if folders and folders[0][1]:
            d = folders[0][1]
            self.delimiter = d.decode() if isinstance(d, bytes) else str(d)

    def folder(self, name: str) -> str:
        """A configured folder path (``/``-separated) in the server's own syntax."""
        parts = [p for p in name.split("/") if p]
        full = self.delimiter.join(parts)
        if self.prefix and not full.startswith(self.prefix):
            full = self.prefix + full
        return full

    def close(self) -> None:
        """Log out and drop the connection (a network error on the way is ignored)."""
        c, self.client = self.client, None
        if c is not None:
            with contextlib.suppress(*NETWORK_ERRORS):
                c.logout()
            with contextlib.suppress(*NETWORK_ERRORS):
                c.shutdown()

    def _c(self) -> IMAPClient:
        if self.client is None:
            raise ImapDown("not connected")
        return self.client

    def _guard(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except NETWORK_ERRORS as exc:
            self.close()
            raise ImapDown(f"{what}: {type(exc).__name__}: {exc}") from exc

    # ---- reading ------------------------------------------------------------------------

    def pending_uids(self) -> list[int]:
        """UIDs in INBOX, ascending. Also the liveness round-trip that feeds the watchdog."""
        uids = sorted(int(u) for u in self._guard("UID SEARCH", self._c().search, "ALL"))
        self.seen_uid = max([self.seen_uid, *uids])
        return uids

    def fetch(self, uids: Sequence[int]) -> list[Fetched]:
        """Size and arrival time first; the body only of those under the cap (requirement 10)."""
        if not uids:
            return []
        c = self._c()
        answers = self._guard("FETCH SIZE", c.fetch, list(uids), ["RFC822.SIZE", "INTERNALDATE"])
        # another client's flag change comes as an unsolicited FETCH without a UID, which
        # imapclient files under its sequence number: an entry without a size answers nothing
        # we asked (that UID was expunged meanwhile, or never asked for)
        meta = {u: d for u, d in answers.items() if b"RFC822.SIZE" in d}
        small = [u for u in uids if u in meta and int(meta[u][b"RFC822.SIZE"]) <= self.s.max_size]
        bodies: dict[int, Any] = {}
        if small:
            bodies = self._guard("FETCH BODY.PEEK[]", c.fetch, small, ["BODY.PEEK[]"])
        large = {u: self._text_of_large(u) for u in uids if u in meta and u not in small}
        out = []
        for u in uids:
            if u not in meta:
                continue  # expunged by someone else meanwhile
            raw = bodies.get(u, {}).get(b"BODY[]") if u in small else None
            if u in small and raw is None:
                continue
            text, header = large.get(u, (None, None))
            out.append(
                Fetched(
                    uid=u,
                    uidvalidity=self.uidvalidity,
                    size=int(meta[u][b"RFC822.SIZE"]),
                    internaldate=_utc(meta[u].get(b"INTERNALDATE")),
                    raw=raw if text is None else text,
                    header=header,
                    text_only=text is not None,
                )
            )
        return out

    def _text_of_large(self, uid: int) -> tuple[bytes | None, bytes | None]:
        """A mail over the cap (issue 10 item 5): its text parts rebuilt into a mail, if they
        are under ``text_max_size`` (``BODYSTRUCTURE``, then ``BODY.PEEK[<part>]`` of each),
        and its header (at most :data:`HEADER_CAP` bytes). The attachments are never fetched."""
        c = self._c()
        try:
            info = c.fetch([uid], ["BODYSTRUCTURE", f"BODY.PEEK[HEADER]<0.{HEADER_CAP}>"])
        except ProtocolError as exc:  # a structure imapclient cannot parse: header only
            log.warning("UID %d: unreadable BODYSTRUCTURE (%s)", uid, exc)
            info = self._guard(
                "FETCH HEADER", c.fetch, [uid], [f"BODY.PEEK[HEADER]<0.{HEADER_CAP}>"]
            )
        except NETWORK_ERRORS as exc:
            self.close()
            raise ImapDown(f"FETCH BODYSTRUCTURE: {type(exc).__name__}: {exc}") from exc
        data = info.get(uid, {})
        header = data.get(b"BODY[HEADER]<0>")
        if not isinstance(header, bytes):
            return None, None
        plan = text_plan(data.get(b"BODYSTRUCTURE"))
        cap = min(self.s.text_max_size, self.s.max_size)  # max_size bounds memory (F9)
        if (
            plan is None
            or len(header) >= HEADER_CAP
            or text_size(plan) > cap
            or len(plan.leaves()) > MAX_TEXT_PARTS
        ):
            return None, header
        wanted = sections(plan)
        got = self._guard(
            "FETCH BODY.PEEK[<part>]", c.fetch, [uid], [f"BODY.PEEK[{w}]" for w in wanted]
        ).get(uid, {})
        parts = {w: got.get(f"BODY[{w}]".encode()) for w in wanted}
        if not all(isinstance(v, bytes) for v in parts.values()):
            return None, header  # expunged meanwhile, or a server that would not say
        fetched = {w: v for w, v in parts.items() if isinstance(v, bytes)}
        if sum(map(len, fetched.values())) > cap + HEADER_CAP:
            return None, header  # part headers bigger than the structure said
        return assemble(header, plan, fetched), header

    # ---- acknowledging ------------------------------------------------------------------

    def move(self, uids: Sequence[int], name: str) -> None:
        """Move our own UIDs out of INBOX, after their commit (requirement 2)."""
        if not uids:
            return
        try:
            self._move(list(uids), name)
        except imaplib.IMAP4.abort as exc:
            self.close()
            raise ImapDown(f"UID MOVE: {type(exc).__name__}: {exc}") from exc
        except imaplib.IMAP4.error as exc:
            if "EXPUNGEISSUED" not in str(exc).upper():
                self.close()
                raise ImapDown(f"UID MOVE: {type(exc).__name__}: {exc}") from exc
            # RFC 5530: another client (a webmail user deleting mail) expunged one of our UIDs
            # before this session was told; NOOP-and-retry is the advised reply. Retry with the
            # UIDs still there (the vanished ones were committed already: nothing is lost).
            left = sorted(
                int(u) for u in self._guard("UID SEARCH", self._c().search, _uid_set(uids))
            )
            log.warning(
                "UID MOVE to %s: UID(s) %s expunged by another client; moving %s",
                name,
                sorted(set(uids) - set(left)),
                left,
            )
            if left:
                self._guard("UID MOVE", self._move, left, name)
        except NETWORK_ERRORS as exc:
            self.close()
            raise ImapDown(f"UID MOVE: {type(exc).__name__}: {exc}") from exc

    def _move(self, uids: list[int], name: str) -> None:
        c = self._c()
        folder = self.folder(name)
        if self.has_move:
            c.move(uids, folder)
            return
        c.copy(uids, folder)
        c.add_flags(uids, [b"\\Deleted"], True)
        if c.has_capability("UIDPLUS"):
            c.expunge(uids)
        else:  # pragma: no cover - servers without UIDPLUS are rare; warn loudly
            log.warning("server lacks UIDPLUS: plain EXPUNGE may remove others' \\Deleted mail")
            c.expunge()

    # ---- waiting ------------------------------------------------------------------------

    def _announced(self) -> bool:
        """Whether the server announced new mail (an untagged EXISTS) since the last call.

        A server lists in a SEARCH only the mail its view held when the command began; mail
        delivered since (after our last command) is announced by an EXISTS at the command's
        end, which a SEARCH's caller never sees: imapclient leaves it in imaplib's table of
        untagged responses, and IDLE announces it no more (Dovecot finds it at its next
        periodic check, 30 s by default; other servers may not at all)."""
        untagged = self._c()._imap.untagged_responses
        return untagged.pop("EXISTS", None) is not None

    def wait(self, max_seconds: float) -> bool:
        """Wait for new mail: IDLE (bounded) where offered, else sleep; then a NOOP round-trip.

        Returns True if the server reported activity. Wakes early when :attr:`interrupt` is set.
        """
        c = self._c()
        limit = min(max_seconds, self.s.idle_renew if self.has_idle else self.s.poll_interval)
        end = time.monotonic() + limit
        activity = False
        if self.has_idle:
            # Mail that arrived during our last FETCH or MOVE, or since, was announced by an
            # EXISTS that nobody reads (:meth:`_announced`): look once more before sleeping on
            # the socket, or such a mail would wait for the next IDLE renewal.
            # (Only mail above the last UID listed counts: a mail kept for a retry must not
            # turn this into a busy loop.)
            before = self.seen_uid
            self._announced()  # what earlier commands announced, this SEARCH lists
            if any(u > before for u in self.pending_uids()) or self._announced():
                return True
            self._guard("IDLE", c.idle)
            activity = self._announced()  # an EXISTS read with IDLE's "+": mail came meanwhile
            try:
                while not activity and not self.interrupt.is_set() and time.monotonic() < end:
                    responses = c.idle_check(timeout=min(1.0, max(0.0, end - time.monotonic())))
                    if responses:
                        activity = True
                        break
                    if _at_eof(c):
                        raise ImapDown("IDLE: the server closed the connection")
            except NETWORK_ERRORS as exc:
                self.close()
                raise ImapDown(f"IDLE: {exc}") from exc
            self._guard("IDLE DONE", c.idle_done)
        else:
            while not self.interrupt.is_set() and time.monotonic() < end:
                time.sleep(min(0.5, max(0.0, end - time.monotonic())))
        self.interrupt.clear()
        # a killed server can look idle; only a real round-trip proves the link (§3.4)
        self._guard("NOOP", c.noop)
        return activity
