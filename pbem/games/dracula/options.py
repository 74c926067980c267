"""Dracula's options: the configuration keys of section 22, with their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from pbem.core.idle import IdleOptions


@dataclass(frozen=True)
class DraculaOptions(IdleOptions):
    """The configuration keys of section 22 this implementation honours, with defaults."""

    rounds: int = 3  # DRA-006
    day1: timedelta = timedelta(hours=12)  # AMB-001, AMB-005
    day: timedelta = timedelta(hours=24)
    pairing: timedelta = timedelta(hours=6)
    room_choice: timedelta = timedelta(hours=12)
    magnifier: timedelta = timedelta(hours=4)
    bites: timedelta = timedelta(hours=8)
    dance_reply: timedelta = timedelta(hours=3)
    dawn_curse: timedelta = timedelta(hours=1)
    final_choice: timedelta = timedelta(hours=24)
    flames: timedelta = timedelta(hours=12)
    early_close: bool = False  # AMB-001 (off in transcripts unless asked, DESIGN.md)
    private_orders_final: bool = (
        True  # AMB-007 (false: the last valid order wins; not with early_close)
    )
    morning_not_before_scheduled: bool = True  # AMB-002
    fill_empty_seats: Literal["random", "none"] = "random"  # AMB-013
    allow_self_vote: bool = True  # AMB-011
    publish_tally: bool = True  # AMB-015: the dusk announcement gives the counts
    running_tally: bool = False  # AMB-015: a tally on the list during the day
    tally_min_interval: timedelta = timedelta(minutes=15)  # AMB-015 (as LUP-D18): running_tally
    missed_bite: Literal["random", "none"] = "random"  # AMB-003
    notify_successful_bite: bool = True  # AMB-060
    cursed_count: Literal["new", "total", "both"] = "new"  # AMB-055
    bitten_vampire_gets_count: bool = True  # AMB-060
    notify_destroyed: bool = True  # AMB-052
    candle_shows_paint_text: bool = False  # AMB-046
    candle_shows_curse_targets: bool = True  # AMB-046
    candle_shows_magnifier: bool = False  # AMB-046
    garlic_vampires_see_occupants: bool = True  # AMB-043
    staked_orders_apply: bool = True  # AMB-049
    dance_in_sanctuary: bool = True  # AMB-058
    room_objects_in_sanctuary: bool = False  # AMB-041: garlic, candle, painting there too
    key_escape_room: Literal["named_partner_still_names", "naming_partner_chooses"] = (
        "named_partner_still_names"  # AMB-031
    )
    default_flee_points: int = 1  # AMB-064
    reveal_flame_targets: bool = True  # AMB-069
    final_default: Literal["flee", "fight"] = "flee"  # AMB-064
    burned_vampires_score: bool = False  # AMB-067
    allow_other_player_counts: bool = False  # AMB-010
    paint_max_chars: int = 2000  # AMB-057
    paint_repeat: Literal["every_dawn", "first_time_per_player"] = "every_dawn"  # AMB-057
    dance_max_chars: int = 2000  # AMB-058
    dance_replies: int = 1  # AMB-058: replies the dance partner may send (at least 1)
    curse_phrases: tuple[str, ...] = ("Je suis maudit !", "I am cursed!")  # AMB-056
    curse_notice: Literal["end_of_night", "immediate"] = "end_of_night"  # AMB-054
    curse_default: Literal["random_public", "random_private", "none"] = "random_public"
    curse_enforcement: Literal["bounce", "flag"] = "bounce"
    out_of_turn_posts: Literal["reject", "hold_until_morning", "flag"] = "reject"  # AMB-009
    dracula_draw: Literal["uniform", "avoid_repeat"] = "uniform"  # AMB-075
    telepathy_review: Literal["auto", "admin"] = "auto"  # AMB-072 (admin: setup "admins")
    substitute_name: Literal["newcomer", "kept"] = "newcomer"
    observers: Literal["approve", "open", "closed"] = "approve"
    """Who may follow the game's list without playing (OBSERVER, issue 25,
    pbem/judge/observer.py): whom the game master accepts, anyone, or nobody."""
    """A seat that changes hands (pbem/seats/substitution.py, issue 13) takes its newcomer's name, as
    forums do, or keeps the name it had."""
