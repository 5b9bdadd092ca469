"""``gaugecli deep``: the paper's experiment one hidden layer deeper — duplicates in the first or the
second hidden layer of ``f(x) = aᵀσ(W₂σ(W₁x))``, the favorable gauge to one, trained on a fixed
Gaussian sample by flow and by GD (:mod:`gaugecli.core.analyses.deep_gauge`).

Three parts: the **selection** (m duplicates, the owner's balance +D, the others' −D, the other hidden
layer's balance ``other_gauge``): which neuron owns the feature, each balance over time and its drift,
and the same start under GD; the **separation** of one neuron (m = 1), ``T_spec(−D)/T_spec(+D)`` over D
with its local slopes; and the **contest** (duplicates in both hidden layers, the layer-1 teacher,
+D to neuron ``owner`` of layer 1 and to the last neuron of layer 2): which layer's gauge decides what.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gaugecli.core.analyses.deep_gauge import (
    alignment,
    coefficients,
    duplicates,
    local_slopes,
    owner,
    specialization_time,
    teacher,
    with_gauges,
)
from gaugecli.core.frames import Labelled, View
from gaugecli.core.integrate.deep_train import DeepTrajectory, deep_descent, deep_flow
from gaugecli.core.model.deep import DeepNetwork, with_balances
from gaugecli.core.samples.deep_sample import DeepSample
from gaugecli.core.types import Progress
from gaugecli.experiments.declare import require
from gaugecli.experiments.params.deep import Deep

LOSS_STOP = 1e-4
"""A selection run stops when ``L_n`` falls to ``LOSS_STOP · L_n(0)`` (or at ``t_max``): the feature is
then learnt (the owner aligned), and what follows is the slow pruning of the others."""
DRIFT_FACTOR = 10.0
"""The balances hold along the flow when their drift is ≤ ``DRIFT_FACTOR · rtol · max_t ‖θ‖²``: a
balance is a sum of squares, its error ≲ 2‖θ‖ times the state's, which RK45 keeps at ``rtol·‖θ‖`` per
step; the global error stays within a few times that (measured ≤ 2e-9·‖θ‖² at rtol 1e-6)."""
TIME_POINTS = 48
"""Saved times of the selection run (0, then a geometric grid from 1e-3 to ``t_max``)."""


@dataclass(frozen=True)
class DeepConfig:
    """Duplicates in hidden ``layer`` of a two-hidden-layer ReLU network (the other layer's neurons at
    balance ``other_gauge``), trained on ``n_samples`` Gaussian inputs (seed ``sample_seed``)."""

    layer: int = Deep.layer.default
    m: int = Deep.m.default
    owner: int = Deep.owner.default
    select_strength: float = Deep.select_strength.default
    other_gauge: float = Deep.other_gauge.default
    gauge_strength: tuple[float, ...] = Deep.gauge_strength.default
    d: int = Deep.d.default
    c0: float = Deep.c0.default
    eps_align: float = Deep.eps_align.default
    n_samples: int = Deep.n_samples.default
    sample_seed: int = Deep.sample_seed.default
    t_max: float = Deep.t_max.default
    rtol: float = Deep.rtol.default
    eta: float = Deep.eta.default
    separation: bool = Deep.separation.default
    contest: bool = Deep.contest.default

    def __post_init__(self) -> None:
        Deep.check(self)
        require(self.owner < self.m, "owner", f"must be below m = {self.m} (got {self.owner})")
        require(self.layer == 1 or self.d >= 2, "d", "the layer-2 teacher needs d ≥ 2")


@dataclass
class DeepResult(Labelled):
    """The selection: saved times ``t``, ``loss_t`` (L_n), the balances ``delta_1`` (t, m₁) and
    ``delta_2`` (t, m₂); at the stop (``t_stop``: ``L_n ≤ 1e-4 L_n(0)`` or ``t_max``) each duplicate's
    ``alignment`` and ``coefficient``, the ``selected`` owner (−1: none aligned) and whether it is the
    designated one (``owns``); ``loss_end`` with its Monte Carlo error ``loss_error``; the balances'
    ``drift`` per layer against ``drift_tolerance`` (``holds``). The same start under GD with step
    ``gd_eta`` to ``t_stop``: ``gd_selected``, ``gd_drift`` per layer and the first step's exact
    ``gd_step_drift`` (η²(‖g_out‖² − ‖g_in‖²), largest |·|). The separation: ``strengths``,
    ``t_spec_plus``/``t_spec_minus`` (nan: not reached), ``ratio`` and the local slopes of each (empty
    without ``separation``). The
    contest (empty without it): ``contest_alignment`` (layer 1), the output shares ``contest_share_1``
    (by layer-1 neuron) and ``contest_share_2`` (by layer-2 neuron), ``contest_owner`` (layer 1) and
    ``contest_carrier`` (layer 2, the largest share)."""

    VIEW: ClassVar[View] = View(
        dims={
            "t": ("t",),
            "loss_t": ("t",),
            "delta_1": ("t", "neuron_1"),
            "delta_2": ("t", "neuron_2"),
            "alignment": ("neuron",),
            "coefficient": ("neuron",),
            "drift": ("layer",),
            "gd_drift": ("layer",),
            "strengths": ("D",),
            "t_spec_plus": ("D",),
            "t_spec_minus": ("D",),
            "ratio": ("D",),
            "ratio_slopes": ("D_pair",),
            "plus_slopes": ("D_pair",),
            "minus_slopes": ("D_pair",),
            "contest_alignment": ("neuron",),
            "contest_share_1": ("neuron",),
            "contest_share_2": ("neuron",),
        }
    )
    HEADLINE: ClassVar[tuple[str, ...]] = ("selected", "owns", "holds")

    layer: int
    t: np.ndarray
    loss_t: np.ndarray
    delta_1: np.ndarray
    delta_2: np.ndarray
    alignment: np.ndarray
    coefficient: np.ndarray
    selected: int
    owns: bool
    t_stop: float
    loss_end: float
    loss_error: float
    drift: np.ndarray
    drift_tolerance: float
    holds: bool
    gd_eta: float
    gd_selected: int
    gd_drift: np.ndarray
    gd_step_drift: float
    strengths: np.ndarray
    t_spec_plus: np.ndarray
    t_spec_minus: np.ndarray
    ratio: np.ndarray
    ratio_slopes: np.ndarray
    plus_slopes: np.ndarray
    minus_slopes: np.ndarray
    contest_alignment: np.ndarray
    contest_share_1: np.ndarray
    contest_share_2: np.ndarray
    contest_owner: int
    contest_carrier: int


def _assigned(m: int, favored: int, D: float) -> np.ndarray:
    """``+D`` to neuron ``favored``, ``−D`` to the others."""
    deltas = np.full(m, -D)
    deltas[favored] = D
    return deltas


def _until_learnt(sample: DeepSample, start: DeepNetwork, config: DeepConfig) -> DeepTrajectory:
    """The flow from ``start`` on the saved grid, stopped when ``L_n ≤ LOSS_STOP · L_n(0)``."""
    target = LOSS_STOP * sample.loss(start)

    def learnt(net: DeepNetwork) -> float:
        return sample.loss(net) - target

    times = np.concatenate([[0.0], np.geomspace(1e-3, config.t_max, TIME_POINTS - 1)])
    return deep_flow(sample, start, times, rtol=config.rtol, events=[learnt], terminal=True)


def _selection(config: DeepConfig, sample: DeepSample) -> dict[str, object]:
    start = with_gauges(
        duplicates(config.layer, config.m, config.d, config.c0),
        config.layer,
        _assigned(config.m, config.owner, config.select_strength),
        config.other_gauge,
    )
    run = _until_learnt(sample, start, config)
    end = run.network(-1)
    selected = owner(end, config.layer, config.eps_align)
    tolerance = DRIFT_FACTOR * config.rtol * run.scale
    drift = np.array([float(np.max(d)) for d in run.drift])
    steps = max(1, math.ceil(float(run.t[-1]) / config.eta))
    gd = deep_descent(sample, start, eta=config.eta, steps=steps, record_every=max(1, steps // 50))
    gd_selected = owner(gd.network(-1), config.layer, config.eps_align)
    grad, _ = sample.gradient(start)
    step_drift = max(float(np.max(np.abs(b))) for b in grad.balances()) * config.eta**2
    return {
        "layer": config.layer,
        "t": run.t,
        "loss_t": run.loss,
        "delta_1": run.balances[0],
        "delta_2": run.balances[1],
        "alignment": alignment(end, config.layer),
        "coefficient": coefficients(end, config.layer),
        "selected": -1 if selected is None else selected,
        "owns": selected == config.owner,
        "t_stop": float(run.t[-1]),
        "loss_end": float(run.loss[-1]),
        "loss_error": sample.loss_error(end),
        "drift": drift,
        "drift_tolerance": tolerance,
        "holds": bool(np.all(drift <= tolerance)),
        "gd_eta": config.eta,
        "gd_selected": -1 if gd_selected is None else gd_selected,
        "gd_drift": np.array([float(np.max(d)) for d in gd.drift]),
        "gd_step_drift": step_drift,
    }


def _separation(config: DeepConfig, sample: DeepSample, progress: Progress | None) -> dict[str, object]:
    strengths = np.asarray(config.gauge_strength if config.separation else (), float)
    plus, minus = np.full(strengths.size, math.nan), np.full(strengths.size, math.nan)
    for i, D in enumerate(strengths):
        for sign, out in ((1.0, plus), (-1.0, minus)):
            start = with_gauges(
                duplicates(config.layer, 1, config.d, config.c0), config.layer, [sign * D], config.other_gauge
            )
            out[i], _ = specialization_time(
                sample, start, config.layer, 0, eps_align=config.eps_align, t_max=config.t_max, rtol=config.rtol
            )
        if progress is not None:
            progress(0.2 + 0.6 * (i + 1) / strengths.size)
    ratio = minus / plus
    return {
        "strengths": strengths,
        "t_spec_plus": plus,
        "t_spec_minus": minus,
        "ratio": ratio,
        "ratio_slopes": local_slopes(strengths, ratio),
        "plus_slopes": local_slopes(strengths, plus),
        "minus_slopes": local_slopes(strengths, minus),
    }


def _contest(config: DeepConfig) -> dict[str, object]:
    empty = np.zeros(0)
    if not config.contest:
        return {
            "contest_alignment": empty,
            "contest_share_1": empty,
            "contest_share_2": empty,
            "contest_owner": -1,
            "contest_carrier": -1,
        }
    m, D = config.m, config.select_strength
    sample = DeepSample.draw(teacher(1, config.d), config.n_samples, config.sample_seed)
    start = duplicates(1, m, config.d, config.c0, m_other=m)
    start = with_balances(start, [_assigned(m, config.owner, D), _assigned(m, m - 1, D)])
    end = _until_learnt(sample, start, config).network(-1)
    # the output carried by the path j → k: a_k W₂[k, j] ‖w_j‖ (every unit active, as at the start)
    paths = end.a[:, None] * end.weights[1] * np.linalg.norm(end.weights[0], axis=1)[None, :]
    total = float(np.sum(paths))
    share_1, share_2 = paths.sum(axis=0) / total, paths.sum(axis=1) / total
    found = owner(end, 1, config.eps_align)
    return {
        "contest_alignment": alignment(end, 1),
        "contest_share_1": share_1,
        "contest_share_2": share_2,
        "contest_owner": -1 if found is None else found,
        "contest_carrier": int(np.argmax(share_2)),
    }


def deep(config: DeepConfig, progress: Progress | None = None) -> DeepResult:
    sample = DeepSample.draw(teacher(config.layer, config.d), config.n_samples, config.sample_seed)
    parts = _selection(config, sample)
    if progress is not None:
        progress(0.2)
    parts |= _separation(config, sample, progress)
    parts |= _contest(config)
    if progress is not None:
        progress(1.0)
    return DeepResult(**parts)  # type: ignore[arg-type]
