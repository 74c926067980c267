"""An aiosmtpd ``Controller`` whose bind fails leaves its event loop open (its thread returns
before closing it): the test mail servers and the demo's server retry on another port, and the
loop left behind was reported as an unclosed event loop and unclosed sockets by the garbage
collector during whatever test ran next (warnings are errors: a random failure under load)."""

from __future__ import annotations

import socket

import pytest
from aiosmtpd.controller import Controller

from pbem.tools.maildemo import close_failed


class _Sink:
    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        return "250 OK"


def _failed_start() -> Controller:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        controller = Controller(_Sink(), hostname="127.0.0.1", port=port, ready_timeout=1)
        with pytest.raises(OSError):
            controller.start()
        return controller
    finally:
        taken.close()


def test_a_failed_start_leaves_the_loop_open_and_close_failed_closes_it() -> None:
    controller = _failed_start()
    assert not controller.loop.is_closed()  # aiosmtpd's behaviour, which the retries met
    close_failed(controller)
    assert controller.loop.is_closed()
