"""Executors for parameter sweeps: run many independent integrations serially, on a
local process pool, or on a Dask cluster, behind one small interface.

An executor has ``submit(fn, *args) -> handle`` with ``handle.result()`` returning
``fn(*args)`` (or raising what it raised). ``fn`` and ``args`` must be picklable:
functions defined at module level, plain data or numpy arrays as arguments. Every
executor is a context manager that releases its workers on exit.

:func:`run_ordered` is the one loop sweeps need: submit everything, report each
task as it finishes (for a progress bar), return the results in submission order
so that a sweep's output never depends on which worker was fastest.

Example::

    with make_executor(scheduler=None, workers=4) as ex:
        t_specs = run_ordered(ex, spec_time, [(D,) for D in strengths], on_done=bar.advance)

Local pool workers get their share of the CPUs for BLAS/OpenMP threads (see
:class:`LocalExecutor`); Dask's nanny already starts its workers with one thread each.
This module does no I/O and prints nothing; the optional ``dask`` dependency is
imported only when a :class:`DaskExecutor` is built.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import re
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

__all__ = [
    "THREAD_ENV_VARS",
    "DaskExecutor",
    "Executor",
    "ExecutorError",
    "Handle",
    "LocalExecutor",
    "SerialExecutor",
    "make_executor",
    "run_ordered",
]

DEFAULT_CONNECT_TIMEOUT_S = 5.0
"""How long :class:`DaskExecutor` waits for the scheduler before giving up."""

# [tcp:// | tls://] HOST:PORT, HOST a name, an IPv4 address or a bracketed IPv6 address.
_NETWORK_ADDRESS = re.compile(r"(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):\d{1,5}")


class ExecutorError(RuntimeError):
    """An executor could not be set up; the message is one line that says what to do."""


@runtime_checkable
class Handle(Protocol):
    """A submitted task: ``result()`` blocks until it is done and returns its value."""

    def result(self) -> Any: ...


@runtime_checkable
class Executor(Protocol):
    """Runs ``fn(*args)`` somewhere and hands back a :class:`Handle`.

    Implementations may also provide ``as_completed(handles)`` (yield handles as
    they finish); :func:`run_ordered` falls back to submission order without it.
    """

    def submit(self, fn: Callable[..., Any], *args: Any) -> Handle: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _ContextManaged:
    """``with`` support in terms of ``close()``."""

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


# ----------------------------------------------------------------------------------------
# serial


class _Deferred:
    """The handle of a serial task: it runs, once, when its result is first asked for.

    Running at ``result()`` rather than at ``submit`` lets ``run_ordered`` hand each
    result to ``on_done`` (which caches a sweep point) before the next task starts, so
    an interrupted serial sweep keeps every point it finished.
    """

    __slots__ = ("_args", "_error", "_fn", "_ran", "_value")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._fn, self._args = fn, args
        self._ran = False
        self._value: Any = None
        self._error: BaseException | None = None

    def done(self) -> bool:
        return self._ran

    def cancel(self) -> bool:
        """Drop a task that has not run; it never will (as a pool's pending future)."""
        if self._ran:
            return False
        self._ran, self._error = True, concurrent.futures.CancelledError()
        return True

    def result(self) -> Any:
        if not self._ran:
            try:
                self._value = self._fn(*self._args)
            except Exception as err:  # kept, and re-raised on every call, as a pool's future does
                self._error = err
            self._ran = True
            self._fn, self._args = None, ()  # type: ignore[assignment]
        if self._error is not None:
            raise self._error
        return self._value


class SerialExecutor(_ContextManaged):
    """Runs each task in this process, in submission order, when its result is asked for.

    An exception raised by the task is kept and re-raised by ``handle.result()``,
    as with the pool executors, so code behaves the same under every executor.
    """

    def submit(self, fn: Callable[..., Any], *args: Any) -> _Deferred:
        return _Deferred(fn, args)

    def as_completed(self, handles: Iterable[_Deferred]) -> Iterator[_Deferred]:
        return iter(list(handles))

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------------------
# local process pool


THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
"""Variables that size the BLAS/OpenMP thread pools of numpy, scipy and torch when they load."""


def _start_worker(threads: int, started: Any) -> None:
    """A pool worker's first act (the pool's ``initializer``): cap its BLAS/OpenMP pools at
    ``threads`` threads and report its process id on ``started`` (so that the pool can stop it).

    A library sizes its pools when it loads, and a spawned worker has loaded none of numpy, scipy
    or torch yet (unless the script that spawned it imports them at the top): for those, the
    variables of :data:`THREAD_ENV_VARS` are set before they load; whatever is loaded already is
    limited through threadpoolctl. A variable the user set is left as it is, with its API."""
    added = [name for name in THREAD_ENV_VARS if name not in os.environ]
    for name in added:
        os.environ[name] = str(threads)
    if any(module in sys.modules for module in ("numpy", "scipy", "torch")):
        from threadpoolctl import threadpool_limits

        if "OMP_NUM_THREADS" in added:
            threadpool_limits(limits=threads, user_api="openmp")
        if set(added) - {"OMP_NUM_THREADS"}:
            threadpool_limits(limits=threads, user_api="blas")
    started.put(os.getpid())


def _start_forkserver(context: Any, preload: list[str], threads: int) -> None:
    """Start the process's forkserver (if not running yet), importing ``preload`` with the workers'
    thread caps (:data:`THREAD_ENV_VARS` the user left unset) in its environment, so that BLAS and
    OpenMP size their pools for a worker as they load; this process's own environment is restored at
    once. The server imports while the caller goes on; the first worker waits for it."""
    from multiprocessing import forkserver

    context.set_forkserver_preload(preload)
    added = [name for name in THREAD_ENV_VARS if name not in os.environ]
    try:
        for name in added:
            os.environ[name] = str(threads)
        forkserver.ensure_running()
    finally:
        for name in added:
            os.environ.pop(name, None)


class LocalExecutor(_ContextManaged):
    """A :class:`concurrent.futures.ProcessPoolExecutor` with ``max_workers`` processes
    (``None``: one per CPU), started with the ``spawn`` method on every platform.

    ``spawn`` (not ``fork``) keeps workers independent of the parent's threads and
    BLAS state; it requires ``fn`` to be importable by name (module-level) and the
    calling script to guard its entry point with ``if __name__ == "__main__"``.

    Each worker's BLAS/OpenMP pools get ``threads_per_worker`` threads (default: the
    CPUs shared out, ``max(1, cpu_count // max_workers)``), so that ``max_workers``
    processes do not each start one thread per CPU: oversubscribed BLAS threads wait
    on one another, and small dense LU factorizations (the stiff solver's) slow down
    by an order of magnitude. Thread variables already set in the environment win. The
    cap is the pool's ``initializer`` (:func:`_start_worker`); leaving the ``with`` block
    on an exception terminates the workers instead of waiting for their tasks.

    ``preload``: modules every task imports (numpy, scipy, torch, the experiments): the workers are
    then forked by a ``forkserver`` that imported them once, with the workers' thread caps in its
    environment, instead of each spawned worker importing them anew: two ``plot`` workers' warm-up
    (:func:`gaugecli.pipeline.warm_worker`) took 8.3–9.0 CPU-s spawned against 4.8–5.3 forked, every
    process of the tree counted (2 cores, 2026-12-06). Only where the platform has ``forkserver`` (not Windows: there ``spawn``), and the
    forkserver is the process's one: started by the first executor that preloads, it keeps that
    preload for the process's lifetime. Otherwise as ``spawn``: the tasks see nothing of the
    parent's state.
    """

    def __init__(
        self, max_workers: int | None = None, *, threads_per_worker: int | None = None, preload: Sequence[str] = ()
    ) -> None:
        if max_workers is not None and max_workers < 1:
            raise ValueError(f"max_workers must be at least 1 (got {max_workers})")
        if threads_per_worker is not None and threads_per_worker < 1:
            raise ValueError(f"threads_per_worker must be at least 1 (got {threads_per_worker})")
        cpus = os.cpu_count() or 1
        self.max_workers = max_workers
        self.threads_per_worker = threads_per_worker or max(1, cpus // (max_workers or cpus))
        forked = bool(preload) and "forkserver" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if forked else "spawn")
        if forked:
            _start_forkserver(context, list(preload), self.threads_per_worker)
        self._started = context.SimpleQueue()  # the workers' process ids, as each starts
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=max_workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(self.threads_per_worker, self._started),
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        return self._pool.submit(fn, *args)

    def as_completed(
        self, handles: Iterable[concurrent.futures.Future[Any]]
    ) -> Iterator[concurrent.futures.Future[Any]]:
        return concurrent.futures.as_completed(list(handles))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            # an error or an interrupt (Ctrl-C, SIGTERM): the running tasks' results are not
            # wanted, and waiting for them held the exit back by a whole task (measured: 40 s
            # for two 20 s tasks per worker). A worker killed mid-write leaves only a temporary
            # file, which the cache sweeps away on its next read.
            self._terminate_workers()
        self.close()

    def _terminate_workers(self) -> None:
        """SIGTERM to every worker (the pool's own ``terminate_workers`` from Python 3.14 on; before
        it, the process ids the workers reported as they started)."""
        terminate = getattr(self._pool, "terminate_workers", None)  # Python ≥ 3.14
        if terminate is not None:
            terminate()
            return
        while not self._started.empty():
            with contextlib.suppress(ProcessLookupError):  # a worker that has exited already
                os.kill(self._started.get(), signal.SIGTERM)


# ----------------------------------------------------------------------------------------
# dask


class DaskExecutor(_ContextManaged):
    """Submits tasks to a running Dask scheduler at ``address`` (``tcp://HOST:PORT``).

    ``dask.distributed`` is imported here, not at module import, so it stays an
    optional extra. The connection is made when the executor is built and gives up
    after ``timeout`` seconds; both failures raise :class:`ExecutorError` with a
    one-line message. Closing disconnects this client and leaves the cluster running.

    Tasks are submitted with ``pure=False``: each submission runs, even when two carry
    equal arguments. Workers must be able to import ``fn``'s module.
    """

    def __init__(self, address: str, timeout: float = DEFAULT_CONNECT_TIMEOUT_S) -> None:
        if "://" not in address or address.startswith(("tcp://", "tls://")):
            if not _NETWORK_ADDRESS.fullmatch(address):
                raise ExecutorError(
                    f"--scheduler {address!r} is not a scheduler address; expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)"
                )
        try:
            from dask import distributed
        except ImportError:
            raise ExecutorError(
                "the Dask executor needs the optional 'dask' extra: pip install gaugecli[dask]"
            ) from None
        self.address = address
        self._distributed = distributed
        try:
            self._client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except Exception as err:
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ExecutorError(
                f"cannot connect to the Dask scheduler at {address!r} ({reason}); "
                "check --scheduler (expected tcp://HOST:PORT of a running dask scheduler)"
            ) from None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self._client.submit(fn, *args, pure=False)

    def as_completed(self, handles: Iterable[Any]) -> Iterator[Any]:
        return iter(self._distributed.as_completed(list(handles), loop=self._client.loop))

    def close(self) -> None:
        self._client.close()


# ----------------------------------------------------------------------------------------
# selection and the sweep loop


def make_executor(
    scheduler: str | None,
    workers: int,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
    preload: Sequence[str] = (),
) -> SerialExecutor | LocalExecutor | DaskExecutor:
    """The executor a sweep asked for.

    * ``scheduler`` given (``tcp://HOST:PORT``) → :class:`DaskExecutor` (``workers`` is ignored:
      the cluster decides);
    * otherwise ``workers == 1`` → :class:`SerialExecutor`, ``workers > 1`` → :class:`LocalExecutor`
      (its workers forked from a server that imported ``preload``, where given).
    """
    if scheduler is not None:
        if not scheduler.strip():
            raise ExecutorError("--scheduler is empty; give the address of a dask scheduler, tcp://HOST:PORT")
        return DaskExecutor(scheduler.strip(), timeout=connect_timeout)
    if workers < 1:
        raise ValueError(f"workers must be at least 1 (got {workers})")
    if workers == 1:
        return SerialExecutor()
    return LocalExecutor(max_workers=workers, preload=preload)


def run_ordered(
    executor: Executor,
    fn: Callable[..., Any],
    args_list: Sequence[tuple[Any, ...]],
    on_done: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """Run ``fn(*args)`` for every ``args`` in ``args_list``; return the results in
    submission order.

    ``on_done(i, result)`` is called once per task, in completion order (``i`` is the
    task's index in ``args_list``), as soon as it finishes. If a task raises, the
    tasks not yet started are cancelled and the exception propagates.
    """
    handles = [executor.submit(fn, *args) for args in args_list]
    position = {id(h): i for i, h in enumerate(handles)}
    as_completed = getattr(executor, "as_completed", None)
    finished: Iterable[Any] = as_completed(handles) if as_completed is not None else handles
    results: list[Any] = [None] * len(handles)
    try:
        for handle in finished:
            i = position[id(handle)]
            results[i] = handle.result()
            if on_done is not None:
                on_done(i, results[i])
    except BaseException:
        for handle in handles:
            cancel = getattr(handle, "cancel", None)
            if cancel is not None:
                cancel()
        raise
    return results
