"""Real mail servers for the daemon tests: a private Dovecot (IMAP + LMTP) and an aiosmtpd relay.

Short ``/tmp/pbemdv*`` roots (unix socket path length),
ports chosen in Python (``port = 0`` disables a Dovecot listener), readiness = both greetings
read, stop = ``killpg`` repeated until the group is empty, LMTP written by hand (``smtplib.LMTP``
reads one reply only). Never touches a Dovecot the tests did not start. Mailboxes are sdbox,
not Maildir: a Maildir Dovecot numbers new mail when a session syncs the folder, and under load
it numbered a burst's mails out of the order they were delivered (docs/daemon.md, "The order
mail is read in").
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.message
import errno
import imaplib
import os
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from pbem.mail.parse_once import parse_once_policy
from pbem.tools.maildemo import close_failed

PREFIX = "pbemdv"
DOMAIN = "example.test"
PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
"""The players' mailboxes of the :func:`tests.support.fixtures.stack` (``<name>@example.test``)."""
MODERATOR = f"moderator@{DOMAIN}"
LIST = f"game@lists.{DOMAIN}"
ADMIN = f"admin@{DOMAIN}"


def free_port() -> int:
    """A free loopback TCP port (Dovecot cannot pick one itself)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _group_alive(pgid: int) -> bool:
    """True while a non-zombie process of the group is left."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        rest = stat.rsplit(")", 1)[1].split()
        if rest[0] != "Z" and int(rest[2]) == pgid:
            return True
    return False


def killpg_loop(pgid: int, timeout: float = 5.0) -> None:
    """SIGTERM the group every 0.2 s until empty (pitfall 16), SIGKILL as the last resort."""
    deadline = time.monotonic() + timeout
    while _group_alive(pgid):
        sig = signal.SIGTERM if time.monotonic() < deadline else signal.SIGKILL
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        time.sleep(0.2 if sig == signal.SIGTERM else 0.05)
        if time.monotonic() > deadline + 2:
            break


def _owner(root: Path) -> int | None:
    """The pid of the test process that made ``root``: in its name (``pbemdv<pid>-...``), so
    that no moment exists when a fresh root has no owner yet (a parallel worker's clean-up
    would take it for a stale one); ``owner.pid`` in the roots of older checkouts."""
    pid, dash, _ = root.name.removeprefix(PREFIX).partition("-")
    if dash and pid.isdigit():
        return int(pid)
    with contextlib.suppress(OSError, ValueError):
        return int((root / "owner.pid").read_text())
    return None


def cleanup_stale() -> None:
    """Kill Dovecots left by a SIGKILLed pytest (pitfall 18): only ours (by conf path), and only
    those whose owner process is gone: a concurrent test session's servers, and those of the
    other workers of this one, are left alone."""
    for root in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        owner = _owner(root)
        if owner is not None and owner != os.getpid() and Path(f"/proc/{owner}").exists():
            continue
        pidfile = root / "run" / "master.pid"
        conf = str(root / "dovecot.conf")
        with contextlib.suppress(OSError, ValueError):
            pid = int(pidfile.read_text().split()[0])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            if conf in cmdline:
                killpg_loop(pid)
        if not pidfile.exists() or not _pid_alive(pidfile):
            shutil.rmtree(root, ignore_errors=True)


def _pid_alive(pidfile: Path) -> bool:
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError):
        return False
    return Path(f"/proc/{pid}").exists()


def _read_greeting(port: int, prefix: bytes, timeout: float) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(timeout)
            return s.recv(256).startswith(prefix)
    except OSError:
        return False


CONF = """\
instance_name = {PREFIX}-{imap_port}
base_dir = {root}/run
state_dir = {root}/state
protocols = imap lmtp
listen = 127.0.0.1
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
first_valid_uid = 1
mail_location = sdbox:~/mail
namespace inbox {{
  inbox = yes
  separator = /
}}
mail_fsync = never
mailbox_idle_check_interval = 1 secs
mail_max_userip_connections = 100
{extra}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {root}/passwd
}}
userdb {{
  driver = passwd-file
  args = {root}/passwd
  default_fields = uid=nobody gid=nogroup home={root}/mail/%d/%n
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp_port}
  }}
}}
"""


@dataclass
class Dovecot:
    """One private Dovecot instance; users are ``name@example.test`` with password ``<name>pass``."""

    users: tuple[str, ...]
    extra_conf: str = ""
    root: Path = field(init=False)
    imap_port: int = field(init=False)
    lmtp_port: int = field(init=False)
    proc: subprocess.Popen[bytes] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        # the owner in a file too: the clean-up of an older checkout's tests, which may run on
        # the same machine, reads only that
        (self.root / "owner.pid").write_text(str(os.getpid()))
        os.chmod(self.root, 0o755)  # auth runs as dovecot (pitfall 2)
        for sub in ("run", "state", "mail"):
            (self.root / sub).mkdir()
        shutil.chown(self.root / "mail", "nobody", "nogroup")  # mail uid 0 refused (pitfall 1)
        self.imap_port = free_port()
        self.lmtp_port = free_port()
        lines = [f"{u}:{{PLAIN}}{self.password(u)}::::::" for u in self.users]
        (self.root / "passwd").write_text("\n".join(lines) + "\n")
        self._write_conf()

    @staticmethod
    def password(user: str) -> str:
        return user.split("@")[0].split("+")[0] + "pass"

    @property
    def conf(self) -> Path:
        return self.root / "dovecot.conf"

    def _write_conf(self) -> None:
        self.conf.write_text(
            CONF.format(
                PREFIX=PREFIX,
                root=self.root,
                imap_port=self.imap_port,
                lmtp_port=self.lmtp_port,
                extra=self.extra_conf,
            )
        )

    def start(self, timeout: float = 10.0) -> None:
        """Start (or restart, on the same ports). The ports were free when chosen, but an
        outgoing connection may take one as its local port before we bind it: on the first
        start such a collision picks new ports and tries again."""
        for attempt in range(4):
            try:
                self._start(timeout)
                self.started = True
                return
            except RuntimeError as exc:
                if self.started or "in use" not in str(exc) or attempt == 3:
                    raise
                self.stop()
                self.imap_port, self.lmtp_port = free_port(), free_port()
                self._write_conf()

    started = False

    def _start(self, timeout: float) -> None:
        with open(self.root / "stdout.log", "ab") as out:  # pitfall 21
            self.proc = subprocess.Popen(
                ["dovecot", "-F", "-c", str(self.conf)],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dovecot exited rc={self.proc.returncode}: {self.log()}")
            if _read_greeting(self.imap_port, b"* OK", 1) and _read_greeting(
                self.lmtp_port, b"220", 1
            ):
                return
            time.sleep(0.02)
        raise RuntimeError(f"dovecot not ready in {timeout}s: {self.log()}")

    def stop(self) -> None:
        if self.proc is not None:
            killpg_loop(self.proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=2)
            self.proc = None

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def kill_imap_children(self) -> int:
        """kill -9 every ``imap`` child process (F3: a dropped connection, server stays up)."""
        assert self.proc is not None
        n = 0
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                rest = (d / "stat").read_text().rsplit(")", 1)[1].split()
                comm = (d / "comm").read_text().strip()
                if int(rest[2]) == self.proc.pid and comm == "imap":
                    os.kill(int(d.name), signal.SIGKILL)
                    n += 1
        return n

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "dovecot.log").read_text(errors="replace")[-4000:]
        return ""

    def doveadm(self, *args: str) -> str:
        return subprocess.run(
            ["doveadm", "-c", str(self.conf), *args], check=True, capture_output=True, text=True
        ).stdout

    def lmtp_deliver(self, sender: str, rcpts: Iterable[str], data: bytes) -> list[int]:
        """Deliver by LMTP written by hand: one reply per accepted recipient (pitfall 23)."""
        rcpts = list(rcpts)
        codes: list[int] = []
        with smtplib.LMTP("127.0.0.1", self.lmtp_port, timeout=30) as lm:
            lm.ehlo_or_helo_if_needed()
            code, _ = lm.mail(sender)
            if code != 250:
                return [code] * len(rcpts)
            accepted = []
            for r in rcpts:
                code, _ = lm.rcpt(r)
                codes.append(code)
                if code == 250:
                    accepted.append(r)
            if accepted:
                code, _ = lm.data(data)  # first recipient's reply
                for _ in accepted[1:]:
                    lm.getreply()
        return codes


@dataclass
class ListConfig:
    """A tiny mailing list inside the relay: posts fan out to members with a List-Id."""

    address: str
    members: list[str]
    list_id: str = "<game.lists.example.test>"


class RelayHandler:
    """aiosmtpd handler: mode ``ok`` relays to Dovecot LMTP; ``451``/``550`` refuse at RCPT;
    ``hang`` never answers DATA; the controller being stopped is ``down``."""

    def __init__(
        self,
        dovecot: Dovecot | None,
        known: set[str],
        lists: list[ListConfig],
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.dovecot = dovecot
        self.known = known
        self.lists = {lst.address: lst for lst in lists}
        self.aliases = {k.lower(): v.lower() for k, v in (aliases or {}).items()}
        self.mode = "ok"
        self.received: list[tuple[str, list[str], bytes]] = []
        self.lock = threading.Lock()

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        if self.mode == "451":
            return "451 4.3.0 Try again later"
        if self.mode == "550":
            return "550 5.1.1 User unknown"
        local, _, domain = address.lower().partition("@")
        base = local.split("+", 1)[0] + "@" + domain
        if base not in self.known and address.lower() not in {*self.lists, *self.aliases}:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.mode == "hang":
            await asyncio.sleep(3600)
        data: bytes = envelope.original_content or envelope.content
        with self.lock:
            self.received.append((envelope.mail_from, list(envelope.rcpt_tos), data))
        if self.dovecot is None:
            return "250 OK"
        direct = [
            self.aliases.get(r.lower(), r) for r in envelope.rcpt_tos if r.lower() not in self.lists
        ]
        jobs: list[tuple[list[str], bytes]] = []
        if direct:
            jobs.append((direct, data))
        for r in envelope.rcpt_tos:
            lst = self.lists.get(r.lower())
            if lst is not None:
                jobs.append((lst.members, f"List-Id: {lst.list_id}\r\n".encode() + data))
        loop = asyncio.get_running_loop()
        for rcpts, payload in jobs:
            for attempt in range(3):
                try:
                    await loop.run_in_executor(
                        None, self.dovecot.lmtp_deliver, envelope.mail_from, rcpts, payload
                    )
                    break
                except (smtplib.SMTPServerDisconnected, ConnectionError):
                    # an MTA keeps a delivery its LMTP server dropped and tries it again
                    # (Postfix: deferred); Dovecot's LMTP once closed mid-DATA under load
                    if attempt == 2:
                        raise
        return "250 OK delivered"


class SmtpServer:
    """aiosmtpd Controller on a free loopback port, optionally with AUTH (pitfall 26)."""

    def __init__(
        self,
        handler: RelayHandler,
        auth: tuple[str, str] | None = None,
    ) -> None:
        self.handler = handler
        self.port = free_port()
        self.auth = auth
        self.controller: Controller | None = None

    def _authenticator(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> AuthResult:
        assert self.auth is not None
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == self.auth[0].encode()
            and auth_data.password == self.auth[1].encode()
        )
        return AuthResult(success=True) if ok else AuthResult(success=False, handled=False)

    def start(self) -> None:
        kwargs: dict[str, Any] = {}
        if self.auth is not None:
            kwargs = {"authenticator": self._authenticator, "auth_require_tls": False}
        for attempt in range(4):  # a port taken meanwhile (see Dovecot.start): first start only
            self.controller = Controller(
                self.handler, hostname="127.0.0.1", port=self.port, ready_timeout=10, **kwargs
            )
            try:
                self.controller.start()
                self.started = True
                return
            except OSError as exc:
                close_failed(self.controller)
                self.controller = None
                if self.started or exc.errno != errno.EADDRINUSE or attempt == 3:
                    raise
                self.port = free_port()

    started = False

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


class MailStack:
    """Dovecot + relay for a set of users and lists on example.test."""

    def __init__(
        self,
        users: Iterable[str],
        lists: Iterable[ListConfig] = (),
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.users = tuple(u.lower() for u in users)
        self.dovecot = Dovecot(self.users)
        self.handler = RelayHandler(self.dovecot, set(self.users), list(lists), aliases)
        self.smtp = SmtpServer(self.handler)
        self._readers: dict[str, Any] = {}  # the test's own IMAP connections, by user
        self._reader_lock = threading.Lock()
        self._read_cache: dict[
            tuple[str, str], tuple[int, dict[int, email.message.EmailMessage]]
        ] = {}

    def start(self) -> MailStack:
        self.dovecot.start()
        try:
            self.smtp.start()
        except BaseException:
            self.dovecot.destroy()  # never leave a server behind a failed fixture
            raise
        return self

    def close(self) -> None:
        self.close_readers()
        self.smtp.stop()
        self.dovecot.destroy()

    def inject(self, raw: bytes, to: str, sender: str = "someone@example.test") -> None:
        """Deliver one message straight into ``to``'s INBOX (as an MTA would)."""
        codes = self.dovecot.lmtp_deliver(sender, [to], raw)
        assert codes == [250], codes

    def messages(self, user: str, folder: str = "INBOX") -> list[email.message.EmailMessage]:
        """All messages of a user's folder, parsed (test-side reader), in UID order.

        Tests poll this many times a second while they wait for a mail: one connection per user
        stays open, and a message already read is not fetched nor parsed again (a UID names
        the same message for as long as the folder's UIDVALIDITY stays). The messages returned
        are shared between calls: read them, do not change them."""
        with self._reader_lock:
            for attempt in range(2):
                try:
                    return self._read(user, folder)
                except (OSError, imaplib.IMAP4.error):
                    # the test dropped the connections (F3) or restarted Dovecot: once more
                    self._drop_reader(user)
                    if attempt == 1:
                        raise
        raise AssertionError("unreachable")

    def _reader(self, user: str) -> Any:
        from imapclient import IMAPClient

        client = self._readers.get(user)
        if client is None:
            client = IMAPClient("127.0.0.1", port=self.dovecot.imap_port, ssl=False, timeout=30)
            client.login(user, Dovecot.password(user))
            self._readers[user] = client
        return client

    def _drop_reader(self, user: str) -> None:
        client = self._readers.pop(user, None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.shutdown()

    def _read(self, user: str, folder: str) -> list[email.message.EmailMessage]:
        c = self._reader(user)
        if folder != "INBOX" and not c.folder_exists(folder):
            return []
        info = c.select_folder(folder, readonly=True)
        validity = int(info.get(b"UIDVALIDITY", 0))
        known_validity, known = self._read_cache.get((user, folder), (validity, {}))
        if known_validity != validity:
            known = {}
        uids = sorted(c.search("ALL"))
        new = [uid for uid in uids if uid not in known]
        if new:
            for uid, data in c.fetch(new, ["BODY.PEEK[]"]).items():
                raw = data.get(b"BODY[]")
                if isinstance(raw, bytes):  # else moved away by the daemon between SEARCH and FETCH
                    known[uid] = _parse(raw)
        present = set(uids)
        known = {uid: m for uid, m in known.items() if uid in present}
        self._read_cache[(user, folder)] = (validity, known)
        return [known[uid] for uid in uids if uid in known]

    def close_readers(self) -> None:
        """Log out the test-side readers (before the servers go)."""
        with self._reader_lock:
            for user in list(self._readers):
                self._drop_reader(user)
            self._read_cache.clear()


def _parse(raw: bytes) -> email.message.EmailMessage:
    """A message as the tests read it: the modern policy's results, each header parsed once
    (the daemon's :func:`~pbem.mail.parse_once.parse_once_policy`: wait loops read the same
    messages' headers again and again)."""
    try:
        m = email.message_from_bytes(raw, policy=parse_once_policy())
        str(m.get("Subject"))
    except RecursionError:  # the hostile corpus: headers are enough for the tests
        m = BytesParser(policy=parse_once_policy()).parsebytes(raw[:4000], headersonly=True)
    assert isinstance(m, email.message.EmailMessage)
    m.raw_size = len(raw)  # type: ignore[attr-defined]
    return m
