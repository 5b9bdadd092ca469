"""The m = 1 comparisons of ``gaugecli reln``: for each ±D, the ReLU flow against the final-gate ReLN
(gate = v), the initial-gate ReLN (gate = u0) and the aligned race; T_spec ratios and their fits."""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core.integrate.trajectory import Trajectory
from gaugecli.core.model.gauge import initial_direction
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_loss
from gaugecli.core.reduced.limits import favorable_limit, unfavorable_limit
from gaugecli.core.reduced.reln import (
    final_gate_tspec_asymptote,
    gate_floor,
    race_coefficient,
    race_loss,
    race_time,
    reln_geometry,
    trajectory_loss,
)
from gaugecli.core.types import Array
from gaugecli.experiments.reln.config import RelnConfig, perpendicular
from gaugecli.experiments.reln.result import RelnCurves, RelnFits, RelnRatio
from gaugecli.experiments.reln.series import curve_grid, finite_or_none, resample


def race_tspec(c0: float, delta: float, a_star: float, eps_align: float) -> float:
    """The race's analogue of T_spec: the time for ``c`` to come within ``ε a*`` of ``a*`` (0 if it
    starts there)."""
    if abs(c0 - a_star) <= eps_align * a_star:
        return 0.0
    c_end = a_star * (1.0 - eps_align if c0 < a_star else 1.0 + eps_align)
    return race_time(c0, c_end, delta, a_star)


def compare_pathways(
    config: RelnConfig, relu: Trajectory, final: Trajectory, initial: Trajectory, deltas: Array
) -> tuple[list[RelnRatio], list[RelnCurves]]:
    """T_spec of each m = 1 run (ReLU, final-gate ReLN, initial-gate ReLN, race) and their loss curves
    on one log-time grid per run (from 10⁻³ of the fastest T_spec to 20× the slowest)."""
    model, net = config.model, config.model.build()
    v = net.unit_directions()[0]
    u0 = initial_direction(net, model.theta0)
    a_star = float(net.coefficients[0] * np.linalg.norm(net.directions[0]))
    geo_final, geo_initial = reln_geometry(v[None], net), reln_geometry(u0[None], net)
    loss_relu = population_loss(Network(relu.a, relu.W), net)
    loss_final, loss_initial = trajectory_loss(final, geo_final), trajectory_loss(initial, geo_initial)
    align_relu = alignment(relu.W, net)[0][..., 0]  # (runs, n_t): m = 1
    align_final = alignment(final.W, net)[0][..., 0]
    ratios, curves = [], []
    for b, delta in enumerate(deltas):
        t_relu = finite_or_none(relu.crossing_times[b, 0])
        t_reln = finite_or_none(final.crossing_times[b, 0])
        t_race = race_tspec(model.c0, float(delta), a_star, model.eps_align)
        ratios.append(
            RelnRatio(
                D=abs(float(delta)),
                delta=float(delta),
                t_spec_relu=t_relu,
                t_spec_reln=t_reln,
                t_spec_race=t_race,
                t_spec_reln_asymptote=final_gate_tspec_asymptote(float(delta), model.c0, model.eps_align, a_star)
                if perpendicular(model)
                else None,
                t_spec_reln_initial=finite_or_none(initial.crossing_times[b, 0]),
                loss_end_reln_initial=float(loss_initial[b, -1]),
                floor_reln_initial=float(gate_floor(model.theta0, a_star)),
            )
        )
        known = [x for x in (t_relu, t_reln, t_race) if x]  # positive times (t_race is 0 if c0 ≈ a*)
        grid = curve_grid(1e-3 * min(known, default=1.0), 20.0 * max(known, default=1.0))
        curves.append(
            RelnCurves(
                D=abs(float(delta)),
                delta=float(delta),
                t=grid,
                loss_relu=resample(relu.t, loss_relu[b], grid),
                loss_reln=resample(final.t, loss_final[b], grid),
                loss_reln_initial=resample(initial.t, loss_initial[b], grid),
                loss_race=race_loss(race_coefficient(grid, model.c0, float(delta), a_star), a_star),
                alignment_relu=np.interp(grid, relu.t, align_relu[b]),
                alignment_reln=np.interp(grid, final.t, align_final[b]),
            )
        )
    return ratios, curves


def fit_ratios(config: RelnConfig, ratios: list[RelnRatio]) -> RelnFits:
    """The summary numbers of :class:`RelnFits` from the m = 1 T_spec's."""
    model = config.model
    by = {r.delta: r for r in ratios}
    fav = []
    for D in config.strengths:
        r = by[float(D)]
        fav.append(r.t_spec_reln / r.t_spec_relu if r.t_spec_relu and r.t_spec_reln is not None else None)
    big = [D for D in config.strengths if D >= 4.0 and by[-float(D)].t_spec_reln is not None]
    fit = None
    if len(big) >= 2:
        y = [by[-float(D)].t_spec_reln / D for D in big]  # type: ignore[operator]
        slope, intercept = np.polyfit(np.log(big), y, 1)
        fit = [float(slope), float(intercept)]
    a_star = model.a_star
    tan_eps = math.sqrt(1.0 - (1.0 - model.eps_align) ** 2) / (1.0 - model.eps_align)
    slope = 4.0 / a_star**2
    asym = [slope, 2.0 * math.log(1.0 / (model.c0 * a_star * tan_eps)) / a_star**2] if perpendicular(model) else None
    sym = max(
        abs(by[-float(D)].t_spec_race / by[float(D)].t_spec_race - 1.0) if by[float(D)].t_spec_race else 0.0
        for D in config.strengths
    )
    intercepts = [
        None if by[-float(D)].t_spec_reln is None else by[-float(D)].t_spec_reln / D - slope * math.log(D)  # type: ignore[operator]
        for D in config.strengths
    ]
    limits = ratio_limit = None
    if math.acos(1.0 - model.eps_align) < model.theta0:  # the reduced limits need θ0 > θ_ε
        limits = [
            favorable_limit(model.c0, model.theta0, model.eps_align, a_star),
            unfavorable_limit(model.theta0, model.eps_align, a_star),
        ]
        if perpendicular(model):
            ratio_limit = 2.0 * math.log1p(model.c0 / (a_star * tan_eps)) / limits[0]
    return RelnFits(fav, fit, asym, intercepts, float(sym), limits, ratio_limit)
