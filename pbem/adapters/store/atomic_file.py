"""One state file: a self-checking JSON envelope, replaced atomically and durably.

Every file is ``{"format": 1, "sha256": ..., "data": ...}`` written by :func:`atomic_write`:
mkstemp in the same directory, one ``write``, ``fsync``, the previous generation hard-linked to
``.bak``, ``os.replace``, directory ``fsync`` (RELIABILITY §4.5, requirement 3). A reader sees
the old file or the new one, never half; the checksum catches a file cut short or torn.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pbem.adapters.store.directories import fsync_dir, share_like_parent
from pbem.core.errors import PbemError

FORMAT_VERSION = 1
TMP_PREFIX = ".tmp-"

FaultHook = Callable[[str], None]


def no_fault(point: str) -> None:
    """Default fault hook: does nothing (tests inject kill -9 at named points)."""


class StoreError(PbemError):
    """A state file cannot be used (corrupt, wrong format, locked by another writer)."""


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""The state files' encoder, made once. A state is a tree built of fresh dicts and lists: the
check for a container met twice on its own path (a dict set and unset per container, about a
tenth of encoding a new game's head: issue 23) is left to the recursion limit, which raises
too."""


def compact_json(value: Any) -> str:
    """The text a value has in a state file."""
    return _COMPACT.encode(value)


class Packed:
    """A JSON value kept in memory as its compact text (:func:`compact_json`), written into a
    state file as that text: a game's head keeps its events so (a tenth of the memory of
    their parsed form: 10,000 games loaded, issue 23), and the file is byte-identical."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def value(self) -> Any:
        """The packed JSON text, decoded."""
        return json.loads(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Packed) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Packed({self.text!r})"


_PACKED_MARK = "\x00packed\x00"
_PACKED_SPOT = compact_json(_PACKED_MARK)


def unpacked(value: Any) -> Any:
    """``value`` parsed if it is :class:`Packed`, else as it is."""
    return value.value() if type(value) is Packed else value


def _payload(data: Any) -> bytes:
    texts: list[str] = []

    def spot(value: Any) -> Any:
        if type(value) is not Packed:
            raise TypeError(f"not JSON: {type(value).__name__}")
        texts.append(value.text)
        return _PACKED_MARK

    text = json.dumps(
        data, separators=(",", ":"), ensure_ascii=False, check_circular=False, default=spot
    )
    if texts:
        pieces = text.split(_PACKED_SPOT)
        if len(pieces) != len(texts) + 1:  # a string of the data is the mark itself
            return compact_json(_unpack_all(data)).encode()
        text = "".join(p for pair in zip(pieces, [*texts, ""], strict=True) for p in pair)
    return text.encode()


def _unpack_all(value: Any) -> Any:
    if type(value) is Packed:
        return value.value()
    if type(value) is dict:
        return {k: _unpack_all(v) for k, v in value.items()}
    if type(value) is list or type(value) is tuple:
        return [_unpack_all(v) for v in value]
    return value


_ENVELOPE = re.compile(rb'\A\{"format":(\d+),"sha256":"([0-9a-f]{64})","data":')


def encode_envelope(data: Any) -> bytes:
    """The on-disk bytes: format version + sha256 of the payload bytes + the payload."""
    payload = _payload(data)
    digest = hashlib.sha256(payload).hexdigest()
    # one join, one copy of the payload: a head holding waiting mail is megabytes (issue 23)
    head = b'{"format":%d,"sha256":"%s","data":' % (FORMAT_VERSION, digest.encode())
    return b"".join((head, payload, b"}\n"))


ENVELOPE_BYTES = len(encode_envelope(None)) - len(b"null}\n")
"""The length of an envelope's head before its payload (the payload ends 2 bytes early)."""


def decode_envelope(raw: bytes, path: Path) -> Any:
    """Verify the checksum over the payload bytes as written, then parse; a
    :class:`StoreError` names the file and its ``.bak``."""
    m = _ENVELOPE.match(raw)
    if m is None or not raw.endswith(b"}\n"):
        raise StoreError(
            f"{path}: unreadable (not a pbem state file, or cut short); "
            f"previous generation: {path}.bak"
        )
    fmt = int(m.group(1))
    if fmt != FORMAT_VERSION:
        raise StoreError(f"{path}: format {fmt}, this pbem reads format {FORMAT_VERSION}")
    payload = raw[m.end() : -2]
    if hashlib.sha256(payload).hexdigest() != m.group(2).decode():
        raise StoreError(f"{path}: checksum mismatch; previous generation: {path}.bak")
    try:
        return shared(json.loads(payload))
    except ValueError as exc:
        raise StoreError(f"{path}: unreadable ({exc}); previous generation: {path}.bak") from exc


SHARED_CHARS = 64
"""Strings up to this length read from a state file are interned: a game's head stays in
memory, and its player names, roles, template names repeat in every game (10,000 games
loaded: issue 23)."""


def shared(value: Any) -> Any:
    """``value`` (parsed JSON) with its short strings interned, in place (its keys are shared
    already: the parser keeps one of each within a file)."""
    stack = [value]
    intern = sys.intern
    while stack:
        node = stack.pop()
        if type(node) is not dict and type(node) is not list:
            continue
        items = node.items() if type(node) is dict else enumerate(node)
        for key, item in items:
            kind = type(item)
            if kind is str:
                if len(item) <= SHARED_CHARS:
                    node[key] = intern(item)
            elif kind is dict or kind is list:
                stack.append(item)
    return value


def atomic_write(path: Path, data: Any, fault: FaultHook = no_fault, keep_bak: bool = True) -> None:
    """Replace ``path`` with the envelope of ``data`` so that a reader sees old or new, never half.

    On ENOSPC the temp file is removed and the old generation stays intact (RELIABILITY §0.1).
    """
    replace_bytes(path, encode_envelope(data), fault, keep_bak)


def replace_bytes(
    path: Path, blob: bytes, fault: FaultHook = no_fault, keep_bak: bool = False
) -> None:
    """Replace ``path`` with ``blob``, durably and atomically: a temp file with the parent
    directory's access, fsynced, renamed over ``path`` (its previous generation kept as
    ``.bak`` with ``keep_bak``), then the directory fsynced. On any error the temp file goes."""
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX + path.name + ".", dir=path.parent)
    try:
        try:
            share_like_parent(fd, path.parent)
            view = memoryview(blob)
            while view:  # one write() in practice; loop only for short writes
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        fault("mid_state_write")
        if keep_bak and path.exists():
            bak_tmp = path.with_name(path.name + ".bak-tmp")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(bak_tmp)
            os.link(path, bak_tmp)
            os.replace(bak_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def read_file(path: Path) -> Any:
    """Read and verify one envelope file."""
    return decode_envelope(path.read_bytes(), path)


def clean_stale_temps(directory: Path, names: Iterable[str] | None = None) -> int:
    """Remove temp files left by a crash between mkstemp and os.replace; ``names``: the
    directory's listing, if the caller has it."""
    n = 0
    for name in os.listdir(directory) if names is None else names:
        if name.startswith(TMP_PREFIX):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(directory / name)
                n += 1
    return n
