"""(l) The population gradient and Hessian by the compiled loops of :mod:`gaugecli.core.population.fused` against
the numpy closed forms they replace (``GAUGECLI_FUSED=0``'s route), side by side in one process: per
call at the shapes the figures' flows use (members × neurons × invariant-subspace dimension), and
whole flows of the paper's duplicate start.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _common import Row, best_of, fmt_seconds

from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition, owner_imbalances
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population import dynamics, route

SHAPES = (  # (members, m, r): one neuron, fig4's m = 2 pair, select's m = 5, predict's stacks of 100
    (1, 1, 2),
    (1, 2, 2),
    (1, 5, 2),
    (100, 4, 5),
    (100, 8, 10),
)
GOAL = 5.0
"""The compiled gradient at least this many times faster than numpy's where calls are small."""


def _both(fn: Any) -> tuple[float, float]:
    """``fn()``'s best time on the compiled route, then on the numpy route (module state restored)."""
    fast, _ = best_of(fn, 5)
    before = route.fused_enabled()
    route.use_fused(False)
    try:
        slow, _ = best_of(fn, 5)
    finally:
        route.use_fused(before)
    return fast, slow


def per_call(members: int, m: int, r: int) -> dict[str, Any]:
    model = standard_model(r)
    rng = np.random.default_rng(0)
    a, W = rng.standard_normal((members, m)), rng.standard_normal((members, m, r))
    calls = max(20, int(2e4 // (members * m * m)))
    dynamics.population_gradient(Network(a, W), model)  # compiled (or loaded from numba's cache) before timing
    dynamics.population_hessian(Network(a, W), model)

    def gradients() -> None:
        for _ in range(calls):
            dynamics.population_gradient(Network(a, W), model)

    def hessians() -> None:
        for _ in range(max(2, calls // 10)):
            dynamics.population_hessian(Network(a, W), model)

    grad_fast, grad_slow = _both(gradients)
    hess_fast, hess_slow = _both(hessians)
    h_calls = max(2, calls // 10)
    return {
        "members": members,
        "m": m,
        "r": r,
        "gradient_fused_s": grad_fast / calls,
        "gradient_numpy_s": grad_slow / calls,
        "hessian_fused_s": hess_fast / h_calls,
        "hessian_numpy_s": hess_slow / h_calls,
    }


def flows() -> dict[str, Any]:
    """fig4's selection (m = 5, owner +4, the others −4, d = 16) to its horizon on each route."""
    model = standard_model(16)
    a0, W0 = duplicate_initial_condition(model, owner_imbalances(5, 4.0))

    def run() -> Any:
        return gradient_flow(Network(a0, W0), model, 200.0)

    run()
    fast, slow = _both(run)
    return {"flow_fused_s": fast, "flow_numpy_s": slow}


def compiled(quick: bool = False) -> list[Row]:
    """Rows l1 (per call) and l2 (a whole flow)."""
    shapes = SHAPES[:3] if quick else SHAPES
    res = [per_call(*shape) for shape in shapes]
    ratios = [r["gradient_numpy_s"] / r["gradient_fused_s"] for r in res]
    small = [q for q, r in zip(ratios, res, strict=True) if r["members"] == 1]
    detail = "; ".join(
        f"{r['members']}×m={r['m']}, r={r['r']}: gradient {fmt_seconds(r['gradient_fused_s'])} vs "
        f"{fmt_seconds(r['gradient_numpy_s'])}, Hessian {fmt_seconds(r['hessian_fused_s'])} vs "
        f"{fmt_seconds(r['hessian_numpy_s'])}"
        for r in res
    )
    flow = flows()
    return [
        Row(
            "l1",
            "population gradient and Hessian (ReLU): compiled loops (used) vs the numpy closed forms, per call",
            f"gradient ×{min(ratios):.1f}–×{max(ratios):.1f} faster",
            f"≥ ×{GOAL:g} for one member",
            min(small) >= GOAL,
            f"best of 5, side by side in one process; {detail}",
            {"shapes": res},
        ),
        Row(
            "l2",
            "fig4's selection flow (m = 5, d = 16, t = 200): compiled loops vs numpy closed forms",
            f"{fmt_seconds(flow['flow_fused_s'])} vs {fmt_seconds(flow['flow_numpy_s'])} "
            f"(×{flow['flow_numpy_s'] / flow['flow_fused_s']:.1f})",
            "information",
            None,
            "best of 5; LSODA with the closed-form Hessian, invariant subspace not used (d = 16 as given)",
            flow,
        ),
    ]
