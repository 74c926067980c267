"""``pbem archive``, ``pbem export``, ``pbem verify`` and ``pbem stats``: reading finished
games.

They read the daemon's data directory (``-c CONFIG`` or ``--data-dir``) without its lock and
write nothing in it: the archive goes to ``--out`` (the current directory by default).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pbem.cli.common import about, load_config, without_config
from pbem.core.errors import PbemError


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``archive``, ``verify`` and ``stats`` on ``pbem``'s subparsers."""

    def with_data(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument(
            "--data-dir",
            metavar="DIR",
            help="the daemon's data directory (instead of the config's)",
        )
        return p

    p = with_data(
        sub.add_parser(
            "archive",
            help="write a game's archive (HTML and text), or the index",
            **about(
                "Write a game's archive, the HTML page and the text mailed to everyone at its "
                "end, into --out; of a running game only with --spoilers (it shows every card). "
                "--index writes every finished game's and an index.html with their statistics.",
                "pbem archive village1 -o /var/www/pbem",
                "pbem archive --index -o /var/www/pbem",
            ),
        )
    )
    p.add_argument("game", nargs="?", help="the game's id")
    p.add_argument("--index", action="store_true", help="every finished game, and index.html")
    p.add_argument("-o", "--out", default=".", help="the folder to write into (default: .)")
    p.add_argument("--lang", choices=("fr", "en"), help="default: the game's language")
    p.add_argument(
        "--spoilers",
        action="store_true",
        help="a game still running too: its archive shows every card and the deal's salt, so "
        "it is for the game masters' eyes only",
    )
    p.set_defaults(func=cmd_archive)

    p = with_data(
        sub.add_parser(
            "export",
            help="write a finished game's open record (versioned JSON)",
            **about(
                "Write a finished game's open record: versioned JSON without any address "
                "(docs/record.md), which anyone checks with pbem verify and pbem stats reads.",
                "pbem export village1 -o village1.record.json",
            ),
        )
    )
    p.add_argument("game", help="the game's id")
    p.add_argument(
        "-o", "--out", help="the file, or a folder, to write it into (default: ./GAME.record.json)"
    )
    p.set_defaults(func=cmd_export)

    p = without_config(
        sub.add_parser(
            "verify",
            help="check an exported record, or an archive's sealed deal",
            **about(
                "Check a game as any player may (docs/verify.md): a record's seed and deal "
                "against the opening post's commitments, its hash chain against the fingerprints "
                "the posts carried (--posts), the rules replayed against every death and winner "
                "published; it names the first phase that differs. An old archive: its deal.",
                "pbem verify village1.record.json",
                "pbem verify village1.record.json --posts liste.mbox",
            ),
        )
    )
    p.add_argument("file", help="a GAME.record.json, an archive (.html or .txt) or its .deal.json")
    p.add_argument(
        "--posts",
        nargs="+",
        default=[],
        metavar="FILE",
        help="saved list posts (mails, a mailbox) whose fingerprints the record must match",
    )
    p.set_defaults(func=cmd_verify)

    p = with_data(
        sub.add_parser(
            "stats",
            help="statistics over the finished games, read from their open records",
            **about(
                "Win rates per camp, player count, option and card dealt (with 95 % "
                "Wilson intervals), game length and per-player figures, from the records of the "
                "data directory's finished games, or from record files (--records: what pbem "
                "export and pbem archive write, what the archive mail attaches). docs/record.md "
                "describes the figures and the JSON shape.",
                "pbem stats",
                "pbem stats --records /srv/pbem-archives --html stats.html",
                "pbem stats --json > stats.json",
            ),
        )
    )
    p.add_argument(
        "--records",
        nargs="+",
        metavar="PATH",
        help="GAME.record.json files, or folders holding them, instead of a data directory",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (docs/record.md)")
    p.add_argument("--html", metavar="FILE", help="write the statistics page (tables, SVG charts)")
    p.add_argument("--lang", choices=("fr", "en"), default="fr", help="the page's language")
    p.set_defaults(func=cmd_stats)


def _data_dir(args: argparse.Namespace) -> Path:
    """The data directory, which must exist: an absent one is a typo, not "no games"."""
    root = Path(args.data_dir) if args.data_dir else Path(load_config(args).data_dir)
    if not root.is_dir():
        where = "--data-dir" if args.data_dir else "daemon.data_dir"
        raise PbemError(f"data directory {root} does not exist (check {where})")
    return root


def load_tables(data_dir: Path, *, progress: bool = False) -> list[Any]:
    """Every game of a data directory, rebuilt from its log (read-only); ``progress``: a
    progress bar on a terminal while they load."""
    from pbem.adapters.store import GameStore, list_games
    from pbem.signup.engine import still_signing_up
    from pbem.table import Table

    tables = []
    directories = list(list_games(data_dir))
    with _progress(len(directories) if progress else 0, "game") as bar:
        for directory in directories:
            store = GameStore(directory, readonly=True)
            events = store.events()
            if not still_signing_up(store.setup, events):  # opened for sign-ups, not started
                tables.append(Table.load(store.setup, events))
            bar.update(1)
    return tables


def _progress(total: int, unit: str) -> Any:
    """A progress bar on a terminal (stderr) for a long read, none when piped (as ``pbem
    balance`` shows its games: tqdm's ``disable=None``) or when ``total`` is 0."""
    from tqdm import tqdm

    return tqdm(
        total=total, unit=unit, disable=None if total else True, file=sys.stderr, leave=False
    )


def finished_records(data_dir: Path) -> list[dict[str, Any]]:
    """The open record of every finished game of a data directory (read-only): what
    ``pbem stats`` reads there, the same JSON documents ``pbem export`` writes."""
    from pbem.record.export import game_record

    return [
        json.loads(json.dumps(game_record(table), ensure_ascii=False))
        for table in load_tables(data_dir, progress=True)
        if table.finished
    ]


def read_records(paths: list[Path]) -> list[dict[str, Any]]:
    """The records in ``paths``: files, and every ``*.record.json`` of a folder; a file that
    is no record is an error (named), not a silent zero."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.record.json")) if path.is_dir() else [path]
    records = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise PbemError(f"cannot read {path}: {exc}") from exc
        if not isinstance(data, dict) or "record_version" not in data:
            raise PbemError(f"{path} is not a game record (pbem export writes them)")
        records.append(data)
    return records


def _counted(records: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The records, a progress bar moving as the statistics read each (about 35 ms each)."""
    with _progress(len(records), "record") as bar:
        for record in records:
            yield record
            bar.update(1)


def cmd_archive(args: argparse.Namespace) -> int:
    """``pbem archive``: write one game's archive (a running one only with ``--spoilers``), or the
    index of every game, into ``-o``."""
    if bool(args.game) == bool(args.index):
        print("pbem archive: give a game's id or --index", file=sys.stderr)
        return 2
    try:
        tables = load_tables(_data_dir(args), progress=args.index)
    except (PbemError, OSError) as exc:
        print(f"pbem archive: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"pbem archive: -o {out} is a file: name the folder to write into", file=sys.stderr)
        return 2
    if args.game:
        table = next((t for t in tables if t.game_id == args.game), None)
        if table is None:
            print(f"pbem archive: {_absent(args, args.game)}", file=sys.stderr)
            return 2
        if not table.finished and not args.spoilers:
            print(
                f"pbem archive: game {args.game} is still running: its archive shows every "
                "card and the deal's salt; --spoilers writes it all the same (for the game "
                "masters' eyes only)",
                file=sys.stderr,
            )
            return 2
    try:
        out.mkdir(parents=True, exist_ok=True)
        if args.game:
            for path in _write(table, out, args.lang):
                print(path)
            return 0
        print(_write_index(tables, out, args.lang))
    except OSError as exc:  # -o onto a file, an unwritable folder (issue 21, item 10)
        what = exc.strerror or str(exc)
        print(f"pbem archive: cannot write into {out}: {what}", file=sys.stderr)
        return 2
    return 0


def _write_index(tables: list[Any], out: Path, lang: str | None) -> Path:
    """Every finished game's archive and ``index.html``; a running game is never listed.
    The index reads the records it wrote beside each archive (as ``pbem stats --records``
    would): its list and its statistics are what a player gets from those files."""
    from pbem.record.export import record_name
    from pbem.record.stats import record_stats
    from pbem.record.stats_page import render_index

    finished = sorted((t for t in tables if t.finished), key=lambda t: t.game_id)
    with _progress(len(finished), "archive") as bar:  # a season's archives take a while
        for table in finished:
            _write(table, out, lang)
            bar.update(1)
    records = read_records([out / record_name(t.game_id) for t in finished])
    rows = [
        {
            "id": r["game_id"],
            "rules": r["game"],
            "game": r["title"],
            "players": len(r["setup"]["players"]),
            "side": r["result"]["side"],
            "winners": r["result"]["winners"],
            "html": f"{r['game_id']}.html",
            "text": f"{r['game_id']}.txt",
        }
        for r in records
    ]
    lang = lang or (finished[0].setup.lang if finished else "fr")
    index = out / "index.html"
    index.write_text(render_index(rows, record_stats(records), lang), encoding="utf-8")
    return index


def _write(table: Any, out: Path, lang: str | None) -> list[Path]:
    from pbem.record.archive import archive_files

    files = archive_files(table, lang)
    written = []
    for kind, suffix in (("html", ".html"), ("text", ".txt"), ("deal", ".deal.json")):
        if kind in files:
            path = out / f"{table.game_id}{suffix}"
            path.write_text(files[kind], encoding="utf-8")
            written.append(path)
    if table.finished:  # the open record beside the archive: it reveals the seed (docs/record.md)
        from pbem.record.export import record_json, record_name

        path = out / record_name(table.game_id)
        path.write_text(record_json(table), encoding="utf-8")
        written.append(path)
    return written


def cmd_export(args: argparse.Namespace) -> int:
    """Write a finished game's record (pbem/record/export.py, docs/record.md)."""
    from pbem.record.export import record_json, record_name

    try:
        tables = load_tables(_data_dir(args))
    except (PbemError, OSError) as exc:
        print(f"pbem export: {exc}", file=sys.stderr)
        return 2
    table = next((t for t in tables if t.game_id == args.game), None)
    if table is None:
        print(f"pbem export: {_absent(args, args.game)}", file=sys.stderr)
        return 2
    if not table.finished:  # the record reveals the seed: every card and every draw
        print(
            f"pbem export: game {args.game!r} is not over (its record reveals the seed)",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out or record_name(table.game_id))
    if out.is_dir():  # -o a folder, as `pbem archive -o` takes one
        out /= record_name(table.game_id)
    try:
        out.write_text(record_json(table), encoding="utf-8")
    except OSError as exc:
        print(f"pbem export: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


def _absent(args: argparse.Namespace, game: str) -> str:
    """Why ``game`` has no table to read: a game still taking sign-ups (nothing dealt yet,
    nothing to archive), or no such game (named with the data directory looked in)."""
    from pbem.adapters.store import list_games

    root = _data_dir(args)
    if any(d.name == game for d in list_games(root)):
        return (
            f"game {game!r} is still taking sign-ups: nothing is dealt or played before its start"
        )
    return f"no game {game!r} in {root}"


def cmd_verify(args: argparse.Namespace) -> int:
    """An exported record: the seed, the deal, the chain, the replay (pbem/record/replay.py);
    an archive or its .deal.json: the sealed deal only, and what it lacks."""
    from pbem.record.deal import find_reveal

    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"pbem verify: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"pbem verify: {args.file}: not UTF-8 text", file=sys.stderr)
        return 2
    record = _record(text)
    if record is not None:
        from pbem.record.replay import posted_digests

        posted: dict[int, str] = {}
        for name in args.posts:
            try:
                found = posted_digests(Path(name).read_text(encoding="utf-8", errors="replace"))
            except OSError as exc:
                print(f"pbem verify: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
                return 2
            if not found:  # else the check asked for would pass unsaid, having compared nothing
                print(
                    f"pbem verify: {name}: no fingerprint in it (the list's result posts end with "
                    "« Empreinte n° N de la partie : … » or « Game fingerprint no. N: … »)",
                    file=sys.stderr,
                )
                return 2
            posted.update(found)
        return _verify_record(record, posted)
    shown = find_reveal(text)
    if shown is None:
        print(f"pbem verify: {args.file}: no committed deal in it", file=sys.stderr)
        return 2
    if not shown.verifies:
        print(f"FAILED: the deal does not match the commitment {shown.digest}")
        return 1
    print(f"OK: the deal matches the commitment {shown.digest}")
    print(
        "This file holds the sealed deal only: no seed, no chain, no orders to replay "
        "(a game's whole record: pbem export GAME, then pbem verify GAME.record.json)."
    )
    return 0


def _record(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and "record_version" in data else None


def _verify_record(record: dict[str, Any], posted: dict[int, str]) -> int:
    from pbem.record.replay import verify_record

    verdict = verify_record(record, posted)
    for line in verdict.passed:
        print(f"OK: {line}")
    if verdict.failure is not None:
        print(f"FAILED: {verdict.failure}")
        return 1
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """The statistics of the finished games' records: one path, whether the records come
    from a data directory (exported on the fly) or from files."""
    from pbem.record.stats import record_stats, render_text

    try:
        if args.records:
            records = read_records([Path(p) for p in args.records])
        else:
            records = finished_records(_data_dir(args))
        stats = record_stats(_counted(records))
        if args.html:
            from pbem.record.stats_page import render_stats_page

            Path(args.html).write_text(render_stats_page(stats, args.lang), encoding="utf-8")
    except (PbemError, OSError) as exc:
        print(f"pbem stats: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=1))
    elif args.html:
        print(args.html)
    else:
        sys.stdout.write(render_text(stats))
    return 0
