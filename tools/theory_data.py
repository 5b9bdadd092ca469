"""docs/data/theory.json: the numbers of the theory page's tables that are computed, not derived by
hand — the single neuron's specialization times from the reduced (c, θ) equations, their distance
to the full flow, the asymptotic constants with their Richardson extrapolation, and the whole-run
dissipation budget, an equal pair's separation exponent and the linear and erf laws (docs/theory.md
§6–§12; the page shows the code, this runs it).

    python tools/theory_data.py    # writes docs/data/theory.json (tools/doc_numbers.py --run theory)

Names (``tools/doc_numbers.py`` reads them flat): ``D{D}.plus``, ``D{D}.minus`` (T_spec(±D), the
reduced equations at rtol 1e-13), ``D{D}.plus_scaled`` (D·T_spec(+D)), ``D{D}.minus_scaled``
(T_spec(−D)/D), ``D{D}.ratio`` (T(−D)/(D² T(+D))), ``D{D}.flow_plus``, ``D{D}.flow_minus`` (relative
distance of ``gradient_flow`` in d = 16 at rtol 1e-12 from them), ``D{D}.flow_correction_plus``,
``D{D}.flow_correction_minus`` (that flow's D²(D·T(+D) − limit), D²(T(−D)/D − limit)); ``favorable.limit``
(``favorable.limit.c0_0.03`` at other c0),
``favorable.richardson``, ``favorable.order``, ``favorable.correction`` (D²(D·T(+D) − limit) at
D = 1024), and the same for ``unfavorable``; ``ratio.limit``; §8's dissipation budget
(:func:`budget`), §9's separation exponents of equal pairs (:func:`pairs`) and §12's laws (:func:`laws`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
OUT = ROOT / "docs" / "data" / "theory.json"
COMMAND = "python tools/theory_data.py"
TABLE = (1, 4, 16, 64, 256, 1024)
RICHARDSON = tuple(2.0**k for k in range(5, 11))  # D = 32 … 1024, as the page's code
BUDGET = (1, 4, 16, 64, 256)
PAIRS_MINUS, PAIRS_PLUS = (4, 8), (4, 64)
LINEAR = (16.0, 64.0, 256.0, 1024.0)  # fig8's D of the law
ERF = (1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1e6)


def _flow_tspec(delta: float, reduced: float) -> float:
    """T_spec of one neuron by the package's flow in d = 16 at rtol 1e-12 (tests/test_reduced.py's),
    run to twice the reduced equations' T_spec so that the crossing lies inside the horizon."""
    from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
    from gaugecli.core.model.gauge import duplicate_initial_condition
    from gaugecli.core.model.model import standard_model
    from gaugecli.core.model.state import Network

    teacher = standard_model(16)
    a0, W0 = duplicate_initial_condition(teacher, np.array([delta]))
    t_max = 2.0 * reduced
    options = FlowOptions(rtol=1e-12, atol=1e-15)
    return float(gradient_flow(Network(a0, W0), teacher, t_max=t_max, options=options).crossing_times[0])


def numbers() -> dict[str, float]:
    from gaugecli.core.reduced.limits import favorable_limit, fitted_order, richardson_limit, unfavorable_limit
    from gaugecli.core.reduced.planar import reduced_specialization_time

    out: dict[str, float] = {}
    for D in TABLE:
        plus, minus = reduced_specialization_time(D, rtol=1e-13), reduced_specialization_time(-D, rtol=1e-13)
        flow_plus, flow_minus = _flow_tspec(D, plus), _flow_tspec(-D, minus)
        out |= {
            f"D{D}.flow_correction_plus": (flow_plus * D - favorable_limit()) * D**2,
            f"D{D}.flow_correction_minus": (flow_minus / D - unfavorable_limit()) * D**2,
        }
        out |= {
            f"D{D}.plus": plus,
            f"D{D}.minus": minus,
            f"D{D}.plus_scaled": plus * D,
            f"D{D}.minus_scaled": minus / D,
            f"D{D}.ratio": minus / plus / D**2,
            f"D{D}.flow_plus": abs(flow_plus - plus) / plus,
            f"D{D}.flow_minus": abs(flow_minus - minus) / minus,
        }
    Ds = np.array(RICHARDSON)
    scaled = {
        "favorable": (favorable_limit(), [reduced_specialization_time(D, rtol=1e-13) * D for D in Ds]),
        "unfavorable": (unfavorable_limit(), [reduced_specialization_time(-D, rtol=1e-13) / D for D in Ds]),
    }
    for name, (limit, values) in scaled.items():
        out[f"{name}.limit"] = limit
        out[f"{name}.richardson"] = richardson_limit(Ds, np.array(values))[0]
        out[f"{name}.order"] = fitted_order(Ds, np.array(values), limit)
        out[f"{name}.correction"] = (values[-1] - limit) * Ds[-1] ** 2
    out["ratio.limit"] = out["unfavorable.limit"] / out["favorable.limit"]
    out |= {f"favorable.limit.c0_{c0:g}": favorable_limit(c0=c0) for c0 in (0.03, 0.1, 0.3)}
    return out | budget() | pairs() | laws()


def laws() -> dict[str, float]:
    """§12's logarithmic laws from ``simulate`` runs (m = 1, the paper's start): the linear network's
    local slope of T(−D), ``linear.slope.D{a}_{b}`` = Δ ln T/Δ ln D between neighbouring D of fig8's
    16 … 1024; erf's ``erf.plus_scaled.D1024`` (D·T(+D)); erf's increments of T(−D)/D per unit ln D,
    ``erf.increment.D{a}_{b}``, for D = 1024 … 10⁶, and their excess over 3π²/4 times √D/ln D at the
    midpoints, ``erf.excess.D{a}_{b}`` (tests/test_fig8.py's computation)."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.simulate import SimulateConfig, simulate

    def tspec(activation: str, gauge: str, D: float) -> float:
        config = SimulateConfig(model=ModelConfig(activation=activation), gauge=gauge, strengths=(float(D),))
        (run,) = simulate(config)
        return float(run.t_spec)

    out: dict[str, float] = {}
    linear = np.array([tspec("linear", "unfavorable", D) for D in LINEAR])
    slopes = np.diff(np.log(linear)) / np.diff(np.log(LINEAR))
    out |= {f"linear.slope.D{a:g}_{b:g}": s for a, b, s in zip(LINEAR[:-1], LINEAR[1:], slopes, strict=True)}
    out["erf.plus_scaled.D1024"] = tspec("erf", "favorable", 1024) * 1024
    Ds = np.array(ERF)
    scaled = np.array([tspec("erf", "unfavorable", D) for D in Ds]) / Ds
    increments = np.diff(scaled) / np.diff(np.log(Ds))
    mid = np.sqrt(Ds[1:] * Ds[:-1])
    excess = (increments - 0.75 * np.pi**2) * np.sqrt(mid) / np.log(mid)
    for a, b, inc, exc in zip(Ds[:-1], Ds[1:], increments, excess, strict=True):
        out |= {f"erf.increment.D{a:g}_{b:g}": float(inc), f"erf.excess.D{a:g}_{b:g}": float(exc)}
    return out


def pairs() -> dict[str, float]:
    """§9's separation exponent of an equal pair along its exact symmetric trajectory (the pair as one
    neuron with 2δ, read back by ``planar_parameters``; tests/test_reduced.py's ``_pair_exponent``):
    ``pair.minus.D{D}.at_tspec`` (Λ at T_spec) and ``pair.plus.D{D}.at_end`` (Λ at the run's end)."""
    from gaugecli.core.analyses.symmetry import antisymmetric_rate, separation_exponent
    from gaugecli.core.model.model import standard_model
    from gaugecli.core.model.state import Network
    from gaugecli.core.reduced.planar import planar_parameters, solve_reduced

    def exponent(delta: float) -> tuple[float, float]:
        run = solve_reduced(np.array([2 * delta]), t_max=200 * (1 + abs(delta)))
        t = np.concatenate([[0.0], np.geomspace(1e-4 / abs(delta), run.t[-1], 1000)])
        C, theta = run.dense(t)
        a, W = planar_parameters(np.repeat(C / 2, 2, axis=1), np.repeat(theta, 2, axis=1), np.full(2, delta))
        lam = separation_exponent(t, antisymmetric_rate(Network(a, W), standard_model(2), (0, 1)))
        return float(np.interp(run.crossing_times[0], t, lam)), float(lam[-1])

    out = {}
    for D in PAIRS_MINUS:
        at_tspec = exponent(-D)[0]
        out |= {f"pair.minus.D{D}.at_tspec": at_tspec, f"pair.minus.D{D}.per_D": at_tspec / D}
    out |= {f"pair.plus.D{D}.at_end": exponent(float(D))[1] for D in PAIRS_PLUS}
    return out


def budget() -> dict[str, float]:
    """§8's whole-run dissipation: ``budget.{plus,minus}.D{D}.{reaction,transport,share,share0}`` —
    ∫R dt, ∫T dt and the reaction share from ``solve_reduced`` run to ‖∇L‖ ≤ 1e-10, and the reaction
    share at t = 0 from the population's dissipation at the start (``transport_share0``: the rest);
    ``Dinf`` from the limiting problems (``transport_share``: the transport's)."""
    from gaugecli.core.model.gauge import duplicate_initial_condition
    from gaugecli.core.model.model import standard_model
    from gaugecli.core.model.state import Network
    from gaugecli.core.population.dynamics import dissipation
    from gaugecli.core.reduced.limits import favorable_limit_dissipation, unfavorable_limit_dissipation
    from gaugecli.core.reduced.planar import solve_reduced

    teacher = standard_model(16)
    out: dict[str, float] = {}
    for sign, name in ((1.0, "plus"), (-1.0, "minus")):
        for D in BUDGET:
            run = solve_reduced(np.array([sign * D]), t_max=200.0 * (1 + D))
            R, T = run.dissipated_reaction, run.dissipated_transport
            at_start = dissipation(Network(*duplicate_initial_condition(teacher, np.array([sign * D]))), teacher)
            key = f"budget.{name}.D{D}"
            out |= {f"{key}.reaction": R, f"{key}.transport": T, f"{key}.share": R / (R + T)}
            R0, T0 = np.asarray(at_start.reaction).item(), np.asarray(at_start.transport).item()
            out |= {f"{key}.share0": R0 / (R0 + T0), f"{key}.transport_share0": T0 / (R0 + T0)}
        limit = favorable_limit_dissipation() if sign > 0 else unfavorable_limit_dissipation()
        key = f"budget.{name}.Dinf"
        # the share at t = 0 as D → ∞: at D = 10⁶, where its O(1/D²) distance to the limit is ~1e-12
        far = dissipation(Network(*duplicate_initial_condition(teacher, np.array([sign * 1e6]))), teacher)
        R0, T0 = np.asarray(far.reaction).item(), np.asarray(far.transport).item()
        out[f"{key}.share0"] = R0 / (R0 + T0)
        out |= {f"{key}.reaction": limit.reaction, f"{key}.transport": limit.transport}
        out |= {f"{key}.share": limit.reaction_share, f"{key}.transport_share": 1.0 - limit.reaction_share}
    return out


def main() -> int:
    from doc_numbers import write_tool_numbers

    write_tool_numbers(OUT, COMMAND, numbers())
    print(OUT.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
