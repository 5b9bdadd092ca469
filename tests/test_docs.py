"""docs/cli.md is the command reference generated from the Typer app (tools/cli_docs.py): it must be
current and say what ``--help`` says — each command's option panels under the titles and in the order
``--help`` prints them, and each example of its ``--help`` as a shell block."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from gaugecli.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    """Regenerate with ``make docs`` when this fails."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "cli_docs.py")],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert DOCS.read_text(encoding="utf-8") == result.stdout, "docs/cli.md is stale: run `make docs`"


def _commands(command, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """Every command of the app with its words after ``gaugecli``, depth-first (groups included)."""
    yield path, command
    ctx = command.context_class(command, info_name=(path or ("gaugecli",))[-1], **command.context_settings)
    for name in command.list_commands(ctx) if hasattr(command, "list_commands") else []:
        yield from _commands(command.get_command(ctx, name), (*path, name))


def _section(path: tuple[str, ...]) -> str:
    """The part of docs/cli.md about the command ``gaugecli <path>``: from its heading to the next."""
    text = DOCS.read_text(encoding="utf-8")
    heading = re.compile(rf"^#+ `{re.escape(' '.join(('gaugecli', *path)))}`$", re.MULTILINE)
    [start] = [m.end() for m in heading.finditer(text)]
    following = re.search(r"^#+ `gaugecli", text[start:], re.MULTILINE)
    return text[start : start + following.start()] if following else text[start:]


COMMANDS = list(_commands(get_command(app)))


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "gaugecli")
def test_the_cli_page_groups_each_command_as_its_help_does(path: tuple[str, ...]) -> None:
    """The section titles of ``gaugecli <path> --help`` as it prints them (a line ``Model options:`` at
    the margin) are the page's bold titles for that command, in the same order; every option and
    argument term ``--help`` prints is on the page; every example line of the help is in a shell block."""
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    titles = [
        line[:-1] for line in result.output.splitlines() if re.fullmatch(r"[A-Z][\w ]*:", line) and line != "Usage:"
    ]
    section = _section(path)
    assert re.findall(r"^\*\*([^*]+)\*\*:$", section, re.MULTILINE) == ["Usage", *titles]
    for flag in re.findall(r"^  (-{1,2}[\w-]+)", result.output, re.MULTILINE):
        assert f"`{flag}" in section or f" {flag}" in section, f"{flag} of gaugecli {' '.join(path)} --help"
    examples = (
        re.findall(r"^\s+(gaugecli \S.*)$", result.output.split("Examples:", 1)[1], re.M)
        if "Examples:" in result.output
        else []
    )
    blocks = "\n".join(re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL))
    assert all(example.strip() in blocks.splitlines() for example in examples), examples


def test_the_page_turns_an_example_block_into_a_shell_block() -> None:
    """The example block's form (an epilog ``Examples:``, click's no-rewrap marker, indented
    commands) read by the generator, shown on a command of its own."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from cli_docs import _examples
    finally:
        sys.path.remove(str(ROOT / "tools"))
    epilog = "Examples:\n\n\b\n  gaugecli simulate -D 4\n  gaugecli select --json"
    assert _examples(epilog) == (["gaugecli simulate -D 4", "gaugecli select --json"], "")
    assert _examples(None) == ([], "")


def test_readme_links_the_theory_and_the_cli_reference() -> None:
    """On the documentation site (its address in pyproject.toml's [project.urls]; tests/test_readme.py)."""
    from test_readme import site_url

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert site_url("theory.md") in readme and site_url("cli.md") in readme and "gaugecli verify" in readme
