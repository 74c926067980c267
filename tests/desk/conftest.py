"""The daemon tests' real mail stack (Dovecot + aiosmtpd), for the desk's end-to-end test."""

from tests.support.fixtures import stack

__all__ = ["stack"]
