"""A power-loss model of the file-system calls a piece of code makes: F7 without FUSE.

RELIABILITY §7.4 F7 asks for LazyFS "clear cache" after a kill (the ``jepsen.lazyfs`` pattern:
whatever was not fsynced is lost). LazyFS needs FUSE, which CI containers lack, so this module
records instead of intercepting at the kernel: :func:`record` patches the ``os`` functions that
change a directory tree (``open`` with ``O_CREAT``/``O_TRUNC``, ``write``, ``fsync``,
``fdatasync``, ``close``, ``replace``, ``rename``, ``link``, ``unlink``, ``remove``, ``mkdir``,
``rmdir``; ``tempfile.mkstemp``/``mkdtemp``, ``pathlib`` and ``shutil.rmtree`` all go through
them) and lets every call through to the real file system, while logging it against an
inode-level model of the tree under ``base``. Calls on paths outside ``base`` are not logged.
:meth:`Recorder.verify` compares the model with the real tree, so a change made by a call this
module does not see (a builtin ``open`` for writing, say) fails the test instead of going unseen.

The model of what a power cut leaves (POSIX, ext4-like, page cache cleared):

* a file's data is what its last ``fsync`` made durable; writes since then are lost
  (``lost``), or partly there (``torn``: a prefix of them), or all there (``flushed``, the
  cache happened to be written back);
* a directory's entries are those of its last ``fsync``; each create, link, rename or unlink
  done in it since then may or may not have reached the disk, independently of the others
  (every subset is a possible outcome; all prefixes, the journal-ordered outcomes, always
  belong to the subsets tried);
* so a file fsynced in a directory never fsynced may be missing, and a whole directory whose
  entry in its parent was never fsynced may be missing.

:func:`crash_states` enumerates, for the model as it stands at a cut point, the trees a real
disk could hold; :func:`materialize` writes one into a fresh directory, where the real code can
open it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT_INO = 0

#: the ``os`` functions :func:`record` wraps
WRAPPED = (
    "open",
    "write",
    "fsync",
    "fdatasync",
    "close",
    "replace",
    "rename",
    "link",
    "unlink",
    "remove",
    "rmdir",
    "mkdir",
)

#: a crash tree: relative path -> file bytes, or None for a directory
Tree = dict[str, bytes | None]


class ModelError(AssertionError):
    """The model and the real file system disagree: a change was made behind the recorder."""


@dataclass
class Inode:
    ino: int
    kind: str  # "file" or "dir"
    data: bytearray = field(default_factory=bytearray)  # what a reader sees now (page cache)
    durable: bytes = b""  # content as of the last fsync
    pending: list[tuple[str, int, bytes]] = field(default_factory=list)  # since that fsync
    entries: dict[str, int] = field(default_factory=dict)  # what a reader sees now
    durable_entries: dict[str, int] = field(default_factory=dict)  # as of the last fsync
    dir_pending: list[tuple[int, str, str, str, int]] = field(default_factory=list)


# Operations of the log (plain tuples, so a log can be replayed onto a fresh model):
#   ("create", parent, name, ino, kind)  ("write", ino, offset, bytes)  ("trunc", ino, size)
#   ("fsync", ino)  ("link", parent, name, ino)  ("rename", sparent, sname, dparent, dname)
#   ("unlink", parent, name)  ("begin", step, label)  ("end", step, label)
Op = tuple[Any, ...]


class Model:
    """The tree under ``base``: the volatile view every reader sees, and what is durable."""

    def __init__(self) -> None:
        self.inodes: dict[int, Inode] = {ROOT_INO: Inode(ROOT_INO, "dir")}
        self.seq = 0

    @classmethod
    def scan(cls, base: Path) -> Model:
        """A model of an existing tree, all of it durable (the state before the workload)."""
        model = cls()

        def walk(real: Path, ino: int) -> None:
            for child in sorted(real.iterdir()):
                new = len(model.inodes)
                if child.is_dir() and not child.is_symlink():
                    model.inodes[new] = Inode(new, "dir")
                    walk(child, new)
                else:
                    raw = child.read_bytes()
                    model.inodes[new] = Inode(new, "file", bytearray(raw), raw)
                node = model.inodes[ino]
                node.entries[child.name] = new
                node.durable_entries[child.name] = new

        walk(base, ROOT_INO)
        return model

    def new_ino(self) -> int:
        return max(self.inodes) + 1

    def _dir_op(self, parent: Inode, kind: str, name: str, dst: str, ino: int) -> None:
        self.seq += 1
        parent.dir_pending.append((self.seq, kind, name, dst, ino))

    def apply(self, op: Op) -> None:
        kind = op[0]
        if kind == "create":
            _, parent, name, ino, what = op
            self.inodes[ino] = Inode(ino, what)
            self.inodes[parent].entries[name] = ino
            self._dir_op(self.inodes[parent], "set", name, "", ino)
        elif kind == "write":
            _, ino, offset, blob = op
            node = self.inodes[ino]
            if len(node.data) < offset:
                node.data.extend(bytes(offset - len(node.data)))
            node.data[offset : offset + len(blob)] = blob
            node.pending.append(("w", offset, blob))
        elif kind == "trunc":
            _, ino, size = op
            node = self.inodes[ino]
            del node.data[size:]
            node.pending.append(("t", size, b""))
        elif kind == "fsync":
            node = self.inodes[op[1]]
            if node.kind == "file":
                node.durable = bytes(node.data)
                node.pending = []
            else:
                node.durable_entries = dict(node.entries)
                node.dir_pending = []
        elif kind == "link":
            _, parent, name, ino = op
            self.inodes[parent].entries[name] = ino
            self._dir_op(self.inodes[parent], "set", name, "", ino)
        elif kind == "rename":
            _, sparent, sname, dparent, dname = op
            src, dst = self.inodes[sparent], self.inodes[dparent]
            ino = src.entries.pop(sname)
            dst.entries[dname] = ino
            if src is dst:
                self._dir_op(src, "rename", sname, dname, ino)
            else:  # two directories: each side on its own (not used by the store)
                self._dir_op(src, "del", sname, "", ino)
                self._dir_op(dst, "set", dname, "", ino)
        elif kind == "unlink":
            _, parent, name = op
            ino = self.inodes[parent].entries.pop(name)
            self._dir_op(self.inodes[parent], "del", name, "", ino)
        elif kind not in ("begin", "end"):
            raise ValueError(f"unknown operation {op!r}")

    # ---- views ------------------------------------------------------------------------

    def lookup(self, parts: tuple[str, ...]) -> int | None:
        ino = ROOT_INO
        for part in parts:
            node = self.inodes[ino]
            if node.kind != "dir" or part not in node.entries:
                return None
            ino = node.entries[part]
        return ino

    def volatile_tree(self) -> Tree:
        """What a reader sees now (and what a clean shutdown leaves)."""
        return self._tree({i: n.entries for i, n in self.inodes.items() if n.kind == "dir"}, {})

    def _tree(self, entries: dict[int, dict[str, int]], data: dict[int, bytes]) -> Tree:
        out: Tree = {}
        seen = {ROOT_INO}

        def walk(ino: int, prefix: str) -> None:
            for name, child in sorted(entries[ino].items()):
                path = prefix + name
                node = self.inodes[child]
                if node.kind == "dir":
                    if child in seen:
                        continue
                    seen.add(child)
                    out[path] = None
                    walk(child, path + "/")
                else:
                    out[path] = data.get(child, bytes(node.data))

        walk(ROOT_INO, "")
        return out

    def pending_count(self) -> int:
        return sum(len(n.dir_pending) for n in self.inodes.values())


def _torn(node: Inode) -> bytes:
    """The durable content plus the first half (in bytes) of the writes since the last fsync."""
    budget = sum(len(b) for _, _, b in node.pending) // 2
    out = bytearray(node.durable)
    for kind, offset, blob in node.pending:
        if kind == "t":
            del out[offset:]
            continue
        part = blob[:budget]
        if len(out) < offset:
            out.extend(bytes(offset - len(out)))
        out[offset : offset + len(part)] = part
        budget -= len(part)
        if budget <= 0:
            break
    return bytes(out)


def crash_states(
    model: Model, rng: random.Random, max_subsets: int = 256, max_variants: int = 27
) -> Iterator[tuple[str, Tree]]:
    """Every tree a power cut could leave now (sampled past ``max_subsets`` directory outcomes).

    Yields ``(description, tree)``; the description names the directory operations that did
    not reach the disk and the data variant of each file that had unsynced writes.
    """
    pending = sorted(
        (op[0], ino, op)
        for ino, n in model.inodes.items()
        if n.kind == "dir"
        for op in n.dir_pending
    )
    total = len(pending)
    if 2**total <= max_subsets:
        masks: list[int] = list(range(2**total))
    else:
        chosen = {(1 << k) - 1 for k in range(total + 1)}  # the journal-ordered prefixes
        chosen |= {((1 << total) - 1) ^ (1 << k) for k in range(total)}  # all but one
        while len(chosen) < max_subsets:
            chosen.add(rng.getrandbits(total))
        masks = sorted(chosen)
    dirs = {i: n for i, n in model.inodes.items() if n.kind == "dir"}
    for mask in masks:
        entries = {i: dict(n.durable_entries) for i, n in dirs.items()}
        dropped = []
        for k, (_, ino, (_, kind, name, dst, target)) in enumerate(pending):
            if not mask & (1 << k):
                dropped.append(f"{kind} {name}{' -> ' + dst if dst else ''}")
                continue
            ents = entries[ino]
            if kind == "set":
                ents[name] = target
            elif kind == "del":
                if ents.get(name) == target:
                    del ents[name]
            else:  # rename within one directory
                if ents.get(name) == target:
                    del ents[name]
                ents[dst] = target
        files = [i for i in _reachable(model, entries) if model.inodes[i].pending]
        options = [
            [
                ("lost", model.inodes[i].durable),
                ("torn", _torn(model.inodes[i])),
                ("flushed", bytes(model.inodes[i].data)),
            ]
            for i in files
        ]
        combos = list(itertools.islice(itertools.product(*options), max_variants))
        for combo in combos:
            data = {i: blob for i, (_, blob) in zip(files, combo, strict=True)}
            label = "; ".join(
                [f"not on disk: {', '.join(dropped)}" if dropped else "all dir ops on disk"]
                + [f"ino {i} data {v}" for i, (v, _) in zip(files, combo, strict=True)]
            )
            yield label, model._tree(entries, data)


def _reachable(model: Model, entries: dict[int, dict[str, int]]) -> list[int]:
    out, todo, seen = [], [ROOT_INO], {ROOT_INO}
    while todo:
        for child in entries[todo.pop()].values():
            if child in seen:
                continue
            seen.add(child)
            if model.inodes[child].kind == "dir":
                todo.append(child)
            else:
                out.append(child)
    return out


def materialize(tree: Tree, dest: Path) -> None:
    """Write a crash tree into ``dest`` (which must exist and be empty)."""
    for rel, blob in tree.items():  # parents sort before their children
        target = dest / rel
        if blob is None:
            target.mkdir()
        else:
            target.write_bytes(blob)


def real_tree(base: Path) -> Tree:
    out: Tree = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base).as_posix()
        out[rel] = None if p.is_dir() else p.read_bytes()
    return dict(sorted(out.items()))


class Recorder:
    """Logs the tree-changing ``os`` calls on paths under ``base`` (see :func:`record`)."""

    def __init__(self, base: Path) -> None:
        self.base = Path(os.path.realpath(base))
        self.initial = Model.scan(self.base)
        self.model = Model.scan(self.base)
        self.log: list[Op] = []
        self.fds: dict[int, int] = {}
        self.steps: list[str] = []
        self.active = True

    def emit(self, op: Op) -> None:
        self.model.apply(op)
        self.log.append(op)

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        """One store call whose return makes its new state the one that must survive."""
        n = len(self.steps)
        self.steps.append(label)
        self.emit(("begin", n, label))
        try:
            yield
        finally:
            self.emit(("end", n, label))
            self.verify()

    def verify(self) -> None:
        """The model's volatile view equals the real tree (nothing changed behind our back)."""
        self.active = False
        try:
            want, got = self.model.volatile_tree(), real_tree(self.base)
        finally:
            self.active = True
        if want != got:
            diff = sorted(set(want.items()) ^ set(got.items()), key=lambda kv: kv[0])
            raise ModelError(f"model and disk differ under {self.base}: {diff[:6]}")

    # ---- path helpers -----------------------------------------------------------------

    def _abs(self, path: Any, dir_fd: int | None) -> str | None:
        if isinstance(path, int):
            return None
        p = os.fsdecode(os.fspath(path))
        if dir_fd is not None and not os.path.isabs(p):
            p = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), p)
        head, tail = os.path.split(os.path.abspath(p))
        return os.path.join(os.path.realpath(head), tail)

    def _parts(self, path: Any, dir_fd: int | None = None) -> tuple[str, ...] | None:
        if not self.active:
            return None
        p = self._abs(path, dir_fd)
        if p is None:
            return None
        base = str(self.base)
        if p == base:
            return ()
        if not p.startswith(base + os.sep):
            return None
        return tuple(p[len(base) + 1 :].split(os.sep))

    def _parent(self, parts: tuple[str, ...]) -> int:
        ino = self.model.lookup(parts[:-1])
        if ino is None or self.model.inodes[ino].kind != "dir":
            raise ModelError(f"{'/'.join(parts)}: parent not in the model")
        return ino

    # ---- the wrappers -----------------------------------------------------------------

    def wrappers(self, real: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
        m = self.model

        def open_(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
            parts = self._parts(path, dir_fd)
            existed = parts is not None and m.lookup(parts) is not None
            fd = int(real["open"](path, flags, mode, dir_fd=dir_fd))
            if parts is None:
                return fd
            if not existed:
                if not flags & os.O_CREAT:
                    raise ModelError(f"{'/'.join(parts)}: exists on disk, not in the model")
                self.emit(("create", self._parent(parts), parts[-1], m.new_ino(), "file"))
            ino = m.lookup(parts)
            assert ino is not None
            if flags & os.O_TRUNC and m.inodes[ino].data:
                self.emit(("trunc", ino, 0))
            self.fds[fd] = ino
            return fd

        def write(fd: int, data: Any) -> int:
            n = int(real["write"](fd, data))
            if fd in self.fds and self.active:
                end = os.lseek(fd, 0, os.SEEK_CUR)
                self.emit(("write", self.fds[fd], end - n, bytes(memoryview(data)[:n])))
            return n

        def fsync(fd: int) -> None:
            real["fsync"](fd)
            if fd in self.fds and self.active:
                self.emit(("fsync", self.fds[fd]))

        def fdatasync(fd: int) -> None:
            real["fdatasync"](fd)
            if fd in self.fds and self.active and m.inodes[self.fds[fd]].kind == "file":
                self.emit(("fsync", self.fds[fd]))

        def close(fd: int) -> None:
            real["close"](fd)
            self.fds.pop(fd, None)

        def make_rename(name: str) -> Callable[..., None]:
            def rename(
                src: Any, dst: Any, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None
            ) -> None:
                sp, dp = self._parts(src, src_dir_fd), self._parts(dst, dst_dir_fd)
                real[name](src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
                if sp is None and dp is None:
                    return
                if sp is None or dp is None:
                    raise ModelError(f"rename across the model's edge: {src} -> {dst}")
                self.emit(("rename", self._parent(sp), sp[-1], self._parent(dp), dp[-1]))

            return rename

        def link(
            src: Any,
            dst: Any,
            *,
            src_dir_fd: int | None = None,
            dst_dir_fd: int | None = None,
            follow_symlinks: bool = True,
        ) -> None:
            sp, dp = self._parts(src, src_dir_fd), self._parts(dst, dst_dir_fd)
            real["link"](
                src,
                dst,
                src_dir_fd=src_dir_fd,
                dst_dir_fd=dst_dir_fd,
                follow_symlinks=follow_symlinks,
            )
            if sp is None and dp is None:
                return
            if sp is None or dp is None:
                raise ModelError(f"link across the model's edge: {src} -> {dst}")
            ino = m.lookup(sp)
            assert ino is not None
            self.emit(("link", self._parent(dp), dp[-1], ino))

        def make_unlink(name: str) -> Callable[..., None]:
            def unlink(path: Any, *, dir_fd: int | None = None) -> None:
                parts = self._parts(path, dir_fd)
                real[name](path, dir_fd=dir_fd)
                if parts is not None:
                    self.emit(("unlink", self._parent(parts), parts[-1]))

            return unlink

        def mkdir(path: Any, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
            parts = self._parts(path, dir_fd)
            real["mkdir"](path, mode, dir_fd=dir_fd)
            if parts is not None:
                self.emit(("create", self._parent(parts), parts[-1], m.new_ino(), "dir"))

        return {
            "open": open_,
            "write": write,
            "fsync": fsync,
            "fdatasync": fdatasync,
            "close": close,
            "replace": make_rename("replace"),
            "rename": make_rename("rename"),
            "link": link,
            "unlink": make_unlink("unlink"),
            "remove": make_unlink("remove"),
            "rmdir": make_unlink("rmdir"),
            "mkdir": mkdir,
        }


@contextlib.contextmanager
def record(base: Path) -> Iterator[Recorder]:
    """Run the code inside with its file-system calls under ``base`` logged (and performed)."""
    rec = Recorder(base)
    real = {name: getattr(os, name) for name in WRAPPED}
    for name, fn in rec.wrappers(real).items():
        setattr(os, name, fn)
    try:
        yield rec
    finally:
        for name, fn in real.items():
            setattr(os, name, fn)
    rec.verify()


#: the value of a component a disk does not have (a game not created yet)
ABSENT = "(absent)"
#: the component an unreadable disk reports
ERROR = "ERROR"

State = Mapping[str, str]


@dataclass
class Violation:
    cut: int  # index in the log of the last operation before the power cut
    op: Op
    step: str  # the step in flight at the cut, or the last one that returned
    state: str  # which disk: the directory changes that did not make it, the data variants
    component: str
    got: str
    allowed: list[str]
    older: bool  # got is what an earlier, returned step left: a returned commit was lost


@dataclass
class Report:
    cuts: int = 0
    states: int = 0
    distinct: int = 0
    sampled: int = 0  # cut points with too many unsynced directory changes to try every subset
    steps: int = 0
    after: list[State] = field(default_factory=list)  # the state after each step (0: before)
    violations: list[Violation] = field(default_factory=list)


def check(
    rec: Recorder,
    recover: Callable[[Path], State],
    workdir: Path,
    seed: int = 7,
    max_subsets: int = 4096,
    max_violations: int | None = None,
) -> Report:
    """Cut the power after every operation of ``rec.log``; open each possible disk with
    ``recover``, which returns the logical state as components (one per unit that is written
    atomically, e.g. one per state file) of canonical text, or raises.

    After the cut at operation i, with k steps returned, each component must equal its value
    after step k, or, if step k+1 was in flight, its value after step k+1 (a step that writes
    several files, a group commit, may be cut between them: each file is old or new). The
    check stops early once ``max_violations`` are found (negative controls need only a few).
    """
    rng = random.Random(seed)
    cache: dict[tuple[tuple[str, bytes | None], ...], State] = {}
    counter = itertools.count()

    def outcome(tree: Tree) -> State:
        key = tuple(tree.items())
        if key not in cache:
            dest = workdir / f"s{next(counter)}"
            dest.mkdir(parents=True)
            materialize(tree, dest)
            try:
                cache[key] = dict(recover(dest))
            except Exception as exc:  # an unreadable disk is an outcome, reported below
                cache[key] = {ERROR: f"{type(exc).__name__}: {exc}"}
            finally:
                shutil.rmtree(dest)
        return cache[key]

    # pass 1: the state after each step, from the model's volatile view at its end
    model = Model()
    model.inodes = {i: _copy(n) for i, n in rec.initial.inodes.items()}
    after = [outcome(model.volatile_tree())]
    for op in rec.log:
        model.apply(op)
        if op[0] == "end":
            after.append(outcome(model.volatile_tree()))
    report = Report(steps=len(after) - 1, after=after)
    for k, state in enumerate(after):
        if ERROR in state:
            raise AssertionError(f"the state after step {k} itself is unreadable: {state}")

    # pass 2: every cut point, every disk it may leave
    model = Model()
    model.inodes = {i: _copy(n) for i, n in rec.initial.inodes.items()}
    done, in_flight, label = 0, False, "(before the first step)"
    for i, op in enumerate(rec.log):
        model.apply(op)
        if op[0] == "begin":
            in_flight, label = True, op[2]
            continue
        if op[0] == "end":
            in_flight, done = False, done + 1
            continue
        report.cuts += 1
        allowed = [after[done]] + ([after[done + 1]] if in_flight else [])
        if 2 ** model.pending_count() > max_subsets:
            report.sampled += 1
        for desc, tree in crash_states(model, rng, max_subsets):
            report.states += 1
            got = outcome(tree)
            names = [ERROR] if ERROR in got else sorted(set(got).union(*allowed))
            for name in names:
                value = got.get(name, ABSENT)
                ok = [a.get(name, ABSENT) for a in allowed]
                if value in ok:
                    continue
                older = any(a.get(name, ABSENT) == value for a in after[:done])
                report.violations.append(Violation(i, op, label, desc, name, value, ok, older))
            if max_violations is not None and len(report.violations) >= max_violations:
                report.distinct = len(cache)
                return report
    report.distinct = len(cache)
    return report


def _copy(node: Inode) -> Inode:
    return Inode(
        node.ino,
        node.kind,
        bytearray(node.data),
        node.durable,
        list(node.pending),
        dict(node.entries),
        dict(node.durable_entries),
        list(node.dir_pending),
    )
