"""The daemon tests' real mail stack (Dovecot + aiosmtpd), for the desk's end-to-end test."""

from tests.daemon.conftest import stack

__all__ = ["stack"]
