"""Every option of the spec's section 9 changes behaviour as the spec says."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from pbem.core.errors import SetupError
from pbem.core.options import options_to_json, parse_options
from pbem.games.lupus.options import LupusOptions
from pbem.games.lupus.rules import _options_json
from tests.lupus.scenario import FULL16, kill, new_table, rejected, votes
from tests.support.game_by_mail import Game, lupus_roles


def test_deck_mode_custom_with_specials() -> None:
    """LUP-D01 (deck_mode=custom, specials): the chosen specials instead of LUP-017."""
    opts = {"deck_mode": "custom", "specials": ["seer", "mythomaniac"]}
    table = new_table(12, opts)
    dealt = Counter(p["role"] for p in table.summary()["players"])
    assert dealt == Counter(werewolf=2, seer=1, mythomaniac=1, villager=8)
    (opening,) = [e for e in table.events if getattr(e, "template", "") == "lupus/opening"]
    assert opening.params["warnings"] == ["mythomaniac"]  # below its minimum of 16


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"wolves_tie": "never"}, "wolves_tie"),
        ({"speed": 1}, "unknown option"),
        ({"night_duration": "soon"}, "night_duration"),
        ({"ghost_variant": "yes"}, "ghost_variant"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], error: str) -> None:
    """Section 9: only the spec's keys and values."""
    with pytest.raises(SetupError, match=error):
        Game(lupus_roles(8), options=options)


def test_durations() -> None:
    """LUP-D04, LUP-D19 (night_duration, debate/round1/defence/round2 durations)."""
    g = Game(
        lupus_roles(8),
        options={
            "night_duration": "2h",
            "debate_duration": "3h",
            "round1_duration": "4h",
            "defence_duration": "30min",
            "round2_duration": 3600,
        },
    )
    lengths = []
    for _ in range(4):
        lengths.append(next(iter(g.table.deadlines().values())) - g.now)
        if g.phase == "round1":
            votes(g, {"p3": "p1", "p4": "p2"})
        g.deadline()
    lengths.append(next(iter(g.table.deadlines().values())) - g.now)
    assert lengths == [timedelta(hours=h) for h in (2, 3, 4, 0.5, 1)]
    assert "each night lasts 2 h; each day has 3 h of debate" in g.public_text(g.sent)


def test_seer_result_immediate_and_final() -> None:
    """LUP-D04 (seer_result_timing=immediate): answered at once; the first probe is final.

    Bug fixed: CANCEL SCAN or PASS used to withdraw the answered probe and open a second one.
    """
    g = Game(FULL16, options={"seer_result_timing": "immediate"})
    g.mail("p4", "SCAN p1")
    assert "p1 is a Werewolf." in g.text_to("p4")
    for body in ("SCAN p2", "CANCEL SCAN", "PASS"):
        assert "already been made" in rejected(g, "p4", body)
    g.deadline()
    assert "Your vision" not in g.text_to("p4")


def test_seer_immediate_probe_of_hamster_still_kills_at_dawn() -> None:
    """LUP-D04, LUP-372 with seer_result_timing=immediate."""
    g = Game(FULL16, options={"seer_result_timing": "immediate"})
    g.mail("p4", "SCAN p11")
    assert g.alive("p11")
    g.deadline()
    assert not g.alive("p11")


def test_wolves_tie_no_victim() -> None:
    """LUP-D05 (wolves_tie=no_victim): a tied council kills nobody."""
    g = Game(lupus_roles(8), options={"wolves_tie": "no_victim"})
    g.mail("p1", "KILL p4")
    g.mail("p2", "KILL p5")
    g.deadline()
    assert len(g.living()) == 8 and "The pack chose no victim" in g.text_to("p1")


def test_wolves_may_target_wolf() -> None:
    """LUP-D05 (wolves_may_target_wolf=true): a Werewolf may be the victim."""
    g = Game(lupus_roles(8), options={"wolves_may_target_wolf": True})
    kill(g, "p2")
    g.deadline()
    assert not g.alive("p2")


@pytest.mark.parametrize(("second", "answered"), [("p6", False), ("p1", True)])
def test_seer_pair_require_same(second: str, answered: bool) -> None:
    """LUP-D07 (seer_pair_agreement=require_same): differing latest choices -> no probe."""
    g = Game(FULL16, options={"seer_pair_agreement": "require_same"})
    g.until("night", 2)
    g.mail("p12", "COPY p4")
    g.until("night", 3)
    g.mail("p4", "SCAN p1")
    g.mail("p12", f"SCAN {second}")
    g.deadline()
    assert ("Your vision" in g.text_to("p4")) is answered
    assert ("Your vision" in g.text_to("p12")) is answered


def test_owl_pick_announced_at_dawn() -> None:
    """LUP-D11 (owl_pick_announced=dawn): the Owl's designee is public at dawn.

    Bug fixed: a designee torn apart that night was announced as "will be nominated".
    """
    g = Game(lupus_roles(12, p4="owl"), options={"owl_pick_announced": "dawn"})
    g.mail("p4", "NOMINATE p9")
    g.deadline()
    assert "The Owl has designated p9, who will be nominated" in g.public_text()
    g.until("night", 2)
    g.mail("p4", "NOMINATE p9")
    kill(g, "p9")
    g.deadline()
    assert "Owl" not in g.public_text()
    g = Game(lupus_roles(12, p4="owl"))
    g.mail("p4", "NOMINATE p9")
    g.deadline()
    assert "Owl" not in g.public_text()  # default: round1_end


def test_myth_if_missing_random() -> None:
    """LUP-D14 (myth_if_missing=random): a silent Mythomaniac gets a random designation."""
    g = Game(FULL16, options={"myth_if_missing": "random"})
    g.until("night", 2)
    g.deadline()
    assert "Your imitation" in g.text_to("p12")


def test_parity_counts_hamster() -> None:
    """LUP-D15 (parity_counts_hamster=true): the Werehamster counts in V."""
    roles = lupus_roles(8, p4="werehamster", p5="possessed")
    results = {}
    for counts in (False, True):
        g = Game(roles, options={"parity_counts_hamster": counts})
        kill(g, "p8")
        g.until("round1")
        votes(g, {"p1": "p7", "p2": "p7"})
        g.until("night", 2)
        kill(g, "p6")
        g.deadline()  # W=2, V=2 (+ the Werehamster)
        results[counts] = g.summary()["status"]
    assert results == {False: "finished", True: "running"}


def test_nomination_tie_all_tied() -> None:
    """LUP-D16 (nomination_tie=all_tied): every tied player is nominated."""
    g = Game(lupus_roles(10), options={"nomination_tie": "all_tied"})
    g.until("round1")
    votes(g, {"p3": "p1", "p4": "p1", "p5": "p2", "p6": "p7", "p8": "p9"})
    g.deadline()
    assert g.state.nominees == ("p1", "p2", "p7", "p9")
    assert "Tie between" not in g.public_text()


def test_single_nominee_no_lynch() -> None:
    """LUP-D16 (single_nominee=no_lynch): a lone nominee is spared."""
    g = Game(lupus_roles(8), options={"single_nominee": "no_lynch"})
    g.until("round1")
    votes(g, {"p3": "p1"})
    g.deadline()
    assert g.alive("p1") and "nobody is lynched today" in g.public_text()
    assert (g.phase, g.number) == ("night", 2)


@pytest.mark.parametrize(("rule", "lynched"), [("no_lynch", set()), ("random", {"p1", "p2"})])
def test_round2_tie(rule: str, lynched: set[str]) -> None:
    """LUP-D17 (round2_tie=random|no_lynch): the round-1 count is not used."""
    seen = set()
    for seed in range(8):
        g = Game(lupus_roles(8), options={"round2_tie": rule}, seed=seed)
        g.until("round1")
        votes(g, {"p3": "p1", "p4": "p1", "p5": "p2"})
        g.until("round2")
        votes(g, {"p3": "p1", "p4": "p2"})
        g.deadline()
        seen |= {"p1", "p2"} - set(g.living())
    assert seen == lynched


def test_vote_changes_not_allowed() -> None:
    """LUP-D18 (vote_changes_allowed=false): the first valid vote is final."""
    g = Game(lupus_roles(8), options={"vote_changes_allowed": False})
    g.until("round1")
    g.post("p3", "VOTE p1")
    assert "cannot be changed" in rejected(g, "p3", "VOTE p2", post=True)
    assert "cannot be changed" in rejected(g, "p3", "UNVOTE", post=True)


def test_self_vote_not_allowed() -> None:
    """LUP-D18 (self_vote_allowed=false)."""
    g = Game(lupus_roles(8), options={"self_vote_allowed": False})
    g.until("round1")
    assert "cannot choose yourself" in rejected(g, "p3", "VOTE p3", post=True)


def test_tally_min_interval() -> None:
    """LUP-D18 (tally_min_interval): a running tally at most once per interval."""
    g = Game(lupus_roles(8), options={"tally_min_interval": 0})
    g.until("round1")
    g.post("p3", "VOTE p1")
    g.post("p4", "VOTE p1")
    assert "p1 2" in g.public_text()
    g = Game(lupus_roles(8), options={"tally_min_interval": "1h"})
    g.until("round1")
    g.post("p3", "VOTE p1")
    g.advance(59 * 60)
    g.post("p4", "VOTE p1")
    assert g.public() == []
    g.advance(60)
    g.post("p5", "VOTE p1")
    assert "p1 3" in g.public_text()


def test_reveal_all_at_end_false() -> None:
    """LUP-D21 (reveal_all_at_end=false): the victory message reveals no role."""
    g = Game(lupus_roles(8), options={"reveal_all_at_end": False})
    for day, wolf in ((1, "p1"), (2, "p2")):
        g.until("round1", day)
        votes(g, {"p3": wolf})
        g.deadline()
    assert "Victory for the Villagers" in g.public_text()
    assert "roles were" not in g.public_text() and "Werewolf" not in g.public_text()


def test_ghost_excludes_probe_death() -> None:
    """LUP-D22 (ghost_includes_probe_death=false): the probed Werehamster is no ghost."""
    g = Game(
        lupus_roles(15, p4="werehamster"),
        options={"ghost_variant": True, "ghost_includes_probe_death": False},
    )
    g.mail("p3", "SCAN p4")
    kill(g, "p5")
    g.until("round1")
    assert "eliminated" in rejected(g, "p4", "VOTE p1")
    g.mail("p5", "VOTE p1")
    assert g.state.votes == {"p5": "p1"}


def test_early_close_night_needs_every_living_player() -> None:
    """LUP-D29 (early_close=true): the night closes inside Table.receive once every living
    player has acted or passed, powerless players included."""
    g = Game(lupus_roles(8), options={"early_close": True})
    kill(g, "p5")
    g.mail("p3", "SCAN p1")
    assert g.phase == "night"  # the simple Villagers have not passed
    for p in ("p4", "p5", "p6", "p7"):
        g.mail(p, "PASS")
    assert g.phase == "night"
    g.mail("p8", "PASS")
    assert g.phase == "debate" and not g.alive("p5")
    assert "p5 was torn apart" in g.public_text()


def test_early_close_day_when_every_voter_voted() -> None:
    """LUP-D29 (early_close_day=true): a round closes early once all allowed voters voted,
    ghosts included in round 1; the debate never closes early."""
    g = Game(lupus_roles(8), options={"early_close_day": True, "ghost_variant": True})
    kill(g, "p8")
    g.deadline()
    assert g.phase == "debate"
    g.deadline()
    votes(g, {p: "p1" for p in g.living() if p != "p1"} | {"p1": "p2"})
    assert g.phase == "round1"  # the ghost p8 has not voted
    g.mail("p8", "VOTE p1")
    assert g.phase == "defence"
    g.deadline()
    votes(g, {p: "p1" for p in g.living() if p not in ("p1", "p2")})
    assert not g.alive("p1") and g.phase == "night"


def test_early_close_off_by_default() -> None:
    """LUP-D29 (early_close=false, early_close_day=false): phases end at their deadline."""
    g = Game(lupus_roles(8))
    for p in g.living():
        g.mail(p, "PASS")
    assert g.phase == "night"
    g.until("round1")
    votes(g, {p: "p1" for p in g.living() if p != "p1"} | {"p1": "p2"})
    assert g.phase == "round1"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_prompts_state_the_options_in_force(lang: str) -> None:
    """LUP-701, LUP-711, LUP-740 with wolves_tie, seer_result_timing, seer_pair_agreement,
    vote_changes_allowed: what players are told matches the options.

    Bug fixed: the prompts always described the defaults (tie drawn, answer at dawn, last
    probe counts, votes changeable)."""
    options = {
        "wolves_tie": "no_victim",
        "seer_result_timing": "immediate",
        "seer_pair_agreement": "require_same",
        "vote_changes_allowed": False,
    }
    texts = {}
    for opts in ({}, options):
        g = Game(FULL16, options=opts, lang=lang)
        g.until("night", 2)
        g.mail("p12", "COPY p4")
        g.until("night", 3)
        texts[bool(opts)] = {p: g.text_to(p, g.sent) for p in ("p1", "p4")} | {
            "list": g.public_text(g.sent)
        }
    default, changed = texts[False], texts[True]
    if lang == "en":
        assert "a tie is drawn at random" in default["p1"]
        assert "a tie means no victim" in changed["p1"]
        assert "at dawn you learn" in default["p4"] and "you learn at once" in changed["p4"]
        assert "the last one sent counts" in default["p4"]
        assert "your latest choices must agree" in changed["p4"]
        assert "you may change your vote" in default["list"]
        assert "your first vote is final" in changed["list"]
    for key in default:
        assert default[key] != changed[key]


def test_a_setups_options_mapping_is_the_one_written_afresh() -> None:
    """LUP-D01, LUP-D18: the options a game is created with, kept for the last options set
    up, are those written afresh; games set up alike share them, other options are written
    anew."""
    plain = parse_options(LupusOptions, {})
    final = parse_options(LupusOptions, {"vote_changes_allowed": False})
    assert _options_json(plain) == options_to_json(plain)
    assert _options_json(plain) is _options_json(parse_options(LupusOptions, {}))
    assert _options_json(final) == options_to_json(final) != options_to_json(plain)
    assert _options_json(plain) == options_to_json(plain)
