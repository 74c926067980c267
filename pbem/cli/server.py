"""``pbem serve`` (the daemon) and ``pbem check-config`` (the config, then the servers)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.cli.common import (
    about,
    bare_seconds,
    config_path,
    fail,
    load_config,
    read_config,
    unusable_data_dir,
)
from pbem.core.errors import PbemError

if TYPE_CHECKING:
    from pbem.daemon.ports import FaultHook


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` and ``check-config``."""
    p = sub.add_parser(
        "serve",
        help="run the mail daemon",
        **about(
            "Run the mail daemon in the foreground: it reads the moderator's mailbox (IMAP IDLE, "
            "or polling), applies each mail, sends the replies and results, and resolves the "
            "deadlines. systemd/pbem.service runs it (docs/install-debian.md): the passwords "
            "come as credentials, the data directory from StateDirectory=, the log lines go to "
            "the journal. Exit status 78: a configuration, data directory or login that a "
            "restart cannot fix.",
            "pbem serve -c /etc/pbem/pbem.toml      # what the unit runs",
            "pbem serve -v --log-format plain       # by hand: debug lines, time stamps",
        ),
    )
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

    p = sub.add_parser(
        "check-config",
        help="validate the config and try the servers",
        **about(
            "Check the configuration file (every key, type, duration, option value, the option "
            "values a game's rules refuse together, and named file) and the data directory, then log in to the IMAP and SMTP servers. The "
            "logins need the passwords, which only the unit has (password_file, or systemd's "
            "credentials): docs/install-debian.md runs it with them through systemd-run. Exit "
            "status 0 valid, 1 a server or the data directory failed, 2 an invalid file.",
            "pbem check-config --offline            # the file alone, as any operator",
            "pbem check-config -c test.toml         # its password_file keys name the passwords",
        ),
    )
    p.add_argument("--offline", action="store_true", help="do not try IMAP and SMTP logins")
    p.set_defaults(func=cmd_check_config)


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
        cfg = load_config(args, passwords=True)
    except ConfigError as exc:  # restarting cannot fix the file: the unit does not retry 78
        fail("serve", exc)
        return EX_CONFIG
    problem = unusable_data_dir(Path(cfg.data_dir), create=True)
    if problem:  # a chown cannot come from a restart either
        fail("serve", problem)
        return EX_CONFIG
    try:
        return asyncio.run(serve(cfg, fault=fault or no_fault))
    except PbemError as exc:
        return fail("serve", exc)


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate the config; then log in to both servers, unless ``--offline``: every key, type,
    duration, option value (alone and with the game's others, as its setup checks them) and
    named file is checked, and no password is needed (it runs outside the unit, where the
    credentials are not)."""
    from pbem.daemon.config import ConfigError, admin_code_warning

    try:
        cfg = read_config(config_path(args), passwords=not args.offline, check_paths=args.offline)
    except PbemError as exc:
        code = fail("check-config", exc)
        if isinstance(exc, ConfigError) and exc.unsourced:  # a shell, outside the unit
            print(
                "  outside the unit: `pbem check-config --offline` checks the file alone; "
                "`systemd-run --pipe --wait -p LoadCredential=...` logs in with the unit's "
                "credentials (docs/install-debian.md, 3.)",
                file=sys.stderr,
            )
        return code
    print(f"{config_path(args)}: configuration is valid")
    for notice in cfg.notices:
        print(f"warning: {notice}")
    warning = admin_code_warning(cfg, _games_admin_codes(cfg))
    if warning:
        print(f"warning: {warning}")
    for game, options in cfg.game_options.items():  # new-game takes them as they are
        for key, value in options.items():
            problem = bare_seconds(game, key, value)
            if problem:
                print(f'warning: games."{game}".{key} = {value}: {problem}')
    problem = unusable_data_dir(Path(cfg.data_dir), create=False)
    if problem:  # the operators' commands write there too
        print(f"data: FAILED: {problem}", file=sys.stderr)
    if args.offline:
        return 1 if problem else 0
    import asyncio

    from pbem.adapters.imap import ImapDown, ImapMailbox
    from pbem.adapters.login import LoginRefused
    from pbem.adapters.reach import unreachable
    from pbem.adapters.smtp import SmtpClient

    rc = 1 if problem else 0
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
        im = cfg.imap
        said = unreachable("IMAP", im.host, im.port, im.tls, im.timeout, exc.__cause__ or exc)
        print(f"IMAP: FAILED: {said}", file=sys.stderr)
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
        sm = cfg.smtp
        said = unreachable("SMTP", sm.host, sm.port, sm.tls, sm.timeout, exc)
        print(f"SMTP: FAILED: {said}", file=sys.stderr)
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
