"""The engine named by ``[daemon] engine``, loaded for ``pbem serve``, ``pbem new-game`` and
``pbem status``.

Apart from :mod:`pbem.daemon.serve` so that the operator's commands load it without the
service's imports (the scheduler, the DNS resolver, the IMAP loop: start-up cost).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pbem.signup.engine import with_signups

if TYPE_CHECKING:
    from pbem.daemon.ports import Engine


def load_engine(spec: str) -> Engine:
    """``module:Class`` → the Table class (the default is ``pbem.table:Table``)."""
    mod, _, attr = spec.partition(":")
    engine: Any = getattr(importlib.import_module(mod), attr or "Table")
    # a game `pbem open-game` made loads as its lobby until it starts (pbem.signup)
    return with_signups(engine)
