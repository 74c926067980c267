"""DESIGN.md layering: core/ and games/ do no I/O, read no clock, use no global random."""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

PURE = ("core", "games")
FORBIDDEN_IMPORTS = {
    "imapclient",
    "aiosmtplib",
    "apscheduler",
    "tinydb",
    "jinja2",
    "socket",
    "os",
    "time",
    "asyncio",
    "subprocess",
    "pathlib",
}
FORBIDDEN_CALLS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("date", "today"),
    ("random", "random"),
    ("random", "choice"),
    ("random", "shuffle"),
    ("random", "randint"),
    ("random", "sample"),
}


def pure_files() -> list[Path]:
    root = Path(pbem.__file__).parent
    return [p for layer in PURE for p in sorted((root / layer).rglob("*.py"))]


def test_pure_layers_import_no_io_library() -> None:
    for path in pure_files():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module.split(".")[0]]
            bad = set(names) & FORBIDDEN_IMPORTS
            assert not bad, f"{path}: imports {bad}"
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pbem."):
                assert node.module.split(".")[1] in PURE, f"{path}: imports {node.module}"


def test_pure_layers_call_no_clock_and_no_global_random() -> None:
    for path in pure_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
            ):
                assert (node.func.value.id, node.func.attr) not in FORBIDDEN_CALLS, (
                    f"{path}:{node.lineno}"
                )


def test_no_open_calls_in_pure_layers() -> None:
    for path in pure_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("open", "print", "input"), f"{path}:{node.lineno}"
