"""Directories of the state: made durably, and shared like their parent.

A directory the store creates is fsynced into its parent (:func:`make_dirs`), or a power loss
could drop it with everything committed inside (F7, ``tests/daemon/test_power_loss.py``). Who may
read and write a new file or directory follows the directory it is made in
(:func:`share_like_parent`): the owner always, the group when that directory is group-writable
(the service user and the ``pbem-admin`` operators of ``docs/install-debian.md``), others never.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from queue import SimpleQueue
from threading import Thread

StrPath = str | os.PathLike[str]
"""A path as the system calls take it: a :class:`~pathlib.Path` or its string."""


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename in it survives a power loss (F7)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_SYNC_THREADS = 2
"""A creation's fsyncs beside the caller's own: the new game's directory and the games
directory (:meth:`pbem.adapters.store.GameStore.create`)."""


_Reply = SimpleQueue[BaseException | None]


class _DirectorySyncer:
    """Threads that fsync the directories they are handed, one each, and hand back how it
    went: C queues and no futures (a creation's handoff, issue 23: a pool's futures cost more
    Python than the creation's own writes). Each call waits on a queue of its own, so a
    caller interrupted while waiting leaves no answer behind for the next one."""

    def __init__(self, threads: int) -> None:
        self.jobs: SimpleQueue[tuple[int, _Reply]] = SimpleQueue()
        for n in range(threads):
            Thread(target=self._work, name=f"pbem-dirsync-{n}", daemon=True).start()

    def _work(self) -> None:
        jobs = self.jobs
        while True:
            fd, reply = jobs.get()
            try:
                os.fsync(fd)
            except BaseException as exc:  # handed to the caller, who raises it
                reply.put(exc)
            else:
                reply.put(None)


_syncer: _DirectorySyncer | None = None


def _directory_syncer() -> _DirectorySyncer:
    """The worker threads of :func:`fsync_with_directories`, made on first use and made again
    in a forked child (threads do not survive a fork: :func:`_forget_syncer`)."""
    global _syncer
    if _syncer is None:
        _syncer = _DirectorySyncer(_SYNC_THREADS)
    return _syncer


def _forget_syncer() -> None:
    """In a forked child: the parent's threads are not there (asked of the kernel at each fork,
    not by a ``getpid`` at each creation)."""
    global _syncer
    _syncer = None


os.register_at_fork(after_in_child=_forget_syncer)


def fsync_with_directories(fd: int, directories: Sequence[StrPath]) -> None:
    """fsync a new file (open as ``fd``) and ``directories`` (the one holding its entry, the
    ones holding theirs), all at once.

    All must be durable before the caller goes on, but none needs another first, so the
    directories' fsyncs run in worker threads while this one fsyncs the file: on a journaling
    file system (ext4) they then ride in the one journal commit the first of them forces,
    instead of costing a disk cache flush each, one after the other (a game's creation: one
    commit instead of three, issue 23). Every directory's fsync is waited for, even when the
    file's fails; the first error is raised. The directories are opened by the caller."""
    if not directories:
        os.fsync(fd)
        return
    jobs = _directory_syncer().jobs
    reply: _Reply = SimpleQueue()
    # opened here, the workers only fsync: one wait for the interpreter's lock each
    opened: list[int] = []
    try:
        for directory in directories:
            opened.append(os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
        for dir_fd in opened:
            jobs.put((dir_fd, reply))
        failed: BaseException | None = None
        try:
            os.fsync(fd)
        finally:
            for _ in opened:
                outcome = reply.get()
                failed = failed or outcome
        if failed is not None:
            raise failed
    finally:
        for dir_fd in opened:
            os.close(dir_fd)


def _tree_owner(directory: StrPath, st: os.stat_result) -> int:
    """The owner of the highest directory above ``directory`` still writable by its group (or
    of ``directory``): the state directory, even when an admin made the directories between."""
    owner = st.st_uid
    path = os.path.abspath(directory)
    while (up := os.path.dirname(path)) != path:
        up_st = os.stat(up)
        if not (up_st.st_mode & stat.S_IWGRP and up_st.st_gid == st.st_gid):
            break
        owner, path = up_st.st_uid, up
    return owner


def share_like_parent(
    target: int | StrPath,
    parent: StrPath,
    directory: bool = False,
    parent_status: os.stat_result | None = None,
) -> os.stat_result | None:
    """Give a file (an open descriptor) or a directory (a path) just made in ``parent`` the
    access the state is shared with: read and write for its owner; for the group too, and
    setgid on a directory, when ``parent`` is group-writable; nothing for others, whatever the
    umask (the daemon's state holds players' addresses and hashed secrets).

    Run as root (an operator's ``sudo pbem new-game``), the new entry is given the owner of the
    state directory (the top of the group-writable tree ``parent`` is in) and
    ``parent``'s group, so the service user owns what root made for it; run by a member of
    ``parent``'s group, it gets that group, so the service can read, replace and remove it.
    A path is opened without following a symbolic link and changed through its descriptor: root
    never gives away a file someone swapped in meanwhile.

    ``parent_status``: ``parent``'s status, when the caller has it (not read again). Returns
    the status of a directory given by path when it was left as it was (a file made in it
    next is shared like it without reading it again), else None.
    """
    st = os.stat(parent) if parent_status is None else parent_status
    if isinstance(target, int):
        _share_fd(target, parent, directory, st)
        return None
    # read without opening first: a directory made as it should be (the usual case, a game's
    # creation: issue 23) needs no descriptor; a symbolic link never passes for one
    mine = os.lstat(target)
    if _changes(st, parent, mine, directory) == _UNCHANGED:
        return mine
    fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        _share_fd(fd, parent, directory, st)
    finally:
        os.close(fd)
    return None


_UNCHANGED = (-1, -1, None)


def _changes(
    st: os.stat_result, parent: StrPath, mine: os.stat_result, directory: bool
) -> tuple[int, int, int | None]:
    """The owner, group and mode to give an entry whose status is ``mine``, made in ``parent``
    (status ``st``): -1 for an id, None for the mode, left as they are."""
    shared = bool(st.st_mode & stat.S_IWGRP)
    modes = {(True, True): 0o2770, (True, False): 0o700, (False, True): 0o660}
    mode = modes.get((directory, shared), 0o600)
    uid, gid = -1, -1
    if os.geteuid() == 0:
        owner = _tree_owner(parent, st) if shared else st.st_uid
        uid = owner if mine.st_uid != owner else -1
    if shared and mine.st_gid != st.st_gid:
        gid = st.st_gid
    if stat.S_IMODE(mine.st_mode) != mode or uid != -1 or gid != -1:
        return uid, gid, mode  # the mode after chown, which drops a setgid bit
    return _UNCHANGED


def _share_fd(fd: int, parent: StrPath, directory: bool, st: os.stat_result) -> None:
    uid, gid, mode = _changes(st, parent, os.fstat(fd), directory)
    if uid != -1 or gid != -1:
        # a non-member cannot give a file to a group: the owner's access still holds
        with contextlib.suppress(PermissionError):
            os.fchown(fd, uid, gid)
    if mode is not None:
        os.fchmod(fd, mode)


def make_dirs(directory: Path) -> None:
    """``mkdir -p``, durably: each directory created is fsynced into its parent (F7), or a
    power loss could take it, with every file already committed in it, away. Each is shared
    like its parent (:func:`share_like_parent`)."""
    if directory.is_dir():
        return
    make_dirs(directory.parent)
    try:
        directory.mkdir()
    except FileExistsError:
        if directory.is_dir():
            return
        raise
    share_like_parent(directory, directory.parent, directory=True)
    fsync_dir(directory.parent)


def write_new_file(
    path: StrPath,
    blob: bytes,
    exclusive: bool = False,
    durable: bool = False,
    with_dirs: Sequence[StrPath] = (),
    parent: StrPath | None = None,
    parent_status: os.stat_result | None = None,
) -> None:
    """Create ``path`` holding ``blob``, with the state's access whatever the umask (never
    others: :func:`share_like_parent`); an existing file is left as it is (``exclusive``:
    FileExistsError). ``durable``: its data fsynced before the return, and the directories
    ``with_dirs`` with it (:func:`fsync_with_directories`: its own directory, for its entry),
    else the caller fsyncs the directory. ``parent``: the directory ``path`` is in, and
    ``parent_status`` its status, when the caller has them already.

    Not whole-or-nothing: a death between the creation and the write leaves ``path`` short,
    and a later call leaves it so. Only for a file in a directory renamed into place once
    whole (a game's creation); a file that must be whole on its own goes through
    :func:`pbem.adapters.store.atomic_file.replace_bytes` (a held mail's copy, F1)."""
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
    except FileExistsError:
        if exclusive:
            raise
        return
    try:
        directory = os.path.dirname(path) if parent is None else parent
        share_like_parent(fd, directory, parent_status=parent_status)
        view = memoryview(blob)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            fsync_with_directories(fd, with_dirs)
    finally:
        os.close(fd)
