"""Loup-Garou's options, with the spec's decisions as defaults."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from pbem.core.idle import IdleOptions


@dataclass(frozen=True)
class LoupGarouOptions(IdleOptions):
    """The configuration table of the spec's section 9, with its defaults."""

    custom_deck: tuple[str, ...] = ()
    election_concurrent_with_night1: bool = False
    bite_window: timedelta = timedelta(hours=24)
    election_window: timedelta = timedelta(hours=24)
    mayor_election_tie: Literal["random", "runoff"] = "random"
    wolves_list_detail: Literal["names_and_identities", "names_only", "names_and_status"] = (
        "names_and_identities"
    )
    night_council_duration: timedelta = timedelta(hours=12)
    night_witch_duration: timedelta = timedelta(hours=6)
    day_duration: timedelta = timedelta(hours=48)
    seer_result_timing: Literal["dawn", "immediate"] = "dawn"
    send_results_to_dead: bool = False
    thief_vote_weight: float = 0.5
    thief_weight_when_bitten: bool = True
    wolves_tie_fallback: Literal["random", "no_victim"] = "random"
    witch_self_poison: bool = False
    elder_told_when_witch_saves: bool = False
    notify_spied_when_empty: bool = True
    lovers_if_missing: Literal["none", "random"] = "none"
    charmed_know_each_other: bool = False
    parity_counts_piper: bool = False
    everyone_dead: Literal["draw"] = "draw"
    reveal_all_at_end: bool = True
    idiot_after_bite: bool = False
    sash_window: timedelta = timedelta(hours=6)
    mayor_tiebreak_window: timedelta = timedelta(hours=2)
    self_vote_allowed: bool = True
    vote_changes_allowed: bool = True
    tally_min_interval: timedelta = timedelta(minutes=15)
    list_closed_at_night: bool = True
    early_close: bool = False
    early_close_day: bool = False
    substitute_name: Literal["newcomer", "kept"] = "newcomer"
    observers: Literal["approve", "open", "closed"] = "approve"
    """Who may follow the game's list without playing (OBSERVER, issue 25,
    pbem/judge/observer.py): whom the game master accepts, anyone, or nobody."""
    """A seat that changes hands (pbem/seats/substitution.py, issue 13) takes its newcomer's name, as
    forums do, or keeps the name it had."""
