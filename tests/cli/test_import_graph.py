"""No import circle in the command line, nor anywhere in the package (issue 21).

The graph counts every ``import`` of a pbem module wherever it stands (a function's body
included: a circle through a late import is still a circle, as ``pbem.cli.daemon`` ↔
``pbem.cli.seat`` ↔ ``pbem.signup.cli`` was), read from the source with :mod:`ast`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

KNOWN_CIRCLES: tuple[set[str], ...] = ()
"""The circles pbem may still have: none. One may only leave this list, none may grow and no
new one may appear.

The last one (38 modules, broken in December 2026) was the Table and the parts it composes,
each typed over the hub: the parts now read the Table through its ports
(:mod:`pbem.table.ports`: ``TableView``, ``AnsweringTable``, ``DeskTable``, ``HubTable``), as
the daemon's intake and operator requests read the service (``IntakeParts``,
``OperatorParts``); a started sign-up's game is read by :mod:`pbem.signup.started`, below the
Table, and ``AIDE`` is given the desk's commands it lists rather than importing their
registry."""


def modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "pbem").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    yield full
                elif base in known:
                    yield base


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def package_circles() -> list[set[str]]:
    known = modules()
    return circles({m: set(imported(m, p, known)) - {m} for m, p in known.items()})


def test_the_command_line_modules_import_each_other_in_no_circle() -> None:
    in_cli = [c for c in package_circles() if any(m.startswith("pbem.cli") for m in c)]
    assert in_cli == []


def test_no_new_import_circle_across_the_package() -> None:
    new = [sorted(c) for c in package_circles() if not any(c <= k for k in KNOWN_CIRCLES)]
    assert new == [], "a new import circle (or a known one grew)"


def test_every_known_circle_is_still_one() -> None:
    """A circle broken leaves the list, so that it cannot come back unseen."""
    found = package_circles()
    stale = [sorted(k) for k in KNOWN_CIRCLES if not any(k & c for c in found)]
    assert stale == [], "a known circle is gone: take it out of KNOWN_CIRCLES"


def test_the_circle_finder_finds_a_late_import_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [{"a", "b", "c"}]


def test_the_package_root_holds_packages_only() -> None:
    """Issue 24: each concern is a package found by its name; no loose module at the root."""
    loose = sorted(p.name for p in (ROOT / "pbem").glob("*.py") if p.name != "__init__.py")
    assert loose == []


def test_every_package_imports_first_in_a_fresh_interpreter() -> None:
    """A known circle is harmless only while its modules load in a working order: each package
    must import when it is the first pbem module loaded (``pbem admin`` loads pbem.desk first,
    and an import order through the judges' services once broke it)."""
    import subprocess
    import sys

    packages = sorted(p.parent.name for p in (ROOT / "pbem").glob("*/__init__.py"))
    script = (
        "import importlib, sys\n"
        f"for name in {packages!r}:\n"
        "    for loaded in [m for m in sys.modules if m == 'pbem' or m.startswith('pbem.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module('pbem.' + name)\n"
        "    except ImportError as exc:\n"
        "        print(name, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout == ""
