"""The verifiable deal: the opening post commits to it, the archive reveals it, and
``pbem verify`` recomputes the commitment (a tampered deal fails)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from pbem.cli.main import main
from pbem.core.errors import SetupError
from pbem.core.events import DealCommitted, RolesDealt
from pbem.record.archive import archive_files
from pbem.record.deal import digest, find_reveal
from pbem.table import Table
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.archive.bot_games import GAMES, SALT, whole_game


@pytest.mark.parametrize("game", GAMES)
def test_the_opening_post_carries_the_commitment_and_the_archive_reveals_it(game: str) -> None:
    setup = demo_setup(game, 0, 3, "fr")
    setup["deal_salt"] = SALT
    _table, step = Table.new(setup, EPOCH)
    committed = [e for e in step.facts if isinstance(e, DealCommitted)]
    assert len(committed) == 1
    opening = next(o for o in step.outgoing if o.public)
    assert committed[0].digest in opening.body
    assert "Engagement sur la donne" in opening.body
    # the salt is secret until the end: in no mail of the opening
    assert all(SALT not in o.body for o in step.outgoing)
    played = whole_game(game, "fr")
    shown = find_reveal(archive_files(played)["html"])
    assert shown is not None and shown.verifies
    dealt = next((e for e in played.events if isinstance(e, RolesDealt)), None)
    if dealt is not None:  # every seat's card is in the canonical deal
        assert json.loads(shown.canonical)["deal"][0]["roles"] == dict(dealt.roles)


def test_the_commitment_is_sha256_of_salt_and_canonical_deal() -> None:
    shown = find_reveal(archive_files(whole_game("chasse-aux-sorcieres", "en"))["text"])
    assert shown is not None
    expected = hashlib.sha256(f"{shown.salt}:{shown.canonical}".encode()).hexdigest()
    assert shown.digest == expected == digest(shown.salt, shown.canonical)
    deal = json.loads(shown.canonical)
    kinds = [e["type"] for e in deal["deal"]]
    assert kinds == ["RolesDealt", "PennyGiven"]  # the leftover cards and Penny (CAS)
    assert deal["deal"][0]["leftover"]


def test_the_shell_recipe_in_the_archive_prints_the_commitment() -> None:
    text = archive_files(whole_game("lupus-in-tabula", "en"))["text"]
    recipe = next(line for line in text.splitlines() if line.startswith("printf "))
    shown = find_reveal(text)
    assert shown is not None
    out = subprocess.run(["bash", "-c", recipe], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == shown.digest


@pytest.mark.parametrize("kind", ["html", "text", "deal"])
def test_pbem_verify_accepts_the_archive_and_refuses_a_tampered_deal(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = archive_files(whole_game("loup-garou", "en"))
    good = tmp_path / f"archive.{kind}"
    good.write_text(files[kind], encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    assert "OK" in capsys.readouterr().out
    # one role changed in the revealed deal: the commitment no longer matches
    forms = [
        ('"Alice":"villager"', '"Alice":"werewolf"'),  # the text archive
        ("&#34;Alice&#34;:&#34;villager&#34;", "&#34;Alice&#34;:&#34;werewolf&#34;"),  # HTML
        ('\\"Alice\\":\\"villager\\"', '\\"Alice\\":\\"werewolf\\"'),  # the JSON file
    ]
    tampered = files[kind]
    for before, after in forms:
        tampered = tampered.replace(before, after)
    assert tampered != files[kind]
    bad = tmp_path / f"tampered.{kind}"
    bad.write_text(tampered, encoding="utf-8")
    assert main(["verify", str(bad)]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_pbem_verify_says_when_a_file_has_no_deal(tmp_path: Path) -> None:
    plain = tmp_path / "x.txt"
    plain.write_text("nothing here\n", encoding="utf-8")
    assert main(["verify", str(plain)]) == 2


def test_a_game_without_a_salt_has_no_commitment_and_its_archive_says_so() -> None:
    """``pbem simulate`` transcripts without ``deal_salt`` keep their opening byte for byte."""
    table = whole_game("lupus-in-tabula", "en", salt=None)
    assert not any(isinstance(e, DealCommitted) for e in table.events)
    files = archive_files(table)
    assert "deal" not in files
    assert "was not committed" in files["text"]


def test_a_malformed_salt_is_refused_at_setup() -> None:
    setup = demo_setup("lupus-in-tabula", 0, 1, "en")
    setup["deal_salt"] = "not hex!"
    with pytest.raises(SetupError, match="deal_salt"):
        Table.new(setup, EPOCH)


def test_new_game_draws_the_salt_from_the_os_not_from_the_seed(tmp_path: Path) -> None:
    """Two games created with the same seed get different salts (os.urandom, not the RNG)."""
    import argparse
    from types import SimpleNamespace

    from pbem.cli.newgame import setup_from_args

    cfg = SimpleNamespace(
        game_options={}, language="fr", moderator="mj@v.example", list_address="", timezone="UTC"
    )
    args = argparse.Namespace(
        setup=None, game="lupus-in-tabula", player=[], option=[], seed=7, lang=None, game_id="g1"
    )
    salts = {setup_from_args(args, cfg)["deal_salt"] for _ in range(2)}
    assert len(salts) == 2
    assert all(len(s) == 32 for s in salts)


def test_the_commitment_does_not_depend_on_later_card_changes() -> None:
    """Cole's and Léo's card changes are events of the game, not of the deal: the archive of
    a game with a card change still verifies, and shows the change in its timeline."""
    from pbem.core.events import RoleChanged

    table = whole_game("chasse-aux-sorcieres", "en")
    changes = [e for e in table.events if isinstance(e, RoleChanged)]
    assert changes  # Cole's exchange in this seed
    files = archive_files(table)
    shown = find_reveal(files["text"])
    assert shown is not None and shown.verifies
    names = {"demon": "Demon", "cole": "Cole", "leo": "Léo", "prue": "Prue"}  # en/chasse names
    for change in changes:
        assert f"{change.player}’s card becomes {names[change.role]}" in files["text"]


def test_a_role_changed_in_the_log_after_the_commitment_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game master who edits the stored deal (one seat's card) cannot hide it: the archive
    recomputes the deal from the log, its digest no longer matches the one announced."""
    table = whole_game("lupus-in-tabula", "en")
    encoded = [table.rules.codec.encode(e) for e in table.events]
    dealt = next(e for e in encoded if e["type"] == "RolesDealt")
    seat = next(p for p, r in dealt["roles"].items() if r == "villager")
    dealt["roles"] = {**dealt["roles"], seat: "seer"}
    forged = Table.load({**demo_setup("lupus-in-tabula", 0, 2, "en"), "deal_salt": SALT}, encoded)
    files = archive_files(forged)
    assert "The digest does NOT match" in files["text"]
    path = tmp_path / "forged.html"
    path.write_text(files["html"], encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_pbem_simulate_takes_a_fixed_salt_for_a_deterministic_transcript() -> None:
    """A transcript whose setup fixes ``deal_salt`` prints the same commitment every run; the
    transcripts without one keep their opening post byte for byte (tests/test_simulate.py)."""
    from pbem.tools.simulate import simulate

    lines = Path("tests/transcripts/lupus-night1.jsonl").read_text(encoding="utf-8").splitlines()
    setup = json.loads(lines[0])
    setup["setup"]["deal_salt"] = SALT
    salted = [json.dumps(setup), *lines[1:]]
    first, second = list(simulate(salted)), list(simulate(salted))
    assert first == second
    plain = list(simulate(lines))
    opening = next(o["mail"]["body"] for o in first if "mail" in o and o["mail"]["public"])
    plain_opening = next(o["mail"]["body"] for o in plain if "mail" in o and o["mail"]["public"])
    assert "Commitment to the deal" in opening and "Commitment" not in plain_opening
    assert opening.startswith(plain_opening.rstrip())
    assert SALT not in json.dumps(first)  # the salt never leaves in a mail
