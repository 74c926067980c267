"""``pbem status``: what the game master asks, read from the data directory without the daemon's
lock and without passwords.

Per game: its phase, the next deadline in the configured zone, who has not acted or voted yet
(the rules' ``awaiting``, what the reminders are sent to), finished or not and the outcome,
held posts, stalled deadlines, unreachable players, the declared absences not over and the
observers; for the daemon: running or not (its heartbeat file, :mod:`pbem.daemon.heartbeat`),
the outbox and the shunt.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pbem.core.errors import PbemError
from pbem.daemon import heartbeat
from pbem.daemon.jobs import instance_id


class NoDataDir(PbemError):
    """The data directory does not exist: nothing was ever run with this config."""


def gather(cfg: Any, now: datetime | None = None, *, require: bool = True) -> dict[str, Any]:
    """Everything ``pbem status`` shows, as JSON-able data. A missing data directory is
    :class:`NoDataDir`, or no games with ``require=False``."""
    from pbem.adapters.store import DaemonStore, GameStore, list_games

    now = now or datetime.now(UTC)
    root = cfg.data_dir
    if require and not root.is_dir():
        raise NoDataDir(
            f"data directory {root} does not exist: check daemon.data_dir in {cfg.path} "
            "(under systemd, $STATE_DIRECTORY), or start the daemon once"
        )
    out: dict[str, Any] = {
        "data_dir": str(root),
        "now": now.isoformat(),
        "daemon": heartbeat.describe(heartbeat.read(root), now, cfg.heartbeat_seconds),
        "games": [],
    }
    # the outbox counts are the daemon's own mail and every game's, so that the header agrees
    # with the games' lines (issue 21, item 8)
    outbox = {"pending": 0, "failing": 0, "dead": 0}
    if (root / "daemon.json").exists():
        ds = DaemonStore(root, readonly=True)
        out["last_seen"] = ds.get_meta("last_seen")
        _count_outbox(ds.outbox(), outbox)
        out["outbox_pending_daemon"] = outbox["pending"]
        shunt = ds.shunt_rows()
        out["shunt"] = {
            "failing": sum(r["status"] == "failing" for r in shunt),
            "quarantined": sum(r["status"] == "quarantined" for r in shunt),
        }
    out["requests"] = queued_requests(root)
    engine = _engine(cfg)
    for d in list_games(root):
        gs = GameStore(d, readonly=True)
        states = gs.deadline_states()
        game_outbox = _count_outbox(gs.outbox(), outbox)
        game: dict[str, Any] = {
            "id": gs.game_id,
            "game": gs.setup.get("game"),
            "players": len(gs.setup.get("players", [])),
            "events": int(gs.meta["seq"]),
            "outbox_pending": game_outbox["pending"],
            "deadlines": {k: v.get("extended_to") or v.get("state") for k, v in states.items()},
            "stalled": [
                {"deadline": k, "attempts": v.get("attempts"), "error": v.get("error")}
                for k, v in states.items()
                if v.get("state") == "stalled"
            ],
            "unreachable": [
                {k: b.get(k) for k in ("player", "address", "count", "last_status")}
                for b in gs.bounce_states().values()
                if b.get("unreachable")
            ],
            # list posts waiting: for the list to reopen (relay mode), for a confirmation
            "held_posts": sum(
                h.get("kind") not in ("confirm", "digest") for h in gs.held_entries()
            ),
            "awaiting_confirmation": sum(h.get("kind") == "confirm" for h in gs.held_entries()),
        }
        try:
            table = engine.load(gs.setup, gs.events())
        except Exception as exc:  # one broken game must not hide the others
            game["error"] = f"cannot load: {type(exc).__name__}: {exc}"
        else:
            game.update(_play(table, states, cfg.timezone, now))
        out["games"].append(game)
    out["outbox_pending"] = outbox["pending"]
    out["outbox_failing"] = outbox["failing"]
    out["dead_letters"] = outbox["dead"]
    out["health"] = health(out)
    return out


OK, DEGRADED, DOWN, NO_DATA = 0, 1, 2, 3
"""``pbem status``'s exit statuses, the monitoring plugins' convention (Nagios: OK, WARNING,
CRITICAL, UNKNOWN; ``systemctl is-active`` says 3 for inactive too)."""


def health(data: Mapping[str, Any]) -> dict[str, Any]:
    """``code`` (:data:`OK` running and nothing waits on a person, :data:`DEGRADED`,
    :data:`DOWN` stopped or its heartbeat stale, :data:`NO_DATA` never started) and the
    reasons, in words."""
    state = data["daemon"]["state"]
    if state == "never started":
        return {"code": NO_DATA, "state": "no data", "reasons": ["the daemon never started"]}
    if state != "running":
        return {"code": DOWN, "state": state, "reasons": [f"the daemon is {state}"]}
    reasons = []
    if data.get("outbox_failing"):
        reasons.append(f"{data['outbox_failing']} mail(s) failing to send (SMTP)")
    if data.get("dead_letters"):
        reasons.append(f"{data['dead_letters']} mail(s) given up (dead letters)")
    shunt = data.get("shunt", {})
    held = shunt.get("failing", 0) + shunt.get("quarantined", 0)
    if held:
        reasons.append(f"{held} incoming mail(s) held (pbem shunt list)")
    stalled = sum(len(g["stalled"]) for g in data["games"])
    if stalled:
        reasons.append(f"{stalled} stalled deadline(s) (pbem deadline list)")
    broken = [g["id"] for g in data["games"] if "error" in g]
    if broken:
        reasons.append(f"game(s) that cannot be loaded: {', '.join(broken)}")
    if reasons:
        return {"code": DEGRADED, "state": "degraded", "reasons": reasons}
    return {"code": OK, "state": "ok", "reasons": []}


def _count_outbox(rows: Any, totals: dict[str, int]) -> dict[str, int]:
    """Pending, failing (pending after a failed attempt: the server refuses or is down) and
    dead rows of one outbox, added to ``totals`` too."""
    mine = {"pending": 0, "failing": 0, "dead": 0}
    for r in rows:
        if r["status"] == "pending":
            mine["pending"] += 1
            mine["failing"] += bool(r.get("attempts"))
        elif r["status"] == "dead":
            mine["dead"] += 1
    for k, v in mine.items():
        totals[k] += v
    return mine


def queued_requests(root: Any) -> list[dict[str, Any]]:
    """The operator's requests the daemon has not taken yet (pbem.daemon.operator), oldest
    first: a queue that does not empty means the daemon is not reading it."""
    import json

    from pbem.daemon.operator.registry import REQUESTS

    out: list[dict[str, Any]] = []
    for kind in REQUESTS:
        try:
            files = sorted(p for p in (root / kind.spool).iterdir() if not p.name.startswith("."))
        except OSError:
            continue
        for path in files:
            item: dict[str, Any] = {"kind": kind.spool, "name": path.name}
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict):
                item.update({k: data[k] for k in ("game", "lines", "player") if k in data})
            out.append(item)
    return out


def _engine(cfg: Any) -> Any:
    from pbem.daemon.engine import load_engine

    return load_engine(cfg.engine)


def _play(
    table: Any, states: Mapping[str, Mapping[str, Any]], tz: str, now: datetime
) -> dict[str, Any]:
    """Phase, next deadline, who is awaited, and the outcome, from the rules' own reading."""
    summary = table.summary() if hasattr(table, "summary") else {}
    finished = bool(table.finished)
    out: dict[str, Any] = {
        "phase": summary.get("phase", getattr(table, "phase", None)),
        "day": summary.get("day"),
        "finished": finished,
    }
    if isinstance(summary.get("players"), list):
        # a game opened by `pbem open-game` stores no players in its setup: count the table's
        # (the seated volunteers before the start, the players after it)
        out["players"] = len(summary["players"])
    if getattr(table, "paused", False):
        out["paused"] = True  # by the game master (PAUSE): no deadline runs
    if finished:
        out["outcome"] = {
            k: summary[k] for k in ("winners", "side", "scores") if summary.get(k) is not None
        }
        return out
    pending = []
    for key, when in table.deadlines().items():
        st = states.get(instance_id(key, when), {})
        if st.get("state") == "stalled":
            continue  # paused until `pbem deadline retry`: shown under stalled
        ext = st.get("extended_to")
        pending.append((datetime.fromisoformat(ext) if ext else when, key))
    if pending:
        when, key = min(pending)
        local = when.astimezone(zoneinfo.ZoneInfo(tz))
        out["next_deadline"] = {
            "key": key,
            "at": when.astimezone(UTC).isoformat(),
            "local": f"{local:%a %d %b %Y %H:%M} {local.tzname()}",
            "in_seconds": round((when - now).total_seconds()),
        }
    if summary.get("phase") == "signup":  # opened by `pbem open-game`, not started yet
        low, high = summary["seats"]
        out["signup"] = {
            "seats": f"{low}" if low == high else f"{low}-{high}",
            "players": [p["name"] for p in summary["players"]],
            "bench": [p["name"] for p in summary["bench"]],
        }
        return out  # nobody is awaited before the start
    awaiting = getattr(table, "awaiting", None)
    if awaiting is not None:
        out["awaiting"] = sorted(str(p) for p in awaiting())
    out.update(_standing(table, now))
    roster = getattr(table, "roster", None)
    if roster is not None:  # the volunteers a seat may go to (REMPLACER, `pbem seat replace`)
        out["bench"] = [{"name": b.name, "address": b.email} for b in roster.bench]
    return out


def _standing(table: Any, now: datetime) -> dict[str, Any]:
    """The declared absences not over (who, first and last days, begun or not) and whether
    they move the deadlines, and the observers approved or waiting for approval (issue 25);
    nothing for a table without a log (another engine's)."""
    if not hasattr(table, "events") or not hasattr(table, "setup"):
        return {}
    from pbem.judge.absence import extends, standing
    from pbem.judge.observer import observers

    seen = observers(table)
    shown = getattr(table, "roster", None)
    absences = standing(table, now)
    for a in absences:
        a["player"] = str(shown.shown(a["player"]) if shown is not None else a["player"])
    return {
        "absences": absences,
        "absences_move_deadlines": extends(table.state),
        "observers": {"approved": sorted(seen.joined), "waiting": sorted(seen.pending)},
    }


def _ago(seconds: float) -> str:
    return f"{_span(seconds)} ago"


def _span(seconds: float) -> str:
    s = int(abs(seconds))
    if s < 90:
        return f"{s} s"
    if s < 90 * 60:
        return f"{s // 60} min"
    if s < 48 * 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def _since(iso: str | None, now: datetime) -> str:
    if not iso:
        return "never"
    return _ago((now - datetime.fromisoformat(iso)).total_seconds())


def render(data: Mapping[str, Any]) -> str:
    """The human reading of :func:`gather`: words, no dict reprs."""
    now = datetime.fromisoformat(data["now"])
    d = data["daemon"]
    lines = []
    if d["state"] == "never started":
        lines.append("daemon: never started with this data directory")
    else:
        beat = f"last heartbeat {_ago(d['heartbeat_age_seconds'])}"
        if d["state"] == "running":
            lines.append(
                f"daemon: running (pid {d['pid']}), {beat}; mailbox reached "
                f"{_since(d.get('mailbox_ok'), now)}"
            )
        elif d["state"] == "stopped":
            lines.append(f"daemon: stopped {_since(d['heartbeat'], now)}")
        else:
            lines.append(f"daemon: NOT RESPONDING (pid {d['pid']}): {beat}")
    shunt = data.get("shunt", {})
    failing = f" ({data['outbox_failing']} failing)" if data.get("outbox_failing") else ""
    lines.append(
        f"data: {data['data_dir']}; outbox: {data.get('outbox_pending', 0)} pending{failing}, "
        f"{data.get('dead_letters', 0)} dead; shunt: {shunt.get('failing', 0)} failing, "
        f"{shunt.get('quarantined', 0)} quarantined"
    )
    h = data.get("health")
    if h and h["code"] == DEGRADED:
        lines.append(f"health: DEGRADED: {'; '.join(h['reasons'])}")
    requests = data.get("requests", [])
    if requests:
        lines.append(f"requests queued for the daemon: {len(requests)}")
        for r in requests:
            what = " ".join(r.get("lines", [])) or r.get("player", "") or r["name"]
            game = f" {r['game']}" if r.get("game") else ""
            lines.append(f"  {r['kind']}{game}: {what}")
    if not data["games"]:
        lines.append("no games (pbem new-game creates one)")
    for g in data["games"]:
        lines.append("")
        lines.extend(_render_game(g))
    return "\n".join(lines) + "\n"


def _render_game(g: Mapping[str, Any]) -> list[str]:
    head = f"{g['id']}  {g['game']}  {g['players']} players"
    if "signup" in g:  # a lobby: how many signed up for how many seats
        head = f"{g['id']}  {g['game']}  {g['players']} signed up of {g['signup']['seats']} seats"
    if "error" in g:
        return [head, f"  {g['error']}"]
    if g["finished"]:
        outcome = g.get("outcome", {})
        who = ", ".join(outcome.get("winners", [])) or "nobody"
        side = f" ({outcome['side']})" if outcome.get("side") else ""
        lines = [f"{head}  finished: won by {who}{side}"]
    else:
        phase = f"{g['phase']}" + (f", day {g['day']}" if g.get("day") is not None else "")
        lines = [f"{head}  phase: {phase}"]
        nd = g.get("next_deadline")
        if nd:
            when = nd["in_seconds"]
            rel = f"in {_span(when)}" if when >= 0 else f"passed {_ago(when)}"
            lines.append(f"  next deadline: {nd['key']} at {nd['local']} ({rel})")
        elif g.get("paused"):
            lines.append("  paused by the game master (pbem admin GAME RESUME)")
        elif not g["stalled"]:
            lines.append("  next deadline: none")
        if "awaiting" in g:
            who = ", ".join(g["awaiting"]) or "nobody: everyone has acted"
            lines.append(f"  not acted or voted yet: {who}")
        if g.get("absences"):
            moved = "deadlines move past them" if g["absences_move_deadlines"] else "deadlines stay"
            away = ", ".join(
                f"{a['player']} {a['first']}"
                + (f" to {a['last']}" if a["last"] != a["first"] else "")
                + (" (now)" if a["current"] else "")
                for a in g["absences"]
            )
            lines.append(f"  absences ({moved}): {away}")
        seen = g.get("observers") or {}
        if seen.get("approved") or seen.get("waiting"):
            approved = ", ".join(seen["approved"]) or "none"
            waiting = f"; waiting for approval: {', '.join(seen['waiting'])}"
            lines.append(f"  observers: {approved}{waiting if seen['waiting'] else ''}")
        if g.get("bench"):
            bench = ", ".join(f"{b['name']} <{b['address']}>" for b in g["bench"])
            lines.append(f"  bench: {bench}")
        if "signup" in g:
            su = g["signup"]
            who = ", ".join(su["players"]) or "nobody yet"
            lines.append(f"  signed up: {len(su['players'])} of {su['seats']} seats: {who}")
            if su["bench"]:
                lines.append(f"  bench: {', '.join(su['bench'])}")
    if g["held_posts"]:
        lines.append(f"  held posts: {g['held_posts']}")
    if g["awaiting_confirmation"]:
        lines.append(f"  votes awaiting confirmation: {g['awaiting_confirmation']}")
    if g["outbox_pending"]:
        lines.append(f"  outbox: {g['outbox_pending']} pending")
    for d in g["stalled"]:  # requirement 10 for deadlines: the game is paused there
        lines.append(
            f"  stalled: deadline {d['deadline']} after {d['attempts']} attempts "
            f"({d['error'] or 'the process died'}): pbem deadline retry {g['id']}"
        )
    for u in g["unreachable"]:  # RELIABILITY §2.5: hard bounces flag a player
        lines.append(
            f"  unreachable: {u['player']} <{u['address']}> "
            f"({u['count']} hard bounces, last {u['last_status']})"
        )
    return lines
