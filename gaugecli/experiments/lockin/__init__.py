"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (RELATED.md §2).

Does gauge selection leave the signatures that Xu (arXiv 2605.08119) looks for in two-layer
networks, Tian's repulsion ``B_jl < 0`` for similar features and a spectral "lock-in" of the
weight updates? Each run is sampled on a uniform epoch grid ``t_k = k τ``, ``τ = t_unit/per``,
and analysed by :mod:`gaugecli.core.lockin`:

* **assignments** of the m duplicates' gauges: ``select`` (neuron ``owner`` at +D, others −D),
  ``reversed`` (``owner`` at −D, others +D), ``all-plus``, ``all-minus``; and the **aligned
  control**: ``select`` started at θ0 = 0 (already aligned, nothing to lock in);
* **modes**: the population flow (per assignment and D), and finite-sample training of
  ``select`` and its control over seeds (ReLU: GD on L_n; σ = x²: GD on L_n, opt-in);
* **scans**: the rank-2 share over D (its height ∝ 1/D), the detector over the sampling
  resolution ``per`` (the raw detector moves with it), and ``T_spec`` over ``d`` for ``select``
  and ``all-minus`` (d is physically irrelevant; any dependence is round-off).

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

from gaugecli.core import lockin as lk
from gaugecli.core.symmetry import ROUNDOFF_EXPONENT
from gaugecli.core.types import Progress
from gaugecli.experiments.lockin.config import ASSIGNMENTS, LockinConfig, assignment_imbalances
from gaugecli.experiments.lockin.quadratic import quadratic_runs, saddle_notes
from gaugecli.experiments.lockin.result import LockinResult, LockinRun, summarize
from gaugecli.experiments.lockin.runs import flow_run, sample_run
from gaugecli.experiments.lockin.scans import long_overshoot, rank2_collapse, resolution_scan, tspec_vs_perturbation
from gaugecli.experiments.lockin.training import finite_sample_on_grid

__all__ = [
    "ASSIGNMENTS",
    "LockinConfig",
    "LockinResult",
    "LockinRun",
    "assignment_imbalances",
    "finite_sample_on_grid",
    "lockin",
    "summarize",
]


def lockin(config: LockinConfig, progress: Progress | None = None) -> LockinResult:
    """Every run, scan and the summary of ``gaugecli lockin``."""
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
