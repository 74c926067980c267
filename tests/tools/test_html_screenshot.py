"""The HTML mails in a real headless browser (issue 15): a role card, a prompt with quick
actions, a tally and one of the daemon's own mails (a confirmation request), each shown in a frame a phone wide (390 CSS px), screenshotted (not
blank; the quick actions' buttons painted) and measured (no horizontal scroll)."""

from __future__ import annotations

import functools
import html
import re
import subprocess
from pathlib import Path

import pytest

from pbem.mail.html import alternative
from pbem.mail.render import shared_renderer
from pbem.tools.mailboxes import play_and_deliver
from tests.archive.test_screenshot import chromium, decode_png

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


@pytest.mark.parametrize(
    "kind", ["role card", "prompt with quick actions", "tally", "confirmation request"]
)
def test_the_mail_renders_in_headless_chromium_at_a_phones_width(kind: str, tmp_path: Path) -> None:
    page = tmp_path / "mail.html"
    page.write_text(phone_frame(pages()[kind]), encoding="utf-8")
    dom = chromium_run(page, tmp_path / "profile", "--dump-dom")
    widths = re.search(r"<title>scroll=(\d+) client=(\d+)</title>", dom)
    assert widths, dom[:500]
    scroll, client = int(widths.group(1)), int(widths.group(2))
    assert client == PHONE and scroll <= client  # no horizontal scroll on a phone

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


def test_a_page_wider_than_a_phone_is_caught(tmp_path: Path) -> None:
    """The measure itself: a mail laid out 700 px wide scrolls in the phone's frame."""
    wide = pages()["tally"].replace("max-width:600px", "width:700px")
    page = tmp_path / "wide.html"
    page.write_text(phone_frame(wide), encoding="utf-8")
    dom = chromium_run(page, tmp_path / "profile", "--dump-dom")
    widths = re.search(r"<title>scroll=(\d+) client=(\d+)</title>", dom)
    assert widths and int(widths.group(1)) > int(widths.group(2))
