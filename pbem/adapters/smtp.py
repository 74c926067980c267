"""SMTP out (aiosmtplib) over one reused connection, with failures classified (RELIABILITY §7.3).

The adapter never raises for a delivery problem: :meth:`SmtpClient.send` returns a
:class:`SendResult` saying what to do with each recipient: done, retry later (4xx, timeouts,
connection errors; an ambiguous timeout after DATA may mean the mail went out, and the retry
carries the same Message-ID: "better to deliver twice"), or dead (5xx).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import aiosmtplib

from pbem.adapters.login import LoginRefused, server_text
from pbem.adapters.servers import SendResult as SendResult
from pbem.adapters.servers import SmtpSettings as SmtpSettings
from pbem.adapters.servers import TlsMode as TlsMode
from pbem.adapters.tls import client_context

log = logging.getLogger(__name__)


def _is_permanent(code: int) -> bool:
    return 500 <= code < 600


class SmtpClient:
    """One reused aiosmtplib connection; reconnects on demand."""

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings
        self._smtp: aiosmtplib.SMTP | None = None

    async def _connect(self) -> aiosmtplib.SMTP:
        s = self.settings
        smtp = aiosmtplib.SMTP(
            hostname=s.host,
            port=s.port,
            timeout=s.timeout,
            use_tls=s.tls == "tls",
            start_tls=s.tls == "starttls",
            tls_context=client_context(s.verify_certs) if s.tls != "none" else None,
            validate_certs=s.verify_certs,
        )
        await smtp.connect()
        if s.user:
            try:
                await smtp.login(s.user, s.password or "")
            except aiosmtplib.SMTPAuthenticationError as exc:
                smtp.close()
                reply = f"{exc.code} {server_text(exc.message)}"
                raise LoginRefused("SMTP", s.user, f"{s.host}:{s.port}", reply) from None
        return smtp

    async def login_check(self) -> None:
        """Connect (and authenticate) once, then quit: for ``pbem check-config``."""
        smtp = await self._connect()
        await smtp.quit()

    async def close(self) -> None:
        """Say QUIT and drop the connection (closed anyway if QUIT fails)."""
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            try:
                await smtp.quit()
            except (aiosmtplib.SMTPException, OSError):
                smtp.close()

    def _drop(self) -> None:
        if self._smtp is not None:
            self._smtp.close()
            self._smtp = None

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        """Send ``raw`` to ``rcpts``; a stale reused connection is retried once on a fresh one."""
        # An address with a non-ASCII local part needs the server's SMTPUTF8 (RFC 6531).
        utf8 = not all(a.isascii() for a in (mail_from, *rcpts))
        options = ["SMTPUTF8"] if utf8 else []
        for attempt in (1, 2):
            fresh = self._smtp is None or not self._smtp.is_connected
            try:
                if fresh:
                    self._drop()
                    self._smtp = await self._connect()
                assert self._smtp is not None
                errors, response = await self._smtp.sendmail(
                    mail_from, list(rcpts), raw, mail_options=options
                )
            except (aiosmtplib.SMTPNotSupported, UnicodeError) as exc:
                # the server cannot take these addresses: retrying will never help
                self._drop()
                return SendResult(dead=list(rcpts), detail=f"{type(exc).__name__}: {exc}")
            except aiosmtplib.SMTPRecipientsRefused as exc:
                res = SendResult(detail=str(exc))
                for refused in exc.recipients:
                    (res.dead if _is_permanent(refused.code) else res.retry).append(
                        refused.recipient
                    )
                self._reset_after_error()
                return res
            except aiosmtplib.SMTPServerDisconnected as exc:
                self._drop()
                if attempt == 1 and not fresh:
                    continue  # the reused connection had gone stale
                return SendResult(retry=list(rcpts), detail=f"disconnected: {exc}")
            except LoginRefused as exc:
                self._drop()
                # a configuration problem, not this message's fault: keep it for after the fix
                return SendResult(retry=list(rcpts), detail=str(exc), login_refused=exc)
            except aiosmtplib.SMTPResponseException as exc:
                # sender refused, data refused, helo... : the code decides
                self._reset_after_error()
                target = "dead" if _is_permanent(exc.code) else "retry"
                res = SendResult(detail=f"{exc.code} {exc.message}")
                getattr(res, target).extend(rcpts)
                return res
            except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                # connect errors, timeouts (outcome unknown), TLS problems: retry later
                self._drop()
                return SendResult(retry=list(rcpts), detail=f"{type(exc).__name__}: {exc}")
            except BaseException:
                # never reuse a connection left in the middle of a transaction
                self._drop()
                raise
            res = SendResult(detail=response)
            for rcpt in rcpts:
                err = errors.get(rcpt)
                if err is None:
                    res.sent.append(rcpt)
                elif _is_permanent(err.code):
                    res.dead.append(rcpt)
                else:
                    res.retry.append(rcpt)
            return res
        raise AssertionError("unreachable")

    def _reset_after_error(self) -> None:
        # after a refusal the SMTP transaction state is uncertain: start clean next time
        self._drop()
