"""``pbem archive``, ``pbem archive --index`` and ``pbem stats`` over a daemon's data directory."""

from __future__ import annotations

import json
import random
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from pbem.core.events import GameEnded, PhaseStarted
from pbem.record.stats import game_stats
from pbem.table import Table
from pbem.tools.bots import bot_mails
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.archive.bot_games import SALT

SILENT = "alice@village.example"


def played(game: str, seed: int, *, silent: str | None = None, finish: bool = True) -> Table:
    """A bot game; the player at ``silent`` never sends anything."""
    setup = {**demo_setup(game, 0, seed, "en"), "game_id": f"{game}-{seed}", "deal_salt": SALT}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    rng, now = random.Random(seed), EPOCH
    while finish and not table.finished:
        for msg, channel in list(bot_mails(table, rng)):
            assert isinstance(msg, EmailMessage)
            if silent and silent in str(msg["From"]):
                continue
            table.apply(table.receive(msg, channel=channel, now=now))  # type: ignore[arg-type]
            if table.finished:
                break
        if table.finished:
            break
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        table.apply(table.on_deadline(key, now))
    return table


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    tables = [
        played("lupus-in-tabula", 2),
        played("lupus-in-tabula", 3, silent=SILENT),
        played("chasse-aux-sorcieres", 1),
        played("loup-garou", 5, finish=False),  # still running: not in the stats nor the index
    ]
    for t in tables:
        events = [t.rules.codec.encode(e) for e in t.events]
        setup = {**demo_setup(t.rules.id, 0, t.setup.seed, "en"), "game_id": t.game_id}
        GameStore.create(root, t.game_id, {**setup, "deal_salt": SALT}, events, [])
    return root


def test_pbem_archive_writes_the_html_the_text_and_the_deal_of_a_game(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["archive", "lupus-in-tabula-2", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == [
        "lupus-in-tabula-2.deal.json",
        "lupus-in-tabula-2.html",
        "lupus-in-tabula-2.record.json",
        "lupus-in-tabula-2.txt",
    ]
    assert "<!DOCTYPE html>" in (out / "lupus-in-tabula-2.html").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["verify", str(out / "lupus-in-tabula-2.deal.json")]) == 0
    assert main(["archive", "nope", "--data-dir", str(data_dir), "-o", str(out)]) == 2
    assert "no game 'nope'" in capsys.readouterr().err
    assert main(["archive", "--data-dir", str(data_dir)]) == 2  # neither a game nor --index


def test_the_archive_index_lists_every_finished_game_with_its_archive(
    data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert main(["archive", "--index", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    index = (out / "index.html").read_text(encoding="utf-8")
    for gid in ("lupus-in-tabula-2", "lupus-in-tabula-3", "chasse-aux-sorcieres-1"):
        assert f'href="{gid}.html"' in index and (out / f"{gid}.html").is_file()
        assert (out / f"{gid}.txt").is_file()
    assert "loup-garou-5" not in index  # not finished
    assert "Win rate per side" in index and "On-time rate" in index


def test_pbem_stats_counts_games_wins_length_and_punctuality(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--data-dir", str(data_dir), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["games"] == {"chasse-aux-sorcieres": 1, "lupus-in-tabula": 2}
    lupus_sides = {s["side"]: s for s in stats["sides"] if s["game"] == "lupus-in-tabula"}
    assert sum(s["won"] for s in lupus_sides.values()) == 2
    assert {s["played"] for s in lupus_sides.values()} == {2}
    held = sum(r["held"] for r in stats["roles"] if r["game"] == "lupus-in-tabula")
    assert held == 2 * 12  # every seat of both games, by the card dealt
    # the average length is the phases opened in each game, averaged
    tables = [
        Table.load(GameStore(d, readonly=True).setup, GameStore(d, readonly=True).events())
        for d in sorted((data_dir / "games").iterdir())
    ]
    lupus = [t for t in tables if t.rules.id == "lupus-in-tabula"]
    phases = [sum(isinstance(e, PhaseStarted) for e in t.events) for t in lupus]
    assert stats["length"]["lupus-in-tabula"]["phases"] == round(sum(phases) / 2, 1)
    # Alice never sent a command: 0 % on time; the bots who played are mostly on time
    on_time = {p["email"]: p for p in stats["on_time"]}
    assert on_time[SILENT]["expected"] > 0
    assert on_time[SILENT]["in_time"] < on_time[SILENT]["expected"]
    assert on_time["bruno@village.example"]["rate"] > on_time[SILENT]["rate"]
    assert main(["stats", "--data-dir", str(data_dir)]) == 0
    text = capsys.readouterr().out
    assert "Games per type:" in text and "On-time rate" in text and "Alice <alice@" in text


def test_the_stats_of_the_silent_players_game_alone_give_him_nothing_in_time() -> None:
    table = played("lupus-in-tabula", 3, silent=SILENT)
    assert any(isinstance(e, GameEnded) for e in table.events)
    alice = next(p for p in game_stats([table])["on_time"] if p["email"] == SILENT)
    assert alice["expected"] > 0 and alice["in_time"] == 0 and alice["rate"] == 0.0
