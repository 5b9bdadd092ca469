"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (RELATED.md §2).

Does gauge selection leave the signatures that Xu (arXiv 2605.08119) looks for in two-layer
networks, Tian's repulsion ``B_jl < 0`` for similar features and a spectral "lock-in" of the
weight updates? Each run is sampled on a uniform epoch grid ``t_k = k τ``, ``τ = t_unit/per``,
and analysed by :mod:`gaugecli.core.analyses.lockin`:

* **assignments** of the m duplicates' gauges: ``select`` (neuron ``owner`` at +D, others −D),
  ``reversed`` (``owner`` at −D, others +D), ``all-plus``, ``all-minus``; and the **aligned
  control**: ``select`` started at θ0 = 0 (already aligned, nothing to lock in);
* **modes**: the population flow (per assignment and D), and finite-sample training of
  ``select`` and its control over seeds (ReLU: GD on L_n; σ = x²: GD on L_n, opt-in);
* **scans**: the rank-2 share over D (its height ∝ 1/D), the detector over the sampling
  resolution ``per`` (the raw detector moves with it), and ``T_spec`` over the size ε of a
  perturbation of the duplicates for ``select`` and ``all-minus`` (what decides an exact −D group).

Clocks (``t_unit``, every time in the result is in these units):
flow runs use the ``T_spec`` of the flow restricted to the invariant set where equal-gauge
duplicates stay equal (for ``all-minus`` the unrestricted flow is split by round-off and its
``T_spec`` depends on d); the aligned control, whose ``T_spec`` is 0, borrows ``select``'s;
finite-sample ReLU runs use the population flow's ``T_spec`` of the same condition (the epoch is
fixed before training, as in practice), σ = x² runs the ``T_spec`` of a pilot ``select`` run
(the x² population flow from u0 ⊥ v never aligns: it starts at an exact saddle). Each run also
records its own ``t_spec``.

Layout: :mod:`.config` (:class:`LockinConfig`, the assignments), :mod:`.result` (:class:`LockinRun`,
:class:`LockinResult`, :func:`summarize`), :mod:`.training` (finite-sample GD on the epoch grid),
:mod:`.diagnose` (one run's diagnostics), :mod:`.runs` (ReLU flow and finite-sample runs),
:mod:`.quadratic` (the σ = x² runs), :mod:`.scans` (D, per and ε scans, the owner's overshoot);
:func:`lockin` runs them all.
"""

from __future__ import annotations

import math
from functools import partial

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.analyses.symmetry import ROUNDOFF_EXPONENT
from gaugecli.core.types import Progress
from gaugecli.experiments import budget
from gaugecli.experiments.budget import MemoryEstimate
from gaugecli.experiments.lockin.config import LockinConfig, assignment_imbalances
from gaugecli.experiments.lockin.quadratic import quadratic_runs, saddle_notes
from gaugecli.experiments.lockin.result import LockinResult, LockinRun, summarize
from gaugecli.experiments.lockin.runs import flow_run, sample_run
from gaugecli.experiments.lockin.scans import long_overshoot, rank2_collapse, resolution_scan, tspec_vs_perturbation
from gaugecli.experiments.lockin.training import finite_sample_on_grid
from gaugecli.experiments.params import ASSIGNMENTS

__all__ = [
    "ASSIGNMENTS",
    "LockinConfig",
    "LockinResult",
    "LockinRun",
    "assignment_imbalances",
    "check_memory_budget",
    "finite_sample_on_grid",
    "lockin",
    "memory_estimate",
    "summarize",
]


EPOCH_FLOATS = 40
"""Floats held per epoch, neuron and coordinate of ``(d + 1 + m)`` (trajectories, updates, Grams,
the flow's dense output on the grid): measured 16–20 KB per epoch at m = 5, d = 16 (peak RSS at
per = 1000 … 8000), i.e. 24–29; 40 errs on the safe side."""
BASE_BYTES = 400 * 2**20
"""Peak RSS of a default run less its epoch grids (measured ≈ 400 MB: torch, the samples, the scans)."""
SAMPLE_FLOATS = 4
"""Floats held per sample point and ``(d + 1 + m)``: ``X``, ``y`` and the activations of a pass."""


def memory_estimate(
    config: LockinConfig,
    *,
    per: int | None = None,
    span: float | None = None,
    m: int | None = None,
    n_samples: int | None = None,
) -> MemoryEstimate:
    """Peak memory of :func:`lockin` (with ``per``, ``span``, ``m`` or ``n_samples`` in place of
    the config's)."""
    epochs = round((config.span if span is None else span) * (config.per if per is None else per)) + 1
    m, d = config.m if m is None else m, config.model.d
    n = config.n_samples if n_samples is None else n_samples
    grids = 8.0 * EPOCH_FLOATS * epochs * m * (d + 1 + m)
    samples = 8.0 * SAMPLE_FLOATS * n * (d + 1 + m)
    largest, what = max((grids, "the runs on their epoch grids"), (samples, "a finite sample"))
    return MemoryEstimate(int(BASE_BYTES + grids + samples), int(largest), what)


def check_memory_budget(config: LockinConfig) -> None:
    """Refuse a run that would not fit, before it starts, naming the first of ``--n-samples``
    (when the sample dominates), ``--per``, ``--span`` and ``--m`` whose smallest allowed value
    would fit, with the largest value that fits."""
    # d first: the teacher and the m neurons are vectors in R^d, whatever the grids and sample
    budget.check_input_dimension(config.model.d, config.model.k + config.m)
    usable = budget.USABLE_FRACTION * budget.available_memory()
    estimate = memory_estimate(config)
    if estimate.total <= usable:
        return
    at = partial(memory_estimate, config)
    if estimate.what == "a finite sample":
        budget.check_memory(estimate, "n_samples", 1.0, config.n_samples, estimate_at=lambda n: at(n_samples=n))
    epochs = config.window + config.lag  # the fewest epochs the detector allows
    if at(per=math.ceil(epochs / config.span)).total <= usable:
        budget.check_memory(estimate, "per", 1.0, config.per, estimate_at=lambda p: at(per=p))
    if at(span=max(1.0, epochs / config.per)).total <= usable:
        budget.check_memory(estimate, "span", 1.0, config.span)  # epochs ∝ span: the largest term shrinks
    budget.check_memory(estimate, "m", 2.0, config.m, estimate_at=lambda k: at(m=k))


def lockin(config: LockinConfig, progress: Progress | None = None) -> LockinResult:
    """Every run, scan and the summary of ``gaugecli lockin`` (refused at once when it would not
    fit in the available memory: :func:`check_memory_budget`)."""
    check_memory_budget(config)
    notes: list[str] = []
    runs: list[LockinRun] = []
    n_sample = len(config.seeds) * (1 + config.control)
    work = len(config.strengths) * (len(config.assignments) + config.control) + n_sample * (1 + config.quadratic) + 3
    done = [0]

    def tick(n: int = 1) -> None:
        done[0] += n
        if progress is not None:
            progress(min(done[0] / work, 1.0))

    clocks: dict[tuple[str, float], float] = {}
    for D in config.strengths:
        for assign in config.assignments:
            run = flow_run(config, assign, float(D), False, None)
            clocks[(assign, float(D))] = run.t_unit
            runs.append(run)
            tick()
        if config.control:
            runs.append(flow_run(config, "select", float(D), True, clocks[("select", float(D))]))
            tick()
    t_select = clocks[("select", config.sample_strength)]
    for seed in config.seeds:
        runs.append(sample_run(config, False, seed, t_select))
        tick()
        if config.control:
            runs.append(sample_run(config, True, seed, t_select))
            tick()
    if config.quadratic:
        notes += saddle_notes(config)
        base = done[0]
        part = None if progress is None else (lambda f: progress(min((base + f * n_sample) / work, 1.0)))
        runs.extend(quadratic_runs(config, part))
        tick(n_sample)
    collapse = rank2_collapse(config)
    tick()
    scan = resolution_scan(config, t_select)
    tick()
    tspec_eps = tspec_vs_perturbation(config)
    tick()
    return LockinResult(
        runs=runs,
        summary=summarize(runs),
        rank2_collapse=collapse,
        resolution_scan=scan,
        tspec_vs_eps=tspec_eps,
        owner_overshoot=long_overshoot(config, t_select),
        roundoff_exponent=ROUNDOFF_EXPONENT,
        roundoff_level=lk.ROUNDOFF_LEVEL,
        notes=notes,
    )
