"""One way from a configuration to its result, for the commands, the figures and the sweeps.

:data:`KINDS` is the registry of experiment kinds — each a config dataclass, a result type and
the function that computes one — imported lazily (each loader is a plain function, so the
imports stay visible to readers and tools). :class:`Pipeline` computes a configuration at most
once: ``ensure(kind, config)`` returns the cached result when the cache holds a valid artifact
for exactly that configuration (and package version), and otherwise computes, stores and
returns it. ``gaugecli simulate …`` followed by ``gaugecli plot …`` therefore reuses the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaugecli.core.types import PointRunner, Progress
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


def _first_seed(config: Any) -> int | None:
    """The seed an artifact's provenance records: the first of ``config.seeds`` (if any)."""
    seeds = getattr(config, "seeds", None)
    return seeds[0] if seeds else None


def _part(progress: Progress | None, i: int, n: int) -> Progress | None:
    return None if progress is None else (lambda f: progress((i + min(max(f, 0.0), 1.0)) / n))


def _simulate() -> Kind:
    from gaugecli.core.observables import RunObservables
    from gaugecli.experiments.simulate import SimulateConfig, simulate_batch

    def compute(configs: Sequence[SimulateConfig], progress: Progress | None, _runner: Any) -> list[RunObservables]:
        for config in configs:
            if len(config.runs()) != 1:
                raise ValueError(f"a simulate entry is one run; split it with config.runs() (got {len(config.runs())})")
        return simulate_batch(configs, progress)

    def seed(config: SimulateConfig) -> int | None:
        return config.run_seed if config.dynamics.mode.stochastic else None

    return Kind("simulate", SimulateConfig, RunObservables, compute, seed)


def _select() -> Kind:
    from gaugecli.experiments.select import SelectConfig, SelectResult, select

    return Kind("select", SelectConfig, SelectResult, _one_by_one(select, runner=False), _first_seed)


def _select_sweep() -> Kind:
    from gaugecli.experiments.select import OwnerSweepConfig, OwnerSweepResult, owner_sweep

    return Kind("select-sweep", OwnerSweepConfig, OwnerSweepResult, _one_by_one(owner_sweep, runner=True), _first_seed)


def _prune() -> Kind:
    from gaugecli.experiments.prune import PruneConfig, PruneResult, prune

    return Kind("prune", PruneConfig, PruneResult, _one_by_one(prune, runner=True), _first_seed)


def _lockin() -> Kind:
    from gaugecli.experiments.lockin import LockinConfig, LockinResult, lockin

    return Kind("lockin", LockinConfig, LockinResult, _one_by_one(lockin, runner=False), _first_seed)


def _perturb() -> Kind:
    from gaugecli.experiments.perturb import PerturbConfig, PerturbResult, perturb

    return Kind("perturb", PerturbConfig, PerturbResult, _one_by_one(perturb, runner=True), _first_seed)


def _reln() -> Kind:
    from gaugecli.experiments.reln import RelnConfig, RelnResult, run_reln

    return Kind("reln", RelnConfig, RelnResult, _one_by_one(run_reln, runner=False))


def _phase() -> Kind:
    from gaugecli.experiments.phase import PhaseConfig, PhaseResult, phase
    from gaugecli.store.artifacts import config_hash

    def run(config: PhaseConfig, progress: Progress | None, runner: PointRunner | None = None) -> PhaseResult:
        return phase(config, progress, runner, key=config_hash) if runner else phase(config, progress, key=config_hash)

    return Kind("phase", PhaseConfig, PhaseResult, _one_by_one(run, runner=True), lambda config: None)


def _predict() -> Kind:
    from gaugecli.experiments.predict import PredictConfig, PredictResult, predict
    from gaugecli.store.artifacts import config_hash

    def run(config: PredictConfig, progress: Progress | None, runner: PointRunner | None = None) -> PredictResult:
        return (
            predict(config, progress, runner, key=config_hash) if runner else predict(config, progress, key=config_hash)
        )

    return Kind(
        "predict", PredictConfig, PredictResult, _one_by_one(run, runner=True), lambda config: config.first_seed
    )


def _no_seed(config: Any) -> int | None:
    """The figures' deterministic kinds record no seed."""
    return None


def _reduced_window() -> Kind:
    from gaugecli.experiments.reduced_window import ReducedWindow, ReducedWindowConfig, reduced_window

    return Kind(
        "reduced-window", ReducedWindowConfig, ReducedWindow, _one_by_one(reduced_window, runner=False), _no_seed
    )


def _limit_constants() -> Kind:
    from gaugecli.experiments.limits import LimitConstants, LimitConstantsConfig, limit_constants

    compute = _one_by_one(limit_constants, runner=False)
    return Kind("limit-constants", LimitConstantsConfig, LimitConstants, compute, _no_seed)


def _limit_paths() -> Kind:
    from gaugecli.experiments.limits import LimitPaths, LimitPathsConfig, limit_paths

    return Kind("limit-paths", LimitPathsConfig, LimitPaths, _one_by_one(limit_paths, runner=False), _no_seed)


def _ratio_slope() -> Kind:
    from gaugecli.experiments.ratio_slope import RatioSlope, RatioSlopeConfig, ratio_slope

    return Kind("ratio-slope", RatioSlopeConfig, RatioSlope, _one_by_one(ratio_slope, runner=False), _no_seed)


def _speed_ratio() -> Kind:
    from gaugecli.experiments.speed_ratio import SpeedRatio, SpeedRatioConfig, speed_ratio

    return Kind("speed-ratio", SpeedRatioConfig, SpeedRatio, _one_by_one(speed_ratio, runner=False), _no_seed)


def _limit_dissipation() -> Kind:
    from gaugecli.experiments.limit_dissipation import LimitDissipation, LimitDissipationConfig, limit_dissipation

    compute = _one_by_one(limit_dissipation, runner=False)
    return Kind("limit-dissipation", LimitDissipationConfig, LimitDissipation, compute, _no_seed)


KINDS: dict[str, Callable[[], Kind]] = {
    "simulate": _simulate,
    "select": _select,
    "select-sweep": _select_sweep,
    "prune": _prune,
    "lockin": _lockin,
    "perturb": _perturb,
    "reln": _reln,
    "phase": _phase,
    "predict": _predict,
    "reduced-window": _reduced_window,
    "limit-constants": _limit_constants,
    "limit-paths": _limit_paths,
    "ratio-slope": _ratio_slope,
    "speed-ratio": _speed_ratio,
    "limit-dissipation": _limit_dissipation,
}
"""Experiment kinds by artifact kind name; each loader imports its experiment on first use. The last
six have no command: they are the reduced and ``D → ∞`` equations the figures draw (fig1–fig3, fig6's
limit shares, fig8's relu limits), so that a figure reads every ODE it shows from the cache."""


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
        configuration (simulate: :data:`SIMULATE_SLICE` of them, each run integrated by itself), run in a worker
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
        for need in needs:
            if not self.reuse or self.cache.load(need.kind, need.config) is None:
                batch = missing.setdefault(need.kind, [])
                if need.config not in batch:
                    batch.append(need.config)
            else:
                present.add((need.kind, config_hash(need.config)))
        for kind_name in missing:  # here, not in a worker: one line before any computation
            self._check_writable(kind_name)
        tasks = [(kind, [c]) for kind, configs in missing.items() if kind != "simulate" for c in configs]
        tasks.sort(key=lambda task: PREFETCH_ORDER.index(task[0]) if task[0] in PREFETCH_ORDER else len(PREFETCH_ORDER))
        if "simulate" in missing:  # in slices, so that every worker takes a share of them
            configs = missing["simulate"]
            slices = [("simulate", configs[i : i + SIMULATE_SLICE]) for i in range(0, len(configs), SIMULATE_SLICE)]
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


SIMULATE_SLICE = 12
"""``simulate`` configurations per prefetch task. Each configuration is integrated by itself
whatever its task (:func:`~gaugecli.experiments.simulate.simulate_batch`), so slicing changes no
number; as one task, the figures' ~140 runs (~30 s on one core) kept one worker busy while the
others idled at the end."""

PREFETCH_ORDER = ("predict", "perturb", "select-sweep", "select", "reln", "lockin", "prune")
"""The order in which :meth:`Pipeline.prefetch` starts the kinds (the slices of ``simulate`` after the
first two tasks). The longest tasks go first — measured one by one on one core (2026-12-06): predict
4–16 s, perturb 2–10 s — then the many short ``select`` runs, so that the figures reading them are
drawn while the rest still compute; the last are mid-sized tasks (reln 2 s, prune 6 s, lockin 9 s)
whose figures draw in ~1.5 s, which keeps both workers busy to the end. Started last, the 16 s
predict study alone had been the tail of a cold ``plot all`` (the other worker idle ~15 s), and
with the ``select`` runs last, the figures that read them (fig8, fig9: ~3 s each) were."""


def _ensure_in_worker(cache_root: str, kind_name: str, configs: list[Any], reuse: bool) -> None:
    """A prefetch task, run in a worker process: compute into the shared cache."""
    Pipeline(cache_root, reuse=reuse).ensure_all(kind_name, configs)


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
