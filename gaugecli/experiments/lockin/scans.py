"""The scans of ``gaugecli lockin``: the rank-2 share's peak over D, Xu's detector over the sampling
resolution, T_spec over the size of a perturbation of the duplicates (select vs all-minus), and the
owner's overshoot past v over a long horizon."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.analyses.symmetry import equal_groups
from gaugecli.core.integrate.flow import population_flow_on_grid
from gaugecli.core.model.gauge import perturbed_duplicates
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_gradient
from gaugecli.experiments.common import run_ensemble
from gaugecli.experiments.config import DynamicsConfig
from gaugecli.experiments.lockin.config import LockinConfig, assignment_imbalances, condition_model, start_state
from gaugecli.experiments.lockin.diagnose import fire_time

OVERSHOOT_HORIZON = 200.0
"""Horizon (in T_spec) of the flow that measures the owner's overshoot past v."""


def rank2_collapse(config: LockinConfig) -> list[dict[str, float]]:
    """Peak of the select flow's rank-2 share σ2/σ1 over ``scan_strengths`` (to 2 T_spec): D · peak collapses."""
    net = config.model.build()
    out = []
    for D in config.scan_strengths:
        _deltas, a0, W0 = start_state(config, config.model, "select", D)
        flow = population_flow_on_grid(
            Network(a0, W0),
            net,
            config.model.eps_align,
            span=2.0,
            per=config.per,
            groups=equal_groups(Network(a0, W0)),
            rtol=config.rtol,
        )

        if flow.t_spec is None:  # span mode stops at the alignment event or raises: a bug if reached
            raise RuntimeError(f"population flow at D = {D:g} returned no T_spec on its span grid")
        share = lk.rank2_share(lk.update_singular_values(-population_gradient(flow.theta, net).W))
        peak = lk.sampled_peak(flow.t / flow.t_spec, share)
        out.append(
            {
                "D": float(D),
                "t_spec": float(flow.t_spec),
                "peak": peak.height,
                "t_peak": peak.t_peak,
                "D_times_peak": D * peak.height,
            }
        )
    return out


def resolution_scan(config: LockinConfig, t_unit: float) -> list[dict[str, Any]]:
    """Xu's detector on the select flow (and its control) over the sampling resolutions ``scan_pers``,
    at ``sample_strength`` on the clock ``t_unit``: the raw firing moves with ``per``."""
    D = config.sample_strength
    out = []
    for control in (False, True) if config.control else (False,):
        model = condition_model(config, control)
        net = model.build()
        _, a0, W0 = start_state(config, model, "select", D)
        for per in config.scan_pers:
            times = np.arange(round(config.span * per) + 1) * (t_unit / per)
            flow = population_flow_on_grid(Network(a0, W0), net, model.eps_align, times=times, rtol=config.rtol)
            lam = lk.window_gram_eigenvalues(-population_gradient(flow.theta, net).W, config.window)
            raw = lk.xu_lockin(lam, config.lag, config.threshold, config.burn_in)
            fl = lk.xu_lockin(lam, config.lag, config.threshold, config.burn_in, config.floor)
            out.append(
                {
                    "control": control,
                    "per": per,
                    "D": D,
                    "detector_fire_raw": fire_time(raw.fire_epoch, per),
                    "detector_fire_floored": fire_time(fl.fire_epoch, per),
                    "roundoff_fraction": lk.roundoff_fraction(lam),
                    "lambda3_over_lambda1_median": float(np.nanmedian(np.abs(lam[:, 2]) / lam[:, 0])),
                }
            )
    return out


def tspec_vs_perturbation(config: LockinConfig) -> list[dict[str, Any]]:
    """``T_spec`` and owner of select and all-minus when the duplicates are perturbed by ``ε``
    (``scan_eps``; :func:`gaugecli.core.model.gauge.perturbed_duplicates`, one draw per seed of ``seeds``),
    by the package's flow (the one ``simulate`` and ``select`` use).

    The flow runs in the invariant subspace, so its arithmetic (and round-off) is the same for
    every d: d cannot show the round-off sensitivity. ε does: the all-minus group is unstable on
    the symmetric set (Λ > ln(1/ε_machine)), so a perturbation of any size, down to round-off,
    decides the winner and moves ``T_spec`` by ~ln(ε)/λ_anti. Select's −D non-owners are pruned
    before they separate: nothing moves."""
    D = config.sample_strength
    net = config.model.build()
    out: list[dict[str, Any]] = []
    for assign in ("select", "all-minus"):
        deltas = assignment_imbalances(assign, config.m, D, config.owner)
        draws = [(eps, seed) for eps in config.scan_eps for seed in config.seeds]
        if not draws:
            break
        starts = [
            perturbed_duplicates(net, deltas, eps, c0=config.model.c0, theta0=config.model.theta0, seed=seed)
            for eps, seed in draws
        ]
        a0, W0 = np.stack([a for a, _ in starts]), np.stack([W for _, W in starts])
        runs = run_ensemble(config.model, DynamicsConfig(rtol=config.rtol), Network(a0, W0))  # one batched integration
        for i, ((eps, seed), obs) in enumerate(zip(draws, runs, strict=True)):
            if assign == "select":
                out.append({"eps": eps, "seed": seed, "D": D})
            out[i][assign] = obs.t_spec
            out[i][f"{assign}_owner"] = obs.computed_owner
    return out


def long_overshoot(config: LockinConfig, t_unit: float) -> dict[str, float]:
    """How far the select owner passes v (away from the non-owners at u0), over the whole run to
    ``OVERSHOOT_HORIZON`` t_unit on a log grid: the maximum comes at ≈ 8 T_spec, beyond the span."""
    net = config.model.build()
    D = config.sample_strength
    _, a0, W0 = start_state(config, config.model, "select", D)
    times = np.concatenate([[0.0], np.geomspace(1e-2, OVERSHOOT_HORIZON, 600) * t_unit])
    flow = population_flow_on_grid(Network(a0, W0), net, config.model.eps_align, times=times, rtol=config.rtol)
    v = net.unit_directions()[0]
    u0 = W0[0] / np.linalg.norm(W0[0])
    u = flow.theta.W[:, config.owner] / np.linalg.norm(flow.theta.W[:, config.owner], axis=-1, keepdims=True)
    angle = np.degrees(np.arctan2(u @ u0, u @ v))
    i = int(np.argmin(angle))
    return {"D": D, "max_deg": float(max(0.0, -angle[i])), "t_at_max": float(times[i] / t_unit)}
