"""Lupus in Tabula's options: the configuration table of the spec's section 9."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from pbem.core.idle import IdleOptions


@dataclass(frozen=True)
class LupusOptions(IdleOptions):
    """The configuration table of the spec's section 9, with its defaults."""

    deck_mode: Literal["recommended", "custom"] = "recommended"
    specials: tuple[str, ...] = ()
    ghost_variant: bool = False
    night_duration: timedelta = timedelta(hours=18)
    seer_result_timing: Literal["dawn", "immediate"] = "dawn"
    wolves_tie: Literal["random", "no_victim"] = "random"
    wolves_may_target_wolf: bool = False
    seer_pair_agreement: Literal["last", "require_same"] = "last"
    owl_pick_announced: Literal["round1_end", "dawn"] = "round1_end"
    myth_if_missing: Literal["none", "random"] = "none"
    parity_counts_hamster: bool = False
    nomination_tie: Literal["random", "all_tied"] = "random"
    single_nominee: Literal["lynch", "no_lynch"] = "lynch"
    round2_tie: Literal["round1_then_random", "random", "no_lynch"] = "round1_then_random"
    vote_changes_allowed: bool = True
    self_vote_allowed: bool = True
    tally_min_interval: timedelta = timedelta(minutes=15)
    debate_duration: timedelta = timedelta(hours=24)
    round1_duration: timedelta = timedelta(hours=12)
    defence_duration: timedelta = timedelta(hours=6)
    round2_duration: timedelta = timedelta(hours=12)
    reveal_all_at_end: bool = True
    ghost_includes_probe_death: bool = True
    early_close: bool = False
    early_close_day: bool = False
    substitute_name: Literal["newcomer", "kept"] = "newcomer"
    observers: Literal["approve", "open", "closed"] = "approve"
    """Who may follow the game's list without playing (OBSERVER, issue 25,
    pbem/judge/observer.py): whom the game master accepts, anyone, or nobody."""
    """A seat that changes hands (pbem/seats/substitution.py, issue 13) takes its newcomer's name, as
    forums do, or keeps the name it had."""
