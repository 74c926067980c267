"""Chasse aux sorcières' options, with the spec's decisions as defaults."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from pbem.core.idle import IdleOptions


@dataclass(frozen=True)
class ChasseOptions(IdleOptions):
    """The configuration table of the spec's section 8, with its defaults."""

    custom_deck: tuple[str, ...] = ()
    leo_duration: timedelta = timedelta(hours=6)
    coop_duration: timedelta = timedelta(hours=6)
    w1_duration: timedelta = timedelta(hours=12)
    w2_duration: timedelta = timedelta(hours=6)
    day_duration: timedelta = timedelta(hours=48)
    lovers_if_missing: Literal["none", "random"] = "none"
    lovers_told_partner_role: bool = False
    mixed_lovers_victory: Literal["survive_to_end", "last_two"] = "survive_to_end"
    council_submission: Literal["last", "first"] = "last"
    cole_target_told_swapper: bool = False
    attribute_piper_kill: bool = False
    prue_revenge_triggers: Literal["demons,lynch", "any"] = "demons,lynch"
    revenge_window: timedelta = timedelta(hours=4)
    penny_public: bool = True
    tie_order: Literal[
        "penny,last_lynched,random",
        "last_lynched,penny,random",
        "penny,random",
        "last_lynched,random",
        "random",
    ] = "penny,last_lynched,random"
    tiebreak_window: timedelta = timedelta(hours=2)
    tally_min_interval: timedelta = timedelta(minutes=15)
    everyone_dead: Literal["good", "draw"] = "good"
    reveal_all_at_end: bool = True
    list_closed_at_night: bool = True
    early_close: bool = False
    early_close_day: bool = False
    penny_player: str = ""
    """Not in the spec: fixes Penny's player (a transcript's deal); empty means drawn."""
    substitute_name: Literal["newcomer", "kept"] = "newcomer"
    observers: Literal["approve", "open", "closed"] = "approve"
    """Who may follow the game's list without playing (OBSERVER, issue 25,
    pbem/judge/observer.py): whom the game master accepts, anyone, or nobody."""
    """A seat that changes hands (pbem/seats/substitution.py, issue 13) takes its newcomer's name, as
    forums do, or keeps the name it had."""
