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
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """``x``, ``y`` as the command line takes them; ``options``: base options by parameter name;
    ``variants``: several maps, each a label and the base options it adds (none: one map)."""

    kind: str
    x: str
    y: str
    metrics: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()
    cost: str = ""
    variants: tuple[tuple[str, tuple[tuple[str, object], ...]], ...] = ()


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
}
