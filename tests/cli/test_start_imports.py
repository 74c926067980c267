"""What a start imports (issue 21: every ``pbem`` verb parses the whole command line, and the
suite runs it hundreds of times): modules only a rare path needs stay out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(code: str, *modules: str) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(out.stdout.splitlines()[-1])
    return loaded


def test_the_command_line_imports_no_package_metadata_nor_time_zones() -> None:
    assert (
        loaded_after(
            "from pbem.cli.main import build_parser\nbuild_parser()",
            "importlib.metadata",
            "zoneinfo",
        )
        == []
    )
