"""One way from a configuration to its result, for the commands, the figures and the sweeps.

:data:`KINDS` holds the experiment kinds — each a config dataclass, a result type and the function
that computes one — built from the registry of experiment specs
(:mod:`gaugecli.experiments.spec`), each imported on first use. :class:`Pipeline` computes a configuration at most
once: ``ensure(kind, config)`` returns the cached result when the cache holds a valid artifact
for exactly that configuration (and package version), and otherwise computes, stores and
returns it. ``gaugecli simulate …`` followed by ``gaugecli plot …`` therefore reuses the run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaugecli.core.types import PointRunner, Progress
from gaugecli.experiments.spec import Experiment, Live, experiments
from gaugecli.experiments.spec import resolve as resolve_ref
from gaugecli.store.artifacts import now
from gaugecli.store.cache import Cache, Warn


@dataclass(frozen=True)
class Kind:
    """An experiment kind: ``compute(configs, progress, runner)`` returns one result per config
    (several configs in one call; each result depends on its own config only)."""

    name: str
    config_type: type
    result_type: Any
    compute: Callable[[Sequence[Any], Progress | None, PointRunner | None], list[Any]]
    seed: Callable[[Any], int | None] = lambda config: getattr(config, "seed", None)


def _one_by_one(fn: Callable[..., Any], *, runner: bool) -> Callable[[Sequence[Any], Any, Any], list[Any]]:
    def compute(configs: Sequence[Any], progress: Progress | None, point_runner: PointRunner | None) -> list[Any]:
        out = []
        for i, config in enumerate(configs):
            sub = _part(progress, i, len(configs))
            out.append(fn(config, sub, point_runner) if runner and point_runner is not None else fn(config, sub))
        return out

    return compute


def _part(progress: Progress | None, i: int, n: int) -> Progress | None:
    return None if progress is None else (lambda f: progress((i + min(max(f, 0.0), 1.0)) / n))


def _keyed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with ``key=`` the config hash: the name of each chunk of a sweep in the point cache."""
    from gaugecli.store.artifacts import config_hash

    def run(config: Any, progress: Progress | None, runner: PointRunner | None = None) -> Any:
        return fn(config, progress, runner, key=config_hash) if runner else fn(config, progress, key=config_hash)

    return run


def from_spec(spec: Experiment) -> Kind:
    """The kind an :class:`~gaugecli.experiments.spec.Experiment` declares, its types and function imported."""
    if spec.schema is not None:
        from gaugecli.store.schemas import register

        register(spec.name, resolve_ref(spec.schema))
    fn = resolve_ref(spec.compute)
    if spec.keyed:
        fn = _keyed(fn)
    compute = fn if spec.batch else _one_by_one(fn, runner=spec.runner)
    return Kind(spec.name, resolve_ref(spec.config), resolve_ref(spec.result), compute, spec.seed)


LOADERS: dict[str, Callable[[], Kind]] = {}
"""Kinds declared here by a loader function instead of a spec: ``{"name": loader}``, each loader
importing on first use. (A run only figures read is better a spec with ``command=""``, ``api=None``.)"""

KINDS: Mapping[str, Callable[[], Kind]] = Live(
    lambda: {spec.name: functools.partial(from_spec, spec) for spec in experiments()} | LOADERS
)
"""Experiment kinds by artifact kind name: one per registered spec
(:func:`gaugecli.experiments.spec.experiments`) and the :data:`LOADERS`; each imports its
experiment on first use."""


def kind(name: str) -> Kind:
    try:
        return KINDS[name]()
    except KeyError:
        raise ValueError(f"no experiment produces artifacts of kind {name!r}; known: {', '.join(KINDS)}") from None


@dataclass
class Outcome:
    """A result with where it came from: its artifact (as written) and whether it was computed now."""

    kind: str
    config: Any
    result: Any
    artifact: dict[str, Any]
    path: Path | None
    computed: bool


class Pipeline:
    """Results by configuration, through one cache (``cache_dir``; ``None`` keeps nothing).

    ``reuse=False`` recomputes and overwrites cached entries, each once per pipeline. ``runner``
    evaluates the points of sweeps (local processes, Dask; each finished point is cached under the
    kind ``point``).
    """

    def __init__(
        self,
        cache_dir: Path | str | None = "runs",
        *,
        reuse: bool = True,
        warn: Warn | None = None,
        runner: PointRunner | None = None,
        flag: str = "--cache-dir",
        written: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.cache = None if cache_dir is None else Cache(cache_dir, warn=warn, flag=flag)
        self.reuse = reuse
        self.runner = runner
        self.written = frozenset(written)
        """``(kind, config_hash)`` of artifacts that the running command has just written (and validated)
        itself: read back without re-checking their schema and result hash."""
        self.computed: list[tuple[str, str]] = []
        """``(kind, config_hash)`` of every computation this pipeline ran (or prefetched), in order;
        with ``reuse=False`` these, and only these, are read back from the cache."""

    def ensure(self, kind_name: str, config: Any, progress: Progress | None = None) -> Outcome:
        """The result of ``config``: from the cache when valid, else computed and cached."""
        return self.ensure_all(kind_name, [config], progress)[0]

    def ensure_all(self, kind_name: str, configs: Sequence[Any], progress: Progress | None = None) -> list[Outcome]:
        """Results of several configurations of one kind; the missing ones are computed together."""
        from gaugecli.store.artifacts import build_artifact, config_hash

        k = kind(kind_name)
        outcomes: list[Outcome | None] = [self._cached(k, c) for c in configs]
        missing = [i for i, o in enumerate(outcomes) if o is None]
        if missing:
            self._check_writable(kind_name)
            started = now()
            results = k.compute([configs[i] for i in missing], progress, self.runner)
            for i, result in zip(missing, results, strict=True):
                config = configs[i]
                if self.cache is not None:
                    artifact = self.cache.save(kind_name, config, result, seed=k.seed(config), started=started)
                    path: Path | None = self.cache.path(kind_name, config)
                else:
                    artifact, path = (
                        build_artifact(kind_name, config, result, seed=k.seed(config), started=started),
                        None,
                    )
                self.computed.append((kind_name, config_hash(config)))
                outcomes[i] = Outcome(kind_name, config, result, artifact, path, True)
        elif progress is not None:
            progress(1.0)
        from gaugecli.core.frames import Labelled

        done = [o for o in outcomes if o is not None]
        for outcome in done:  # which artifact each result is: `gaugecli.load(result.path)` reads it back
            if isinstance(outcome.result, Labelled):
                outcome.result.path, outcome.result.config_hash = outcome.path, outcome.artifact["config_hash"]
        return done

    def prefetch(
        self,
        needs: Sequence[Need],
        executor: Any,
        progress: Progress | None = None,
        on_cached: Callable[[set[tuple[str, str]], bool], None] | None = None,
        window: int | None = None,
    ) -> int:
        """Compute the needs missing from the cache on ``executor`` (``submit(fn, *args)`` →
        handle with ``result()``), several at once; return how many tasks ran. Each task is one
        configuration (a batch kind: its spec's ``prefetch_slice`` of them, each run by itself), run in a worker
        that writes its artifact to this cache; later :meth:`ensure` calls read them. The costly
        kinds go first so that the cheap ones fill the other workers meanwhile.

        ``on_cached(keys, computed)`` is told which ``(kind, config_hash)`` are in the cache: first
        those that already were (``computed=False``), then each task's as it finishes (in completion
        order, ``computed=True``), so a caller can start what reads them — a figure — while the rest
        still compute. ``window``: at most this many of these tasks are submitted at a time (``None``:
        all at once), so that what the caller submits from ``on_cached`` runs before the runs not yet
        submitted — ``plot`` draws each figure as soon as its runs are in, instead of all of them after
        the last run."""
        if self.cache is None:
            raise ValueError("prefetch needs a cache to hand results over")
        from gaugecli.store.artifacts import config_hash

        missing: dict[str, list[Any]] = {}
        present: set[tuple[str, str]] = set()
        absent = {id(need) for need in self.missing(needs)}
        for need in needs:
            if id(need) in absent:
                batch = missing.setdefault(need.kind, [])
                if need.config not in batch:
                    batch.append(need.config)
            else:
                present.add((need.kind, config_hash(need.config)))
        for kind_name in missing:  # here, not in a worker: one line before any computation
            self._check_writable(kind_name)
        sliced = {spec.name: spec.prefetch_slice for spec in experiments() if spec.prefetch_slice}
        order = prefetch_order()
        tasks = [(kind, [c]) for kind, configs in missing.items() if kind not in sliced for c in configs]
        tasks.sort(key=lambda task: order.index(task[0]) if task[0] in order else len(order))
        for kind, size in sliced.items():  # in slices, so that every worker takes a share of them
            if kind not in missing:
                continue
            configs = missing[kind]
            slices = [(kind, configs[i : i + size]) for i in range(0, len(configs), size)]
            tasks[min(len(tasks), 2) : min(len(tasks), 2)] = slices
        keys = [[(kind, config_hash(c)) for c in configs] for kind, configs in tasks]
        if on_cached is not None:
            on_cached(present, False)
        root = str(self.cache.root)
        waiting = list(range(len(tasks)))[::-1]  # popped from the end: in order
        running: dict[int, tuple[Any, int]] = {}
        finished = 0
        while waiting or running:
            while waiting and (window is None or len(running) < window):
                i = waiting.pop()
                kind, configs = tasks[i]
                handle = executor.submit(_ensure_in_worker, root, kind, configs, self.reuse)
                running[id(handle)] = (handle, i)
            # completion order (every executor of gaugecli.run has as_completed): a finished run is
            # reported at once, not after the slower runs submitted before it
            handle = next(iter(executor.as_completed([h for h, _ in running.values()])))
            handle.result()
            i = running.pop(id(handle))[1]
            finished += 1
            self.computed.extend(keys[i])
            if progress is not None:
                progress(finished / len(tasks))
            if on_cached is not None:
                on_cached(set(keys[i]), True)
        return len(tasks)

    def missing(self, needs: Sequence[Need]) -> list[Need]:
        """The needs a run of this pipeline would compute: all of them without a cache or with
        ``reuse=False``, else those whose artifact file is absent. By file only — :meth:`ensure` still
        verifies what it reads and recomputes a damaged artifact — so that asking costs no parsing."""
        if self.cache is None or not self.reuse:
            return list(needs)
        cache = self.cache
        return [need for need in needs if not cache.path(need.kind, need.config).exists()]

    def _check_writable(self, kind_name: str) -> None:
        """The folders a computation of ``kind_name`` writes to (its own, and the sweep points' where a
        runner caches them) can take files: checked only when something is to be computed."""
        if self.cache is not None:
            self.cache.check_writable(kind_name)
            if self.runner is not None:
                self.cache.check_writable("point")

    def _cached(self, k: Kind, config: Any) -> Outcome | None:
        if self.cache is None:
            return None
        key = None
        if not self.reuse or self.written:  # the hash only where it decides something (the cache hashes too)
            from gaugecli.store.artifacts import config_hash

            key = (k.name, config_hash(config))
        if not self.reuse and key not in self.computed:  # recompute once: what this pipeline computed is reused
            return None
        artifact = self.cache.load(k.name, config, verify=key not in self.written)
        if artifact is None:
            return None
        result = self.cache.typed(k.name, config, k.result_type, artifact)
        if result is None:
            return None
        return Outcome(k.name, config, result, artifact, self.cache.path(k.name, config), False)


def prefetch_order() -> list[str]:
    """The order in which :meth:`Pipeline.prefetch` starts the kinds: by each spec's
    ``prefetch_rank`` (the sliced batch kinds after the first two tasks). The longest tasks go
    first — measured one by one on one core (2026-12-06): predict 4–16 s, perturb 2–10 s — then the
    many short ``select`` runs, so that the figures reading them are drawn while the rest still
    compute; the last are mid-sized tasks (reln 2 s, prune 6 s, lockin 9 s) whose figures draw in
    ~1.5 s, which keeps both workers busy to the end. Started last, the 16 s predict study alone had
    been the tail of a cold ``plot all`` (the other worker idle ~15 s), and with the ``select`` runs
    last, the figures that read them (fig8, fig9: ~3 s each) were."""
    ranked = [spec for spec in experiments() if spec.prefetch_rank is not None]
    return [spec.name for spec in sorted(ranked, key=lambda spec: spec.prefetch_rank or 0)]


def _ensure_in_worker(cache_root: str, kind_name: str, configs: list[Any], reuse: bool) -> None:
    """A prefetch task, run in a worker process: compute into the shared cache."""
    Pipeline(cache_root, reuse=reuse).ensure_all(kind_name, configs)


def worker_modules() -> list[str]:
    """The modules of every kind's config and computation (numpy and scipy behind them), and torch: what a
    worker that runs them imports, and what ``plot``'s forkserver imports once for all its workers. torch is
    named: the modules import it where a finite-sample run needs it (so that ``plot``'s main process, which
    only declares runs and reads them, never does), and a worker forked without it would import it anew."""
    refs = (ref for spec in experiments() for ref in (spec.config, spec.compute))
    modules = (ref.partition(":")[0] if isinstance(ref, str) else ref.__module__ for ref in refs)
    return list(dict.fromkeys(["torch", *modules]))


def warm_worker() -> None:
    """A pool worker's first task, run while the calling process still declares the runs to make:
    the imports every run needs (each experiment's compute module: numpy, scipy, torch) and numba's
    compiled loops. The loops are compiled under a lock, so that on a cold numba cache (a fresh
    clone, CI) one worker compiles them (~3 s) while the others wait and then load them from the
    cache (~0.2 s), instead of each compiling the same code at once. Without POSIX locks (Windows)
    or a writable temporary folder, each worker compiles them, as it would in its first run."""
    import hashlib
    import tempfile
    from contextlib import ExitStack

    from gaugecli.core.population import fused, route

    for spec in experiments():
        resolve_ref(spec.compute)
    if not route.fused_enabled():
        return
    with ExitStack() as held:
        try:
            import fcntl

            where = hashlib.sha256(fused.__file__.encode()).hexdigest()[:16]  # one lock per installed copy
            handle = held.enter_context(open(Path(tempfile.gettempdir()) / f"gaugecli-compile-{where}.lock", "a+b"))
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes (or the process ends)
        except (ImportError, OSError):
            pass
        fused.compile_loops()
        from gaugecli.core.samples import empirical_fused  # the finite-sample flows' gradient

        empirical_fused.compile_loops()
        from gaugecli.core.integrate import odeint_flow  # phase maps' stiff chunks (phase.chunk.flow_method)

        odeint_flow.compile_loops()
        from gaugecli.core.population import fused_smooth  # fig8's squared-ReLU, square and erf flows

        fused_smooth.compile_loops()
        from gaugecli.core.integrate import population_loop, sgd_loop  # fig11's SGD, population GD and optimizers

        sgd_loop.compile_loops()
        population_loop.compile_loops()


@dataclass(frozen=True)
class Need:
    """One run a figure reads: experiment ``kind`` and its ``config`` (a figure declares its
    needs by name: ``needs(quick) -> {name: Need}``)."""

    kind: str
    config: Any


@dataclass(frozen=True)
class Inputs:
    """What a figure's ``build`` receives: each need's typed result (and config) by name."""

    results: dict[str, Any]
    configs: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.results[name]


def resolve(
    needs: dict[str, Need], pipeline: Pipeline, progress: Progress | None = None
) -> tuple[Inputs, dict[str, str]]:
    """The typed results of ``needs`` (runs of one kind ensured in one call) and
    each one's config hash."""
    results: dict[str, Any] = {}
    hashes: dict[str, str] = {}
    kinds = list(dict.fromkeys(n.kind for n in needs.values()))
    for i, kind in enumerate(kinds):
        names = [name for name, n in needs.items() if n.kind == kind]
        outcomes = pipeline.ensure_all(kind, [needs[name].config for name in names], _part(progress, i, len(kinds)))
        for name, outcome in zip(names, outcomes, strict=True):
            results[name] = outcome.result
            hashes[name] = outcome.artifact["config_hash"]
    if progress is not None:
        progress(1.0)
    return Inputs(results, {name: n.config for name, n in needs.items()}), {name: hashes[name] for name in needs}
