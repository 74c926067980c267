"""Sender authentication layers (RELIABILITY §1.6, requirements 5 and 7). Pure.

Layers the game master chooses in ``[auth] methods``, all of which must pass for a private
command whose From is a registered address:

- ``registered`` (default): the From is the player's registered address; the receipt the engine
  sends goes to that address, so a forgery is noticed by the real player.
- ``secret``: a ``SECRET <code>`` (or ``CODE <code>``) line carries the player's per-game code,
  stored scrypt-hashed and compared in constant time; the line is removed before parsing, so it is
  never echoed in a reply nor logged.
- ``dkim``: the TOPMOST ``Authentication-Results`` header must come from the configured
  authserv-id and say ``dmarc=pass header.from=<From domain>`` or ``dkim=pass
  header.d=<From domain>``; lower (forgeable) copies are ignored, and so is ARC: an
  ``ARC-Authentication-Results`` (or a whole ARC set) is never trusted, whoever sealed it.
- ``dkim_verify``: the raw message must carry a valid DKIM signature (checked in-process by
  :mod:`pbem.mail.dkim` over ALL signatures, ``l=`` refused) whose d= is the From domain or a
  parent of it. Works without a trusted border MTA; needs DNS for the keys.

A game master's mail (an address in the game's ``admins``) is never taken on its From alone
(issue 10 item 9): it must pass every transport layer the strongest player layer has (the
``dkim``/``dkim_verify`` of ``methods`` and ``final_methods``) plus the game masters' own
secret, a ``SECRET <code>`` line checked against the admin code (per game, ``pbem new-game
--admin-secret``, or per daemon, ``[auth] admin_secret_file``), stored like the players'.

Posts on an external list are checked by the registered From only here: lists break DKIM (§0.4)
and a secret posted publicly would be burnt. Requirement 6 is met above this layer: the service
has their commands confirmed from the registered address (``[auth] list_votes``), or, when it
relays the list itself, authenticates the posts like private mail (they reach it directly).
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING

from pbem.adapters.codes import new_code, verify_secret
from pbem.daemon.config import AuthConfig
from pbem.mail.address import getaddresses

if TYPE_CHECKING:
    from pbem.mail.dkim import Resolver

_SECRET_LINE = re.compile(r"^\s*(?:SECRET|CODE)\s*[:=]?\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class AuthVerdict:
    """``ok``; the registered address of the player the From names (None: not a player's);
    why not; the message to hand to the engine (secret line removed)."""

    ok: bool
    registered: str | None
    reason: str = ""
    """A code for the notice template: ``no_secret``, ``bad_secret`` or ``no_dkim``."""
    message: EmailMessage | None = None
    strong: bool = True
    """Whether the stronger layers for irreversible commands (``[auth] final_methods``) passed
    too; when not, the engine refuses the commands the rules call final (requirement 5)."""
    replay_keys: tuple[str, ...] = ()
    """With ``dkim_verify``: ``dkim:<sha256 of b=>`` of each valid aligned signature. A
    signed mail re-delivered by an MTA (or replayed by an attacker) has new bytes, so a new
    content hash, but the same signatures: a caller that ledgers these keys with the content
    hash can refuse the replay (RELIABILITY §1.6 layer 4; F13)."""
    admin: bool = False
    """The From is one of the game's masters: on a failure the real ones are alerted, and
    nothing is answered to the From."""


def game_admin_code(
    asked: bool | None, admin_secret: bool, daemon_code: str | None, admins: Sequence[str]
) -> str | None:
    """The admin code a new game gets (``new-game``, ``open-game``), or None.

    ``asked``: ``--admin-secret`` (True) or ``--no-admin-secret`` (False); unasked (None), a game
    gets one whenever its game masters' mail would need one and find none: ``[auth]
    admin_secret`` on, game masters named, no daemon-wide code (``daemon_code``, where it is
    read from). Without it every desk command by mail would be refused (issue 21 item 6)."""
    if asked is not None:
        return new_code() if asked else None
    return new_code() if admin_secret and admins and not daemon_code else None


def _from(msg: EmailMessage) -> str:
    try:
        return _first_address(str(msg.get("From", "")))
    except Exception:
        return ""


@functools.lru_cache(maxsize=1024)  # the same few players' From, mail after mail (issue 23)
def _first_address(value: str) -> str:
    return (getaddresses([value])[0][1] or "").lower()


_COMMENT = re.compile(r"\([^()]*\)")


def _clause(text: str) -> tuple[str, dict[str, str]]:
    """``method=result`` and the ``ptype.property=value`` pairs of one resinfo (RFC 8601 §2.2),
    lower-cased, comments removed (a comment is free text: never read as a property)."""
    text = text.lower()
    while True:
        stripped = _COMMENT.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    words = re.sub(r"\s*=\s*", "=", text).split()
    props: dict[str, str] = {}
    for word in words[1:]:
        name, eq, value = word.partition("=")
        if eq:
            props.setdefault(name, value.strip('"'))
    return (words[0] if words else ""), props


def ar_pass(msg: EmailMessage, authserv_id: str, domain: str) -> bool:
    """True if the topmost Authentication-Results is ours and shows an aligned pass:
    ``dkim=pass header.d=<domain>`` or ``dmarc=pass header.from=<domain>``.

    A ``dmarc=pass`` must name the From domain it was evaluated for (as OpenDMARC, rspamd,
    Gmail and Microsoft all write it): a pass the MTA gave another From domain (a From it
    parsed differently from us, e.g. ``alice@example.org <mallory@evil.example>``) is not ours.
    """
    headers = msg.get_all("Authentication-Results", [])
    if not headers:
        return False
    top = str(headers[0])
    serv, _, results = top.partition(";")
    if serv.strip().split()[0:1] != [authserv_id]:
        return False
    domain = domain.lower()
    for clause in results.split(";"):
        result, props = _clause(clause)
        if result == "dmarc=pass" and props.get("header.from") == domain:
            return True
        if result == "dkim=pass" and props.get("header.d") == domain:
            return True
    return False


def _strip_secret(msg: EmailMessage) -> tuple[str | None, EmailMessage]:
    found: str | None = None
    new = copy.deepcopy(msg)
    for part in new.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        try:
            text = str(part.get_content())
        except (LookupError, ValueError):
            continue
        m = _SECRET_LINE.search(text)
        if m is None:
            continue
        found = found or m.group(1)
        part.set_content(_SECRET_LINE.sub("", text), subtype=part.get_content_subtype())
    return found, new


def check_sender(
    msg: EmailMessage,
    player_emails: Mapping[str, str],
    cfg: AuthConfig,
    stored_secrets: Mapping[str, Mapping[str, str]],
    *,
    channel: str = "private",
    raw: bytes | None = None,
    resolver: Resolver | None = None,
    now: datetime | None = None,
    admins: Collection[str] = (),
    admin_secrets: Sequence[Mapping[str, str]] = (),
) -> AuthVerdict:
    """Apply the configured layers; unknown senders pass through (the engine answers them).

    ``dkim_verify`` needs the bytes as received (``raw``), a DKIM key lookup (``resolver``)
    and the time for x= expiry (``now``); without any of them it fails closed.

    ``admins``: the game masters' addresses; their private mail needs the transport layers of
    the strongest player layer and an admin code matching one of ``admin_secrets`` (none
    stored: refused, ``no_admin_secret``), unless ``[auth] admin_secret`` is off.
    """
    sender = _from(msg)
    by_addr = {a.lower(): n for n, a in player_emails.items()}
    name = by_addr.get(sender)
    is_admin = name is None and sender in {a.lower() for a in admins}
    if name is None and not is_admin:
        return AuthVerdict(True, None)
    registered = player_emails[name] if name is not None else None
    if channel != "private":
        return AuthVerdict(True, registered, admin=is_admin)
    required = tuple(cfg.methods)
    layers = (*required, *(m for m in cfg.final_methods or () if m not in required))
    if is_admin:  # the strongest player layer is the floor, the admin code comes on top
        required = tuple(m for m in layers if m != "secret")
        required += ("admin_secret",) if cfg.admin_secret else ()
        layers = required
    out = msg
    failed: dict[str, str] = {}
    replay_keys: tuple[str, ...] = ()
    if "secret" in layers or is_admin:  # the line is removed whichever layer asks for it
        code, out = _strip_secret(msg)
    if "admin_secret" in layers:
        if not admin_secrets:
            failed["admin_secret"] = "no_admin_secret"
        elif code is None or not any(verify_secret(code, s) for s in admin_secrets):
            failed["admin_secret"] = "bad_admin_secret"
    if "secret" in layers:
        stored = stored_secrets.get(name or "")
        if stored is None:
            failed["secret"] = "no_secret"
        elif code is None or not verify_secret(code, stored):
            failed["secret"] = "bad_secret"
    if "dkim" in layers:
        domain = sender.rpartition("@")[2]
        if not cfg.authserv_id or not ar_pass(msg, cfg.authserv_id, domain):
            failed["dkim"] = "no_dkim"
    if "dkim_verify" in layers:
        # dkimpy and dnspython only where a config asks for them (start-up cost of every command)
        from pbem.mail.dkim import aligned_signatures

        domain = sender.rpartition("@")[2]
        valid = (
            aligned_signatures(raw, domain, resolver, now)
            if raw is not None and resolver is not None and now is not None
            else []
        )
        if not valid:
            failed["dkim_verify"] = "no_dkim"
        replay_keys = tuple(sorted({f"dkim:{r.signature}" for r in valid}))
    for layer in required:
        if layer in failed:
            return AuthVerdict(False, registered, failed[layer], admin=is_admin)
    message = out if out is not msg else None
    return AuthVerdict(
        True,
        registered,
        message=message,
        strong=not failed,
        replay_keys=replay_keys,
        admin=is_admin,
    )
