"""The daemon's configuration: one TOML file (tomllib), typed and validated with clear messages.

Passwords never live in the TOML (requirement 12): each comes from ``password_file`` or, under
systemd, from ``$CREDENTIALS_DIRECTORY/<credential>`` (``LoadCredential=``). A ``password`` key
in the file is an error, so a secret cannot sneak in by habit.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import tomllib
import zoneinfo
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pbem.adapters.codes import hash_secret
from pbem.adapters.servers import ImapSettings, SmtpSettings
from pbem.core.errors import PbemError
from pbem.mail.threads import DEFAULT_FROM_NAME, REPLY_TO_POLICIES

T = TypeVar("T")
TLS_MODES = ("none", "starttls", "tls")
LIST_MODES = ("external", "relay")
LIST_VOTES = ("auto", "from", "confirm")
AUTH_METHODS = ("registered", "secret", "dkim", "dkim_verify")


class ConfigError(PbemError):
    """The configuration is invalid; ``problems`` lists every problem found, one per line."""

    def __init__(self, problems: list[str], unsourced: tuple[str, ...] = ()) -> None:
        self.problems = problems
        self.unsourced = unsourced
        """The sections (``imap``, ``smtp``) with a login and no password source: a shell
        outside the unit, which alone holds the credentials (``pbem check-config``'s hint)."""
        super().__init__("invalid configuration:\n  " + "\n  ".join(problems))


@dataclass(frozen=True)
class AuthConfig:
    """Sender authentication layers (RELIABILITY §1.6)."""

    methods: tuple[str, ...] = ("registered",)
    authserv_id: str | None = None
    list_votes: str = "auto"
    """How the commands of a post on an EXTERNAL list are authenticated (requirement 6):
    ``from`` by its registered From alone; ``confirm``: they count once the player confirms
    them from his registered address (a private reply, checked by ``methods``); ``auto``:
    ``from`` when ``methods`` is the registered address alone (a list vote is then exactly
    as strong as a private command), else ``confirm``. A relayed list is authenticated like
    private mail and ignores this."""
    final_methods: tuple[str, ...] | None = None
    """Extra layers an irreversible command (one the rules call final) needs, on top of
    ``methods`` (requirement 5: e.g. ``["registered", "secret"]``); None: ``methods`` only."""
    dns_host: str | None = None
    """``[auth] dns_server``: the resolver asked for DKIM keys (``dkim_verify``), an IP
    address; None: every ``nameserver`` of /etc/resolv.conf in turn, read at each query."""
    dns_port: int = 53
    admin_secret: bool = True
    """``[auth] admin_secret``: a game master's mail needs an admin code (``SECRET <code>``)
    on top of the transport layers of the strongest player layer (issue 10 item 9). Off, the
    transport layers alone (and the From) decide: only for a trusted single-admin setup."""
    confirm_requests_per_hour: int = 6
    """``[auth] confirm_requests_per_hour``: at most this many confirmation requests mailed
    to one player of one game in any hour (0: no limit). Past it a post in his name is not
    counted and nothing is mailed: forged posts cannot flood the real player's mailbox
    (issue 10 item 16)."""
    admin_secret_hash: Mapping[str, str] | None = None
    """The daemon-wide admin code (``[auth] admin_secret_file``, or the systemd credential
    ``admin-secret``), scrypt-hashed at load; a game's own (``new-game --admin-secret``) is
    accepted too."""
    admin_code_source: str | None = None
    """Where the daemon-wide admin code comes from (``admin_secret_file``, or the credential
    ``$CREDENTIALS_DIRECTORY/admin-secret`` when present), read or not; None: there is none,
    so only the games created with their own code accept their game masters' mail."""

    @property
    def confirm_list_votes(self) -> bool:
        """Whether a vote posted on the list waits for a private confirmation (requirement 6):
        ``auto`` asks it unless the only method is the registered address."""
        if self.list_votes == "auto":
            weakest = ("registered",)
            return tuple(self.methods) != weakest or self.final_methods not in (None, weakest)
        return self.list_votes == "confirm"


STRANGER_POLICIES = ("minimum", "silent", "games")
"""``[daemon] strangers``: see :attr:`Config.strangers`."""


@dataclass(frozen=True)
class ListLimits:
    """What one poster may put on a list the daemon relays (``[list]``, ``mode = "relay"``)."""

    posts_per_hour: int = 30
    """Relayed posts per poster and game in any hour (0: no limit); past it a post is not
    relayed nor counted, and the poster is told when he may post again."""
    max_post_chars: int = 20_000
    """Characters of text in one relayed post (0: no cap)."""
    max_post_bytes: int = 2_000_000
    """Bytes of one relayed post, attachments included (0: no cap)."""
    relay_share: float = 0.75
    """The share of ``[daemon] outbound_cap_per_hour`` relayed chat may use in any hour; the
    rest is kept for results, prompts and replies, which are also sent first."""


@dataclass(frozen=True)
class Config:
    """Everything ``pbem serve`` needs."""

    path: Path
    moderator: str
    bounce: str
    admins: tuple[str, ...]
    list_address: str | None
    list_id: str | None
    language: str
    timezone: str
    imap: ImapSettings
    smtp: SmtpSettings
    data_dir: Path
    engine: str = "pbem.table:Table"
    outage_threshold_hours: float = 6.0
    outage_grace_hours: float = 24.0
    outbound_cap_per_hour: int = 200
    errors_per_hour: int = 1
    """``[daemon] errors_per_hour``: error replies to a stranger (no player, no game master)."""
    autos_per_day: int = 10
    reply_burst: int = 10
    """``[daemon] reply_burst``: replies that change nothing (HELP, STATUS, rejections) a
    game's player or game master gets in a row, before ``replies_per_hour`` (a token bucket)."""
    replies_per_hour: float = 12.0
    """``[daemon] replies_per_hour``: the pace those replies refill at after the burst."""
    max_failures: int = 3
    digest_hour: int = 21
    """``[daemon] digest_hour``: the hour (0–23, in each game's time zone) the daily digest
    goes to the seats that asked for it (``DIGEST on``, issue 25)."""
    quarantine_retry_seconds: float = 600.0
    """``[daemon] quarantine_retry_seconds``: a mail held because the process died while handling
    it is retried automatically once the process has been up this long (pbem.daemon.inflight)."""
    quarantine_retries: int = 2
    """``[daemon] quarantine_retries``: at most this many automatic retries per held mail (0:
    only ``pbem shunt retry``); a poison costs ``max_failures`` + this many deaths at most."""
    retry_base_seconds: float = 60.0
    deadline_retry_seconds: float = 60.0
    deadline_fetch_wait_seconds: float = 300.0
    """``[daemon] deadline_fetch_wait_seconds``: how long a due deadline waits for the mailbox
    to be read (its mail applied first) before it is resolved without (the server is down)."""
    heartbeat_seconds: float = 60.0
    ledger_retention_days: int = 30
    group_commit: int = 50
    auth: AuthConfig = field(default_factory=AuthConfig)
    game_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per game id, option defaults for ``pbem new-game`` (``[games."lupus-in-tabula"]``)."""
    reminders_hours: tuple[float, ...] = (12.0, 1.0)
    list_mode: str = "external"
    """``external``: a mailing list the daemon is subscribed to distributes the posts;
    ``relay``: the list address is delivered to the daemon's mailbox and the daemon
    distributes accepted posts to the players itself (it moderates: holds, refuses)."""
    verp: bool = False
    coalesce_replies: bool = True
    html_mail: bool = True
    """``[smtp] html``: every mail (the game's and the daemon's own) has an HTML alternative
    after its text part, with a quick action per choice where a game mail asks for a command
    (issue 15); ``false``: text only."""
    """``[smtp] coalesce_replies``: private replies to one player queued together are sent as
    one digest (RELIABILITY §2.5)."""
    """``[smtp] verp``: a per-recipient envelope sender on game mail (RELIABILITY §2.4)."""
    hard_bounces: int = 3
    """``[daemon] hard_bounces``: hard bounces within one deadline window that flag a player
    unreachable and alert the admins (RELIABILITY §2.5)."""
    strangers: str = "minimum"
    """``[daemon] strangers``: how mail that reaches no game is answered when its sender plays
    in no running game. ``minimum`` (default): one short reply naming no game; ``silent``: no
    reply; ``games``: the list of running games and their addresses (which tells anyone who
    writes what is being played here). A player of running games is told only his own."""
    list_limits: ListLimits = field(default_factory=lambda: ListLimits())
    """``[list]`` limits on relayed chat (``mode = "relay"``; issue 10 item 16)."""
    from_name: str = DEFAULT_FROM_NAME
    """``[moderator] from_name``: the From's display name of a game's mail, ``{game}`` its id
    (``"MJ village1" <moderator@…>``), so that a player in several games sees whose it is;
    ``""``: the bare address (pbem.mail.threads)."""
    list_reply_to: str = "list"
    """``[list] reply_to``: ``list`` (default): pbem's list posts carry ``Reply-To`` the list,
    a plain Reply is public; ``none``: the list's own settings decide (pbem.mail.threads)."""
    list_graveyard: bool = False
    """``[list] graveyard``: with ``mode = "relay"``, each game also has a graveyard list,
    ``<list>+cimetiere@<domain>``, where the dead and the observers talk, never relayed to the
    living (issue 25, pbem/judge/observer.py)."""
    notices: tuple[str, ...] = ()
    """Warnings about a valid configuration, one line each (``serve`` logs them, ``check-config``
    prints them): e.g. ``[daemon] data_dir`` disagreeing with the unit's ``StateDirectory=``."""


class _Section(dict[str, Any]):
    """A config table that remembers which keys the loader asked for: whatever is left unasked
    at the end is a key no code reads (a typo such as ``poll_intervall``), reported as an error
    rather than silently ignored."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        """The key's value (or ``default``), the key noted as asked for."""
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.add(key)
        return super().__contains__(key)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known word, or nothing (difflib)."""
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Reader:
    def __init__(
        self, data: Mapping[str, Any], passwords: bool = True, check_paths: bool = False
    ) -> None:
        self.data = data
        self.check_paths = check_paths
        self.problems: list[str] = []
        self.unsourced: list[str] = []
        """Sections with a login and no password source (:attr:`ConfigError.unsourced`)."""
        self.sections: dict[str, _Section] = {}
        self.passwords = passwords

    def table(self, name: str, required: bool = True, keys: bool = True) -> Mapping[str, Any]:
        """The section ``name``; ``keys=False`` for one whose keys are checked by its own rules
        (``[games]``: game ids; ``[phases]``), not against what the loader reads."""
        t = self.data.get(name)
        if t is None:
            if required:
                self.problems.append(f"[{name}]: missing section")
            return {}
        if not isinstance(t, Mapping):
            self.problems.append(f"[{name}]: must be a table")
            return {}
        if not keys:
            return t
        section = self.sections[name] = _Section(t)
        return section

    def unknown_keys(self) -> list[str]:
        """A problem per key of a section that no code asked for, with the closest known key."""
        out = []
        for name, section in self.sections.items():
            for key in section:
                if key not in section.asked:
                    hint = did_you_mean(key, section.asked)
                    out.append(f"{name}.{key}: unknown key{hint}")
        return out

    def get(
        self, tbl: Mapping[str, Any], sect: str, key: str, typ: type[T], default: T | None = None
    ) -> T:
        """The key's value if it has type ``typ``; missing (without a default) or of another type: a
        problem noted."""
        v = tbl.get(key, default)
        if v is None:
            self.problems.append(f"{sect}.{key}: required")
            return default  # type: ignore[return-value]
        if typ is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            self.problems.append(f"{sect}.{key}: expected {typ.__name__}, got {v!r}")
            return default if default is not None else v  # type: ignore[return-value]
        return v

    def required_text(self, tbl: Mapping[str, Any], sect: str, key: str) -> str:
        """A string the daemon cannot work without: left out or empty is a problem here, not a
        login failing later against a server named ""."""
        v = self.get(tbl, sect, key, str, "")
        if isinstance(v, str) and not v.strip():
            self.problems.append(f"{sect}.{key}: required")
        return v

    def address(self, tbl: Mapping[str, Any], sect: str, key: str, required: bool = True) -> str:
        """The key's email address; missing (when required) or not an address: a problem noted."""
        v = tbl.get(key)
        if v is None and not required:
            return ""
        s = self.required_text(tbl, sect, key) if required else self.get(tbl, sect, key, str, "")
        if s and ("@" not in s or " " in s or s.startswith("@") or s.endswith("@")):
            self.problems.append(f"{sect}.{key}: {s!r} is not an email address")
        return s

    def port(self, tbl: Mapping[str, Any], sect: str, default: int) -> int:
        """The section's ``port``; outside 1..65535: a problem noted."""
        p = self.get(tbl, sect, "port", int, default)
        if not 1 <= p <= 65535:
            self.problems.append(f"{sect}.port: {p} is not a TCP port (1..65535)")
        return p

    def tls(self, tbl: Mapping[str, Any], sect: str, default: str) -> str:
        """The section's ``tls`` mode; not one of :data:`TLS_MODES`: a problem noted."""
        t = self.get(tbl, sect, "tls", str, default)
        if t not in TLS_MODES:
            self.problems.append(f"{sect}.tls: {t!r} must be one of {', '.join(TLS_MODES)}")
        return t

    def path_exists(self, key: str, value: Any, base: Path) -> None:
        """With ``check_paths``, a problem unless ``value`` names an existing file (relative to
        the config's directory); only its existence is checked, never its content."""
        if not self.check_paths:
            return
        path = Path(str(value))
        path = path if path.is_absolute() else base / path
        try:
            if not path.is_file():
                self.problems.append(f"{key}: {path}: no such file")
        except OSError as exc:  # a directory on the way the caller may not enter
            self.problems.append(f"{key}: {path}: {exc.strerror}")

    def password(self, tbl: Mapping[str, Any], sect: str, credential: str, base: Path) -> str:
        """From ``password_file`` or ``$CREDENTIALS_DIRECTORY/<credential>``; never inline."""
        pf = tbl.get("password_file")
        cred = str(tbl.get("credential", credential))
        if "password" in tbl:
            self.problems.append(
                f"{sect}.password: passwords never go in the TOML; use {sect}.password_file "
                f"or a systemd credential named {credential!r}"
            )
            return ""
        if not self.passwords:
            # an operator command that talks to no server: the password files and systemd
            # credentials are the service's alone (root-only files, $CREDENTIALS_DIRECTORY);
            # a password_file is still looked for (not read), so a typo shows before the unit
            if pf is not None:
                self.path_exists(f"{sect}.password_file", pf, base)
            return ""
        if pf is not None:
            path = Path(str(pf))
            path = path if path.is_absolute() else base / path
        elif not tbl.get("user"):
            return ""  # no login (an SMTP relay that takes none): no password to look for
        elif os.environ.get("CREDENTIALS_DIRECTORY"):
            path = Path(os.environ["CREDENTIALS_DIRECTORY"]) / cred
        else:
            self.unsourced.append(sect)
            self.problems.append(
                f"{sect}: no password source: set {sect}.password_file, or run under systemd "
                f"with LoadCredential={cred}:<file>"
            )
            return ""
        try:
            password = path.read_text().rstrip("\r\n")
        except OSError as exc:
            hint = (
                f" (a root-only file goes to the service as a systemd credential: "
                f"LoadCredential={cred}:{path} in the unit, and no {sect}.password_file)"
                if isinstance(exc, PermissionError)
                else ""
            )
            self.problems.append(f"{sect}: cannot read password from {path}: {exc.strerror}{hint}")
            return ""
        if not password:  # an editor quit unsaved: the server would refuse the login, later
            self.problems.append(f"{sect}: the password file {path} is empty")
        return password


def parse_dns_server(text: str) -> tuple[str, int]:
    """``host[:port]`` of ``[auth] dns_server``: an IPv4 address, an IPv6 one (bare, or in
    brackets to add a port: ``[::1]:5353``), port 53 by default. ValueError says what is wrong.

    A host name is refused: resolving the resolver's own name would need a resolver.
    """
    text = text.strip()
    host, port = text, "53"
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise ValueError(f"{text!r}: expected [IPv6]:port")
        port = rest[1:] if rest else "53"
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"{text!r}: expected an IP address with an optional port (127.0.0.1:5353, "
            "[::1]:5353), not a host name"
        ) from None
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: port {port!r} is not a UDP port (1..65535)")
    return host, int(port)


def _admin_code(au: Mapping[str, Any], r: _Reader, base: Path) -> Mapping[str, str] | None:
    """The daemon-wide admin code, from ``[auth] admin_secret_file`` (relative to the config)
    or ``$CREDENTIALS_DIRECTORY/admin-secret``; kept scrypt-hashed only."""
    pf = au.get("admin_secret_file")
    if not r.passwords:
        if pf is not None:
            r.path_exists("auth.admin_secret_file", pf, base)
        return None  # a command that reads no mail: the code is the service's secret alone
    if pf is not None:
        path = Path(str(pf))
        path = path if path.is_absolute() else base / path
    elif os.environ.get("CREDENTIALS_DIRECTORY"):
        path = Path(os.environ["CREDENTIALS_DIRECTORY"]) / "admin-secret"
        if not path.exists():
            return None
    else:
        return None
    try:
        code = path.read_text().strip()
    except OSError as exc:
        r.problems.append(f"auth.admin_secret_file: cannot read {path}: {exc.strerror}")
        return None
    if len(code) < 12:
        r.problems.append(f"auth.admin_secret_file: {path}: the code must be 12 characters or more")
        return None
    return hash_secret(code)


def _admin_code_source(au: Mapping[str, Any], base: Path) -> str | None:
    """The file the daemon-wide admin code is read from (see :func:`_admin_code`), or None."""
    pf = au.get("admin_secret_file")
    if pf is not None:
        path = Path(str(pf))
        return str(path if path.is_absolute() else base / path)
    creds = os.environ.get("CREDENTIALS_DIRECTORY")
    if creds and (Path(creds) / "admin-secret").exists():
        return str(Path(creds) / "admin-secret")
    return None


def admin_code_warning(cfg: Config, games: Mapping[str, bool]) -> str | None:
    """One line when game masters' mail would be refused for want of an admin code: ``[auth]
    admin_secret`` on, game masters named, no daemon-wide code, and no game (``games``: each
    stored game's id, with whether it has its own code) or some game without its own."""
    if not cfg.auth.admin_secret or not cfg.admins or cfg.auth.admin_code_source:
        return None
    without = sorted(g for g, has_code in games.items() if not has_code)
    if games and not without:
        return None
    which = f"games without one: {', '.join(without)}" if without else "no game has one yet"
    return (
        "auth.admin_secret is on and no admin code exists for the daemon "
        f"({which}): a game master's mail is refused unless it carries its game's code "
        "(`pbem new-game` and `pbem open-game` print one per game) or a daemon-wide code (12 "
        "characters or more in auth.admin_secret_file, or the credential admin-secret)"
    )


def _game_ids() -> list[str]:
    from pbem.games import GAME_IDS

    return list(GAME_IDS)


def _option_names(game_id: str) -> list[str]:
    """The option names of a game (``pbem games`` lists them with their values)."""
    from pbem.games import game_class
    from pbem.games.info import game_options

    return [o.name for o in game_options(game_class(game_id).options_type)]


def _option_problems(game_id: str, options: Mapping[str, Any]) -> list[str]:
    """Each option value ``new-game`` would refuse (a duration such as ``"18 hours"``, a value
    outside its choices), checked one by one so that every bad one is named; then, each good
    alone, the values the rules refuse together (Dracula's ``early_close`` with
    ``private_orders_final = false``), by the check the rules' setup makes, in its words."""
    from pbem.core.options import parse_options
    from pbem.games import game_class

    cls = game_class(game_id).options_type
    if cls is None:
        return []
    out = []
    for key, value in options.items():
        try:
            parse_options(cls, {key: value})
        except (PbemError, ValueError, TypeError) as exc:
            out.append(f'games."{game_id}".{key}: {exc}')
    if not out:  # each value good alone: together, as the rules check them at setup
        try:
            game_class(game_id).check_options(parse_options(cls, options))
        except (PbemError, ValueError, TypeError) as exc:
            out.append(f'games."{game_id}": {exc}')
    return out


def _data_dir(
    r: _Reader, d: Mapping[str, Any], env_data_dir: str | None
) -> tuple[Path, tuple[str, ...]]:
    """The data directory and, when two sources disagree, one line saying which one wins.

    ``[daemon] data_dir`` is always read (and type-checked): the operators' commands, which run
    outside the unit, find the state there. Under systemd the unit's ``StateDirectory=`` wins
    (``$STATE_DIRECTORY``, the first path when it lists several): the service cannot write
    anywhere else under ``ProtectSystem=strict``."""
    configured = r.get(d, "daemon", "data_dir", str, "")
    state = (os.environ.get("STATE_DIRECTORY") or "").split(":")[0]
    chosen, source = (
        (env_data_dir, "the caller's data directory")
        if env_data_dir
        else (state, "$STATE_DIRECTORY (the unit's StateDirectory=)")
        if state
        else (configured, "")
    )
    if configured and source and Path(configured).resolve() != Path(chosen).resolve():
        return Path(chosen), (
            f"daemon.data_dir {configured!r} differs from {source} {chosen!r}: using "
            f"{chosen!r}; the operators' commands run outside the unit read {configured!r}, "
            "so make them the same",
        )
    return Path(chosen), ()


OPERATORS_GROUP = "pbem-admin"
"""The group whose members operate pbem (docs/install-debian.md, systemd/pbem.sysusers)."""


def permission_hint(exc: BaseException) -> str:
    """What to do about a permission error on pbem's files: name the operators' group
    (issue 21, item 14); empty for any other error."""
    if isinstance(exc, PermissionError):
        return (
            f" (pbem's files are for the {OPERATORS_GROUP} group: "
            f"adduser $USER {OPERATORS_GROUP}, then log in again)"
        )
    return ""


def load(
    path: str | Path,
    env_data_dir: str | None = None,
    *,
    passwords: bool = True,
    check_paths: bool = False,
) -> Config:
    """Read and validate ``path``; raises :class:`ConfigError` listing every problem.

    ``passwords=False`` leaves the password sources unread (the settings' passwords are empty):
    for the commands that talk to no server (``status``, ``new-game``, ``shunt``, ``deadline``,
    ``reachable``), so an operator needs neither the password files nor the service's
    credentials. An inline ``password`` key is an error either way. ``check_paths`` (with
    ``passwords=False``: ``check-config --offline``) checks that the password and admin code
    files named exist, without reading them."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read: {exc.strerror}{permission_hint(exc)}"]) from exc
    except UnicodeDecodeError as exc:  # a config saved in Latin-1 (issue 21, item 10)
        raise ConfigError([f"{path}: not UTF-8 text (at byte {exc.start})"]) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {exc}"]) from exc
    r = _Reader(data, passwords, check_paths)
    base = path.parent
    mod = r.table("moderator")
    moderator = r.address(mod, "moderator", "address")
    bounce = r.address(mod, "moderator", "bounce", required=False) or moderator
    admins_raw = mod.get("admins", [])
    if not isinstance(admins_raw, list) or not all(
        isinstance(a, str) and "@" in a for a in admins_raw
    ):
        r.problems.append("moderator.admins: expected a list of email addresses")
        admins_raw = []
    language = r.get(mod, "moderator", "language", str, "fr")
    if language not in ("fr", "en"):
        r.problems.append(f"moderator.language: {language!r} must be 'fr' or 'en'")
    tz = r.get(mod, "moderator", "timezone", str, "UTC")
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        r.problems.append(f"moderator.timezone: unknown time zone {tz!r}")

    lst = r.table("list", required=False)
    list_address = r.address(lst, "list", "address", required=False) or None
    list_id = lst.get("list_id")
    list_mode = r.get(lst, "list", "mode", str, "external")
    if list_mode not in LIST_MODES:
        r.problems.append(f"list.mode: {list_mode!r} must be one of {', '.join(LIST_MODES)}")
    list_limits = ListLimits(
        posts_per_hour=r.get(lst, "list", "posts_per_hour", int, 30),
        max_post_chars=r.get(lst, "list", "max_post_chars", int, 20_000),
        max_post_bytes=r.get(lst, "list", "max_post_bytes", int, 2_000_000),
        relay_share=r.get(lst, "list", "relay_share", float, 0.75),
    )
    for key in ("posts_per_hour", "max_post_chars", "max_post_bytes"):
        if getattr(list_limits, key) < 0:
            r.problems.append(f"list.{key}: must be 0 (no limit) or more")
    if not 0 < list_limits.relay_share <= 1:
        r.problems.append(f"list.relay_share: {list_limits.relay_share} must be in (0, 1]")
    list_graveyard = r.get(lst, "list", "graveyard", bool, False)
    if list_graveyard and list_mode != "relay":
        r.problems.append(
            'list.graveyard: needs mode = "relay" (pbem distributes the graveyard as it does the '
            "list)"
        )
    if list_mode == "relay" and not list_address:
        r.problems.append(
            'list.address: required with mode = "relay" (the daemon distributes the posts '
            "sent to it)"
        )

    im = r.table("imap")
    imap = ImapSettings(
        host=r.required_text(im, "imap", "host"),
        port=r.port(im, "imap", 993),
        user=r.get(im, "imap", "user", str, ""),
        password=r.password(im, "imap", "imap-password", base),
        tls=r.tls(im, "imap", "tls"),  # type: ignore[arg-type]
        verify_certs=r.get(im, "imap", "verify_certs", bool, True),
        timeout=r.get(im, "imap", "timeout", float, 60.0),
        inbox=r.get(im, "imap", "inbox", str, "INBOX"),
        processed=r.get(im, "imap", "processed", str, "Processed"),
        quarantine=r.get(im, "imap", "quarantine", str, "Quarantine"),
        max_size=r.get(im, "imap", "max_size", int, 2_000_000),
        text_max_size=r.get(im, "imap", "text_max_size", int, 1_000_000),
        batch=r.get(im, "imap", "batch", int, 50),
        use_idle=r.get(im, "imap", "idle", bool, True),
        poll_interval=r.get(im, "imap", "poll_interval", float, 60.0),
        idle_renew=min(r.get(im, "imap", "idle_renew", float, 300.0), 29 * 60.0),
    )
    sm = r.table("smtp")
    smtp = SmtpSettings(
        host=r.required_text(sm, "smtp", "host"),
        port=r.port(sm, "smtp", 587),
        tls=r.tls(sm, "smtp", "starttls"),  # type: ignore[arg-type]
        user=sm.get("user"),
        password=r.password(sm, "smtp", "smtp-password", base) or None,
        timeout=r.get(sm, "smtp", "timeout", float, 30.0),
        verify_certs=r.get(sm, "smtp", "verify_certs", bool, True),
    )
    d = r.table("daemon")
    data_dir, notices = _data_dir(r, d, env_data_dir)
    au = r.table("auth", required=False)
    methods = au.get("methods", ["registered"])
    if not isinstance(methods, list) or not methods or any(m not in AUTH_METHODS for m in methods):
        r.problems.append(f"auth.methods: expected a non-empty list from {', '.join(AUTH_METHODS)}")
        methods = ["registered"]
    authserv = au.get("authserv_id")
    list_votes = r.get(au, "auth", "list_votes", str, "auto")
    final_raw = au.get("final_methods")
    final_methods: tuple[str, ...] | None = None
    if final_raw is not None:
        if not isinstance(final_raw, list) or any(m not in AUTH_METHODS for m in final_raw):
            r.problems.append(f"auth.final_methods: expected a list from {', '.join(AUTH_METHODS)}")
        else:
            final_methods = tuple(str(m) for m in final_raw)
            if "dkim" in final_methods and not authserv:
                r.problems.append("auth.authserv_id: required when auth.final_methods has 'dkim'")
    if list_votes not in LIST_VOTES:
        r.problems.append(f"auth.list_votes: {list_votes!r} must be one of {', '.join(LIST_VOTES)}")
    dns_host: str | None = None
    dns_port = 53
    dns_server = au.get("dns_server")
    if dns_server is not None:
        if not isinstance(dns_server, str):
            r.problems.append(f"auth.dns_server: expected a string, got {dns_server!r}")
        else:
            try:
                dns_host, dns_port = parse_dns_server(dns_server)
            except ValueError as exc:
                r.problems.append(f"auth.dns_server: {exc}")
    if "dkim" in methods and not authserv:
        r.problems.append("auth.authserv_id: required when auth.methods has 'dkim'")
    ph = r.table("phases", required=False, keys=False)
    for k in ph:
        if k == "reminders_hours":
            continue
        r.problems.append(
            f"phases.{k}: phase durations are options of each game: set them in "
            f'[games."<game id>"] (e.g. night_duration = "18h")'
        )
    rem = ph.get("reminders_hours", [12, 1])
    game_options: dict[str, dict[str, Any]] = {}
    for game, options in r.table("games", required=False, keys=False).items():
        known_games = _game_ids()
        if game not in known_games:
            r.problems.append(f"games.{game}: unknown game (known: {', '.join(known_games)})")
        elif not isinstance(options, dict):
            r.problems.append(f"games.{game}: expected a table of the game's options")
        else:
            game_options[game] = dict(options)
            known_options = _option_names(game)
            r.problems.extend(
                f'games."{game}".{k}: unknown option{did_you_mean(k, known_options)}'
                for k in options
                if known_options and k not in known_options
            )
            r.problems.extend(
                _option_problems(game, {k: v for k, v in options.items() if k in known_options})
            )
    if not isinstance(rem, list) or not all(isinstance(x, int | float) for x in rem):
        r.problems.append("phases.reminders_hours: expected a list of hours")
        rem = []
    cfg = Config(
        path=path,
        moderator=moderator,
        bounce=bounce,
        admins=tuple(admins_raw),
        list_address=list_address,
        list_id=str(list_id) if list_id else None,
        list_mode=list_mode,
        language=language,
        timezone=tz,
        imap=imap,
        smtp=smtp,
        data_dir=data_dir,
        engine=r.get(d, "daemon", "engine", str, "pbem.table:Table"),
        outage_threshold_hours=r.get(d, "daemon", "outage_threshold_hours", float, 6.0),
        outage_grace_hours=r.get(d, "daemon", "outage_grace_hours", float, 24.0),
        outbound_cap_per_hour=r.get(d, "daemon", "outbound_cap_per_hour", int, 200),
        errors_per_hour=r.get(d, "daemon", "errors_per_hour", int, 1),
        autos_per_day=r.get(d, "daemon", "autos_per_day", int, 10),
        reply_burst=r.get(d, "daemon", "reply_burst", int, 10),
        replies_per_hour=r.get(d, "daemon", "replies_per_hour", float, 12.0),
        max_failures=r.get(d, "daemon", "max_failures", int, 3),
        digest_hour=r.get(d, "daemon", "digest_hour", int, 21),
        quarantine_retry_seconds=r.get(d, "daemon", "quarantine_retry_seconds", float, 600.0),
        quarantine_retries=r.get(d, "daemon", "quarantine_retries", int, 2),
        retry_base_seconds=r.get(d, "daemon", "retry_base_seconds", float, 60.0),
        deadline_retry_seconds=r.get(d, "daemon", "deadline_retry_seconds", float, 60.0),
        deadline_fetch_wait_seconds=r.get(d, "daemon", "deadline_fetch_wait_seconds", float, 300.0),
        heartbeat_seconds=r.get(d, "daemon", "heartbeat_seconds", float, 60.0),
        ledger_retention_days=r.get(d, "daemon", "ledger_retention_days", int, 30),
        group_commit=max(1, r.get(d, "daemon", "group_commit", int, 50)),
        auth=AuthConfig(
            tuple(methods),
            str(authserv) if authserv else None,
            list_votes,
            dns_host=dns_host,
            dns_port=dns_port,
            final_methods=final_methods,
            admin_secret=r.get(au, "auth", "admin_secret", bool, True),
            confirm_requests_per_hour=r.get(au, "auth", "confirm_requests_per_hour", int, 6),
            admin_secret_hash=_admin_code(au, r, base),
            admin_code_source=_admin_code_source(au, base),
        ),
        game_options=game_options,
        reminders_hours=tuple(float(x) for x in rem),
        verp=r.get(sm, "smtp", "verp", bool, False),
        coalesce_replies=r.get(sm, "smtp", "coalesce_replies", bool, True),
        html_mail=r.get(sm, "smtp", "html", bool, True),
        hard_bounces=r.get(d, "daemon", "hard_bounces", int, 3),
        strangers=r.get(d, "daemon", "strangers", str, "minimum"),
        list_limits=list_limits,
        from_name=r.get(mod, "moderator", "from_name", str, DEFAULT_FROM_NAME),
        list_reply_to=r.get(lst, "list", "reply_to", str, "list"),
        list_graveyard=list_graveyard,
        notices=notices,
    )
    if cfg.list_reply_to not in REPLY_TO_POLICIES:
        r.problems.append(
            f"list.reply_to: {cfg.list_reply_to!r} must be one of {', '.join(REPLY_TO_POLICIES)}"
        )
    if cfg.auth.confirm_requests_per_hour < 0:
        r.problems.append("auth.confirm_requests_per_hour: must be 0 (no limit) or more")
    if cfg.strangers not in STRANGER_POLICIES:
        r.problems.append(
            f"daemon.strangers: {cfg.strangers!r} must be one of {', '.join(STRANGER_POLICIES)}"
        )
    if not 0 <= cfg.digest_hour <= 23:
        r.problems.append(f"daemon.digest_hour: {cfg.digest_hour} must be 0 to 23")
    if cfg.reply_burst < 1:
        r.problems.append(f"daemon.reply_burst: {cfg.reply_burst} must be at least 1")
    if cfg.replies_per_hour <= 0:
        r.problems.append(f"daemon.replies_per_hour: {cfg.replies_per_hour} must be positive")
    if cfg.quarantine_retries < 0:
        r.problems.append(f"daemon.quarantine_retries: {cfg.quarantine_retries} must be >= 0")
    if cfg.hard_bounces < 1:
        r.problems.append(f"daemon.hard_bounces: {cfg.hard_bounces} must be at least 1")
    if not str(cfg.data_dir):
        r.problems.append("daemon.data_dir: required (or run under systemd with StateDirectory=)")
    known = {"moderator", "list", "imap", "smtp", "daemon", "auth", "phases", "games"}
    r.problems.extend(
        f"[{k}]: unknown section{did_you_mean(k, known)}" for k in data if k not in known
    )
    r.problems.extend(r.unknown_keys())
    if r.problems:
        raise ConfigError(r.problems, tuple(r.unsourced))
    return cfg
