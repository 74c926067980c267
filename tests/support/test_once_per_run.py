"""The values the xdist workers share: computed once per run, pieces shared out (issue 11)."""

from __future__ import annotations

import fcntl
import pickle
import threading
from pathlib import Path

import pytest

from tests.support import dkim_signer
from tests.support.once_per_run import RUN_DIR, once_per_run, once_per_run_pieces


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(RUN_DIR, str(tmp_path))
    return tmp_path


def test_a_value_is_computed_once_and_read_back_by_the_next_worker(run: Path) -> None:
    calls: list[int] = []
    assert once_per_run("v", lambda: calls.append(1) or 42) == 42
    assert once_per_run("v", lambda: calls.append(2) or 0) == 42
    assert calls == [1]


def test_pieces_held_by_another_worker_are_left_to_it_then_read(run: Path) -> None:
    """While another worker holds piece 0, this one computes pieces 1 and 2, then waits for
    piece 0 and takes the other worker's value: the pieces are shared out, never computed
    twice, and come back in their order."""
    computed: list[int] = []
    others_done = threading.Event()

    def piece(i: int) -> int:
        computed.append(i)
        if i == 2:
            others_done.set()
        return i * 10

    results: list[list[int]] = []
    with open(run / "p-0.lock", "ab") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker, computing piece 0
        worker = threading.Thread(
            target=lambda: results.append(
                once_per_run_pieces("p", [lambda i=i: piece(i) for i in range(3)])
            )
        )
        worker.start()
        assert others_done.wait(60)
        (run / "p-0.pickle").write_bytes(pickle.dumps(-1))  # the other worker's value
    worker.join(60)
    assert results == [[-1, 10, 20]]
    assert computed == [1, 2]


def test_pieces_without_xdist_are_simply_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUN_DIR, raising=False)
    assert once_per_run_pieces("p", [lambda: 1, lambda: 2]) == [1, 2]


def test_a_dkim_test_key_is_made_once_per_run(run: Path) -> None:
    """Every worker imported the DKIM tests and made the same 2048-bit key again: the key is
    now read from the run's store when another worker made it."""
    made = dkim_signer.RsaKey(n=3233, e=17, d=2753)
    (run / "rsa-key-512-424242.pickle").write_bytes(pickle.dumps(made))
    assert dkim_signer.make_key(512, seed=424242) == made
