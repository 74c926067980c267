"""The bytes of a game's held list posts, one file each under ``games/<game_id>/held/``.

A held post (relay mode, confirmations) is referenced by its entry in the game's head and its
bytes live apart, so a post with a photo no longer weighs on every commit of the head (issue 10
item 16). A body is written durably BEFORE the head refers to it, and removed only once the head
no longer does; a crash in between leaves an orphan, removed when the game is next opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from pbem.adapters.store.atomic_file import replace_bytes
from pbem.adapters.store.directories import make_dirs

HELD_DIR = "held"
"""Under a game's directory: the bytes of its held list posts, one file each."""
_SAFE_NAME = re.compile(r"[0-9A-Za-z_-]{1,128}")


def held_body_path(game_dir: Path, key: str) -> Path:
    """Where the bytes of the held post ``key`` go (a hash when the key is no safe file name)."""
    name = key if _SAFE_NAME.fullmatch(key) else hashlib.sha256(key.encode()).hexdigest()
    return game_dir / HELD_DIR / f"{name}.eml"


def write_held_body(game_dir: Path, key: str, raw: bytes) -> str:
    """Write a held post's bytes to their own file, durably, BEFORE the head refers to
    them; returns the path relative to the game directory."""
    path = held_body_path(game_dir, key)
    make_dirs(path.parent)
    replace_bytes(path, raw)
    return str(path.relative_to(game_dir))


def clean_held_bodies(game_dir: Path, referenced: Collection[str]) -> int:
    """Remove body files no held entry refers to (a crash between writing a body and the
    head commit, or between an unhold and the file's removal), and stale temp files."""
    folder = game_dir / HELD_DIR
    if not folder.is_dir():
        return 0
    n = 0
    for path in folder.iterdir():
        if str(path.relative_to(game_dir)) not in referenced:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                n += 1
    return n


def remove_held_bodies(game_dir: Path, bodies: Sequence[Any]) -> None:
    """Remove the files of released held posts (entries without a body are skipped)."""
    for body in bodies:
        if body:
            with contextlib.suppress(FileNotFoundError):
                (game_dir / str(body)).unlink()
