"""The archive in a real headless browser: Chromium renders it at a phone's width.

CI installs Chromium with scripts/install-mailstack.sh (``make test`` runs it); the PNG is
decoded with the standard library (zlib) to check that the page is not blank. The layout is
measured in the browser too: each game's archive is loaded in a 412 px frame of one probe page
(headless Chromium keeps its window at least 500 px wide), whose script reports each frame's
scroll width and the sections it found (the archive itself runs no script); the four games
and the probe's own check share one Chromium, once per run.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

from pbem.record.archive import archive_files
from tests.archive.bot_games import GAMES, whole_game
from tests.support.once_per_run import once_per_run

WIDTH, HEIGHT = 412, 2000  # a phone's CSS width
SECTIONS = ["distribution", "recit", "mj", "donne"]
"""The archive's sections (h2 ids): the cast, the story, the game master's acts, the deal."""
PROBE = """<!DOCTYPE html><html><body style="margin:0">
%s
<script>
const frames = [...document.querySelectorAll("iframe")];
function measure(f) {
  const d = f.contentDocument, root = d.documentElement;
  const wide = [...d.querySelectorAll("body *")]
    .filter(e => e.getBoundingClientRect().right > root.clientWidth + 1)
    .map(e => e.tagName + "." + e.className).slice(0, 10);
  return {
    scroll: root.scrollWidth, client: root.clientWidth, wide: wide,
    sections: [...d.querySelectorAll("h2[id]")].map(h => h.id),
    details: d.querySelectorAll("details").length,
    charts: d.querySelectorAll("svg[role=img] title").length,
  };
}
// the page's load event comes once every frame has loaded (a frame's own load event may come
// before this script has run)
window.addEventListener("load", () => {
  document.body.setAttribute("data-layout", JSON.stringify(frames.map(measure)));
});
</script></body></html>"""
FRAME = '<iframe style="width:%dpx;height:%dpx;border:0;display:block" srcdoc="%s"></iframe>'
"""One page a frame, measured together: one Chromium for them all (a start costs a second of
CPU)."""


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed: run scripts/install-mailstack.sh (make test does it)"
    return path


def screenshot(page: Path, png: Path, profile: Path) -> None:
    subprocess.run(
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
            f"--screenshot={png}",
            f"--window-size={WIDTH},{HEIGHT}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )


def layouts(pages: list[str], tmp: Path) -> list[dict[str, object]]:
    """What Chromium measured of each page in a 412 px frame (see the module's docstring)."""
    probe = tmp / "probe.html"
    frames = "\n".join(FRAME % (WIDTH, HEIGHT, html.escape(page, quote=True)) for page in pages)
    probe.write_text(PROBE % frames, encoding="utf-8")
    done = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp / 'profile'}",
            f"--window-size={WIDTH + 100},{HEIGHT}",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
        text=True,
    )
    found = re.search(r'data-layout="([^"]*)"', done.stdout)
    assert found, done.stdout[-500:]
    result: list[dict[str, object]] = json.loads(html.unescape(found.group(1)))
    assert len(result) == len(pages)
    return result


def layout(page: str, tmp: Path) -> dict[str, object]:
    """What Chromium measured of ``page`` in a 412 px frame."""
    return layouts([page], tmp)[0]


WIDE_TABLE = '<table style="width:600px"><tr><td>x</td></tr></table></body>'


def measure_archives() -> dict[str, dict[str, object]]:
    """Each game's archive measured, and Lupus's with a table wider than a phone (the probe's
    own check), in one Chromium."""
    pages = {game: archive_files(whole_game(game, "fr"))["html"] for game in GAMES}
    pages["wide"] = pages["lupus-in-tabula"].replace("</body>", WIDE_TABLE)
    with tempfile.TemporaryDirectory(prefix="pbem-layouts-") as tmp:
        return dict(zip(pages, layouts(list(pages.values()), Path(tmp)), strict=True))


def measured(page: str) -> dict[str, object]:
    """What Chromium measured of ``page`` (a game, or ``wide``): measured once per run."""
    return once_per_run("archive-layouts", measure_archives)[page]


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit truecolour PNG, unfiltered."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


@pytest.mark.parametrize("game", GAMES)
def test_the_archive_renders_in_headless_chromium_at_a_phones_width(
    game: str, tmp_path: Path
) -> None:
    page = tmp_path / f"{game}.html"
    page.write_text(archive_files(whole_game(game, "fr"))["html"], encoding="utf-8")
    png = tmp_path / "shot.png"
    screenshot(page, png, tmp_path / "profile")
    width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == (WIDTH, HEIGHT)
    channels = len(rows[0]) // width
    pixels = [row[i : i + 3] for row in rows[::4] for i in range(0, len(row), channels * 2)]
    colours = set(pixels)
    white = sum(p == b"\xff\xff\xff" for p in pixels)
    assert len(colours) > 50  # text, the banner, the table shades: not a blank page
    assert 0.05 < 1 - white / len(pixels) < 0.9
    # the winners' banner (dark green #1b6b2a) is painted near the top
    top = {p for p in pixels[: len(pixels) // 6]}
    assert b"\x1b\x6b\x2a" in top


@pytest.mark.parametrize("game", GAMES)
def test_the_archive_fits_a_phones_width_with_every_section(game: str) -> None:
    """Issue 22: no horizontal scroll at 412 px, and the cast, the story (its mails folded
    in <details>, its charts named), the game master's acts and the deal are all there."""
    layout = measured(game)
    assert layout["scroll"] == layout["client"], layout["wide"]
    assert layout["sections"] == SECTIONS
    assert isinstance(layout["details"], int) and layout["details"] > 10
    assert isinstance(layout["charts"], int) and layout["charts"] >= 1


def test_the_width_probe_sees_a_page_wider_than_a_phone() -> None:
    """The probe above is not blind: a 600 px table in the archive makes it scroll."""
    layout = measured("wide")
    assert isinstance(layout["scroll"], int) and isinstance(layout["client"], int)
    assert layout["scroll"] > layout["client"]
