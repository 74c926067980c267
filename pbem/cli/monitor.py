"""The operator's view: ``pbem status``, ``pbem deadline list|retry``, ``pbem shunt
list|show|retry``. They read the data directory without its lock; a retry is a request file the
running daemon consumes (it is the single writer of the stores)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from pbem.cli.common import about, existing_data_dir, fail, load_config, queued
from pbem.core.errors import PbemError


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``status``, ``deadline`` and ``shunt``."""
    p = sub.add_parser(
        "status",
        help="games, deadlines, outbox and shunt at a glance",
        **about(
            "Whether the daemon runs (its heartbeat) and when it last reached the mailbox, the "
            "outbox and the shunted mail, then per game the phase, the next deadline, who has "
            "not acted yet, the bench, or the outcome. No password needed. Its exit status is "
            "the health, for a monitor: 0 healthy, 1 degraded, 2 stopped, 3 no data.",
            "pbem status",
            "pbem status --json                     # for a monitor: health and reasons",
        ),
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "deadline",
        help="deadlines whose resolution failed",
        **about(
            "A deadline whose resolution failed daemon.max_failures times pauses its game (the "
            "others go on; the admins are told): list them, fix the cause, then have the "
            "running daemon resolve them again.",
            "pbem deadline list",
            "pbem deadline retry village1",
        ),
    )
    dsub = p.add_subparsers(dest="deadline_command", required=True)
    d = dsub.add_parser("list", help="list stalled deadlines (failed daemon.max_failures times)")
    d.set_defaults(func=cmd_deadline)
    d = dsub.add_parser("retry", help="ask the daemon to resolve a game's stalled deadlines again")
    d.add_argument("game", help="the game's id")
    d.set_defaults(func=cmd_deadline)

    p = sub.add_parser(
        "shunt",
        help="mail whose handling failed",
        **about(
            "Mail whose handling raised an error (shunted), or held because the daemon died "
            "while handling it (quarantined): list it, show one with its error (by a prefix of "
            "its key), fix the cause, then have the running daemon process it again.",
            "pbem shunt list",
            "pbem shunt show 3fa2c1",
            "pbem shunt retry 3fa2c1",
        ),
    )
    ssub = p.add_subparsers(dest="shunt_command", required=True)
    s = ssub.add_parser("list", help="list shunted and quarantined mail")
    s.set_defaults(func=cmd_shunt)
    s = ssub.add_parser("show", help="show one (by key prefix)")
    s.add_argument("key")
    s.set_defaults(func=cmd_shunt)
    s = ssub.add_parser("retry", help="ask the daemon to process it again (by key prefix)")
    s.add_argument("key")
    s.set_defaults(func=cmd_shunt)


def _status_data(cfg: Any, require: bool = True) -> dict[str, Any]:
    from pbem.daemon.status import gather

    return gather(cfg, require=require)


def cmd_status(args: argparse.Namespace) -> int:
    """What the game master asks (pbem/daemon/status.py), and for a monitor the exit status:
    0 running and healthy, 1 degraded, 2 stopped or not responding (or no readable config),
    3 no data (no data directory, never started)."""
    from pbem.daemon.status import NO_DATA, NoDataDir, render

    try:
        cfg = load_config(args)
        data = _status_data(cfg)
    except NoDataDir as exc:
        fail("status", exc)
        return NO_DATA
    except (PbemError, OSError) as exc:
        return fail("status", exc)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render(data))
    code: int = data["health"]["code"]
    return code


def cmd_deadline(args: argparse.Namespace) -> int:
    """``deadline list``: the stalled deadlines; ``deadline retry GAME``: a request file the
    running daemon consumes (it is the single writer of the game's store)."""
    try:
        cfg = load_config(args)
        games = _status_data(cfg)["games"]
        if args.deadline_command == "list":
            stalled = [(g, d) for g in games for d in g["stalled"]]
            for g, d in stalled:
                print(
                    f"{g['id']}  {d['deadline']}  attempts={d['attempts']}  "
                    f"{d['error'] or 'the process died'}"
                )
            if not stalled:
                print("no stalled deadline")
            return 0
        game = next((g for g in games if g["id"] == args.game), None)
        if game is None:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        if not game["stalled"]:
            raise PbemError(f"game {args.game!r} has no stalled deadline")
        from pbem.daemon.operator.retry_deadline import RetryDeadline
        from pbem.daemon.operator.spool import submit

        submit(cfg.data_dir, RetryDeadline(args.game))
        print(
            f"retry of {args.game}'s stalled deadline requested; {queued('deadline', cfg)} picks it up"
        )
        return 0
    except (PbemError, OSError) as exc:
        return fail("deadline", exc)


def _find_shunt(rows: Sequence[dict[str, Any]], prefix: str) -> dict[str, Any]:
    hits = [r for r in rows if r["key"].startswith(prefix)]
    if len(hits) != 1:
        raise PbemError(f"{len(hits)} shunted mails match {prefix!r}")
    return hits[0]


def cmd_shunt(args: argparse.Namespace) -> int:
    """``pbem shunt list|show|retry``: list the shunted mail, show one (its row, traceback and
    start), or ask the daemon to retry it."""
    from pbem.adapters.store import DaemonStore

    try:
        cfg = load_config(args)
        rows = DaemonStore(existing_data_dir(cfg), readonly=True).shunt_rows()
        if args.shunt_command == "list":
            for r in sorted(rows, key=lambda r: r.get("at", "")):
                print(
                    f"{r['key'][:12]}  {r['status']:<11} failures={r.get('failures', 0)}  "
                    f"{r.get('at', '')}  {r.get('subject', '')!r}  {r.get('error', '')}"
                )
            if not rows:
                print("no shunted mail")
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
        print(f"retry of {row['key'][:12]} requested; {queued('shunt', cfg)} picks it up")
        return 0
    except (PbemError, OSError) as exc:
        return fail("shunt", exc)
