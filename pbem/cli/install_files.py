"""``pbem install-files DIR``: the files a sysadmin installs beside the package (issue 21 item 5).

The example configuration, the systemd unit and the sysusers file ship in the wheel (data
files under ``<prefix>/share/pbem``, pyproject.toml), so a wheel alone is enough: this writes
them into ``DIR`` laid out as in the source tree (``config/pbem.example.toml``,
``systemd/pbem.service``, ``systemd/pbem.sysusers``), and docs/install-debian.md's commands
run the same from ``DIR`` as from a checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.cli.common import about

#: Where each file goes under DIR (its place in the source tree).
FILES = {
    "pbem.example.toml": "config/pbem.example.toml",
    "pbem.service": "systemd/pbem.service",
    "pbem.sysusers": "systemd/pbem.sysusers",
}


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``install-files``."""
    p = sub.add_parser(
        "install-files",
        help="write the example config, the systemd unit and the sysusers file into DIR",
        **about(
            "Write config/pbem.example.toml, systemd/pbem.service and "
            "systemd/pbem.sysusers (as shipped with this pbem) into DIR, to install as "
            "docs/install-debian.md says. An existing file is left alone unless --force.",
            "pbem install-files /tmp/pbem-files",
        ),
    )
    p.add_argument("dir", metavar="DIR", help="where to write them (created if missing)")
    p.add_argument("--force", action="store_true", help="overwrite files already there")
    p.set_defaults(func=cmd_install_files)


def shipped_file(name: str) -> Path:
    """The installed copy of ``name`` (``share/pbem/<name>`` of this distribution), or, for a
    checkout (an editable install), the source tree's."""
    import importlib.metadata  # here: 20 ms that every other ``pbem`` verb (and --help) skips

    try:
        dist = importlib.metadata.distribution("pbem")
    except importlib.metadata.PackageNotFoundError:
        dist = None
    for entry in (dist.files or []) if dist is not None else []:
        if entry.as_posix().endswith(f"share/pbem/{name}"):
            path = Path(str(dist.locate_file(entry)))  # type: ignore[union-attr]
            if path.is_file():
                return path.resolve()
    source = Path(__file__).resolve().parents[2] / FILES[name]
    if source.is_file():
        return source
    raise FileNotFoundError(f"{name} is not installed with this pbem (share/pbem/{name})")


def cmd_install_files(args: argparse.Namespace) -> int:
    """``pbem install-files``: copy the example configuration and the systemd files into a
    directory, refusing to overwrite without ``--force``."""
    target = Path(args.dir)
    try:
        sources = {name: shipped_file(name) for name in FILES}
        taken = [target / rel for rel in FILES.values() if (target / rel).exists()]
        if taken and not args.force:
            names = ", ".join(str(t) for t in taken)
            print(f"pbem install-files: {names}: already there (--force)", file=sys.stderr)
            return 2
        for name, rel in FILES.items():
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(sources[name].read_bytes())
            print(dest)
    except OSError as exc:
        print(f"pbem install-files: {exc}", file=sys.stderr)
        return 2
    return 0
