"""The adapters are the bottom layer beside the pure ones (docs/design.md): they import no
module of the daemon, the desk, the table or the tools above them (issue 11)."""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

BELOW = {"adapters", "core", "mail"}


def test_adapters_import_nothing_from_the_layers_above() -> None:
    root = Path(pbem.__file__).parent
    for path in sorted((root / "adapters").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pbem."):
                assert node.module.split(".")[1] in BELOW, f"{path.name} imports {node.module}"
