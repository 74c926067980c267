"""``pbem new-game``: a game written into the data directory, which the running daemon picks up.

It writes a new game directory and renames it into place (pbem.adapters.store), with its
opening mails queued in its outbox: nothing here writes a file the daemon owns, so there is one
writer per file (requirement 3). :func:`setup_from_args` and :func:`create_game` are shared with
``pbem open-game`` (pbem/cli/signup.py).
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.cli.common import about, bare_seconds, existing_data_dir, fail, load_config, queued
from pbem.core.errors import PbemError

if TYPE_CHECKING:
    from pbem.daemon.outbox import OutboxRow

# a name may hold spaces (« Jean Pierre <jp@example.org> », LUP-D28 as amended by issue 13)
_PLAYER = re.compile(r"^\s*(?P<name>[^<>]*?[^<>\s])\s*<(?P<email>[^<>\s]+@[^<>\s]+)>\s*$")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``new-game``."""
    p = sub.add_parser(
        "new-game",
        help="create a game the daemon will run",
        **about(
            "Create a game whose players are known: the running daemon deals the cards and "
            "mails the opening post and each player's role. The players come from --player "
            "(repeated) or a setup file (docs/season.md shows one); the options from the "
            'config\'s [games."<id>"] table, then the setup file, then --option (pbem games '
            "lists them). It prints the game masters' admin code once. For sign-ups by mail: "
            "pbem open-game.",
            "pbem new-game --id village1 --setup village1.json",
            "pbem new-game --id village2 --setup village2.json --option night_duration=12h",
            "pbem new-game --id village3 --player 'Alice <alice@example.org>' "
            "--player 'Bob <bob@example.org>'  # ... one per seat",
        ),
    )
    p.add_argument("--setup", help="a JSON setup file (game, players, options, seed, lang...)")
    p.add_argument("--game", default="lupus-in-tabula", help="game id (default lupus-in-tabula)")
    p.add_argument("--id", dest="game_id", help="the game's id (plus-address and [tag])")
    p.add_argument(
        "--player",
        action="append",
        default=[],
        help='a player: "Name <email>" (repeat; the name may hold spaces)',
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        help="an option key=value (repeat); a duration with its unit: night_duration=18h",
    )
    p.add_argument("--seed", type=int, help="RNG seed (default: random)")
    p.add_argument("--lang", choices=("fr", "en"), help="language (default: the config's)")
    p.add_argument(
        "--secrets", action="store_true", help="give each player a secret code (printed once)"
    )
    add_admin_secret_option(p)
    p.set_defaults(func=cmd_new_game)


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


def _option_value(text: str) -> Any:
    """``--option`` values: JSON when they parse (numbers, true/false, lists), else the text
    (``18h``, ``random``)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _no_bare_seconds(game: str, key: str, value: Any) -> None:
    """``--option night_duration=18`` refused (:func:`bare_seconds`)."""
    problem = bare_seconds(game, key, value)
    if problem:
        raise PbemError(f"--option {key}={value}: {problem}")


def read_setup(path: str) -> dict[str, Any]:
    """A setup file's JSON object; every problem names the file (issue 21, item 15)."""
    try:
        setup = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PbemError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PbemError(f"{path}: not UTF-8 text") from None
    except ValueError as exc:
        raise PbemError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(setup, dict):
        raise PbemError(f"{path}: expected a JSON object")
    return setup


def check_game_id(cfg: Any, game_id: str) -> None:
    """Refuse an id mail could not tell apart from another game's or address's (issue 21,
    item 11): the ids of the data directory's games and the tails of the moderator's other
    plus-addresses (the bounce address, the lists) are taken."""
    from pbem.mail.gameid import game_id_problem, plus_tails

    games = cfg.data_dir / "games"
    taken = (
        [p.name for p in games.iterdir() if not p.name.startswith(".")] if games.is_dir() else []
    )
    taken += plus_tails(cfg.moderator, [cfg.bounce, cfg.list_address or ""])
    problem = game_id_problem(game_id, cfg.moderator, taken)
    if problem is not None:
        raise PbemError(f"game id {game_id!r} {problem}")


def setup_from_args(args: argparse.Namespace, cfg: Any) -> dict[str, Any]:
    """The game's setup: the setup file, then the command line's players and options over the
    config's defaults, with a new seed, deal salt and game id where none is given."""
    from pbem.core.draws import SEED_SCHEME
    from pbem.record.deal import new_salt
    from pbem.record.seed import new_seed

    setup: dict[str, Any] = read_setup(args.setup) if args.setup else {}
    setup.setdefault("game", args.game)
    # the shape the merges below rely on; the engine checks the rest (pbem.table.setup_check)
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
        _no_bare_seconds(setup["game"], k.strip(), options[k.strip()])
    if options:
        setup["options"] = options
    if args.seed is not None:
        setup["seed"] = args.seed
    # every draw of the game derives from this seed (pbem/record/seed.py): 256 bits from
    # ``secrets``, committed in the opening post, revealed by the archive
    setup.setdefault("seed", new_seed())
    setup.setdefault("seed_scheme", SEED_SCHEME)
    # the deal's commitment (pbem/record/deal.py): a salt from the OS, never from the seeded RNG
    setup.setdefault("deal_salt", new_salt())
    if args.lang:
        setup["lang"] = args.lang
    setup.setdefault("lang", cfg.language)
    gid = args.game_id or setup.get("game_id") or f"g{datetime.now(UTC):%Y%m%d%H%M%S}"
    if not isinstance(gid, str):
        raise PbemError("setup: 'game_id' must be a text")
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
    from pbem.adapters.codes import hash_secret, new_code
    from pbem.adapters.idkey import message_id_key
    from pbem.adapters.store import GameStore
    from pbem.daemon.gamelist import list_headers, list_members
    from pbem.daemon.outbox import make_row
    from pbem.daemon.threads import game_addressing
    from pbem.mail.envelope import build_outgoing
    from pbem.mail.gameid import plus_tails
    from pbem.mail.render import shared_renderer
    from pbem.mail.threads import dress

    check_game_id(cfg, setup["game_id"])
    if "list" in setup:
        taken = plus_tails(cfg.moderator, [str(setup["list"])])
        if setup["game_id"].lower() in taken:
            raise PbemError(f"game id {setup['game_id']!r} is the tail of the game's own list")
    table, step = engine.new(setup, now)
    rows = []
    relay = cfg.list_mode == "relay"
    id_key = message_id_key(cfg.data_dir)  # the daemon's: a resent opening keeps its id
    # each mail filed in its thread, as the daemon files every game mail (issue 15)
    langs = {str(a).lower(): table.player_langs.get(n) for n, a in table.player_emails.items()}
    for seq, out in enumerate(step.outgoing):
        public = out.public
        extra = list_headers(cfg, setup) if public else ()
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
    codes = {name: new_code() for name in table.player_emails} if secrets else {}
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
    """``pbem new-game``: create a game, queue its opening mail and print its addresses and
    codes."""
    from pbem.daemon.engine import load_engine

    try:
        cfg = load_config(args)
        existing_data_dir(cfg)
        setup = setup_from_args(args, cfg)
        code = admin_code(args, cfg, setup)
        _table, rows, codes = create_game(
            cfg, setup, load_engine(cfg.engine), datetime.now(UTC), args.secrets, code
        )
    except (PbemError, OSError, ValueError) as exc:
        return fail("new-game", exc)
    local, _, domain = cfg.moderator.partition("@")
    print(f"game {setup['game_id']} created ({setup['game']}, {len(setup['players'])} players)")
    print(
        f"players write to {local}+{setup['game_id']}@{domain} "
        f"or put [{setup['game_id']}] in the Subject"
    )
    for name, code in codes.items():
        print(f"secret code for {name}: {code}")
    print_admin_code(code, cfg, setup)
    print(f"{len(rows)} mail(s) queued; {queued('new-game', cfg)} sends them")
    return 0
