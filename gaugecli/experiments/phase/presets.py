"""The maps referees asked for (``gaugecli phase --preset NAME``): their kind, axes, metrics and
width, each with its stated cost on two cores.

* ``outcomes`` — exclusive selection, sharing, loss over the owner's δ and the others' δ (``select``,
  m = 5): the C6 selection rule (``argmax δ`` owns) and C7's pruning boundary (others need δ ≤ 0).
* ``robustness`` — selection under visible perturbations ``ε`` of the duplicates against D
  (``select``, m = 5), two maps: the random perturbation of ``--eps`` and the adversarial one of
  ``--init adversarial`` (perturb's: the favorable neuron turned away by ε, with a smaller coefficient).
* ``sensitivity`` — C4's constant C and exponent over the initial function (c0, θ0), m = 1: the ±D
  pair at D = 16 and 64 (``limit_strengths``), beside ``T_spec``, the ratio and the gap at D = 4.
* ``rich-lazy`` — Kunin et al.'s grid: the initial scale (here ``c0``, the initial function's size,
  10^−1 … 10^0.3) × the imbalance δ ∈ [−1, 1] given to the neuron, 17 × 17, with Kunin et al.'s
  cosine kernel distance (on Gaussian probes, in the population flow: not their setting), the
  kernel's relative change and ``T_spec``.
* ``kunin`` — Kunin et al.'s grid in their setting, cell for cell: τ ∈ [10^−1, 10^0.3] × δ ∈ [−1, 1],
  17 × 17, on their figure 1(b)'s axes (τ across on a log scale, δ up), each cell ``simulate --init
  paired --teacher random --inputs sphere --mode sample-gd`` at m = 50, n = 1000, d = 100, k = 3 for
  10⁴ steps of η = 1e-2/τ² (their lr = 5e-3/τ²), with their 16 seeds 100 … 115 (4 624 runs): their
  kernel distance S on the training set at step 10⁴. Hours of CPU (one run's cost is measured by
  ``tools/kunin_cells.py --cost``; docs/howto/kunin.md renders it with the grid's): an opt-in run,
  cached cell by cell and so resumable. ``kunin-quick`` is the same map small enough for CI (3 × 3
  cells of m = 10, n = 60, d = 8, k = 2, 100 steps, two seeds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """``x``, ``y`` as the command line takes them; ``options``: base options by parameter name;
    ``variants``: several maps, each a label and the base options it adds (none: one map);
    ``model``, ``dynamics``: the base run's model and dynamics options by field (given options win);
    ``seeds``: the cells' seeds (``None``: none)."""

    kind: str
    x: str
    y: str
    metrics: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()
    cost: str = ""
    variants: tuple[tuple[str, tuple[tuple[str, object], ...]], ...] = ()
    model: tuple[tuple[str, object], ...] = ()
    dynamics: tuple[tuple[str, object], ...] = ()
    seeds: tuple[int, ...] | None = None


KUNIN_SCALES = f"init-scale=0.1:{10**0.3:.6g}:17:log"
"""Their ``np.logspace(-1, 0.3, 17)``."""
KUNIN_OPTIONS = (("init", "paired"), ("teacher", "random"), ("inputs", "sphere"), ("eta_per_scale", True))
"""Their start, teacher and inputs, and their ``lr = base_lr/τ²``."""
KUNIN_BASE_ETA = 1e-2
"""η at τ = 1: twice their ``base_lr = 5e-3`` (their loss is twice ours)."""


PRESETS: dict[str, Preset] = {
    "outcomes": Preset(
        "select",
        "owner-delta=-4:4:17",
        "others-delta=-4:4:17",
        ("outcome", "owner-share", "p-end", "t-spec"),
        (("m", 5),),
        cost="289 runs of m = 5, 17 ensembles",
    ),
    "robustness": Preset(
        "select",
        "eps=1e-3:1:13:log",
        "gauge-strength=0.25:64:9:log",
        ("outcome", "owner-share", "t-spec"),
        (("m", 5),),
        cost="2 maps of 117 runs of m = 5, 9 ensembles each",
        variants=(("random", ()), ("adversarial", (("init", "adversarial"),))),
    ),
    "sensitivity": Preset(
        "simulate",
        "c0=0.01:0.5:9:log",
        f"theta0=0.3:{math.floor(0.95 * math.pi * 100) / 100}:9",
        ("t-spec", "ratio", "gap", "exponent", "constant"),
        cost="81 cells, each the ±D pair at D = 4, 16 and 64 (486 runs of m = 1), 9 ensembles",
    ),
    "rich-lazy": Preset(
        "simulate",
        "gauge=-1:1:17",
        f"c0=0.1:{10**0.3:.6g}:17:log",
        ("kernel-distance-cos", "kernel-change", "t-spec", "reaction-share"),
        cost="289 runs of m = 1, 17 ensembles",
    ),
    "kunin": Preset(
        "simulate",
        KUNIN_SCALES,  # their figure 1(b): τ across (log), δ up
        "gauge=-1:1:17",
        ("kernel-distance-cos",),
        (("m", 50), *KUNIN_OPTIONS, ("checkpoints", (10.0, 100.0, 1e3, 1e4))),
        cost="4 624 runs of m = 50 (289 cells × 16 seeds), 10⁴ GD steps each (CPU-hours: docs/howto/kunin.md)",
        model=(("d", 100), ("k", 3)),
        dynamics=(("mode", "sample-gd"), ("eta", KUNIN_BASE_ETA), ("n_samples", 1000)),
        seeds=tuple(range(100, 116)),
    ),
    "kunin-quick": Preset(
        "simulate",
        "init-scale=0.1:1:3:log",
        "gauge=-1:1:3",
        ("kernel-distance-cos",),
        (("m", 10), *KUNIN_OPTIONS, ("checkpoints", (10.0, 100.0))),
        cost="18 runs of m = 10 (9 cells × 2 seeds), 100 GD steps each",
        model=(("d", 8), ("k", 2)),
        dynamics=(("mode", "sample-gd"), ("eta", KUNIN_BASE_ETA), ("n_samples", 60)),
        seeds=(100, 101),
    ),
}
