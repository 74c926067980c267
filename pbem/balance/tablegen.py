"""Rebuild the shipped odds table (pbem/balance/odds.json, read by :mod:`pbem.balance.odds`):
every default setup from 8 to 18 players its rules accept, played at each bot level. Kept
apart from the reader so that the sign-ups, which read the table, import no simulation.

    python -m pbem.balance.tablegen --games 1000   # the shipped sample; then: python -m pbem.balance.docs
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pbem.balance.odds import COUNTS, LEVELS
from pbem.balance.report import analyse
from pbem.balance.run import Setup, play_many
from pbem.games import GAME_IDS, rules_for
from pbem.signup.decks import deck, legal_counts


def build_table(games: int, jobs: int) -> dict[str, Any]:
    """Play every default setup ``games`` times at each bot level."""
    out: dict[str, Any] = {"games_per_setup": games, "counts": [COUNTS[0], COUNTS[-1]]}
    per_game: dict[str, Any] = {}
    for game in GAME_IDS:
        rules = rules_for(game)
        for count in legal_counts(rules, COUNTS[0], COUNTS[-1], {}, "fr"):
            cards, aside = deck(rules, count, {}, "fr")
            entry: dict[str, Any] = {"deck": cards, "aside": aside}
            for level in LEVELS:
                setup = Setup(game, count, {}, level)  # type: ignore[arg-type]
                report = analyse(setup, play_many(setup, games, jobs=jobs))
                entry[level] = {
                    "games": report["games"],
                    "rounds": report["rounds"],
                    "camps": report["camps"],
                    "days": report["days"]["mean"],
                }
            per_game.setdefault(game, {})[str(count)] = entry
            print(
                game, count, {k: v["rate"] for k, v in entry["random"]["camps"].items()}, flush=True
            )
    out["games"] = per_game
    return out


def main() -> None:
    """Rebuild pbem/balance/odds.json, the odds ``open-game`` shows (``python -m
    pbem.balance.tablegen [--games N]``)."""
    parser = argparse.ArgumentParser(description="Rebuild pbem/balance/odds.json")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=0)
    args = parser.parse_args()
    data = build_table(args.games, args.jobs)
    path = Path(__file__).with_name("odds.json")
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
