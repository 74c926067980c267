"""An alert to the admins sent straight over SMTP, with no outbox row: for the faults during
which nothing can be written (a full disk) or the daemon is about to stop (a refused login).

Bilingual like every other alert (French first, then English). Its Message-ID uses the data
directory's key when that can be read, never creating it; otherwise the test key: such an
alert names no player, so its id reveals nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pbem.adapters.idkey import existing_key
from pbem.adapters.smtp import SendResult, SmtpClient
from pbem.daemon.config import Config
from pbem.mail.envelope import TEST_ID_KEY, build
from pbem.mail.html import alternative
from pbem.mail.render import bilingual, shared_renderer


async def send_alert(
    cfg: Config, template: str, params: Mapping[str, object], key: str
) -> SendResult:
    """Mail ``template`` to ``cfg.admins`` now; the server's answer for each of them."""
    now = datetime.now(UTC)
    try:
        id_key = existing_key(cfg.data_dir) or TEST_ID_KEY
    except OSError:  # the state directory is out of reach too
        id_key = TEST_ID_KEY
    subject, body = bilingual(shared_renderer(cfg.timezone), template, dict(params))
    _mid, raw = build(
        key=key,
        sender=cfg.moderator,
        to=cfg.admins,
        subject=subject,
        body=body,
        html=alternative(subject, body, enabled=cfg.html_mail),
        date=now,
        id_key=id_key,
    )
    client = SmtpClient(cfg.smtp)
    try:
        return await client.send(cfg.bounce, list(cfg.admins), raw)
    finally:
        await client.close()
