"""Off a terminal (a log file, CI), progress is one flushed line per tenth of the work, with the
time elapsed and an estimate of the time left; a short run prints none; stdout is line-buffered."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gaugecli.cli import session


def test_progress_off_a_terminal_prints_a_line_per_tenth(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(session, "PROGRESS_QUIET", 0.0)
    with session.progress("runs") as bar:  # pytest's stderr is not a terminal
        assert bar is not None
        for k in range(1, 41):
            bar(k / 40)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in lines] == ["runs"] * 10
    assert [int(line.split()[1]) for line in lines] == list(range(10, 101, 10))
    assert all("left" in line for line in lines[:-1]) and "left" not in lines[-1]


def test_a_short_run_prints_no_progress(capsys: pytest.CaptureFixture[str]) -> None:
    with session.progress("runs") as bar:
        assert bar is not None
        for k in range(1, 11):
            bar(k / 10)  # all within PROGRESS_QUIET of the start
    assert capsys.readouterr().err == ""


def test_elapsed_text_reads_as_a_duration() -> None:
    assert session.elapsed_text(8.24) == "8.2 s"
    assert session.elapsed_text(185) == "3 min 05 s"
    assert session.elapsed_text(3725) == "1 h 02 min"
    assert session.elapsed_text(float("nan")) == "?"


def test_output_to_a_pipe_arrives_line_by_line() -> None:
    """The console entry point line-buffers a redirected stdout: a line printed without a flush
    can be read while the process is still alive (block buffering held `make figures > log` for
    minutes)."""
    import threading

    code = (
        "import sys, time\nfrom gaugecli.cli.app import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('after')\ntime.sleep(60)\n"
    )
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as a user's shell has it
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend([proc.stdout.readline(), proc.stdout.readline()]))
    reader.start()
    try:
        reader.join(timeout=20)  # both lines long before the child's sleep ends
        assert not reader.is_alive(), "the second line was held in a buffer"
        assert lines[0].startswith("gaugecli ") and lines[1] == "after\n"
    finally:
        proc.kill()
        proc.wait()
        reader.join()
