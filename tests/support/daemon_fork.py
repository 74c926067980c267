"""``pbem serve`` forked from a Python that has already imported it, for the daemon tests.

A daemon test starts ``python -m pbem.cli.daemon serve`` (:class:`tests.support.daemon_process.Daemon`)
two hundred times a run, and each start spent most of its CPU importing what ``serve`` needs
(about 0.45 of 0.6 s: the event loop, imapclient, aiosmtplib, APScheduler, jinja2, the table
and the daemon's ~250 modules). Each pytest-xdist worker keeps one *fork server*, started at
its first daemon: a Python that imports the daemon's modules once, then forks a child per start.
The child becomes what ``python -m MODULE ARGS`` would be: the test's environment (every
variable: pbem reads its environment when it runs, never at import), working directory, argv,
its standard output and error in the test's log file, default signal dispositions, no thread,
no inherited descriptor; it runs the module as ``__main__`` and exits with its status.

The fork server is the child's parent: it reaps it and sends its wait status back on the
connection the start came by, so :class:`Forked` answers ``poll``/``wait``/``send_signal``/
``kill`` as :class:`subprocess.Popen` does (a death by a signal is ``-signum``). What a fresh
interpreter proves by itself (what a start imports, the installed ``pbem`` and its entry point,
systemd's unit) is tested with fresh interpreters: tests/cli/test_startup_imports.py,
tests/install/, tests/daemon/test_systemd.py.

What differs, and no test reads: ``/proc/PID/cmdline`` and ``/proc/PID/environ`` show the fork
server's (``os.environ`` is the test's), its parent is the fork server, and the children of one
worker share its hash seed.

A start that needs another process set-up (a ``PYTHON*``, ``LD_*``, locale or time zone variable
unlike the server's: libfaketime's clock jumps, tests/daemon/test_clockjump.py) is an ordinary
``Popen``: :func:`start` returns None and the caller starts it itself.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PRELOADED = (
    "asyncio",
    "pbem.cli.daemon",
    "pbem.cli.server",
    "pbem.daemon.logsetup",
    "pbem.daemon.serve",
    "pbem.daemon.config",
    "pbem.adapters.login",
    "tests.daemon.crash_launcher",
)
"""What ``pbem serve`` imports before it reads its config (pbem/cli/server.py), and the crash
tests' entry. The games' rules are imported by each child as it loads its games."""

FORKED_MODULES = frozenset({"pbem.cli.daemon", "tests.daemon.crash_launcher"})
"""The entry modules a forked child may run (anything else is an ordinary process)."""


AT_START = ("PYTHON", "LD_", "FAKETIME", "LANG", "LC_", "TZ", "MALLOC", "GLIBC_TUNABLES")
"""Prefixes of the variables read once, when a process or its interpreter starts (the module
path, the bytecode, the hash seed; a preloaded library such as libfaketime; the locale and the
time zone): a start asking for other values than the fork server's is not forked."""


def _interpreter(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` that a process reads when it starts (:data:`AT_START`)."""
    return {k: v for k, v in env.items() if k.startswith(AT_START)}


# ---- the test's side ----------------------------------------------------------------------


class Forked:
    """A forked ``pbem serve``, answering as :class:`subprocess.Popen` does."""

    def __init__(self, sock: socket.socket, pid: int, rest: bytes, args: list[str]) -> None:
        self._sock = sock
        self._buf = rest  # what came after the pid: its wait status, if it died at once
        self._lock = threading.Lock()  # a supervisor thread may wait beside the test
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        self.cpu_seconds = 0.0
        """Its user + system CPU, once it has ended (a test's own accounting: the worker's
        ``RUSAGE_CHILDREN`` counts the fork server's children only when the server ends)."""

    def _collect(self, timeout: float | None) -> int | None:
        with self._lock:
            if self.returncode is None:
                line = _line(self._sock, self._buf, timeout)
                if line is None:
                    return None
                status, cpu = line[0].split()
                self.returncode = os.waitstatus_to_exitcode(int(status))
                self.cpu_seconds = float(cpu)
                _ended_cpu.append(self.cpu_seconds)
                self._sock.close()
            return self.returncode

    def poll(self) -> int | None:
        return self._collect(0)

    def wait(self, timeout: float | None = None) -> int:
        rc = self._collect(timeout)
        if rc is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return rc

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # never a reaped pid, as Popen
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _line(sock: socket.socket, buf: bytes, timeout: float | None) -> tuple[bytes, bytes] | None:
    """The next line the fork server sent, and what follows it; None if none came within
    ``timeout`` (``buf``: what was read before)."""
    end = None if timeout is None else time.monotonic() + timeout
    while b"\n" not in buf:
        left = None if end is None else max(0.0, end - time.monotonic())
        if not select.select([sock], [], [], left)[0]:
            return None
        data = sock.recv(4096)
        if not data:
            raise RuntimeError("the fork server went away before its child ended")
        buf += data
    line, _, rest = buf.partition(b"\n")
    return line, rest


class _Server:
    """This worker's fork server: started at the first fork, stopped when the worker exits."""

    def __init__(self, cwd: Path, env: Mapping[str, str]) -> None:
        self.dir = tempfile.mkdtemp(prefix="pbem-fork-")
        self.path = os.path.join(self.dir, "s")
        self.interpreter = _interpreter(env)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.daemon_fork", self.path],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,  # its end-of-file stops the server
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        assert ready == b"ready\n", f"the fork server did not start: {ready!r}"
        atexit.register(self.close)

    def fork(
        self,
        module: str,
        args: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        out: Path,
        err: Path,
    ) -> Forked:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self.path)
        request = {
            "module": module,
            "args": list(args),
            "cwd": str(cwd),
            "env": dict(env),
            "out": str(out),
            "err": str(err),
        }
        sock.sendall(json.dumps(request).encode() + b"\n")
        got = _line(sock, b"", None)
        assert got is not None
        pid, rest = got
        return Forked(sock, int(pid), rest, [sys.executable, "-m", module, *args])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(self.dir)


_ended_cpu: list[float] = []


def forked_cpu_seconds() -> float:
    """The CPU of this worker's forked children that have ended (for a CPU profile of the
    suite: they are not the worker's children)."""
    return sum(_ended_cpu)


_servers: dict[int, _Server] = {}
_servers_lock = threading.Lock()


def start(
    module: str,
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    base: Mapping[str, str],
    log: Path,
    stderr: Path | None = None,
) -> Forked | None:
    """``python -m MODULE ARGS`` in ``cwd`` with ``env``, its standard output to ``log`` (and
    its standard error too, unless ``stderr`` names another file), forked from this worker's
    fork server; None when it must be an ordinary process (see the module's docstring).
    ``base``: the environment of the test's processes before a test's own variables, the fork
    server's (a first start under libfaketime must not make it the server's)."""
    if module not in FORKED_MODULES or os.environ.get("PBEM_TESTS_NO_FORK"):
        return None
    with _servers_lock:
        server = _servers.get(os.getpid())
        if server is not None and server.proc.poll() is not None:
            server = None
        if server is None:
            server = _servers[os.getpid()] = _Server(cwd, base)
    if _interpreter(env) != server.interpreter:
        return None
    return server.fork(module, args, cwd, env, log, stderr or log)


# ---- the server's side --------------------------------------------------------------------


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m MODULE ARGS``, run it, exit. Never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        if request["err"] != request["out"]:
            os.close(out)
            out = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 2)
        os.close(out)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        for name in os.listdir("/proc/self/fd"):  # the server's sockets: none is the child's
            if int(name) > 2:
                with contextlib.suppress(OSError):
                    os.close(int(name))
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [request["module"], *request["args"]]
        # the entry module is run as __main__, as `python -m` runs it: the preloaded copy goes
        # (a later import of it makes its own, as in a fresh interpreter)
        entry = sys.modules.pop(request["module"], None)
        parent, _, name = request["module"].rpartition(".")
        if entry is not None and getattr(sys.modules.get(parent), name, None) is entry:
            delattr(sys.modules[parent], name)
        import runpy

        try:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        atexit._run_exitfuncs()  # as an interpreter's exit (logging.shutdown)
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def serve(path: str) -> None:
    """The fork server: preload, then fork a child per request until standard input closes."""
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)
    assert threading.active_count() == 1, "a preloaded module started a thread"
    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the selector through the wakeup fd
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(wake_r, selectors.EVENT_READ, "child")
    sel.register(sys.stdin.buffer, selectors.EVENT_READ, "stdin")
    children: dict[int, socket.socket] = {}
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in sel.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    return  # the worker is gone; its daemons are the tests' to kill
            elif key.data == "accept":
                conn, _ = listener.accept()
                with conn.makefile("rb") as reader:
                    request = json.loads(reader.readline())
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _child(request)
                children[pid] = conn
                conn.sendall(f"{pid}\n".encode())
            else:
                with contextlib.suppress(BlockingIOError):
                    while wake_r.recv(4096):
                        pass
        while children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                with contextlib.suppress(OSError):
                    cpu = usage.ru_utime + usage.ru_stime
                    conn.sendall(f"{status} {cpu}\n".encode())
                conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
