"""The archive in a real headless browser: Chromium renders it at a phone's width.

CI installs Chromium with scripts/install-mailstack.sh (``make test`` runs it); the PNG is
decoded with the standard library (zlib) to check that the page is not blank. The layout is
measured in the browser too: each game's archive is loaded in a 412 px frame of one probe page
(headless Chromium keeps its window at least 500 px wide), whose script reports each frame's
scroll width and the sections it found (the archive itself runs no script); the four games
and the probe's own check share one Chromium, once per run, and the four games' screenshot
another (their frames side by side).
"""

from __future__ import annotations

import functools
import html
import itertools
import json
import random
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
  // a table scrolled sideways in its own box (.wide): the page fits, the table does not
  const inner = [...d.querySelectorAll(".wide")].filter(e => e.scrollWidth > e.clientWidth)
    .map(e => e.scrollWidth + ">" + e.clientWidth + " " + e.textContent.trim().slice(0, 40));
  const small = [], walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const parent = node.parentElement;
    // a chart's text as the phone shows it: its size times the chart's scale on the page
    const svg = parent.closest("svg"), box = svg && svg.viewBox.baseVal;
    const scale = box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
    const size = parseFloat(f.contentWindow.getComputedStyle(parent).fontSize) * scale;
    // the deal's marker is for pbem verify, not for the eye: it is hidden, never drawn small
    if (node.textContent.trim() && size < 14 && !parent.closest("[hidden], title, desc"))
      small.push(size.toFixed(1) + "px " + node.textContent.trim().slice(0, 40));
  }
  const overlaps = [], shrunk = [], haloless = [];
  for (const svg of d.querySelectorAll("svg.tally")) {
    for (const text of svg.querySelectorAll("text")) {
      const style = f.contentWindow.getComputedStyle(text);
      if (style.stroke !== "rgb(255, 255, 255)" || !style.paintOrder.startsWith("stroke"))
        haloless.push(text.textContent);
    }
    if (svg.getBoundingClientRect().width < svg.width.baseVal.value) shrunk.push(svg.id);
    const bars = [...svg.querySelectorAll("rect")].map(r => r.getBoundingClientRect());
    for (const text of svg.querySelectorAll("text")) {
      const t = text.getBoundingClientRect();
      if (bars.some(b => t.left < b.right && b.left < t.right && t.top < b.bottom && b.top < t.bottom))
        overlaps.push(text.textContent);
    }
  }
  // a winner's star on a line of its own, under his name
  const stars = [...d.querySelectorAll("td.win")].filter(td => {
    const text = td.firstChild, at = text.textContent.indexOf("★");
    const star = d.createRange(), before = d.createRange();
    star.setStart(text, at); star.setEnd(text, at + 1);
    before.setStart(text, at - 2); before.setEnd(text, at - 1);
    return at > 1 && star.getBoundingClientRect().top !== before.getBoundingClientRect().top;
  }).map(td => td.textContent.trim().slice(0, 30));
  // the folds (a phase's orders, each mail): is what they hold shown?
  const folded = [...d.querySelectorAll("details")]
    .filter(x => ![...x.children].some(c => c.tagName !== "SUMMARY" && c.checkVisibility()))
    .length;
  // the folds' summaries are what a thumb taps: how high, how far apart
  const folds = [...d.querySelectorAll("summary")].map(x => x.getBoundingClientRect());
  const apart = folds.slice(1).map((box, i) => box.top - folds[i].bottom).filter(g => g >= 0);
  return {
    scroll: root.scrollWidth, client: root.clientWidth, wide: wide, inner: inner,
    stars: stars, folded: folded, summaryHeight: Math.min(...folds.map(box => box.height)),
    summaryApart: Math.min(...apart),
    sections: [...d.querySelectorAll("h2[id]")].map(h => h.id),
    details: d.querySelectorAll("details").length,
    charts: d.querySelectorAll("svg[role=img] title").length,
    small: small.slice(0, 10), overlaps: overlaps, shrunk: shrunk, haloless: haloless,
  };
}
// the page's load event comes once every frame has loaded (a frame's own load event may come
// before this script has run)
window.addEventListener("load", () => {
  document.body.setAttribute("data-layout", JSON.stringify(frames.map(measure)));
});
</script></body></html>"""
FRAME = (
    '<iframe style="width:%dpx;height:%dpx;border:0;display:block;flex:none" srcdoc="%s"></iframe>'
)
"""One page a frame, measured (or screenshotted) together: one Chromium for them all (a start
costs a second of CPU)."""


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed: run scripts/install-mailstack.sh (make test does it)"
    return path


def screenshot(page: Path, png: Path, profile: Path, window: tuple[int, int]) -> None:
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
            f"--window-size={window[0]},{window[1]}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )


def shoot_archives() -> dict[str, bytes]:
    """Each game's archive as Chromium painted it in a frame a phone wide (412 x 2000, its
    scroll bar inside, as in a window of that size), the frames side by side in one
    screenshot: every other pixel of every fourth row of each frame (what the test looks at),
    their RGB bytes end to end."""
    frames = "".join(
        FRAME % (WIDTH, HEIGHT, html.escape(archive_files(whole_game(game, "fr"))["html"]))
        for game in GAMES
    )
    page = f'<!DOCTYPE html><html><body style="margin:0;display:flex">{frames}</body></html>'
    with tempfile.TemporaryDirectory(prefix="pbem-shots-") as tmp:
        path, png = Path(tmp) / "archives.html", Path(tmp) / "shot.png"
        path.write_text(page, encoding="utf-8")
        screenshot(path, png, Path(tmp) / "profile", (WIDTH * len(GAMES), HEIGHT))
        width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == (WIDTH * len(GAMES), HEIGHT)
    channels = len(rows[0]) // width
    return {
        game: b"".join(
            row[x : x + 3]
            for row in rows[::4]
            for x in range(n * WIDTH * channels, (n + 1) * WIDTH * channels, channels * 2)
        )
        for n, game in enumerate(GAMES)
    }


@functools.cache
def painted(game: str) -> list[bytes]:
    """The pixels of ``game``'s archive the test looks at, painted once per run for all."""
    shot = once_per_run("archive-screenshots", shoot_archives)[game]
    return [shot[i : i + 3] for i in range(0, len(shot), 3)]


def layouts(
    pages: list[str], tmp: Path, widths: list[int] | None = None
) -> list[dict[str, object]]:
    """What Chromium measured of each page in a 412 px frame, or in a frame of its width in
    ``widths`` (see the module's docstring)."""
    probe = tmp / "probe.html"
    frames = "\n".join(
        FRAME % (width, HEIGHT, html.escape(page, quote=True))
        for page, width in zip(pages, widths or [WIDTH] * len(pages), strict=True)
    )
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
NARROW = 360  # the narrowest phones still common (a small Android's CSS width)
LONG_NAME = "Marie-Charlotte-Dubreuil"  # 24 characters, a player's name as players choose them


def measure_archives() -> dict[str, dict[str, object]]:
    """Each game's archive measured, Lupus's with a table wider than a phone (the probe's
    own check), each game's with Alice called :data:`LONG_NAME` at 360 px (``long-GAME``)
    and Lupus's print view (``print``), in one Chromium."""
    pages = {game: archive_files(whole_game(game, "fr"))["html"] for game in GAMES}
    pages["wide"] = pages["lupus-in-tabula"].replace("</body>", WIDE_TABLE)
    for game in GAMES:
        pages[f"long-{game}"] = pages[game].replace("Alice", LONG_NAME)
    # the print view, laid out on the screen: the page with its print styles for every medium
    pages["print"] = pages["lupus-in-tabula"].replace("@media print{", "@media all{")
    widths = [NARROW if page.startswith("long-") else WIDTH for page in pages]
    with tempfile.TemporaryDirectory(prefix="pbem-layouts-") as tmp:
        measures = layouts(list(pages.values()), Path(tmp), widths)
        return dict(zip(pages, measures, strict=True))


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
    previous = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = unfilter(raw[start], raw[start + 1 : start + 1 + stride], previous, channels)
        rows.append(line)
        previous = line
    return width, height, rows


def unfilter(kind: int, line: bytes, previous: bytes, channels: int) -> bytes:
    """One row of a PNG with its filter undone (``previous``: the row above, unfiltered).

    Chromium filters most rows with None, Sub or Up: those are undone a whole row at a time
    (Up as one addition of two big integers, bytewise, Sub as a running sum per channel), not
    byte by byte in Python (three screenshots' decoding was a second of CPU each)."""
    if kind == 0:
        return line
    if kind == 2:  # Up: each byte plus the one above, modulo 256, with no carry between bytes
        low = int.from_bytes(b"\x7f" * len(line), "big")
        high = int.from_bytes(b"\x80" * len(line), "big")
        a, b = int.from_bytes(line, "big"), int.from_bytes(previous, "big")
        total = ((a & low) + (b & low)) ^ ((a ^ b) & high)
        return total.to_bytes(len(line), "big")
    out = bytearray(line)
    if kind == 1:  # Sub: each byte plus the one a pixel to its left: a running sum per channel
        for c in range(channels):
            out[c::channels] = bytes(map((255).__and__, itertools.accumulate(line[c::channels])))
        return bytes(out)
    # Average (3) and Paeth (4) depend on the byte just undone: byte by byte (the first pixel
    # has no left neighbour: both predict the byte above it, halved for Average)
    for i in range(channels):
        out[i] = (out[i] + (previous[i] // 2 if kind == 3 else previous[i])) & 0xFF
    if kind == 3:
        for i in range(channels, len(out)):
            out[i] = (out[i] + (out[i - channels] + previous[i]) // 2) & 0xFF
        return bytes(out)
    for i in range(channels, len(out)):
        left, up, corner = out[i - channels], previous[i], previous[i - channels]
        pa, pb, pc = abs(up - corner), abs(left - corner), abs(left + up - 2 * corner)
        pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
        out[i] = (out[i] + pred) & 0xFF
    return bytes(out)


@pytest.mark.parametrize("game", GAMES)
def test_the_archive_renders_in_headless_chromium_at_a_phones_width(game: str) -> None:
    pixels = painted(game)
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
    assert layout["stars"] == []  # « Bruno ★ », never the star alone under the name
    assert layout["folded"] == layout["details"]  # on the screen, the mails are folded
    # a browser that darkens the page (Chrome's dark theme for sites) darkens the chart's
    # ground but not its SVG text: black names on black, but for their white halo
    assert layout["haloless"] == []


@pytest.mark.parametrize("game", GAMES)
def test_the_archives_folds_are_44_px_high_and_8_px_apart(game: str) -> None:
    """A fold (a phase's orders, each mail) opens under a thumb: its summary was 40 px high
    and 5 px from the next one."""
    layout = measured(game)
    height, apart = layout["summaryHeight"], layout["summaryApart"]
    assert isinstance(height, int | float) and height >= 44
    assert isinstance(apart, int | float) and apart >= 8


def test_the_archives_print_view_shows_every_mail_and_order() -> None:
    """Printed or saved as PDF (how a phone keeps a page), the story's folds were printed
    closed: « ▶ Sur la liste : Jour 2 » and nothing of the mail."""
    layout = measured("print")
    assert isinstance(layout["details"], int) and layout["details"] > 10
    assert layout["folded"] == 0
    assert layout["scroll"] == layout["client"]


@pytest.mark.parametrize("game", GAMES)
def test_the_archive_reads_on_a_narrow_phone_with_a_long_name(game: str) -> None:
    """At 360 px, with a 24-character player's name: no table scrolled sideways in its box
    (the cast's first column never wrapped, so a long name pushed « Sort » out of sight; the
    votes' hours never wrapped, so « En tête » was cut even with short names), no name drawn
    under a chart's bar (names had 90 px left of the bars), no chart shrunk, no text under
    14 px (the charts' names and counts were 12 px, the deal's code 12 px)."""
    layout = measured(f"long-{game}")
    assert layout["scroll"] == layout["client"], layout["wide"]
    assert layout["inner"] == []
    assert layout["overlaps"] == [] and layout["shrunk"] == []
    assert layout["small"] == [] and layout["stars"] == []
    assert isinstance(layout["charts"], int) and layout["charts"] >= 1


def _png(width: int, channels: int, rows: list[bytes]) -> bytes:
    """An 8-bit truecolour PNG of ``rows``, row y filtered with filter y % 5, predicted from
    the plain bytes as the PNG specification defines each filter."""
    filtered, previous = b"", bytes(width * channels)
    for y, row in enumerate(rows):
        kind, out = y % 5, bytearray()
        for i, byte in enumerate(row):
            left = row[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            p = left + up - corner
            paeth = min(
                (abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner)
            )
            pred = (0, left, up, (left + up) // 2, paeth[2])[kind]
            out.append((byte - pred) & 0xFF)
        filtered += bytes([kind]) + bytes(out)
        previous = row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2 if channels == 3 else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(filtered))


@pytest.mark.parametrize("channels", [3, 4])
def test_the_png_decoder_undoes_each_filter(channels: int) -> None:
    rng = random.Random(channels)
    rows = [bytes(rng.randrange(256) for _ in range(7 * channels)) for _ in range(12)]
    rows[5] = bytes(7 * channels)  # zeros: no carry may spill from one byte into the next
    rows[6] = b"\xff" * (7 * channels)
    assert decode_png(_png(7, channels, rows)) == (7, 12, rows)


def test_the_width_probe_sees_a_page_wider_than_a_phone() -> None:
    """The probe above is not blind: a 600 px table in the archive makes it scroll."""
    layout = measured("wide")
    assert isinstance(layout["scroll"], int) and isinstance(layout["client"], int)
    assert layout["scroll"] > layout["client"]
