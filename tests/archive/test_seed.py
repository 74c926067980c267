"""Every draw from a committed seed (issue 24 item 1): the seed drawn with ``secrets``, the
derivation pinned by ``seed_scheme``, SHA-256 of the seed under the opening post."""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.core.draws import deal_rng, draw_rng, idle_rng
from pbem.core.errors import SetupError
from pbem.record.seed import commitment, new_seed
from pbem.table import Table
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.archive.bot_games import SALT


def _args(seed: int | None) -> argparse.Namespace:
    return argparse.Namespace(
        setup=None, game="lupus-in-tabula", player=[], option=[], seed=seed, lang=None, game_id="g"
    )


_CFG = SimpleNamespace(
    game_options={}, language="fr", moderator="mj@v.example", list_address="", timezone="UTC"
)


def test_new_game_draws_a_256_bit_seed_and_records_its_scheme() -> None:
    from pbem.cli.newgame import setup_from_args

    setups = [setup_from_args(_args(None), _CFG) for _ in range(2)]
    assert setups[0]["seed"] != setups[1]["seed"]
    assert all(s["seed_scheme"] == 1 for s in setups)
    # 256 bits: its SHA-256 cannot be searched (a 32-bit seed could be, from its digest)
    assert max(s["seed"] for s in setups).bit_length() > 200
    assert setup_from_args(_args(7), _CFG)["seed"] == 7  # the operator's seed is kept


def test_scheme_1_is_cpython_random_seeded_as_documented() -> None:
    """The derivation pinned: MT19937 seeded by the int (deal), "<seed>:<n>" (resolutions),
    "<seed>:idle:<n>"; a str seeds by SHA-512 (version 2), so these values never move."""
    seed = 12345
    assert deal_rng(seed).random() == random.Random(seed).random()
    assert draw_rng(seed, 7).random() == random.Random("12345:7").random()
    assert idle_rng(seed, 7).random() == random.Random("12345:idle:7").random()
    # version 2 seeding of a str, by hand: the bytes then their SHA-512, one big integer
    raw = b"12345:7"
    by_hand = random.Random(int.from_bytes(raw + hashlib.sha512(raw).digest(), "big"))
    assert draw_rng(seed, 7).random() == by_hand.random()
    with pytest.raises(ValueError, match="seed scheme"):
        draw_rng(seed, 7, scheme=2)


def test_an_unknown_seed_scheme_is_refused_at_setup() -> None:
    setup = demo_setup("lupus-in-tabula", 0, 1, "en")
    setup["seed_scheme"] = 9
    with pytest.raises(SetupError, match="seed_scheme"):
        Table.new(setup, EPOCH)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_opening_post_commits_to_the_seed(lang: str) -> None:
    setup = demo_setup("loup-garou", 0, 5, lang)
    setup["deal_salt"] = SALT
    setup["seed"] = seed = new_seed()
    _table, step = Table.new(setup, EPOCH)
    opening = next(o for o in step.outgoing if o.public)
    assert commitment(seed) in opening.body
    assert commitment(seed) in (opening.html or "")
    assert str(seed) not in opening.body and all(str(seed) not in o.body for o in step.outgoing)
    out = subprocess.run(
        ["bash", "-c", f"printf '%s' {seed} | sha256sum"], capture_output=True, text=True
    )
    assert out.stdout.split()[0] == commitment(seed)


def test_no_draw_of_the_rules_uses_another_source() -> None:
    """Every generator of the games and the table comes from pbem/record/seed.py: no module
    of theirs builds one of its own nor reads the OS's randomness."""
    found = []
    for path in [*Path("pbem/games").rglob("*.py"), *Path("pbem/table").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if re.search(
            r"random\.Random\(|SystemRandom|secrets|os\.urandom|random\.(choice|shuffle|sample|random|randint)\(",
            text,
        ):
            found.append(str(path))
    assert found == []
