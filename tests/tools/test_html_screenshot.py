"""The HTML mails in a real headless browser (issue 15): a role card, a prompt with quick
actions, a tally and one of the daemon's own mails (a confirmation request), each shown in a
frame a phone wide (390 CSS px), screenshotted (not blank; the quick actions' buttons painted)
and measured (no horizontal scroll; the four kinds and the measure's own check in frames of one
page, one Chromium a run)."""

from __future__ import annotations

import functools
import html
import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from pbem.mail.html import alternative
from pbem.mail.render import shared_renderer
from pbem.tools.mailboxes import play_and_deliver
from tests.archive.test_screenshot import chromium, decode_png
from tests.support.once_per_run import once_per_run

PHONE = 390  # an iPhone's CSS width
WINDOW = (500, 1400)  # headless Chromium lays out at least 500 px wide: the frame is the phone
BUTTON = b"\x0b\x5c\xad"  # pbem.mail.html.BUTTON's background


@functools.cache
def pages() -> dict[str, str]:
    """One mail of each kind from a whole Lupus game, in French."""
    _table, delivered = play_and_deliver("lupus-in-tabula", "fr", 1)
    wanted = {
        "role card": lambda s, h: "Votre rôle" in s,
        "prompt with quick actions": lambda s, h: "la meute chasse" in s and "mailto:" in h,
        "tally": lambda s, h: "décompte" in s and "<td" in h,
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


def phone_frame(page: str) -> str:
    """The mail in a frame a phone wide; the frame's page reports its scroll width in the
    title (the mail itself carries no script: this is the test's own page around it)."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>-</title></head>'
        '<body style="margin:0;background:#ffffff">'
        f'<iframe id="mail" style="border:0;width:{PHONE}px;height:{WINDOW[1]}px" '
        f'srcdoc="{html.escape(page)}"></iframe><script>'
        'document.getElementById("mail").onload = function () {'
        "  var root = this.contentDocument.documentElement;"
        '  document.title = "scroll=" + root.scrollWidth + " client=" + root.clientWidth;'
        "};</script></body></html>"
    )


def phone_frames(pages: list[str]) -> str:
    """Each mail in a frame a phone wide, one under the other; the page reports each frame's
    scroll width in its title, as JSON, once they are all loaded."""
    frames = "".join(
        f'<iframe style="border:0;display:block;width:{PHONE}px;height:{WINDOW[1]}px" '
        f'srcdoc="{html.escape(page)}"></iframe>'
        for page in pages
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>-</title></head>'
        f'<body style="margin:0;background:#ffffff">{frames}<script>'
        # the page's load event comes once every frame has loaded (a frame's own load event
        # may come before this script has run)
        'window.addEventListener("load", function () {'
        '  var frames = Array.from(document.querySelectorAll("iframe"));'
        "  document.title = JSON.stringify(frames.map(function (f) {"
        "    var root = f.contentDocument.documentElement;"
        "    return [root.scrollWidth, root.clientWidth]; }));"
        "});</script></body></html>"
    )


def chromium_run(page: Path, profile: Path, *args: str) -> str:
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
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
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


KINDS = ["role card", "prompt with quick actions", "tally", "confirmation request"]


def measure_widths() -> dict[str, tuple[int, int]]:
    """(scroll width, client width) of each kind of mail in a phone's frame, and of the tally
    laid out 700 px wide (``wide``: the measure's own check), in one Chromium."""
    mails = {kind: pages()[kind] for kind in KINDS}
    mails["wide"] = pages()["tally"].replace("max-width:600px", "width:700px")
    with tempfile.TemporaryDirectory(prefix="pbem-phone-") as tmp:
        page = Path(tmp) / "mails.html"
        page.write_text(phone_frames(list(mails.values())), encoding="utf-8")
        dom = chromium_run(page, Path(tmp) / "profile", "--dump-dom")
    found = re.search(r"<title>(\[.*?\])</title>", dom)
    assert found, dom[:500]
    widths = [(int(scroll), int(client)) for scroll, client in json.loads(found.group(1))]
    return dict(zip(mails, widths, strict=True))


def widths(kind: str) -> tuple[int, int]:
    """What Chromium measured of ``kind``: measured once per run, for every kind at once."""
    return once_per_run("mail-widths", measure_widths)[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_the_mail_renders_in_headless_chromium_at_a_phones_width(kind: str, tmp_path: Path) -> None:
    scroll, client = widths(kind)
    assert client == PHONE and scroll <= client  # no horizontal scroll on a phone

    page = tmp_path / "mail.html"
    page.write_text(phone_frame(pages()[kind]), encoding="utf-8")
    png = tmp_path / "shot.png"
    chromium_run(page, tmp_path / "profile", f"--screenshot={png}")
    width, _height, rows = decode_png(png.read_bytes())
    channels = len(rows[0]) // width
    phone = [row[i : i + 3] for row in rows[::3] for i in range(0, PHONE * channels, channels)]
    white = sum(p == b"\xff\xff\xff" for p in phone)
    assert len(set(phone)) > 20  # text in several shades: not a blank page
    assert white < len(phone)
    if kind == "prompt with quick actions":
        assert BUTTON in set(phone)  # the buttons are painted


def test_a_page_wider_than_a_phone_is_caught() -> None:
    """The measure itself: a mail laid out 700 px wide scrolls in the phone's frame."""
    scroll, client = widths("wide")
    assert scroll > client
