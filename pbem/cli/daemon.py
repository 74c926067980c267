"""The daemon's subcommands: ``serve``, ``new-game``, ``status``, ``check-config``, ``deadline``,
``shunt``, ``reachable``, ``admin``.

Only ``serve`` writes existing state (it holds the data directory's lock). ``new-game`` creates a
new game directory and renames it into place, which the running daemon then picks up;
``shunt retry``, ``deadline retry``, ``reachable`` and ``admin`` drop a request file the daemon
acts on.
Nothing here writes a file the daemon owns, so there is one writer per file (requirement 3).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.core.errors import PbemError

if TYPE_CHECKING:
    from pbem.daemon.outbox import OutboxRow
    from pbem.daemon.ports import FaultHook

# a name may hold spaces (« Jean Pierre <jp@example.org> », LUP-D28 as amended by issue 13)
_PLAYER = re.compile(r"^\s*(?P<name>[^<>]*?[^<>\s])\s*<(?P<email>[^<>\s]+@[^<>\s]+)>\s*$")


DEFAULT_CONFIG = "/etc/pbem/pbem.toml"


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """``-c/--config`` before the verb (``pbem -c FILE status``); every command that reads the
    config takes it after its verb too (``pbem status -c FILE``, ``pbem shunt list -c FILE``)."""
    parser.add_argument(
        "-c",
        "--config",
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the TOML configuration (default {DEFAULT_CONFIG})",
    )


def with_config(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The same option after the verb; SUPPRESS keeps a value given before it (argparse copies
    a subparser's defaults over the parent's)."""
    p.add_argument(
        "-c",
        "--config",
        default=argparse.SUPPRESS,
        metavar="FILE",
        help=f"the TOML configuration (default {DEFAULT_CONFIG})",
    )
    return p


def add_admin_secret_option(p: argparse.ArgumentParser) -> None:
    """``--admin-secret`` / ``--no-admin-secret`` of ``new-game`` and ``open-game``."""
    p.add_argument(
        "--admin-secret",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="give the game masters an admin code for their mail, printed once (default: when "
        "[auth] admin_secret is on and no auth.admin_secret_file is set)",
    )


def admin_code(args: argparse.Namespace, cfg: Any, setup: dict[str, Any]) -> str | None:
    """The new game's admin code, if it gets one (:func:`pbem.daemon.auth.game_admin_code`)."""
    from pbem.daemon.auth import game_admin_code

    admins = list(setup.get("admins") or ()) or list(cfg.admins)
    auth = cfg.auth
    return game_admin_code(args.admin_secret, auth.admin_secret, auth.admin_code_source, admins)


def print_admin_code(code: str | None, cfg: Any, setup: dict[str, Any]) -> None:
    """The code, once, and who must have it: it is stored hashed, never shown again."""
    admins = list(setup.get("admins") or ()) or list(cfg.admins)
    if code:
        print(
            f"admin code for the game masters ({', '.join(admins) or 'none named'}): "
            f"{code}\n  give it to them privately: a line `SECRET {code}` in their mail to the "
            "game authenticates their commands; it is stored hashed and never shown again"
        )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the daemon's subcommands on ``pbem``'s subparsers."""

    p = with_config(sub.add_parser("serve", help="run the mail daemon"))
    loud = p.add_mutually_exclusive_group()
    loud.add_argument(
        "-v", "--verbose", action="store_const", const=1, dest="verbosity", help="debug lines too"
    )
    loud.add_argument(
        "-q",
        "--quiet",
        action="store_const",
        const=-1,
        dest="verbosity",
        help="warnings and errors only",
    )
    p.add_argument(
        "--log-format",
        choices=("auto", "journal", "plain"),
        default="auto",
        help="journal: no time stamps, syslog priority prefixes (<3> for an error) as journald "
        "reads them; plain: time stamps and level names; auto (default): journal when standard "
        "error is the journal ($JOURNAL_STREAM), else plain",
    )
    p.set_defaults(func=cmd_serve, verbosity=0)

    p = with_config(sub.add_parser("check-config", help="validate the config and try the servers"))
    p.add_argument("--offline", action="store_true", help="do not try IMAP and SMTP logins")
    p.set_defaults(func=cmd_check_config)

    p = with_config(sub.add_parser("new-game", help="create a game the daemon will run"))
    p.add_argument("--setup", help="a JSON setup file (game, players, options, seed, lang...)")
    p.add_argument("--game", default="lupus-in-tabula", help="game id (default lupus-in-tabula)")
    p.add_argument("--id", dest="game_id", help="the game's id (plus-address and [tag])")
    p.add_argument(
        "--player",
        action="append",
        default=[],
        help='a player: "Name <email>" (repeat; the name may hold spaces)',
    )
    p.add_argument("--option", action="append", default=[], help="an option key=value (repeat)")
    p.add_argument("--seed", type=int, help="RNG seed (default: random)")
    p.add_argument("--lang", choices=("fr", "en"), help="language (default: the config's)")
    p.add_argument(
        "--secrets", action="store_true", help="give each player a secret code (printed once)"
    )
    add_admin_secret_option(p)
    p.set_defaults(func=cmd_new_game)

    from pbem.signup.cli import add_open_game

    add_open_game(sub, with_config)  # sign-ups by mail (issue 13)

    p = with_config(sub.add_parser("status", help="games, deadlines, outbox and shunt at a glance"))
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_status)

    p = with_config(sub.add_parser("deadline", help="deadlines whose resolution failed"))
    dsub = p.add_subparsers(dest="deadline_command", required=True)
    d = with_config(
        dsub.add_parser("list", help="list stalled deadlines (failed daemon.max_failures times)")
    )
    d.set_defaults(func=cmd_deadline)
    d = with_config(
        dsub.add_parser("retry", help="ask the daemon to resolve a game's stalled deadlines again")
    )
    d.add_argument("game", help="the game's id")
    d.set_defaults(func=cmd_deadline)

    p = with_config(sub.add_parser("shunt", help="mail whose handling failed"))
    ssub = p.add_subparsers(dest="shunt_command", required=True)
    s = with_config(ssub.add_parser("list", help="list shunted and quarantined mail"))
    s.set_defaults(func=cmd_shunt)
    s = with_config(ssub.add_parser("show", help="show one (by key prefix)"))
    s.add_argument("key")
    s.set_defaults(func=cmd_shunt)
    s = with_config(
        ssub.add_parser("retry", help="ask the daemon to process it again (by key prefix)")
    )
    s.add_argument("key")
    s.set_defaults(func=cmd_shunt)

    p = with_config(
        sub.add_parser(
            "reachable", help="clear a player's hard bounces and unreachable flag (via the daemon)"
        )
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("player", help="the player's name (as in pbem status)")
    p.set_defaults(func=cmd_reachable)

    p = with_config(
        sub.add_parser(
            "admin",
            help="a game master's command for a game (via the daemon, answered by mail)",
            description="Queue one of the game master's commands (PAUSE, REPRISE/RESUME, "
            "PROLONGER/EXTEND 24h, CLORE/CLOSE, ROLES, ANNONCE/ANNOUNCE text, RETIRER/REMOVE "
            "name [reason], FIN/END [side], "
            "APERCU/PREVIEW, ANNULER RESOLUTION/ROLLBACK 24h, REMPLACER/REPLACE name WITH "
            "address [name], AIDE/HELP; before a game opened "
            "by open-game starts: PROLONGER/EXTEND 24h, DEMARRER/START, ANNULER PARTIE/CANCEL, "
            "STATUT/STATUS) for the running daemon, which applies it as if the game's "
            "administrator had mailed it and mails the reply to the game's administrators.",
        )
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("words", nargs="+", metavar="COMMAND", help="the command and its arguments")
    p.set_defaults(func=cmd_admin)

    from pbem.cli.seat import add_commands as add_seat_commands  # it imports this module

    add_seat_commands(sub)  # seat replace (issue 13)


def _load(args: argparse.Namespace, passwords: bool = False) -> Any:
    """The configuration; the password sources are read only for the commands that log in to
    a server (``serve``, ``check-config``): an operator needs no password for the others."""
    from pbem.daemon.config import load

    return load(args.config, passwords=passwords)


def _err(prog: str, exc: BaseException) -> int:
    print(f"pbem {prog}: {exc}", file=sys.stderr)
    return 2


def cmd_serve(args: argparse.Namespace, fault: FaultHook | None = None) -> int:
    """``pbem serve``; ``fault``: a hook called at the service's named fault points (the crash
    tests install one; a no-op here)."""
    import asyncio  # here, not at the top: only serve and check-config run a loop (start-up cost)

    from pbem.daemon.logsetup import setup
    from pbem.daemon.ports import no_fault
    from pbem.daemon.serve import serve

    setup(args.verbosity, args.log_format)
    from pbem.adapters.login import EX_CONFIG
    from pbem.daemon.config import ConfigError

    try:
        cfg = _load(args, passwords=True)
    except ConfigError as exc:  # restarting cannot fix the file: the unit does not retry 78
        _err("serve", exc)
        return EX_CONFIG
    try:
        return asyncio.run(serve(cfg, fault=fault or no_fault))
    except PbemError as exc:
        return _err("serve", exc)


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate the config; then log in to both servers, unless ``--offline``: every key, type,
    duration, option value and named file is checked, and no password is needed (it runs
    outside the unit, where the credentials are not)."""
    from pbem.daemon.config import admin_code_warning, load

    try:
        cfg = load(args.config, passwords=not args.offline, check_paths=args.offline)
    except PbemError as exc:
        return _err("check-config", exc)
    print(f"{args.config}: configuration is valid")
    for notice in cfg.notices:
        print(f"warning: {notice}")
    warning = admin_code_warning(cfg, _games_admin_codes(cfg))
    if warning:
        print(f"warning: {warning}")
    if args.offline:
        return 0
    import asyncio

    from pbem.adapters.imap import ImapDown, ImapMailbox
    from pbem.adapters.login import LoginRefused
    from pbem.adapters.smtp import SmtpClient

    rc = 0
    box = ImapMailbox(cfg.imap)
    try:
        box.connect()
        n = len(box.pending_uids())
        print(
            f"IMAP {cfg.imap.host}:{cfg.imap.port}: logged in as {cfg.imap.user}; "
            f"{n} message(s) waiting; delimiter {box.delimiter!r}; "
            f"IDLE {'yes' if box.has_idle else 'no'}; MOVE {'yes' if box.has_move else 'no'}"
        )
    except LoginRefused as exc:  # in words: which login, which server, what it said
        print(f"IMAP: FAILED: {exc}", file=sys.stderr)
        rc = 1
    except ImapDown as exc:
        print(f"IMAP: FAILED: {exc}", file=sys.stderr)
        rc = 1
    finally:
        box.close()
    try:
        asyncio.run(SmtpClient(cfg.smtp).login_check())
        auth = f" as {cfg.smtp.user}" if cfg.smtp.user else ""
        print(f"SMTP {cfg.smtp.host}:{cfg.smtp.port}: connected ({cfg.smtp.tls}){auth}")
    except LoginRefused as exc:
        print(f"SMTP: FAILED: {exc}", file=sys.stderr)
        rc = 1
    except Exception as exc:
        print(f"SMTP: FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        rc = 1
    if "dkim_verify" in cfg.auth.methods:
        rc = max(rc, _check_dns(cfg))
    return rc


def _games_admin_codes(cfg: Any) -> dict[str, bool]:
    """Each stored game's id, with whether it has its own admin code (none when unreadable)."""
    from pbem.adapters.store import GameStore, list_games

    try:
        stores = [GameStore(d, readonly=True) for d in list_games(cfg.data_dir)]
        return {gs.game_id: bool(gs.meta.get("admin_secret")) for gs in stores}
    except (OSError, PbemError, ValueError):
        return {}


def _check_dns(cfg: Any) -> int:
    """One TXT query to the resolver DKIM keys are asked from (an NXDOMAIN is an answer)."""
    from pbem.adapters.dns import DnsError, DnsResolver

    resolver = DnsResolver(cfg.auth.dns_host, cfg.auth.dns_port)
    name = "_domainkey." + cfg.moderator.rpartition("@")[2]
    try:
        server = f"{', '.join(resolver.servers())} port {resolver.port}"
    except DnsError as exc:
        print(f"DNS: FAILED: {exc}", file=sys.stderr)
        return 1
    try:
        records = resolver.txt(name)
    except (DnsError, ValueError) as exc:
        print(f"DNS {server}: FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"DNS {server}: answered ({len(records)} TXT record(s) for {name})")
    return 0


def _option_value(text: str) -> Any:
    """``--option`` values: JSON when they parse (numbers, true/false, lists), else the text
    (``18h``, ``random``)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _setup_from_args(args: argparse.Namespace, cfg: Any) -> dict[str, Any]:
    from pbem.deal import new_salt

    setup: dict[str, Any] = {}
    if args.setup:
        setup = json.loads(Path(args.setup).read_text(encoding="utf-8"))
        if not isinstance(setup, dict):
            raise PbemError(f"{args.setup}: expected a JSON object")
    setup.setdefault("game", args.game)
    # the shape the merges below rely on; the engine checks the rest (pbem.setup_check)
    if not isinstance(setup["game"], str):
        raise PbemError("setup: 'game' must be a game id")
    if not isinstance(setup.get("options", {}), dict):
        raise PbemError("setup: 'options' must be an object")
    if args.player:
        players = []
        for spec in args.player:
            m = _PLAYER.match(spec)
            if m is None:
                raise PbemError(f'--player {spec!r}: expected "Name <email>"')
            players.append({"name": m["name"], "email": m["email"]})
        setup["players"] = players
    # the config's defaults for this game, under the setup file's and the command line's
    options = {**cfg.game_options.get(setup["game"], {}), **setup.get("options", {})}
    for opt in args.option:
        k, sep, v = opt.partition("=")
        if not sep:
            raise PbemError(f"--option {opt!r}: expected key=value")
        options[k.strip()] = _option_value(v)
    if options:
        setup["options"] = options
    if args.seed is not None:
        setup["seed"] = args.seed
    setup.setdefault("seed", int.from_bytes(__import__("os").urandom(4), "big"))
    # the deal's commitment (pbem/deal.py): a salt from the OS, never from the seeded RNG
    setup.setdefault("deal_salt", new_salt())
    if args.lang:
        setup["lang"] = args.lang
    setup.setdefault("lang", cfg.language)
    gid = args.game_id or setup.get("game_id") or f"g{datetime.now(UTC):%Y%m%d%H%M%S}"
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", gid):
        raise PbemError(f"game id {gid!r}: letters, digits, '_', '.', '-' only (it is a tag)")
    setup["game_id"] = gid
    setup["moderator"] = cfg.moderator
    if cfg.list_address:
        setup.setdefault("list", cfg.list_address)
    setup.setdefault("timezone", cfg.timezone)
    return setup


def create_game(
    cfg: Any,
    setup: dict[str, Any],
    engine: Any,
    now: datetime,
    secrets: bool = False,
    admin_code: str | None = None,
) -> tuple[Any, list[OutboxRow], dict[str, str]]:
    """Set up a game with the engine and write it (opening mails queued in its outbox).

    Returns the table, the outbox rows and the secret codes (shown once, stored hashed).
    ``admin_code``: the game masters' code for their mail (stored hashed, issue 10 item 9).
    """
    from pbem.adapters.idkey import message_id_key
    from pbem.adapters.store import GameStore
    from pbem.daemon.auth import hash_secret, new_secret
    from pbem.daemon.outbox import make_row
    from pbem.daemon.relay import list_headers, list_members
    from pbem.daemon.threads import game_addressing
    from pbem.mail.envelope import build_outgoing
    from pbem.mail.render import shared_renderer
    from pbem.mail.threads import dress

    table, step = engine.new(setup, now)
    rows = []
    relay = cfg.list_mode == "relay"
    id_key = message_id_key(cfg.data_dir)  # the daemon's: a resent opening keeps its id
    for seq, out in enumerate(step.outgoing):
        public = out.public
        extra = list_headers(cfg, setup) if public else ()
        # filed in its thread, as the daemon files every game mail (issue 15)
        langs = {str(a).lower(): table.player_langs.get(n) for n, a in table.player_emails.items()}
        lang = langs.get(out.to[0].lower()) if out.to and not public else None
        filed = dress(
            out,
            game_addressing(cfg, setup),
            shared_renderer(cfg.timezone),
            str(lang or setup.get("lang", "fr")),
            id_key,
        )
        mid, raw = build_outgoing(
            filed.mail,
            sender=cfg.moderator,
            date=now,
            extra=extra,
            id_key=id_key,
            html=cfg.html_mail,
            **filed.headers,
        )
        rows.append(
            make_row(
                message_id=mid,
                raw=raw,
                # the daemon is the list: the opening post goes to every member directly
                rcpts=list_members(setup, table.player_emails) if public and relay else out.to,
                mail_from=cfg.bounce,
                now=now,
                kind="public" if out.public else "reply",
                thread=filed.thread,
                game=setup["game_id"],
                seq=seq,
            )
        )
    codes = {name: new_secret() for name in table.player_emails} if secrets else {}
    # the secrets are in the head from its first write: the daemon may load the game at once
    GameStore.create(
        cfg.data_dir,
        setup["game_id"],
        setup,
        step.events,
        rows,
        meta_extra={
            "secrets": {n: hash_secret(c) for n, c in codes.items()},
            **({"admin_secret": hash_secret(admin_code)} if admin_code else {}),
        },
    )
    return table, rows, codes


def cmd_new_game(args: argparse.Namespace) -> int:
    from pbem.daemon.engine import load_engine

    try:
        cfg = _load(args)
        setup = _setup_from_args(args, cfg)
        code = admin_code(args, cfg, setup)
        _table, rows, codes = create_game(
            cfg, setup, load_engine(cfg.engine), datetime.now(UTC), args.secrets, code
        )
    except (PbemError, OSError, ValueError) as exc:
        return _err("new-game", exc)
    local, _, domain = cfg.moderator.partition("@")
    print(f"game {setup['game_id']} created ({setup['game']}, {len(setup['players'])} players)")
    print(
        f"players write to {local}+{setup['game_id']}@{domain} "
        f"or put [{setup['game_id']}] in the Subject"
    )
    for name, code in codes.items():
        print(f"secret code for {name}: {code}")
    print_admin_code(code, cfg, setup)
    print(f"{len(rows)} mail(s) queued; the running daemon sends them")
    return 0


def _status_data(cfg: Any, require: bool = True) -> dict[str, Any]:
    from pbem.daemon.status import gather

    return gather(cfg, require=require)


def cmd_status(args: argparse.Namespace) -> int:
    """What the game master asks (pbem/daemon/status.py); exit 2 when the data directory is missing."""
    from pbem.daemon.status import render

    try:
        cfg = _load(args)
        data = _status_data(cfg)
    except (PbemError, OSError) as exc:
        return _err("status", exc)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render(data))
    return 0


def cmd_deadline(args: argparse.Namespace) -> int:
    """``deadline list``: the stalled deadlines; ``deadline retry GAME``: a request file the
    running daemon consumes (it is the single writer of the game's store)."""
    try:
        cfg = _load(args)
        games = _status_data(cfg, require=False)["games"]
        if args.deadline_command == "list":
            for g in games:
                for d in g["stalled"]:
                    print(
                        f"{g['id']}  {d['deadline']}  attempts={d['attempts']}  "
                        f"{d['error'] or 'the process died'}"
                    )
            return 0
        game = next((g for g in games if g["id"] == args.game), None)
        if game is None:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        if not game["stalled"]:
            raise PbemError(f"game {args.game!r} has no stalled deadline")
        from pbem.daemon.operator.retry_deadline import RetryDeadline
        from pbem.daemon.operator.spool import submit

        submit(cfg.data_dir, RetryDeadline(args.game))
        print(f"retry of {args.game}'s stalled deadline requested; the running daemon picks it up")
        return 0
    except (PbemError, OSError) as exc:
        return _err("deadline", exc)


def _find_shunt(rows: Sequence[dict[str, Any]], prefix: str) -> dict[str, Any]:
    hits = [r for r in rows if r["key"].startswith(prefix)]
    if len(hits) != 1:
        raise PbemError(f"{len(hits)} shunted mails match {prefix!r}")
    return hits[0]


def cmd_shunt(args: argparse.Namespace) -> int:
    from pbem.adapters.store import DaemonStore

    try:
        cfg = _load(args)
        rows = DaemonStore(cfg.data_dir, readonly=True).shunt_rows()
        if args.shunt_command == "list":
            for r in sorted(rows, key=lambda r: r.get("at", "")):
                print(
                    f"{r['key'][:12]}  {r['status']:<11} failures={r.get('failures', 0)}  "
                    f"{r.get('at', '')}  {r.get('subject', '')!r}  {r.get('error', '')}"
                )
            return 0
        row = _find_shunt(rows, args.key)
        if args.shunt_command == "show":
            eml = cfg.data_dir / "shunt" / f"{row['key']}.eml"
            print(json.dumps({k: v for k, v in row.items() if k != "traceback"}, indent=2))
            print(row.get("traceback", ""))
            if eml.exists():
                print(eml.read_bytes()[:20000].decode("utf-8", "replace"))
            return 0
        from pbem.daemon.operator.retry_shunt import RetryShunt
        from pbem.daemon.operator.spool import submit

        submit(cfg.data_dir, RetryShunt(row["key"]))
        print(f"retry of {row['key'][:12]} requested; the running daemon picks it up")
        return 0
    except (PbemError, OSError) as exc:
        return _err("shunt", exc)


def cmd_reachable(args: argparse.Namespace) -> int:
    """Ask the running daemon to clear a player's hard-bounce count and unreachable flag (the
    operator knows the address works again). The game and player are checked here, so a typo
    fails at once; the daemon does the write, in the game's store."""
    from pbem.adapters.store import GameStore, list_games
    from pbem.daemon.operator.reachable import Reachable
    from pbem.daemon.operator.spool import submit

    try:
        cfg = _load(args)
        dirs = {d.name: d for d in list_games(cfg.data_dir)}
        if args.game not in dirs:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        gs = GameStore(dirs[args.game], readonly=True)
        names = [str(p.get("name")) for p in gs.setup.get("players", [])]
        if args.player not in names:
            raise PbemError(
                f"no player {args.player!r} in game {args.game} (players: {', '.join(names)})"
            )
        rec = gs.bounce_states().get(args.player) or {}
        submit(cfg.data_dir, Reachable.now(args.game, args.player))
    except (PbemError, OSError, ValueError) as exc:
        return _err("reachable", exc)
    state = (
        "flagged unreachable"
        if rec.get("unreachable")
        else f"{rec.get('count') or 0} hard bounce(s) counted"
    )
    print(
        f"{args.player} in {args.game} ({state}): clearing requested; the running daemon "
        "picks it up"
    )
    return 0


def cmd_admin(args: argparse.Namespace) -> int:
    """Queue a game master's command for the running daemon (the single writer)."""
    from pbem.adapters.store import list_games
    from pbem.core.commands import find_spec
    from pbem.daemon.operator.admin import AdminCommand
    from pbem.daemon.operator.spool import submit
    from pbem.desk import DESK_SPECS

    line = " ".join(args.words).strip()
    try:
        cfg = _load(args)
        if args.game not in {d.name for d in list_games(cfg.data_dir)}:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        if find_spec(line.split(), DESK_SPECS) is None:
            keywords = ", ".join(s.en[0] for s in DESK_SPECS)
            raise PbemError(f"unknown command {args.words[0]!r} (commands: {keywords})")
        path = submit(cfg.data_dir, AdminCommand.now(args.game, [line]))
    except (PbemError, OSError) as exc:
        return _err("admin", exc)
    print(
        f"queued for {args.game}: {line} ({path.name}); the running daemon applies it and "
        "mails the reply to the game's administrators"
    )
    return 0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The daemon's subcommands, parsed as ``pbem`` parses them."""
    parser = argparse.ArgumentParser(prog="pbem")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    add_commands(sub)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry (``python -m pbem.cli.daemon``), same subcommands as ``pbem``."""
    args = parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
