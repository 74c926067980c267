"""The daemon's answer to a waiting command (pbem/adapters/answers.py; issue 21, item 9)."""

from __future__ import annotations

import threading
from pathlib import Path

from pbem.adapters import answers


def test_the_waiting_command_gets_the_answer_and_the_pipe_goes(tmp_path: Path) -> None:
    pipe, fd = answers.listen(tmp_path, "r1.json")
    given = threading.Event()

    def daemon() -> None:
        if answers.answer(tmp_path, "r1.json", {"applied": True, "reply": "Paused."}):
            given.set()

    writer = threading.Thread(target=daemon)
    writer.start()
    got = answers.wait(pipe, fd, timeout=60)
    writer.join()
    assert got == {"applied": True, "reply": "Paused."} and given.is_set()
    assert not pipe.exists()


def test_nobody_waiting_is_nothing_to_do(tmp_path: Path) -> None:
    assert answers.answer(tmp_path, "r1.json", {"applied": True}) is False
    pipe, fd = answers.listen(tmp_path, "r2.json")
    assert answers.wait(pipe, fd, timeout=0.01) is None  # the daemon never came
    assert answers.answer(tmp_path, "r2.json", {"applied": True}) is False


def test_the_daemon_never_writes_into_a_file_put_in_the_pipe_s_place(tmp_path: Path) -> None:
    (tmp_path / answers.DIR).mkdir()
    planted = tmp_path / answers.DIR / "r3.json"
    planted.write_text("precious")
    assert answers.answer(tmp_path, "r3.json", {"applied": True}) is False
    assert planted.read_text() == "precious"
