"""Executors: serial, local process pool and Dask give the same sweep results, in submission order."""

from __future__ import annotations

import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from _sweep_fns import (
    blas_threads,
    fail_if_negative,
    mark_then_sleep,
    preloaded,
    raise_error,
    sleep_then_return,
    specialization_time,
    thread_env,
)

from gaugecli.run.executors import (
    THREAD_ENV_VARS,
    DaskExecutor,
    ExecutorError,
    LocalExecutor,
    SerialExecutor,
    make_executor,
    run_ordered,
)

# Slowest first, so that a parallel executor finishes them out of order.
DELTAS = [(-8.0,), (-2.0,), (1.0,), (4.0,), (-1.0,), (16.0,)]


@pytest.fixture(scope="module")
def serial_results() -> list[tuple[float, int]]:
    with SerialExecutor() as ex:
        return run_ordered(ex, specialization_time, DELTAS)


def _check_same(results: list[tuple[float, int]], reference: list[tuple[float, int]]) -> None:
    assert len(results) == len(reference)
    for (t, n), (t_ref, n_ref) in zip(results, reference, strict=True):
        assert t == t_ref  # same code, same floating-point operations: bitwise equal
        assert n == n_ref


def test_serial_sweep_is_the_direct_call(serial_results: list[tuple[float, int]]) -> None:
    direct = [specialization_time(*args) for args in DELTAS]
    _check_same(serial_results, direct)
    # sanity: the science is there — T_spec(−D) > T_spec(+D) and grows with D
    t = dict(zip([a[0] for a in DELTAS], [r[0] for r in serial_results], strict=True))
    assert t[-8.0] > t[-2.0] > t[-1.0] > t[1.0] > t[4.0] > t[16.0] > 0


def test_serial_handle_runs_once_on_result_and_keeps_errors() -> None:
    calls: list[float] = []

    def square(x: float) -> float:
        calls.append(x)
        return fail_if_negative(x)

    with SerialExecutor() as ex:
        ok = ex.submit(square, 3.0)
        bad = ex.submit(square, -1.0)  # does not raise here
        assert calls == [] and not ok.done()
    assert ok.result() == 9.0 and ok.result() == 9.0
    for _ in range(2):
        with pytest.raises(ValueError, match="negative input"):
            bad.result()
    assert calls == [3.0, -1.0]  # each task ran exactly once


def test_serial_hands_each_result_over_before_the_next_task_starts() -> None:
    """What makes an interrupted serial sweep resumable: on_done (which caches the
    point) runs after each task, not after all of them."""
    events: list[str] = []

    def task(i: int) -> int:
        events.append(f"run {i}")
        if i == 2:
            raise KeyboardInterrupt  # the user's Ctrl-C during the third point
        return i

    with SerialExecutor() as ex, pytest.raises(KeyboardInterrupt):
        run_ordered(ex, task, [(0,), (1,), (2,), (3,)], on_done=lambda i, r: events.append(f"done {i}"))
    assert events == ["run 0", "done 0", "run 1", "done 1", "run 2"]


def test_serial_cancel_drops_a_task_that_has_not_run() -> None:
    with SerialExecutor() as ex:
        handle = ex.submit(fail_if_negative, 2.0)
        assert handle.cancel()
    with pytest.raises(concurrent.futures.CancelledError):
        handle.result()


def test_on_done_reports_every_task_once(serial_results: list[tuple[float, int]]) -> None:
    seen: list[tuple[int, tuple[float, int]]] = []
    with SerialExecutor() as ex:
        run_ordered(ex, specialization_time, DELTAS, on_done=lambda i, r: seen.append((i, r)))
    assert [i for i, _ in seen] == list(range(len(DELTAS)))
    assert [r for _, r in seen] == serial_results


def test_local_pool_matches_serial(serial_results: list[tuple[float, int]]) -> None:
    done: list[int] = []
    with LocalExecutor(max_workers=2) as ex:
        results = run_ordered(ex, specialization_time, DELTAS, on_done=lambda i, r: done.append(i))
    _check_same(results, serial_results)
    assert sorted(done) == list(range(len(DELTAS)))


def test_local_pool_returns_submission_order_when_completion_is_reversed() -> None:
    args = [(0, 1.0), (1, 0.0), (2, 0.0)]  # task 0 finishes last
    done: list[int] = []
    with LocalExecutor(max_workers=2) as ex:
        results = run_ordered(ex, sleep_then_return, args, on_done=lambda i, r: done.append(i))
    assert results == [0, 1, 2]
    assert done[-1] == 0  # reported as it finished, not in submission order
    assert sorted(done) == [0, 1, 2]


def test_pool_workers_get_capped_blas_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in THREAD_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # set by the user: left alone
    with LocalExecutor(max_workers=2, threads_per_worker=1) as ex:
        envs = run_ordered(ex, thread_env, [(0,), (1,)])
    for env in envs:
        assert env["OMP_NUM_THREADS"] == "3"
        assert all(env[name] == "1" for name in THREAD_ENV_VARS if name != "OMP_NUM_THREADS")
    # the parent's environment is as it was
    assert all(name not in os.environ for name in THREAD_ENV_VARS if name != "OMP_NUM_THREADS")
    with pytest.raises(ValueError, match="threads_per_worker must be at least 1"):
        LocalExecutor(max_workers=2, threads_per_worker=0)


def test_pool_workers_blas_runs_on_the_capped_threads_as_threadpoolctl_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not the variables but their effect: the BLAS numpy loads in a worker has one thread, as
    threadpoolctl reads it from the library itself (its default is one per CPU)."""
    for name in THREAD_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    with LocalExecutor(max_workers=2, threads_per_worker=1) as ex:
        counts = run_ordered(ex, blas_threads, [(0,), (1,)])
    assert all(count and set(count) == {1} for count in counts), counts


def test_a_worker_that_loaded_numpy_before_starting_is_capped_by_threadpoolctl() -> None:
    """A worker whose numpy is loaded before the pool's initializer runs (a script importing it at
    the top, re-imported by spawn) has its BLAS pool sized already: the initializer limits it
    through threadpoolctl, and reports the worker's process id."""
    script = (
        "import os, numpy\n"
        "from threadpoolctl import threadpool_info\n"
        "from gaugecli.run.executors import _start_worker\n"
        "started = []\n"
        "class Queue:\n"
        "    put = started.append\n"
        "_start_worker(1, Queue())\n"
        "print([lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'], started == [os.getpid()])\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in THREAD_ENV_VARS}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    counts, reported = out.stdout.split("] ")
    assert set(json.loads(counts + "]")) == {1} and reported.strip() == "True", out.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="no forkserver on Windows (spawn there)")
def test_preloaded_workers_are_forked_with_the_modules_loaded_and_their_threads_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``preload``: the workers come from a forkserver that imported the modules once (here numpy, and
    ``colorsys``, which nothing else of a task loads), with the workers' thread caps in its environment,
    so that the BLAS numpy loaded there has one thread; this process's environment is as it was."""
    for name in THREAD_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    with LocalExecutor(max_workers=1, threads_per_worker=1, preload=["numpy", "colorsys"]) as ex:
        results = run_ordered(ex, preloaded, [("colorsys",)])
    for loaded, counts, env in results:
        assert loaded and counts and set(counts) == {1}, (loaded, counts)
        assert all(env[name] == "1" for name in THREAD_ENV_VARS)
    assert all(name not in os.environ for name in THREAD_ENV_VARS)


def test_errors_propagate_from_the_pool() -> None:
    with LocalExecutor(max_workers=2) as ex, pytest.raises(ValueError, match="negative input"):
        run_ordered(ex, fail_if_negative, [(1.0,), (-2.0,), (3.0,)])


def test_make_executor_picks_the_backend() -> None:
    with make_executor(None, 1) as ex:
        assert isinstance(ex, SerialExecutor)
    with make_executor(None, 2) as ex:
        assert isinstance(ex, LocalExecutor)
        assert ex.max_workers == 2
    with pytest.raises(ValueError, match="workers must be at least 1"):
        make_executor(None, 0)
    with pytest.raises(ValueError, match="max_workers must be at least 1"):
        LocalExecutor(max_workers=0)


def test_missing_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask", None)  # makes `import dask` raise ImportError
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ExecutorError, match=r"pip install gaugecli\[dask\]") as info:
        make_executor("tcp://127.0.0.1:8786", 2)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("address", ["localhost", "tcp://scheduler", "tcp://host:port", "   "])
def test_malformed_scheduler_address_fails_at_once(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejected before any connection attempt: with dask unimportable, the refusal is still the
    address's (not the missing extra's), so nothing was imported, let alone connected. (No clock:
    a 1 s bound on it is a timed test, which a loaded machine can fail.)"""
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ExecutorError, match="--scheduler") as info:
        make_executor(address, 2)
    assert "\n" not in str(info.value) and "pip install" not in str(info.value)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_bad_scheduler_address_fails_fast_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import dask.distributed  # a declared test dependency: never skipped

    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    asked: list[float] = []
    client = dask.distributed.Client

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(kwargs["timeout"])
        return client(*args, **kwargs)

    monkeypatch.setattr(dask.distributed, "Client", spy)
    with pytest.raises(ExecutorError, match="--scheduler") as info:
        make_executor(address, 2, connect_timeout=1.0)
    message = str(info.value)
    assert "\n" not in message
    assert address in message
    # fast because the client is given the timeout (its speed is dask's, not timed here: a wall-clock
    # bound on it is what a loaded machine fails)
    assert asked == [1.0]


def test_dask_cluster_matches_serial(serial_results: list[tuple[float, int]]) -> None:
    import dask.distributed as distributed

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        done: list[int] = []
        with make_executor(cluster.scheduler_address, 1) as ex:
            assert isinstance(ex, DaskExecutor)
            results = run_ordered(ex, specialization_time, DELTAS, on_done=lambda i, r: done.append(i))
            with pytest.raises(ValueError, match="negative input"):
                run_ordered(ex, fail_if_negative, [(1.0,), (-2.0,)])
    _check_same(results, serial_results)
    assert sorted(done) == list(range(len(DELTAS)))
    assert np.all(np.isfinite([t for t, _ in results]))


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(("gaugecli.experiments.config", "ConfigError", ("n_samples", "must be ≥ 2 (got 1)")), id="config"),
        pytest.param(("gaugecli.experiments.budget", "BudgetExceeded", ("max_steps", "needs 1e12 steps")), id="budget"),
    ],
)
def test_errors_raised_in_a_worker_process_reach_the_caller_whole(error: tuple[str, str, tuple[str, str]]) -> None:
    """A worker's exception is pickled back: errors whose constructor takes (param, message)
    must survive it, or the user sees a broken process pool instead of the one-line message."""
    from importlib import import_module

    module, name, args = error
    cls = getattr(import_module(module), name)
    with make_executor(None, 2) as executor, pytest.raises(cls) as caught:
        executor.submit(raise_error, cls, args).result()
    assert caught.value.param == args[0] and str(caught.value) == str(cls(*args))


def test_an_interrupt_stops_the_local_workers_instead_of_waiting_for_them(tmp_path) -> None:
    """SIGTERM or Ctrl-C in the main process ends ``plot all`` at once: leaving the pool on an
    exception terminates its workers (it used to wait for every running and queued task). Shown
    without a clock: the interrupt comes once both workers are inside a 60 s task, and each worker
    ends killed by a signal (a negative exit code), not by finishing its tasks (0)."""
    with pytest.raises(KeyboardInterrupt), LocalExecutor(max_workers=2) as ex:
        handles = [ex.submit(mark_then_sleep, str(tmp_path / f"started-{i}"), 60.0) for i in range(4)]
        deadline = time.monotonic() + 600  # only against a hang: a worker starts in about a second
        while len(list(tmp_path.glob("started-*"))) < 2:
            assert time.monotonic() < deadline, "hung: the workers never started"
            time.sleep(0.01)
        workers = {int(p.read_text(encoding="utf-8")) for p in tmp_path.glob("started-*")}
        raise KeyboardInterrupt
    assert len(workers) == 2
    for pid in workers:  # terminated and reaped by the pool's shutdown: no such process any more
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not any(h.done() and not h.cancelled() and h.exception() is None for h in handles)
