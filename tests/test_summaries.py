"""What the commands print: a header with the run's effective configuration, L against L_n,
``column: value`` lines where a table cannot fit, ``--json`` for scripts, one line per claim in
``verify``. The numbers printed are checked against the artifact they summarise."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from gaugecli.cli.app import app

FAST = ["--d", "3", "--rtol", "1e-8"]


def _run(args: list[str], cwd: Path, columns: int = 120) -> SimpleNamespace:
    """The command line in this process, its streams separately (click ≥ 8.2's CliRunner keeps
    stderr apart from stdout), in a terminal of ``columns``: the consoles read COLUMNS when they are
    built, once per process, so they are built afresh for this call and dropped after it. A fresh
    interpreter per call (``python -m gaugecli``) cost ≈ 2.5 CPU-s of imports each, 11 calls; the
    process boundary itself is tested where it matters (test_cli.py's ``python -m gaugecli``, and
    ``_run_process`` below for a clean stdout at the file-descriptor level)."""
    from gaugecli.cli.report import terminal

    env = {"COLUMNS": str(columns), "PATH": "", "OMP_NUM_THREADS": "1"}
    fresh = (terminal.console, terminal.errors_console)
    for built in fresh:
        built.cache_clear()
    try:
        with contextlib.chdir(cwd):
            result = CliRunner().invoke(app, args, env=env)
    finally:
        for built in fresh:
            built.cache_clear()
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return SimpleNamespace(args=args, stdout=result.stdout, stderr=result.stderr, returncode=result.exit_code)


def _run_process(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real console script, its streams as a pipe reads them: whatever reaches file descriptor 1
    (a compiled library's own print included), which an in-process runner would not see."""
    env = {"COLUMNS": "120", "PATH": "", "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "gaugecli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_header_states_the_effective_configuration(tmp_path: Path) -> None:
    out = _run(["simulate", *FAST, "-D", "2", "--gauge", "unfavorable", "--cache-dir", "C"], tmp_path).stdout
    head = out.splitlines()[0]
    for part in ("σ = relu", "mode flow", "d = 3", "m = 1", "D = 2 (unfavorable)", "t_max = auto", "rtol = 1e-8"):
        assert part in head, (part, head)
    assert "final L" in out and "final L_n" not in out and "L: the population loss" in out


def test_a_sample_run_reports_L_and_L_n_and_its_sample(tmp_path: Path) -> None:
    args = ["simulate", "--d", "3", "--mode", "sample", "--n-samples", "500", "--seeds", "3", "--t-max", "2"]
    out = _run([*args, "--cache-dir", "C"], tmp_path).stdout
    assert "n = 500" in out.splitlines()[0] and "seed = 3" in out.splitlines()[0]
    assert "final L_n" in out and "L_n: the empirical loss" in out


def test_json_prints_one_object_per_artifact_and_nothing_else_on_stdout(tmp_path: Path) -> None:
    proc = _run_process(["simulate", *FAST, "-D", "1,4", "--cache-dir", "C", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["kind"] for r in records] == ["simulate", "simulate"]
    for record in records:
        artifact = json.loads(Path(tmp_path, record["path"]).read_text())
        assert record["config_hash"] == artifact["config_hash"]
        assert record["result"]["t_spec"] == artifact["result"]["t_spec"]
        assert record["computed"] is True
    again = [json.loads(line) for line in _run(list(proc.args[3:]), tmp_path).stdout.splitlines()]
    assert [r["computed"] for r in again] == [False, False]


def test_a_narrow_terminal_gets_key_value_lines_with_every_number(tmp_path: Path) -> None:
    wide = _run(["simulate", *FAST, "--cache-dir", "C", "--json"], tmp_path).stdout
    t_spec = json.loads(wide)["result"]["t_spec"]
    narrow = _run(["simulate", *FAST, "--cache-dir", "C"], tmp_path, columns=20).stdout
    assert f"  T_spec: {t_spec:.4g}" in narrow.splitlines()
    assert "…" not in narrow.split("row 1:")[1]


def test_verify_prints_one_line_per_claim(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from gaugecli.cli import report
    from gaugecli.cli.report import studies

    claims = [
        SimpleNamespace(
            id=f"C{i}",
            quantity="a measured quantity " * 8,
            statement="",
            measured={"exponent": 2.0001, "C": 38.4, "runs": [1, 2, 3]},
            expected="2",
            tolerance="± 0.05",
            error=None,
            passed=i != 3,
        )
        for i in range(1, 6)
    ]
    result = SimpleNamespace(claims=claims)
    monkeypatch.setenv("COLUMNS", "80")
    # in an 80-column terminal each claim is one line cut to its width …
    from rich.console import Console

    terminal = Console(soft_wrap=True, force_terminal=True, color_system=None, width=80)
    monkeypatch.setattr(studies, "console", lambda: terminal)  # where verify looks it up
    report.verify(result, Path("v.json"), None)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:5]] == ["C1", "C2", "C3", "C4", "C5"]
    assert all(len(line) <= 80 for line in lines[:5]), lines
    assert "FAIL" in lines[2] and "pass" in lines[0]
    assert lines[5].startswith("4/5 claims pass")
    # … and off a terminal (a pipe, a CI log) whole, whatever COLUMNS says: no measured value is lost
    monkeypatch.undo()
    monkeypatch.setenv("COLUMNS", "80")
    report.console.cache_clear()
    report.verify(result, Path("v.json"), None)
    report.console.cache_clear()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:5]] == ["C1", "C2", "C3", "C4", "C5"]
    assert all(line.endswith("runs = [1, 2, 3] (expected 2 ± 0.05)") and len(line) > 80 for line in lines[:5]), lines


def test_select_with_explicit_deltas_names_the_predicted_owner_not_a_designated_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["select", *FAST, "--deltas", "-1,2,0.5", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "the gauge predicts owner 1 (argmax δ)" in result.output and "designated" not in result.output


def test_a_run_missing_from_the_cache_names_the_options_of_the_nearest_cached_one(tmp_path: Path) -> None:
    """`make figures`, then a command at other values: one line says which flags would reuse a run."""
    assert _run(["simulate", *FAST, "-D", "4", "--cache-dir", "C"], tmp_path).returncode == 0
    proc = _run(["simulate", *FAST, "-D", "8", "--cache-dir", "C"], tmp_path)
    (line,) = [ln for ln in proc.stderr.splitlines() if "not in the cache" in ln]
    assert "--gauge-strength 4.0 there, 8.0 here" in line
    again = _run(["simulate", *FAST, "-D", "8", "--cache-dir", "C"], tmp_path)
    assert "not in the cache" not in again.stderr  # cached now: no hint


def test_a_header_of_several_runs_names_every_gauge_and_strength(tmp_path: Path) -> None:
    args = ["simulate", *FAST, "--gauge", "favorable", "--gauge", "unfavorable", "-D", "1,2", "--cache-dir", "C"]
    head = _run(args, tmp_path).stdout.splitlines()[0]
    assert "favorable: D = 1,2, unfavorable: D = 1,2" in head, head


def _fresh(cached: Any) -> Any:
    """``cached`` (an ``functools.cache``'d factory) called anew on every use: a width read now."""
    return lambda: cached.__wrapped__()


def test_the_table_is_measured_in_terminal_cells_not_characters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wide character takes two cells (rich.cells.cell_len): a row of six CJK characters needs
    24 cells as a table (12 + 5 and rich's 7 of borders), more than a 20-column terminal, so the
    printer falls back to key: value lines; counted in characters (18) it would have drawn a
    squeezed table."""
    from gaugecli.cli.report.terminal import console, new_table, show

    monkeypatch.setenv("COLUMNS", "20")
    # the console is built once per process (its width read then): another test may have built it at
    # another width, so this one builds its own at 20 columns, and leaves none behind
    monkeypatch.setattr("gaugecli.cli.report.terminal.console", _fresh(console))
    table = new_table("t", ("name", "value"))
    table.add_row("漢字漢字漢字", "1.5")
    show(table)
    lines = capsys.readouterr().out.splitlines()
    assert "row 1:" in lines and "  name: 漢字漢字漢字" in lines and "  value: 1.5" in lines, lines
