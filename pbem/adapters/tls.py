"""The TLS context of the daemon's connections to its mail servers.

Loading the system's certificate authorities costs about 30 ms of CPU: a context is made once
per verification setting, at the first connection that uses TLS, and shared by the IMAP and
SMTP clients and their reconnections (an :class:`ssl.SSLContext` may serve several connections
and threads). A connection without TLS (``tls = "none"``, on loopback) makes none. A change of
the system's certificate store is seen at the next start.
"""

from __future__ import annotations

import functools
import ssl


@functools.cache
def client_context(verify_certs: bool) -> ssl.SSLContext:
    """The client context: the system's authorities, or no verification at all when the
    config says ``verify_certs = false``."""
    ctx = ssl.create_default_context()
    if not verify_certs:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx
