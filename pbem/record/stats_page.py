"""The statistics page (``pbem stats --html FILE``) and the archive index's statistics: the
figures of :func:`pbem.record.stats.record_stats` as tables and SVG charts (pbem/figures/,
drawn in Python: no script), in French or English, every camp and card named as its game's
templates name them (« les Villageois », never ``villagers``).

One template section, ``_stats.html`` (per language), is included by both pages, so the
index and the page show the same figures the same way.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
from markupsafe import Markup

from pbem.figures.charts import svg_bars, svg_chart
from pbem.mail.render import join_names, shared_renderer
from pbem.record.archive import GameNames
from pbem.rules.options_words import ROLE_LISTS, option_label, option_words


def stats_view(stats: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """What ``_stats.html`` renders: the figures grouped per rule set (``rule_sets``), each
    id named, and the players' rows with their genders (« remplacée »)."""
    from pbem.games import rules_for

    games = []
    for game, count in stats["games"].items():
        names = _names(game, lang)
        title = rules_for(game).title
        camps = [dict(c, name=names.side(c["camp"])) for c in stats["camps"] if c["game"] == game]
        by_players = [
            dict(c, name=names.side(c["camp"])) for c in stats["by_players"] if c["game"] == game
        ]
        series: dict[str, list[tuple[int, float]]] = {}
        for row in by_players:
            series.setdefault(row["name"], []).append((row["players"], row["rate"]))
        options = [
            dict(
                c,
                name=names.side(c["camp"]),
                label=option_label(c["option"], lang),
                shown=_shown(game, c["option"], c["value"], lang, names),
            )
            for c in stats["by_option"]
            if c["game"] == game
        ]
        games.append(
            {
                "id": game,
                "title": title,
                "count": count,
                "camps": camps,
                "roles": [
                    dict(r, name=names.role(r["role"])) for r in stats["roles"] if r["game"] == game
                ],
                "by_players": by_players,
                "series": series,
                "counts": sorted({row["players"] for row in by_players}),
                "by_option": options,
                "length": stats["length"][game],
            }
        )
    return {
        "rule_sets": games,
        "players": stats["players"],
        "genders": {p["player"]: p["gender"] for p in stats["players"] if p.get("gender")},
        "records": stats["records"],
    }


def _shown(game: str, option: str, value: Any, lang: str, names: GameNames) -> str:
    """An option's value as the rules page (``REGLES``) words it: a phrase for a choice,
    oui/non, a duration (seconds in the log, typed again by the game's options), the cards
    of a list named by the game."""
    from pbem.core.errors import SetupError
    from pbem.core.options import parse_options
    from pbem.games import rules_for

    kind = rules_for(game).options_type
    with contextlib.suppress(SetupError):  # an option this pbem no longer knows: as recorded
        value = getattr(parse_options(kind, {option: value}), option) if kind else value
    if option in ROLE_LISTS and isinstance(value, list | tuple):
        return join_names([names.role(str(r)) for r in value], lang) if value else "—"
    return option_words(option, value, lang)


@functools.lru_cache(maxsize=16)
def _names(game: str, lang: str) -> GameNames:
    from pbem.games import rules_for

    return GameNames(shared_renderer(), rules_for(game).templates, lang, {})


CHART_WIDTH = 340
"""The charts' width: a 360 px phone's page (less its margins) shows them unscaled."""
CHART_TEXT = 15
"""Their texts' size in px: at least 14 px as a phone shows them (a page's small print)."""


def _bars(title: str, rows: Sequence[Mapping[str, Any]], label: str) -> Markup:
    """A bar chart of rows' rates with their intervals; ``label``: its accessible name."""
    bars = [(str(r["name"]), float(r["rate"]), float(r["low"]), float(r["high"])) for r in rows]
    svg = svg_bars(title, bars, label=label, width=CHART_WIDTH, text=CHART_TEXT, left=140)
    return Markup(svg)  # its texts escaped in pbem/figures/charts.py


def _lines(
    title: str,
    series: Mapping[str, Sequence[tuple[int, float]]],
    counts: Sequence[int],
    x_label: str,
    label: str,
) -> Markup:
    """The camps' win rate by player count (the chart docs/balance.md draws), as wide as the
    bars are (a phone shows it unscaled), its legend under the plot."""
    svg = svg_chart(
        title,
        series,
        counts,
        x_label=x_label,
        width=CHART_WIDTH,
        label=label,
        text=CHART_TEXT,
        legend_below=True,
    )
    return Markup(svg)  # its texts escaped in pbem/figures/charts.py


def _number(value: float, lang: str) -> str:
    """A mean as a reader writes it: « 7,5 » in French, "7.5" in English; "7" for 7.0."""
    shown = f"{value:.1f}".removesuffix(".0")
    return shown.replace(".", ",") if lang == "fr" else shown


@functools.lru_cache(maxsize=4)
def _env(lang: str) -> jinja2.Environment:
    from pbem.mail.grammar import agree
    from pbem.mail.render import templates_root

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(
            [templates_root() / lang / "archive", templates_root() / "shared" / "archive"]
        ),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["g"] = agree
    env.filters["names"] = lambda value: join_names(value, lang)
    env.filters["num"] = lambda value: _number(value, lang)
    env.globals.update(bars_chart=_bars, lines_chart=_lines)
    return env


def render_stats_page(stats: Mapping[str, Any], lang: str) -> str:
    """The statistics page on its own (``pbem stats --html FILE``)."""
    return _env(lang).get_template("stats.html").render(**stats_view(stats, lang), lang=lang)


def render_index(games: Sequence[Mapping[str, Any]], stats: Mapping[str, Any], lang: str) -> str:
    """The archive index page: every finished game with links to its archive, then the
    statistics section of the page above.

    ``games``: ``{"id", "rules", "game", "players", "side", "winners", "html", "text"}`` each
    (``rules``: the rule set's id, ``side``: the winning camp's id, named here).
    """
    rows = [
        {
            **row,
            "side": _names(str(row["rules"]), lang).side(str(row["side"])) if row["side"] else None,
        }
        for row in games
    ]
    template = _env(lang).get_template("index.html")
    return template.render(games=rows, lang=lang, **stats_view(stats, lang))
