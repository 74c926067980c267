"""The daemon's own file, ``daemon.json``: UIDVALIDITY per folder, the ledger of mail that
reached no game, the shunt table, the outbox of non-game mail, the heartbeat, rate limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tinydb import Query

from pbem.adapters.store.atomic_db import AtomicDB
from pbem.adapters.store.atomic_file import FaultHook, no_fault
from pbem.adapters.store.limit_windows import LimitsHook, read_limits, write_limits


class DaemonStore:
    """The daemon's own file (``daemon.json``): folder state, non-game ledger, shunt, outbox."""

    def __init__(self, root: Path, fault: FaultHook = no_fault, readonly: bool = False) -> None:
        self.root = root
        self.db = AtomicDB(root / "daemon.json", fault, readonly)
        self.limits_hook: LimitsHook | None = None

    def uidvalidity(self, folder: str) -> int | None:
        """The UIDVALIDITY last seen for ``folder``, or None if never seen."""
        doc = self.db.get_one("folders", name=folder)
        return None if doc is None else int(doc["uidvalidity"])

    def set_uidvalidity(self, folder: str, value: int) -> None:
        """Remember ``folder``'s UIDVALIDITY (a change means its UIDs were renumbered)."""
        with self.db.transaction():
            self.db.upsert("folders", {"name": folder, "uidvalidity": value}, name=folder)

    def ledger_keys(self) -> set[str]:
        """The content keys of every non-game mail already dealt with."""
        return {d["key"] for d in self.db.table("ledger").all()}

    def commit(
        self,
        *,
        outbox: Sequence[Mapping[str, Any]] = (),
        ledger_key: str | None = None,
        ledger_info: Mapping[str, Any] | None = None,
        shunt: Mapping[str, Any] | None = None,
    ) -> None:
        """A non-game mail's ledger key and replies (or a shunt change) in one atomic write."""
        with self.db.transaction():
            for row in outbox:
                self.db.table("outbox").insert(dict(row))
            if ledger_key is not None:
                self.db.table("ledger").insert({"key": ledger_key, **(ledger_info or {})})
            if shunt is not None:
                self.db.upsert("shunt", shunt, key=shunt["key"])
            write_limits(self.db, self.limits_hook)

    def prune_ledger(self, older_than_iso: str) -> int:
        """Forget non-game keys older than the retention (RELIABILITY §3.4 step 8)."""
        q = Query()
        with self.db.transaction():
            removed = self.db.table("ledger").remove(q.at < older_than_iso)
        return len(removed)

    def shunt_rows(self) -> list[dict[str, Any]]:
        """Every shunt row (a mail that failed, with its attempts and status), copied."""
        return [dict(d) for d in self.db.table("shunt").all()]

    def shunt_status(self) -> dict[str, str]:
        """Key -> status (``failing``: still retried, ``quarantined``) of every shunted mail."""
        return {d["key"]: str(d.get("status")) for d in self.db.table("shunt").all()}

    def shunt_row(self, key: str) -> dict[str, Any] | None:
        """The shunt row of the mail with content key ``key``, or None."""
        # the table read as it is (no tinydb query built for each mail: the guard asks for
        # every mail, and the table is empty but for failing mail, issue 23)
        for doc in ((self.db.storage.read() or {}).get("shunt") or {}).values():
            if doc.get("key") == key:
                return dict(doc)
        return None

    def remove_shunt(self, key: str) -> None:
        """Forget the shunt row of the mail with content key ``key``."""
        with self.db.transaction():
            self.db.remove("shunt", key=key)

    def outbox(self) -> list[dict[str, Any]]:
        """The non-game mail still to send, copied."""
        return [dict(r) for r in self.db.table("outbox").all()]

    def outbox_done(self, message_id: str) -> None:
        """Drop a sent mail from the outbox (with the rate-limit windows, in one write)."""
        with self.db.transaction():
            self.db.remove("outbox", message_id=message_id)
            write_limits(self.db, self.limits_hook)

    def outbox_update(self, message_id: str, changes: Mapping[str, Any]) -> None:
        """Change an outbox row (a retry's count or date) in one write with the rate-limit
        windows."""
        q = Query()
        with self.db.transaction():
            self.db.table("outbox").update(dict(changes), q.message_id == message_id)
            write_limits(self.db, self.limits_hook)

    def limit_windows(self) -> dict[str, list[float]]:
        """The rate-limit windows stored: each limit's recent send times."""
        return read_limits(self.db)

    def get_meta(self, name: str) -> Any:
        """The daemon-wide value stored under ``name``, or None."""
        doc = self.db.get_one("meta", name=name)
        return None if doc is None else doc["value"]

    def set_meta(self, name: str, value: Any) -> None:
        """Store a daemon-wide value under ``name`` (the VERP key, when the mailbox was last seen)."""
        with self.db.transaction():
            self.db.upsert("meta", {"name": name, "value": value}, name=name)
