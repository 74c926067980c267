"""The game's hash chain (issue 24 item 2): each phase's public result post carries
``H_n = SHA-256(H_{n-1} || canonical JSON of the phase's events)``, ``H_0`` the seed's
commitment; a pure function of the log (pbem/record/chain.py)."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from pbem.record.chain import canonical_json, links
from pbem.record.seed import commitment
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.archive.bot_games import GAMES, SALT, VETO_SEED

_LINE = {
    "fr": re.compile(r"Empreinte n° (\d+) de la partie : ([0-9a-f]{64})"),
    "en": re.compile(r"Game fingerprint no\. (\d+): ([0-9a-f]{64})"),
}


@pytest.mark.parametrize(
    ("game", "lang"), [(g, "fr" if i % 2 else "en") for i, g in enumerate(GAMES)]
)
def test_every_result_post_carries_the_chain_recomputed_from_the_log(game: str, lang: str) -> None:
    setup = demo_setup(game, 0, VETO_SEED[game], lang)
    setup["deal_salt"] = SALT
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    sent = play(table, random.Random(VETO_SEED[game]))
    published = [(int(m[1]), m[2]) for o in sent if o.public for m in _LINE[lang].finditer(o.body)]
    assert published  # one line per close that had a public post
    assert all(len(_LINE[lang].findall(o.body)) <= 1 for o in sent)
    assert all(not _LINE[lang].search(o.body) for o in sent if not o.public)
    encoded = [table.rules.codec.encode(e) for e in table.events]
    chain = {link.n: link.digest for link in links(commitment(setup["seed"]), encoded)}
    assert all(chain[n] == digest for n, digest in published)
    # the HTML alternative carries the same line
    html_post = next(o for o in sent if o.public and _LINE[lang].search(o.body))
    assert _LINE[lang].search(html_post.body)[2] in (html_post.html or "")  # type: ignore[index]


def test_a_link_is_sha256_of_the_previous_hex_and_the_canonical_json() -> None:
    events = [{"type": "VoteSet", "voter": "Zoé", "b": 1}, {"type": "PhaseClosed", "key": "day"}]
    h0 = commitment(42)
    expected = hashlib.sha256(
        h0.encode()
        + json.dumps(
            {"events": events}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8")
    ).hexdigest()
    assert [link.digest for link in links(h0, events)] == [expected]
    assert "Zoé".encode() in canonical_json(events)  # UTF-8, not \\u escapes
    # a change anywhere before a cut changes its digest and every later one
    later = [*events, {"type": "PhaseClosed", "key": "night"}]
    changed = [{**events[0], "voter": "Zoe"}, *later[1:]]
    assert all(
        a.digest != b.digest for a, b in zip(links(h0, later), links(h0, changed), strict=True)
    )


def test_a_game_without_a_commitment_publishes_no_chain() -> None:
    setup = demo_setup("lupus-in-tabula", 0, 2, "en")
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    sent = play(table, random.Random(2))
    assert not any(_LINE["en"].search(o.body) for o in sent)
