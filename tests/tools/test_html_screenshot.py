"""The HTML mails in a real headless browser (issue 15): a role card, a prompt with quick
actions, a tally and one of the daemon's own mails (a confirmation request), each shown in a
frame a phone wide (390 CSS px), screenshotted (not blank; the quick actions' buttons painted)
and measured (no horizontal scroll, no text under 14 px, quick actions a thumb can tap, no name
cut in a tally with a long name at 360 px; the kinds and the measure's own check in frames of
one page, one Chromium a run for the measures and one for the screenshots)."""

from __future__ import annotations

import functools
import html
import itertools
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pbem.mail.html import alternative, to_html
from pbem.mail.render import shared_renderer
from pbem.tools.mailboxes import play_and_deliver
from tests.archive.test_screenshot import chromium, decode_png
from tests.support.once_per_run import once_per_run

PHONE = 390  # an iPhone's CSS width
WINDOW = (500, 1400)  # headless Chromium lays out at least 500 px wide: the frame is the phone
BUTTON = b"\x0b\x5c\xad"  # pbem.mail.html.BUTTON's background


@functools.cache
def pages() -> dict[str, str]:
    """One mail of each kind from a whole Lupus game, in French (a reply to an order: the
    game master's signature under it)."""
    _table, delivered = play_and_deliver("lupus-in-tabula", "fr", 1)
    wanted = {
        "role card": lambda s, h: "Votre rôle" in s,
        "prompt with quick actions": lambda s, h: "la meute chasse" in s and "mailto:" in h,
        "tally": lambda s, h: "décompte" in s and "<td" in h,
        "reply to an order": lambda s, h: "maître du jeu" in h,  # signed by the game master
    }
    found: dict[str, str] = {}
    for item in delivered:
        for kind, match in wanted.items():
            if kind not in found and match(item.mail.subject, item.mail.html):
                found[kind] = item.mail.html
    assert set(found) == set(wanted)
    subject, body = shared_renderer().mail(
        "daemon/confirm_vote",
        "fr",
        {"game": "village1", "token": "3f9a0c2d", "lines": ["VOTE Bob"], "secret": True},
    )
    # one of the daemon's own mails, as the daemon builds its alternative
    found["confirmation request"] = alternative(subject, body, enabled=True)
    return found


def phone_frames(pages: list[tuple[str, int]]) -> str:
    """Each mail in a frame of its width (a phone's), one under the other; the page reports
    what it measured of each frame in its title, as JSON, once they are all loaded: the
    scroll and client widths, the text set under 14 px, the links' boxes (left, top, width,
    height) and the players' names (bold, one word) a table cell cut over two lines."""
    frames = "".join(
        f'<iframe style="border:0;display:block;width:{width}px;height:{WINDOW[1]}px" '
        f'srcdoc="{html.escape(page)}"></iframe>'
        for page, width in pages
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>-</title></head>'
        f'<body style="margin:0;background:#ffffff">{frames}<script>{MEASURE}</script>'
        "</body></html>"
    )


MEASURE = """
function measure(f) {
  var d = f.contentDocument, root = d.documentElement, small = [], walker, node;
  walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
  while ((node = walker.nextNode())) {
    var size = parseFloat(f.contentWindow.getComputedStyle(node.parentElement).fontSize);
    if (node.textContent.trim() && size < 14) small.push(size + "px " + node.textContent.trim());
  }
  var links = Array.from(d.querySelectorAll("a[href]")).map(function (a) {
    var r = a.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; });
  var cut = Array.from(d.querySelectorAll("td b")).filter(function (b) {
    return !/[\\s-]/.test(b.textContent) && b.getClientRects().length > 1;
  }).map(function (b) { return b.textContent; });
  return {scroll: root.scrollWidth, client: root.clientWidth, small: small, links: links,
          cut: cut};
}
// the page's load event comes once every frame has loaded (a frame's own load event may come
// before this script has run)
window.addEventListener("load", function () {
  document.title = JSON.stringify(Array.from(document.querySelectorAll("iframe")).map(measure));
});
"""


def chromium_run(page: Path, profile: Path, *args: str, window: tuple[int, int] = WINDOW) -> str:
    done = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--window-size={window[0]},{window[1]}",
            "--virtual-time-budget=5000",  # the frame's load event fires before the dump
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


STYLE = re.compile(r' style="[^"]*"')
KINDS = ["role card", "prompt with quick actions", "tally", "confirmation request"]
LONG_NAME = "Marie-Charlotte-Dubreuil"  # 24 characters, a player's name as players choose them
NARROW = 360  # the narrowest phones still common (a small Android's CSS width)


def long_name_tally() -> str:
    """A tally whose first voter has a long name, as the page renders it."""
    body = f"Votes :\n  {LONG_NAME} → Alice\n  Chloé → Alice\n  Manon → Jules\n"
    body += "Décompte : Alice 2, Jules 1.\n"
    return to_html("[g] Jour 1", body, names=[LONG_NAME, "Alice", "Chloé", "Jules", "Manon"])


def measure_pages() -> dict[str, dict[str, Any]]:
    """What Chromium measured of each kind of mail in a phone's frame, of a tally with a long
    name in a narrow phone's (``long name``), and of the tally laid out 700 px wide
    (``wide``: the measure's own check), in one Chromium."""
    mails = {kind: (pages()[kind], PHONE) for kind in [*KINDS, "reply to an order"]}
    mails["long name"] = (long_name_tally(), NARROW)
    # a client that keeps no style (Outlook's padding and margins, a stripped page)
    mails["unstyled prompt"] = (STYLE.sub("", pages()["prompt with quick actions"]), NARROW)
    mails["wide"] = (pages()["tally"].replace("max-width:600px", "width:700px"), PHONE)
    with tempfile.TemporaryDirectory(prefix="pbem-phone-") as tmp:
        page = Path(tmp) / "mails.html"
        page.write_text(phone_frames(list(mails.values())), encoding="utf-8")
        dom = chromium_run(page, Path(tmp) / "profile", "--dump-dom")
    found = re.search(r"<title>(\[.*?\])</title>", dom)
    assert found, dom[:500]
    return dict(zip(mails, json.loads(html.unescape(found.group(1))), strict=True))


def measured(kind: str) -> dict[str, Any]:
    """What Chromium measured of ``kind``: measured once per run, for every kind at once."""
    return once_per_run("mail-layouts", measure_pages)[kind]


def widths(kind: str) -> tuple[int, int]:
    """(scroll width, client width) of ``kind`` in its phone's frame."""
    layout = measured(kind)
    return int(layout["scroll"]), int(layout["client"])


def side_by_side(pages: list[str]) -> str:
    """The mails in frames a phone wide, side by side from the left edge: one screenshot for
    them all, each frame's pixels at its own columns (one Chromium start, not one a kind)."""
    frames = "".join(
        f'<iframe style="border:0;display:block;flex:none;width:{PHONE}px;height:{WINDOW[1]}px" '
        f'srcdoc="{html.escape(page)}"></iframe>'
        for page in pages
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>-</title></head>'
        f'<body style="margin:0;background:#ffffff;display:flex">{frames}</body></html>'
    )


def shoot_kinds() -> dict[str, list[bytes]]:
    """Every kind's frame as Chromium painted it: its rows of RGB pixels, every third row (what
    the test looks at), from one screenshot of the frames side by side."""
    with tempfile.TemporaryDirectory(prefix="pbem-shots-") as tmp:
        page, png = Path(tmp) / "mails.html", Path(tmp) / "shot.png"
        page.write_text(side_by_side([pages()[kind] for kind in KINDS]), encoding="utf-8")
        chromium_run(
            page,
            Path(tmp) / "profile",
            f"--screenshot={png}",
            window=(PHONE * len(KINDS), WINDOW[1]),
        )
        width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == (PHONE * len(KINDS), WINDOW[1])
    channels = len(rows[0]) // width
    return {
        kind: [
            b"".join(
                row[x : x + 3]
                for x in range(n * PHONE * channels, (n + 1) * PHONE * channels, channels)
            )
            for row in rows[::3]
        ]
        for n, kind in enumerate(KINDS)
    }


@functools.cache
def painted(kind: str) -> list[bytes]:
    """The rows of ``kind``'s frame (every third), painted once per run for every kind at once."""
    return once_per_run("mail-screenshots", shoot_kinds)[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_the_mail_renders_in_headless_chromium_at_a_phones_width(kind: str) -> None:
    scroll, client = widths(kind)
    assert client == PHONE and scroll <= client  # no horizontal scroll on a phone

    rows = painted(kind)
    phone = [row[i : i + 3] for row in rows for i in range(0, PHONE * 3, 3)]
    white = sum(p == b"\xff\xff\xff" for p in phone)
    assert len(set(phone)) > 20  # text in several shades: not a blank page
    assert white < len(phone)
    if kind == "prompt with quick actions":
        assert BUTTON in set(phone)  # the buttons are painted


def test_a_page_wider_than_a_phone_is_caught() -> None:
    """The measure itself: a mail laid out 700 px wide scrolls in the phone's frame."""
    scroll, client = widths("wide")
    assert scroll > client


@pytest.mark.parametrize("kind", [*KINDS, "reply to an order"])
def test_no_text_of_a_mail_is_under_14_px(kind: str) -> None:
    """Read on a phone, the quick actions' note and the game master's signature were 13 px."""
    assert measured(kind)["small"] == []


def test_the_quick_actions_are_44_px_high_and_8_px_apart() -> None:
    """A thumb's target (Apple's and WCAG 2.5.5's 44 px): the buttons were 40 px high and 6 px
    apart, so a tap meant for « Bob » could mail VOTE for his neighbour."""
    links = measured("prompt with quick actions")["links"]
    assert len(links) > 3
    assert min(height for _left, _top, _width, height in links) >= 44
    assert min(width for _left, _top, width, _height in links) >= 44
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in itertools.combinations(links, 2):
        apart_x = max(x2 - (x1 + w1), x1 - (x2 + w2))
        apart_y = max(y2 - (y1 + h1), y1 - (y2 + h2))
        assert max(apart_x, apart_y) >= 8, ((x1, y1, w1, h1), (x2, y2, w2, h2))


def test_a_long_name_in_a_tally_cuts_no_other_name_on_a_narrow_phone() -> None:
    """A 24-character voter's name took the room of the others: at 360 px, « Alice » was cut
    « Alic|e » over two lines. Each name's column has half the width now; the long name
    wraps at its hyphens, and no page scrolls sideways."""
    layout = measured("long name")
    assert layout["cut"] == []
    assert layout["scroll"] <= layout["client"] == NARROW


def test_the_quick_actions_read_as_words_in_a_client_that_drops_the_styles() -> None:
    """With its styles dropped, a prompt's links ran together (« AliceBrunoChloé »), one
    unbreakable word wider than the phone: the page scrolled sideways at 360 px."""
    assert "</a><a" not in pages()["prompt with quick actions"]
    layout = measured("unstyled prompt")
    assert layout["scroll"] <= layout["client"] == NARROW
