"""The configuration of ``gaugecli phase`` (:class:`PhaseConfig`): a base run of ``simulate`` or
``select``, two axes, the metrics — and the grid's fixed partition into chunks.

**Determinism.** A chunk is the unit that is integrated, cached (as a sweep ``point``) and resumed.
The partition depends on the configuration alone: in the population flow, when one axis changes
the initial condition only (``c0``, ``theta0``, D, δ, ``eps``: same model, dynamics and width), each
row of the grid along that axis (``x`` if it qualifies, else ``y``) is one chunk — in blocks of at
most :data:`CHUNK_CELLS` cells — integrated as one ensemble; otherwise (an axis of the model or the
dynamics, a width, or a stepped or finite-sample mode) every cell is a chunk of its own, integrated
alone exactly as its command would. A stored number therefore never depends on the worker count,
the finishing order, or which chunks an interrupted call had already finished: a grid resumed after
an interruption stores exactly what an uninterrupted one does. Within an ensemble the members share
one adaptive step sequence, so a cell's numbers equal those of its command run alone to the
solver's tolerance (not bit for bit).

**Seeds.** With ``seeds`` every cell runs once per seed (its *replicates*, in the cell's chunk: the
same ensemble in the population flow), each seed set where the cell draws something at random —
``init_seed`` for a random start (``eps``, ``init`` random), the sample or batch stream's seed in a
finite-sample or SGD mode — and each metric is their mean (:mod:`~gaugecli.experiments.phase`).
A map whose cells draw nothing takes no seeds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any

from gaugecli.core.types import UNKEYED_FIELD
from gaugecli.experiments.declare import ConfigError, require
from gaugecli.experiments.initial import ignored_by_start
from gaugecli.experiments.params import DEFAULT_BETAS, Mode, Phase
from gaugecli.experiments.phase.axes import (
    BETA_AXES,
    Axis,
    AxisSpec,
    axis_specs,
    cell_value,
    check_axis,
    parse_axis,
)
from gaugecli.experiments.select import SelectConfig
from gaugecli.experiments.simulate import SimulateConfig

CHUNK_CELLS = 64
"""Most cells one chunk integrates as one ensemble (a longer row is split in blocks, in order)."""
PAIR_METRICS = ("ratio", "gap")
"""Metrics of the ``±D`` pair: every cell then also runs the opposite gauge (``simulate`` only)."""
LIMIT_METRICS = ("exponent", "constant")
"""Metrics of the ``±D`` pair at the large strengths ``limit_strengths`` (``simulate`` only): every
cell then also runs ``+D`` and ``−D`` at each of them, in the same ensemble."""
FLOW_METRICS = ("kernel-change", "kernel-distance-cos")
"""Metrics that need the parameters at the horizon, which the population flow path keeps."""
OPPOSITE = {"favorable": "unfavorable", "unfavorable": "favorable"}

Base = SimulateConfig | SelectConfig


@dataclass(frozen=True)
class PhaseConfig:
    """``kind``: the command each cell runs (``simulate`` | ``select``), from ``base`` (one run of it;
    default: the command's defaults) with the parameters of axes ``x`` and ``y`` set; ``metrics``
    (:data:`~gaugecli.experiments.params.PHASE_METRICS`) say what the result keeps. Every cell's
    configuration is built — and so checked as its command checks it — when this is."""

    kind: str = Phase.kind.default
    x: Axis = field(default_factory=lambda: parse_axis(Phase.x.default, "simulate", "x"))
    y: Axis = field(default_factory=lambda: parse_axis(Phase.y.default, "simulate", "y"))
    metrics: tuple[str, ...] = Phase.metrics.default
    base: Base | None = None
    limit_strengths: tuple[float, ...] = Phase.limit_strengths.default
    seeds: tuple[int, ...] | None = Phase.seeds.default
    device: str | None = field(default=Phase.device.default, metadata={UNKEYED_FIELD: True})

    def __post_init__(self) -> None:
        Phase.kind.check(self.kind)
        Phase.device.check(self.device)
        if isinstance(self.metrics, (tuple, list)):
            current = []
            for word in self.metrics:
                new, line = Phase.metrics.current(word)
                if line is not None:
                    warnings.warn(f"PhaseConfig: {line}", DeprecationWarning, stacklevel=3)
                current.append(new)
            object.__setattr__(self, "metrics", tuple(current))
        Phase.metrics.check(self.metrics)
        Phase.limit_strengths.check(self.limit_strengths)
        if self.seeds is not None:
            Phase.seeds.check(self.seeds)
            require(len(set(self.seeds)) == len(self.seeds), "seeds", "must differ (a seed twice is the same run)")
        require(
            list(self.limit_strengths) == sorted(set(self.limit_strengths)),
            "limit_strengths",
            f"must increase (got {', '.join(f'{d:g}' for d in self.limit_strengths)})",
        )
        metrics = list(dict.fromkeys(self.metrics))
        if self.seeds is not None and "outcome" in metrics and "owner-probability" not in metrics:
            metrics.append("owner-probability")  # the outcome over seeds: its rate, with a Wilson interval
        object.__setattr__(self, "metrics", tuple(metrics))
        if self.base is None:
            object.__setattr__(self, "base", SimulateConfig() if self.kind == "simulate" else SelectConfig())
        base = self.run_base
        expected = SimulateConfig if self.kind == "simulate" else SelectConfig
        require(isinstance(base, expected), "kind", f"{self.kind} cells need a {expected.__name__} base")
        require(
            base.deltas is None,
            "deltas",
            "has no effect in phase (each cell its own δ): use the axes gauge (simulate) or "
            "owner-delta and others-delta (select)",
        )
        if isinstance(base, SimulateConfig):
            require(len(base.strengths) == 1, "gauge_strength", "give one D for the base run; a D axis maps several")
        else:
            require(base.seeds is None or len(base.seeds) == 1, "seeds", "give one seed for the base run")
        check_axis(self.x, self.kind, "x")
        check_axis(self.y, self.kind, "y")
        ignored = ignored_by_start(base.init, isinstance(base, SimulateConfig) and base.natural)
        for axis, param in ((self.x, "x"), (self.y, "y")):
            name = axis_specs(self.kind)[axis.name].param.name
            require(name not in ignored, param, f"maps {axis.name}, which {ignored.get(name)} (the map would be flat)")
        names = {self.x.name, self.y.name}
        require(len(names) == 2, "y", f"maps {self.y.name} already on `x`; give two different parameters")
        deltas = names & {"owner-delta", "others-delta"}
        if deltas:
            for clash in ("m", "owner"):
                require(
                    clash not in names,
                    "y",
                    f"{clash} and {min(deltas)} on one map: the δ axes fix the neurons and the owner",
                )
            require(
                isinstance(base, SelectConfig) and base.m >= 2,
                "m",
                "owner-delta and others-delta need `m` ≥ 2 (an owner and others)",
            )
        pair = [m for m in self.metrics if m in PAIR_METRICS + LIMIT_METRICS]
        if pair:
            require(self.kind == "simulate", "metric", f"{pair[0]} is of simulate's ±D pair; use kind simulate")
            require(
                isinstance(base, SimulateConfig) and base.gauge in OPPOSITE and "gauge" not in names,
                "metric",
                f"{pair[0]} compares the ±D pair: it needs `gauge` favorable or unfavorable, not an explicit δ",
            )
        limit = [m for m in self.metrics if m in LIMIT_METRICS]
        if limit:
            require(
                "gauge-strength" not in names,
                "metric",
                f"{limit[0]} runs the ±D pair at its own D (`limit_strengths`); map it over other parameters",
            )

        flow_only = [m for m in self.metrics if m in FLOW_METRICS]
        if flow_only:
            cells = [cell for row in self.cells() for cell in row]
            measured = all(isinstance(c, SimulateConfig) and c.checkpoints is not None for c in cells)
            if flow_only != ["kernel-distance-cos"] or not measured:
                require(
                    {cell.dynamics.mode for cell in cells} == {Mode.flow},
                    "metric",
                    f"{flow_only[0]} needs the parameters at the horizon, kept by the population flow: `mode` flow"
                    + (
                        " (or, for kernel-distance-cos, a finite-sample simulate with `checkpoints`)"
                        if flow_only[0] == "kernel-distance-cos"
                        else ""
                    ),
                )
        else:
            self.cells()  # every cell checked now, before anything runs
        if self.device is not None:
            self._check_device()
        if self.seeds is not None:
            require(
                base.init_seed is None
                and getattr(base, "seed", None) is None
                and getattr(base, "seeds", None) is None
                and getattr(base, "teacher_seed", None) is None,
                "seeds",
                "replace the base run's own seeds (`init_seed`, `seed`, `teacher_seed`): give one or the other",
            )
            cell = self.cells()[0][0]
            require(
                _draws_start(cell) or _draws_dynamics(cell),
                "seeds",
                "have no effect: the cells draw nothing at random (a seed needs `eps`, `init` random, or a "
                "finite-sample or SGD mode)",
            )

    def _check_device(self) -> None:
        """``device`` moves the population flows of one-neuron cells (the torch DOP853 of
        :mod:`gaugecli.core.integrate.dop853_torch`); elsewhere it would change nothing, so it is refused."""
        cells = [cell for row in self.cells() for cell in row]
        require(
            all(cell.dynamics.mode is Mode.flow for cell in cells),
            "device",
            "of phase moves the population flow (`mode` flow); a finite-sample base takes it in its own dynamics",
        )
        require(
            all(cell.m == 1 for cell in cells),
            "device",
            "moves the population flows of one-neuron cells (`m` 1); wider cells run on the CPU's LSODA",
        )
        if self.device == "cuda":
            from gaugecli.core.samples.sample_draw import resolve_device  # torch: only when a GPU is asked for

            try:
                resolve_device("cuda")
            except ValueError as err:
                raise ConfigError("device", str(err).removeprefix("cuda: ")) from None

    @property
    def flow_device(self) -> str | None:
        """The torch device of the one-neuron population flows (``None``: the compiled CPU solver, also for ``auto``
        where torch sees no CUDA device: on torch's CPU device the same map takes ~20× as long, rows v2)."""
        if self.device is None:
            return None
        from gaugecli.core.samples.sample_draw import resolve_device

        device = str(resolve_device(self.device))
        return None if self.device == "auto" and device == "cpu" else device

    def __getstate__(self) -> dict[str, Any]:
        """Its fields, without the cells :meth:`cells` keeps (a copy or a pickle rebuilds them)."""
        return {k: v for k, v in self.__dict__.items() if k != "_cells"}

    @property
    def run_base(self) -> Base:
        assert self.base is not None
        return self.base

    @property
    def pair(self) -> bool:
        """Each cell also runs the opposite gauge (a metric of the ±D pair was asked for)."""
        return any(m in PAIR_METRICS for m in self.metrics)

    @property
    def limits(self) -> tuple[float, ...]:
        """The large D at which each cell also runs its ``±D`` pair (``()``: no metric asks for them)."""
        return tuple(self.limit_strengths) if any(m in LIMIT_METRICS for m in self.metrics) else ()

    @property
    def kernels(self) -> bool:
        """Each run's tangent kernels on the probes are measured (a metric of :data:`FLOW_METRICS` was
        asked for): 256 × 256 kernels at the start and the horizon, otherwise ~20 % of a map's cost."""
        return any(m in FLOW_METRICS for m in self.metrics)

    @property
    def replicates(self) -> int:
        """Runs per cell: one per seed (1 without ``seeds``)."""
        return 1 if self.seeds is None else len(self.seeds)

    def runs(self, cell: Base) -> list[Base]:
        """The runs of ``cell``, one per seed of ``seeds`` (the cell itself without them)."""
        return [cell] if self.seeds is None else [seeded(cell, s) for s in self.seeds]

    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nx)``: the metric maps' shape (rows: the values of ``y``)."""
        return self.y.num, self.x.num

    def cells(self) -> list[list[Base]]:
        """Each cell's configuration, ``cells[iy][ix]``: built — and so checked, each as its command
        checks it — once per map (when this config is), the row's ``y`` set once for the row."""
        built = self.__dict__.get("_cells")
        if built is None:
            specs = axis_specs(self.kind)
            sx, sy = specs[self.x.name], specs[self.y.name]
            rows = (_set(self.run_base, sy, vy, "y") for vy in self.y.values)
            built = tuple(tuple(_set(row, sx, vx, "x") for vx in self.x.values) for row in rows)
            object.__setattr__(self, "_cells", built)  # not a field: no part of its equality, hash or JSON
        return [list(row) for row in built]

    def partition(self) -> list[list[tuple[int, int]]]:
        """The chunks: each a list of ``(iy, ix)``, fixed by the configuration (module docstring)."""
        specs = axis_specs(self.kind)
        flow = self.run_base.dynamics.mode is Mode.flow
        ny, nx = self.shape
        if flow and specs[self.x.name].ensemble:
            lines = [[(iy, ix) for ix in range(nx)] for iy in range(ny)]
        elif flow and specs[self.y.name].ensemble:
            lines = [[(iy, ix) for iy in range(ny)] for ix in range(nx)]
        else:
            return [[(iy, ix)] for iy in range(ny) for ix in range(nx)]
        return [line[s : s + CHUNK_CELLS] for line in lines for s in range(0, len(line), CHUNK_CELLS)]


def designated(cell: Base, deltas: Any = None) -> int | None:
    """The neuron the gauge designates: ``select``'s ``owner`` (the one given ``+D`` or ``owner-delta``);
    for ``simulate`` the unique ``argmax_j δ_j`` (``None`` for a tie: ``m`` equal neurons); ``deltas``:
    the cell's δ ``(m,)`` where the caller has them."""
    if isinstance(cell, SelectConfig):
        return cell.owner
    deltas = cell.imbalances()[0] if deltas is None else deltas
    top = deltas.max()
    return int(deltas.argmax()) if int((deltas == top).sum()) == 1 else None


def _draws_start(cell: Base) -> bool:
    return cell.init in ("random", "paired") or (cell.eps is not None and cell.init == "duplicates")


def _draws_teacher(cell: Base) -> bool:
    return isinstance(cell, SimulateConfig) and cell.teacher == "random"


def _draws_dynamics(cell: Base) -> bool:
    return cell.dynamics.sample_size is not None or cell.dynamics.mode is Mode.sgd


def seeded(cell: Base, seed: int) -> Base:
    """``cell`` with its random draws seeded by ``seed``: the start's ``init_seed`` where it is random,
    the sample or batch stream's seed where the dynamics draw one (each only where it applies, so
    that the run is its command's with those options)."""
    changes: dict[str, Any] = {}
    if _draws_start(cell):
        changes["init_seed"] = seed
    if _draws_teacher(cell):  # Kunin et al.'s one seed: teacher, start and sample (each its own stream of it)
        changes["teacher_seed"] = seed
    if _draws_dynamics(cell):
        changes["seed" if isinstance(cell, SimulateConfig) else "seeds"] = (
            seed if isinstance(cell, SimulateConfig) else (seed,)
        )
    return replace(cell, **changes)


def partner(cell: SimulateConfig) -> SimulateConfig:
    """The same run in the opposite gauge word (``+D`` ↔ ``−D``)."""
    return replace(cell, gauge=OPPOSITE[cell.gauge])


def _set(config: Base, spec: AxisSpec, value: float, param: str) -> Base:
    """``config`` with the axis' parameter at ``value`` (rebuilt, so checked as its command checks it)."""
    v: Any = cell_value(spec, value, param)
    if spec.target == "model":
        return replace(config, model=replace(config.model, **{spec.field: v}))
    if spec.target == "dynamics" and spec.field in BETA_AXES:
        betas = list(config.dynamics.betas or DEFAULT_BETAS)
        betas[BETA_AXES.index(spec.field)] = v
        return replace(config, dynamics=replace(config.dynamics, betas=tuple(betas)))
    if spec.target == "dynamics":
        return replace(config, dynamics=replace(config.dynamics, **{spec.field: v}))
    if spec.field in ("strengths", "gauge"):
        assert isinstance(config, SimulateConfig)
        if spec.field == "strengths":
            return replace(config, strengths=(v,))
        return replace(config, gauge=repr(float(v)))
    if spec.field in ("owner-delta", "others-delta"):
        assert isinstance(config, SelectConfig)
        deltas = [float(x) for x in config.imbalances()]
        o = config.owner
        deltas = [v if (j == o) == (spec.field == "owner-delta") else x for j, x in enumerate(deltas)]
        return replace(config, deltas=tuple(deltas))
    return replace(config, **{spec.field: v})
