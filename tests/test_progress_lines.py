"""Off a terminal (a log file, CI), progress is a heartbeat of flushed lines — the first within 10 s,
then at least every 30 s — with the time elapsed and the time left at the recent rate; a short run
prints none; stdout is line-buffered. The clock is a fake one: no test here is timed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gaugecli.cli import heartbeat, session


class FakeClock:
    """Seconds that pass only when the test says so: no test here waits on the wall clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lines(clock: FakeClock) -> tuple[heartbeat.ProgressLines, list[str]]:
    out: list[str] = []
    return heartbeat.ProgressLines("runs", clock=clock, write=out.append), out


def test_the_first_line_comes_after_ten_seconds_whatever_the_share_done() -> None:
    clock = FakeClock()
    lines, out = _lines(clock)
    clock.now += 9.0
    lines(0.03)
    assert out == []  # a run shorter than FIRST_LINE prints nothing
    clock.now += 1.0  # 10 s: due, though only 3 % is done (the tenths came after 26–39 s)
    lines.tick()
    assert out == ["runs: 3 % after 10.0 s, ≈ 4 min 51 s left"]  # 3 % in the 9 s to the report: 0.97 · 9/0.03 s


def test_then_a_line_at_least_every_thirty_seconds_even_between_reports() -> None:
    clock = FakeClock()
    times: list[float] = []
    lines = heartbeat.ProgressLines("runs", clock=clock, write=lambda _: times.append(clock.now - 100.0))
    for second in range(1, 131):  # the ticker's calls, one a second; the work reports every 25 s
        clock.now += 1.0
        if second % 25 == 0:
            lines(second / 1000)
        lines.tick()
    assert times == [10.0, 40.0, 70.0, 100.0, 130.0]


def test_the_time_left_is_the_recent_rate_not_the_first_share_extrapolated() -> None:
    """The first 10 % take 60 s, then the work runs at 1 % a second: the time left is 0.8/(0.01/s)
    = 80 s, where an extrapolation of the first 10 % would say 540 s."""
    clock = FakeClock()
    lines, out = _lines(clock)
    clock.now += 60.0
    lines(0.10)
    for _ in range(10):
        clock.now += 1.0
        lines(lines.done + 0.01)
    assert lines.time_left(clock.now) == pytest.approx(80.0, rel=1e-12)  # arithmetic on exact steps
    clock.now += heartbeat.RATE_WINDOW + 1.0  # then nothing moves for a whole window: no guess
    lines.tick()
    assert out[-1].endswith("≈ ? left")


def test_a_run_that_printed_says_it_ended_and_a_short_one_prints_nothing() -> None:
    clock = FakeClock()
    lines, out = _lines(clock)
    clock.now += 12.0
    lines(0.5)
    clock.now += 3.0
    lines(1.0)
    lines.tick()
    assert out == ["runs: 50 % after 12.0 s, ≈ 12.0 s left", "runs: 100 % after 15.0 s"]
    quick, silent = _lines(clock)
    for k in range(1, 11):
        clock.now += 0.5
        quick(k / 10)
    assert silent == []


def test_off_a_terminal_progress_starts_and_stops_its_ticker(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[heartbeat.Ticker] = []
    monkeypatch.setattr(heartbeat.Ticker, "__init__", _record(heartbeat.Ticker.__init__, started))
    with session.progress("runs") as bar:  # pytest's stderr is not a terminal
        assert isinstance(bar, heartbeat.ProgressLines)
        assert len(started) == 1 and started[0].alive
    assert not started[0].alive


def _record(init, into: list):  # type: ignore[no-untyped-def]
    def wrapper(self, lines):  # type: ignore[no-untyped-def]
        init(self, lines)
        into.append(self)

    return wrapper


def test_elapsed_text_reads_as_a_duration() -> None:
    assert session.elapsed_text(8.24) == "8.2 s"
    assert session.elapsed_text(185) == "3 min 05 s"
    assert session.elapsed_text(3725) == "1 h 02 min"
    assert session.elapsed_text(float("nan")) == "?"


def test_output_to_a_pipe_arrives_line_by_line() -> None:
    """The console entry point line-buffers a redirected stdout: a line printed without a flush
    can be read while the process is still alive (block buffering held `make figures > log` for
    minutes).

    No clock decides it: the child prints, then says so on its unbuffered stderr and waits for its
    stdin to close; the parent then reads what the stdout pipe already holds, without waiting. A line
    held in the child's buffer is simply not there. (This test used to wait 20 s for the line, a
    wall-clock bound that a loaded machine can exceed before the child has imported gaugecli.)"""
    import os

    code = (
        "import os, sys\nfrom gaugecli.cli.app import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('after')\nos.write(2, b'printed\\n')\nsys.stdin.read()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as a user's shell has it
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        errors = []
        for line in iter(proc.stderr.readline, b""):  # up to the child's word, or its end if it failed
            if line == b"printed\n":
                break
            errors.append(line)
        else:
            raise AssertionError(f"the child ended without printing: {b''.join(errors)!r}")
        os.set_blocking(proc.stdout.fileno(), False)
        try:
            held = os.read(proc.stdout.fileno(), 1 << 16).decode()
        except BlockingIOError:
            held = ""
        lines = held.splitlines(keepends=True)
        assert len(lines) == 2, f"the pipe holds {held!r}: a line was held in a buffer"
        assert lines[0].startswith("gaugecli ") and lines[1] == "after\n"
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


class _DoneAtOnce:
    """An executor whose tasks are finished when submitted: each figure drawn as soon as asked."""

    def __init__(self, *_: object) -> None:
        self.drawn: list[str] = []

    def __enter__(self) -> _DoneAtOnce:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def submit(self, fn, *args):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future
        from pathlib import Path

        from gaugecli.plots.render import Rendered

        handle: Future = Future()
        if not args:  # a worker's warm-up (gaugecli.pipeline.warm_worker): nothing to draw
            handle.set_result(None)
            return handle
        fig_id, _, out_dir = args[:3]
        handle.set_result(Rendered([Path(out_dir) / f"{fig_id}.pdf"], kept=False))
        self.drawn.append(fig_id)
        return handle

    def as_completed(self, handles):  # type: ignore[no-untyped-def]
        return iter(handles)


@pytest.mark.parametrize("looks", [1, 2], ids=["at-the-interrupt", "as-runs-finish"])
def test_an_interrupted_plot_all_names_every_figure_it_wrote(
    tmp_path, monkeypatch: pytest.MonkeyPatch, looks: int
) -> None:
    """Ctrl-C during `plot all` with stdout redirected: the "figN: …" line of each figure already
    drawn is printed before the interrupt's message (they used to wait for the last run)."""
    from typer.testing import CliRunner

    from gaugecli.cli import app
    from gaugecli.pipeline import Pipeline
    from gaugecli.run import executors
    from gaugecli.store.artifacts import config_hash

    def prefetch(self, needs, executor, progress=None, on_cached=None, window=None):  # type: ignore[no-untyped-def]
        keys = {(n.kind, config_hash(n.config)) for n in needs}
        for _ in range(looks):  # every run cached: each figure is drawn; the second call looks again
            on_cached(keys, False)
        raise KeyboardInterrupt

    made: list[_DoneAtOnce] = []
    monkeypatch.setattr(executors, "make_executor", lambda *a, **k: made.append(_DoneAtOnce()) or made[-1])
    monkeypatch.setattr(Pipeline, "prefetch", prefetch)
    args = ["plot", "all", "--workers", "2", "--cache-dir", str(tmp_path / "runs"), "--out-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    drawn = [fig for executor in made for fig in executor.drawn]  # the pipeline's executor draws none
    assert len(drawn) == len(set(drawn)) > 1
    named = [line.split(":")[0] for line in result.output.splitlines() if line.split(":")[0] in drawn]
    assert sorted(named) == sorted(drawn)
    assert "interrupted" in result.output.splitlines()[-1]
