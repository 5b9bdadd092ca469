"""Shell completion: ``gaugecli --install-completion`` installs a bash script that completes the
lazily loaded subcommands and their options."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
SCRIPT = shutil.which("gaugecli", path=str(BIN))
pytestmark = [
    pytest.mark.skipif(SCRIPT is None, reason="the gaugecli console script is not installed beside this Python"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
]


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "SHELL": "/bin/bash",
        "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "LANG": "C.UTF-8",
    }


def _bash(command: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # a list of commands, so that bash forks instead of exec'ing: the shell is gaugecli's parent, as
    # when a user types the command (typer detects the shell from the process tree)
    return subprocess.run(
        ["bash", "--norc", "-c", command + "; exit $?", "bash", *args],
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=60,
        check=False,
    )


def test_install_completion_writes_a_bash_script_that_completes_subcommands_and_options(tmp_path: Path) -> None:
    installed = _bash('"$1" --install-completion', tmp_path, str(SCRIPT))
    assert installed.returncode == 0, installed.stderr
    assert "bash completion installed" in installed.stdout
    script = tmp_path / ".bash_completions" / "gaugecli.sh"
    assert script.is_file()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text(encoding="utf-8")

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        done = _bash(
            f'source "$1"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _gaugecli_completion gaugecli; '
            'printf "%s\\n" "${COMPREPLY[@]}"',
            tmp_path,
            str(script),
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert "simulate" in complete("gaugecli", "sim")
    assert {"select", "verify", "plot"} <= set(complete("gaugecli", "''"))
    assert {"--gauge", "--gauge-strength"} <= set(complete("gaugecli", "simulate", "--gau"))
