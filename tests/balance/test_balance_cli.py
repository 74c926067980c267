"""``pbem balance``: its report's structure for each game (few games: no timing is asserted),
the --vary table, the intervals, and its errors."""

from __future__ import annotations

import json

import pytest

from pbem.balance.run import Setup, table_setup
from pbem.cli.main import main
from pbem.figures.wilson import wilson
from pbem.table.setup import TableSetup
from pbem.tools.demo import USUAL_PLAYERS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["balance", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("game", sorted(USUAL_PLAYERS))
def test_report_per_camp_and_role(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, game, "--games", "12", "--jobs", "1", "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert report["games"] == 12 and report["players"] == USUAL_PLAYERS[game]
    assert sum(c["wins"] for c in report["camps"].values()) == report["rounds"]
    for camp in report["camps"].values():
        assert 0 <= camp["low"] <= camp["rate"] <= camp["high"] <= 1
    assert sum(r["seats"] for r in report["roles"].values()) == 12 * report["players"]
    assert sum(report["first_deaths"].values()) == 12
    assert report["days"]["min"] <= report["days"]["median"] <= report["days"]["max"]
    assert err == ""  # no progress bar when not on a terminal


def test_text_report_and_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "lupus-in-tabula", "--players", "9", "--games", "8", "--jobs", "2")
    assert rc == 0
    assert "Camp wins (of 8 games, 95 % Wilson interval)" in out
    assert "werewolves" in out and "seer" in out


def test_vary_one_option(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(
        capsys, "lupus-in-tabula", "--games", "6", "--jobs", "1", "--vary",
        "wolves_tie=random,no_victim",
    )  # fmt: skip
    assert rc == 0
    assert "Sensitivity to wolves_tie (6 games each)" in out
    assert "no_victim" in out


def test_a_refused_setup_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "lupus-in-tabula", "--players", "5", "--games", "3")
    assert rc == 2 and err.startswith("pbem balance: ") and err.count("\n") == 1
    rc, _, err = run(capsys, "dracula", "--deck", "seer", "--games", "3")
    assert rc == 2 and "deck" in err


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert round(low, 4) == 0.4038 and round(high, 4) == 0.5962
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_each_seeds_table_is_its_setup_checked_afresh() -> None:
    """The table of each game of a run is its setup checked once, the seed changed
    (pbem.balance.run.table_setup): what checking that seed's setup afresh gives, also once
    the checked table holds its seats (a cached property the quick copy must not carry)."""
    setup = Setup("dracula")
    fresh = {seed: TableSetup.from_mapping(setup.setup_data(seed)) for seed in (0, 3, 4, 9)}
    for seed in (3, 4, 4, 0):
        assert table_setup(setup, seed) == fresh[seed]
    assert table_setup(setup, 3).seats == fresh[3].seats  # the checked table's, now kept
    for seed in (9, 4, 3):
        table = table_setup(setup, seed)
        assert table == fresh[seed] and table.seats == fresh[seed].seats
