"""Every operator request, in the order the daemon's ticker drains their spools."""

from __future__ import annotations

from pbem.daemon.operator.admin import AdminCommand
from pbem.daemon.operator.reachable import Reachable
from pbem.daemon.operator.retry_deadline import RetryDeadline
from pbem.daemon.operator.retry_shunt import RetryShunt
from pbem.daemon.operator.spool import Request

REQUESTS: tuple[type[Request], ...] = (RetryShunt, RetryDeadline, Reachable, AdminCommand)
