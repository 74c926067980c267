"""SVG charts drawn in Python (no plotting library, no script): the same figures as the
tables beside them, for docs/balance.md (``pbem balance``) and the statistics page
(``pbem stats --html``, the archive index). Every text in a chart is given by the caller,
in the reader's language, and escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

COLOURS = ("#b22222", "#1f5fa8", "#2e8b57", "#8a5a00", "#6a3d9a", "#555555")

Series = Mapping[str, Sequence[tuple[int, float]]]
"""A line's label -> its points (player count, win rate from 0 to 1)."""


def svg_chart(
    title: str,
    series: Series,
    counts: Sequence[int],
    *,
    dashed: Sequence[str] = (),
    x_label: str = "players",
    width: int = 660,
    right: int = 210,
    label: str | None = None,
    text: int = 11,
    legend_below: bool = False,
) -> str:
    """A line chart of win rates (0 to 100 %) by player count, as an SVG document.

    ``x_label``: the axis's word (the reader's language); ``width`` and ``right`` (the
    legend's room): narrower for a phone's page; ``label``: an accessible name (``role="img"``
    and a ``<title>``) for a chart inlined in a page beside its table. ``text``: the texts'
    size in px (the title's 2 px more), the margins growing with it; ``legend_below``: the
    legend under the plot (the plot then takes the whole width: a phone's page)."""
    k = text / 11  # the margins were drawn for 11 px texts: they grow with them

    def px(length: float) -> int:
        return round(length * k)

    row = px(14)  # a legend's line
    notes = 2 if dashed else 0  # the dashed lines' two lines of explanation
    if legend_below:
        right = px(12)
    height, left, top, bottom = 300, px(48), px(28), px(36)
    plot_w, plot_h = width - left - right, height - top - bottom
    below = row * (len(series) + notes) + px(10) if legend_below else 0
    low, high = min(counts), max(counts)
    span = max(1, high - low)

    def x(n: int) -> float:
        return left + (plot_w / 2 if high == low else plot_w * (n - low) / span)

    def y(rate: float) -> float:
        return top + plot_h * (1 - rate)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + below}" '
        f'viewBox="0 0 {width} {height + below}" font-family="sans-serif" font-size="{text}"'
        f"{_named(label)}",
        f'<text x="{left}" y="{px(16)}" font-size="{text + 2}" font-weight="bold">'
        f"{escape(title)}</text>",
    ]
    for pct in range(0, 101, 25):
        yy = y(pct / 100)
        out.append(
            f'<line x1="{left}" y1="{yy:.1f}" x2="{left + plot_w}" y2="{yy:.1f}" stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{left - px(6)}" y="{yy + px(4):.1f}" text-anchor="end">{pct} %</text>'
        )
    apart = 1.3 * text + px(4)  # two digits and a gap: a count's label never touches the next
    shown = -apart
    for n in sorted(counts):
        if x(n) - shown < apart:
            continue  # many counts on a narrow plot: every other one labelled
        shown = x(n)
        out.append(
            f'<text x="{x(n):.1f}" y="{top + plot_h + px(16)}" text-anchor="middle">{n}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - px(4)}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    lx, first = (left, height + px(10)) if legend_below else (left + plot_w + px(12), top + px(6))
    camps: dict[str, str] = {}  # a camp keeps its colour at every bot level
    for i, (label, points) in enumerate(series.items()):
        camp = label.partition(" (")[0]
        colour = camps.setdefault(camp, COLOURS[len(camps) % len(COLOURS)])
        dash = ' stroke-dasharray="5 3"' if label in dashed else ""
        coords = " ".join(f"{x(n):.1f},{y(r):.1f}" for n, r in points)
        if len(points) > 1:
            out.append(
                f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'
            )
        for n, r in points:
            fill = (
                f'fill="#fff" stroke="{colour}" stroke-width="1.5"' if dash else f'fill="{colour}"'
            )
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(r):.1f}" r="3.5" {fill}/>')
        ly = first + row * i
        out.append(
            f'<line x1="{lx}" y1="{ly}" x2="{lx + px(18)}" y2="{ly}" stroke="{colour}" '
            f'stroke-width="2"{dash}/>'
        )
        out.append(f'<text x="{lx + px(24)}" y="{ly + px(4)}">{escape(label)}</text>')
    if dashed:
        ly = first - px(6) + row * len(series) + px(16)
        out.append(f'<text x="{lx}" y="{ly}" fill="#555">solid, filled: random bots</text>')
        out.append(
            f'<text x="{lx}" y="{ly + row}" fill="#555">dashed, hollow: informed bots</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _named(label: str | None) -> str:
    """The end of the ``<svg`` tag: an accessible name and a ``<title>`` when ``label``."""
    if label is None:
        return ">"
    return f' role="img" aria-label="{escape(label, {chr(34): "&quot;"})}"><title>{escape(label)}</title>'


Bar = tuple[str, float, float | None, float | None]
"""A bar's label, its value (a rate from 0 to 1) and its interval's ends (None: no interval)."""


def svg_bars(
    title: str,
    bars: Sequence[Bar],
    *,
    label: str | None = None,
    width: int = 400,
    text: int = 11,
    left: int | None = None,
) -> str:
    """Horizontal bars of rates (0 to 100 %), each with its 95 % interval as a whisker, as an
    SVG document ``width`` px wide (400: a phone's page shows it unscaled). ``text``: the
    texts' size in px (the title's 2 px more), the rows and margins growing with it;
    ``left``: the names' room (default: a third of the width, at most 150 px), each name cut
    to what 11 px texts fit in 22 characters."""
    k = text / 11

    def px(length: float) -> int:
        return round(length * k)

    row, top, right = px(22), px(26), px(44)
    left = min(150, width // 3) if left is None else left
    most = 22 * 11 // text  # a name's characters
    plot_w = width - left - right
    height = top + row * len(bars) + px(22)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{text}"'
        f"{_named(label)}",
        f'<text x="0" y="{px(16)}" font-size="{text + 2}" font-weight="bold">{escape(title)}</text>',
    ]
    for pct in range(0, 101, 25):
        xx = left + plot_w * pct / 100
        out.append(
            f'<line x1="{xx:.1f}" y1="{top - px(4)}" x2="{xx:.1f}" y2="{top + row * len(bars)}" '
            'stroke="#ddd"/>'
        )
        if pct % 50 and text > 11:
            continue  # larger texts: 0, 50 and 100 % alone, never touching
        out.append(
            f'<text x="{xx:.1f}" y="{top + row * len(bars) + px(14)}" text-anchor="middle">'
            f"{pct} %</text>"
        )
    for i, (name, rate, low, high) in enumerate(bars):
        y = top + row * i
        colour = COLOURS[i % len(COLOURS)]
        shown = name if len(name) <= most else name[: most - 1] + "…"
        out.append(
            f'<text x="{left - px(6)}" y="{y + px(14)}" text-anchor="end">{escape(shown)}</text>'
        )
        out.append(
            f'<rect x="{left}" y="{y + px(3)}" width="{max(1.0, plot_w * rate):.1f}" '
            f'height="{row - px(8)}" fill="{colour}" fill-opacity="0.75"/>'
        )
        if low is not None and high is not None:
            x1, x2, mid = left + plot_w * low, left + plot_w * high, y + row / 2 - 1
            out.append(
                f'<path d="M{x1:.1f} {mid - 5:.1f}v10M{x1:.1f} {mid:.1f}H{x2:.1f}'
                f'M{x2:.1f} {mid - 5:.1f}v10" stroke="#222" fill="none"/>'
            )
        out.append(
            f'<text x="{width - 2}" y="{y + px(14)}" text-anchor="end">{round(100 * rate)} %</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
