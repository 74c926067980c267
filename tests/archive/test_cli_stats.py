"""``pbem archive``, ``pbem archive --index`` and ``pbem stats`` over a daemon's data directory,
and ``pbem stats`` over record files (issue 24 items 4-5): one path, the same figures."""

from __future__ import annotations

import json
import random
from email.message import EmailMessage
from pathlib import Path

import jsonschema
import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from pbem.core.events import GameEnded, PhaseStarted
from pbem.record.export import game_record
from pbem.record.stats import record_stats
from pbem.table import Table
from pbem.tools.bots import bot_mails
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.archive.bot_games import SALT

SILENT = "alice@village.example"
FINISHED = ("chasse-aux-sorcieres-1", "lupus-in-tabula-2", "lupus-in-tabula-3")
STATS_SCHEMA = json.loads(Path("docs/stats-schema.json").read_text(encoding="utf-8"))


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


@pytest.fixture(scope="module")
def site(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pbem archive --index``'s folder: each finished game's archive and record, the index."""
    out = tmp_path_factory.mktemp("site")
    assert main(["archive", "--index", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    return out


def stats_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["stats", "--json", *args]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


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
    site: Path, tmp_path: Path
) -> None:
    from tests.archive.test_screenshot import LONG_NAME, NARROW, WIDTH, layouts

    index = (site / "index.html").read_text(encoding="utf-8")
    for gid in FINISHED:
        assert f'href="{gid}.html"' in index and (site / f"{gid}.html").is_file()
        assert (site / f"{gid}.txt").is_file() and (site / f"{gid}.record.json").is_file()
    assert "loup-garou-5" not in index  # not finished
    assert "Win rate per camp" in index and "On time" in index
    assert "Villagers" in index and ">villagers<" not in index  # camps named, not ids
    assert index.count('role="img"') == 2 * 2
    # a phone's width (412 px) and a narrow phone's (360 px), in one Chromium
    long = index.replace("Alice", LONG_NAME)
    measured, narrow = layouts([index, long], tmp_path, [WIDTH, NARROW])
    assert measured["scroll"] == measured["client"] and measured["wide"] == [], measured
    assert measured["sections"] == ["stats"] and measured["charts"] == 2 * 2
    # at 360 px, with a 24-character name, the players' figures (five columns) were scrolled
    # sideways in their box, « On time » out of sight: the tables are 14 px there (were 15.2)
    assert narrow["scroll"] == narrow["client"] and narrow["inner"] == [], narrow


def test_stats_from_the_records_equal_stats_from_the_data_directory(
    data_dir: Path, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player with the JSON files alone (the index's folder, pbem export's files) gets the
    game master's figures: the data directory is read through the same records."""
    from_store = stats_json(capsys, "--data-dir", str(data_dir))
    assert stats_json(capsys, "--records", str(site)) == from_store
    exported = []
    for gid in FINISHED:
        out = tmp_path / f"{gid}.json"
        assert main(["export", gid, "--data-dir", str(data_dir), "-o", str(out)]) == 0
        exported.append(str(out))
    assert stats_json(capsys, "--records", *exported) == from_store
    tables = [
        Table.load(GameStore(d, readonly=True).setup, GameStore(d, readonly=True).events())
        for d in sorted((data_dir / "games").iterdir())
    ]
    records = [game_record(t) for t in tables if t.finished]
    assert json.loads(json.dumps(record_stats(records), ensure_ascii=False)) == from_store


def test_a_file_that_is_no_record_is_named(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.record.json"
    wrong.write_text('{"players": []}', encoding="utf-8")
    assert main(["stats", "--records", str(site), str(wrong)]) == 2
    assert f"{wrong} is not a game record" in capsys.readouterr().err


def test_pbem_stats_counts_games_wins_length_and_punctuality(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stats = stats_json(capsys, "--data-dir", str(data_dir))
    jsonschema.Draft202012Validator(STATS_SCHEMA).validate(stats)
    assert stats["games"] == {"chasse-aux-sorcieres": 1, "lupus-in-tabula": 2}
    assert stats["records"] == 3
    camps = stats["camps"]
    assert isinstance(camps, list)
    lupus_camps = {s["camp"]: s for s in camps if s["game"] == "lupus-in-tabula"}
    assert sum(s["won"] for s in lupus_camps.values()) == 2
    assert {s["played"] for s in lupus_camps.values()} == {2}
    by_players = stats["by_players"]
    assert isinstance(by_players, list)
    assert {(s["players"], s["camp"]) for s in by_players if s["game"] == "lupus-in-tabula"} == {
        (12, c) for c in lupus_camps
    }
    roles = stats["roles"]
    assert isinstance(roles, list)
    held = sum(r["held"] for r in roles if r["game"] == "lupus-in-tabula")
    assert held == 2 * 12  # every seat of both games, by the card dealt
    # the average length is the phases opened in each game, averaged; a day per day number
    tables = [
        Table.load(GameStore(d, readonly=True).setup, GameStore(d, readonly=True).events())
        for d in sorted((data_dir / "games").iterdir())
    ]
    lupus = [t for t in tables if t.rules.id == "lupus-in-tabula"]
    phases = [sum(isinstance(e, PhaseStarted) for e in t.events) for t in lupus]
    length = stats["length"]
    assert isinstance(length, dict)
    assert length["lupus-in-tabula"]["phases"] == round(sum(phases) / 2, 1)
    days = [t.summary()["day"] for t in lupus]  # a Lupus game's day number is its length
    assert length["lupus-in-tabula"]["days"] == round(sum(days) / 2, 1)
    assert length["lupus-in-tabula"]["days_count"] == {
        str(d): days.count(d) for d in sorted(set(days))
    }
    # Alice never sent a command in one game: fewer in time; the bots are mostly on time
    players = {p["player"]: p for p in stats["players"]}  # type: ignore[attr-defined]
    assert players["Alice"]["games"] == 3 and players["Alice"]["expected"] > 0
    assert players["Alice"]["on_time"] < players["Bruno"]["on_time"]
    capsys.readouterr()
    assert main(["stats", "--data-dir", str(data_dir)]) == 0
    text = capsys.readouterr().out
    assert "Games per rule set:" in text and "Win rate per camp (95 % interval):" in text
    assert "  Alice: 3 games" in text


def test_the_stats_of_the_silent_players_game_alone_give_him_nothing_in_time() -> None:
    table = played("lupus-in-tabula", 3, silent=SILENT)
    assert any(isinstance(e, GameEnded) for e in table.events)
    alice = next(p for p in record_stats([game_record(table)])["players"] if p["player"] == "Alice")
    assert alice["expected"] > 0 and alice["in_time"] == 0 and alice["on_time"] == 0.0


def test_pbem_stats_html_writes_the_page_in_the_language_asked(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for lang, words in (("fr", "Taux de victoire par camp"), ("en", "Win rate per camp")):
        page = tmp_path / f"stats.{lang}.html"
        assert main(["stats", "--records", str(site), "--html", str(page), "--lang", lang]) == 0
        assert capsys.readouterr().out.strip() == str(page)
        html = page.read_text(encoding="utf-8")
        assert f'<html lang="{lang}">' in html and words in html
        assert (
            "<script" not in html and html.count('role="img"') == 2 * 2
        )  # 2 rule sets: camps, cards (one count)


def test_pbem_stats_without_a_finished_game_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A season's first days: no game is over yet; one line says so, not seven empty
    headings, and the exit is 0 (nothing is wrong)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "records").mkdir()
    for where in (("--data-dir", str(tmp_path / "data")), ("--records", str(tmp_path / "records"))):
        assert main(["stats", *where]) == 0
        assert capsys.readouterr().out == "No finished game yet: nothing to count.\n"
