"""docs/cli.md is the command reference generated from the Typer app: it must match ``--help``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    """Regenerate with ``make docs`` when this fails."""
    result = subprocess.run(
        [sys.executable, "-m", "typer", "gaugecli.cli.app", "utils", "docs", "--name", "gaugecli"],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(DOCS.parents[1])},
    )
    assert DOCS.read_text(encoding="utf-8") == result.stdout, "docs/cli.md is stale: run `make docs`"


def test_readme_links_the_theory_and_the_cli_reference() -> None:
    """On the documentation site (its address in pyproject.toml's [project.urls]; tests/test_readme.py)."""
    from test_readme import site_url

    readme = (DOCS.parents[1] / "README.md").read_text(encoding="utf-8")
    assert site_url("theory.md") in readme and site_url("cli.md") in readme and "gaugecli verify" in readme
