"""(d) Finite-sample GD: one step of :func:`gaugecli.core.descent.gradient_descent` with
:func:`gaugecli.core.sample.empirical_oracle` against its floor, the two matrix products
``X Wᵀ`` and ``Gᵀ X`` (torch, float64), timed in the same run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from _common import Row, best_of, blas_env, call_in_subprocess, fmt_ratio, fmt_seconds

from gaugecli.core.descent import gradient_descent
from gaugecli.core.empirical import draw_sample
from gaugecli.core.gauge import duplicate_initial_condition, owner_imbalances
from gaugecli.core.model import standard_model
from gaugecli.core.sample import empirical_oracle

GOAL_RATIO = 3.0


def measure_sample(n: int, d: int, m: int, steps: int, k: int) -> dict[str, Any]:
    teacher = standard_model(d)
    X, y = draw_sample(teacher, n, seed=0)
    oracle = empirical_oracle(X, y)
    a0, W0 = duplicate_initial_condition(teacher, owner_imbalances(m, 4.0))
    eta = 0.05
    # gradient_descent evaluates the oracle once per step plus once at the end.
    gd_s, traj = best_of(
        lambda: gradient_descent(a0, W0, teacher, eta, t_max=steps * eta, oracle=oracle, grid_points=50), k
    )
    n_calls = traj.stats.n_gradient_evals
    oracle_s, _ = best_of(lambda: oracle(a0, W0), 5 * k)

    Xt = torch.from_numpy(X)
    Wt = torch.from_numpy(np.ascontiguousarray(W0))
    G = torch.randn(n, m, dtype=torch.float64)
    matmul_s, _ = best_of(lambda: (torch.matmul(Xt, Wt.T), torch.matmul(G.T, Xt)), 10 * k)
    return {
        "n": n,
        "d": d,
        "m": m,
        "gd_steps": traj.stats.n_steps,
        "oracle_calls": n_calls,
        "per_step_s": gd_s / n_calls,
        "oracle_s": oracle_s,
        "matmul_pair_s": matmul_s,
        "ratio": gd_s / n_calls / matmul_s,
        "torch_threads": torch.get_num_threads(),
    }


def _row(id_: str, label: str, res: dict[str, Any], k: int) -> Row:
    return Row(
        id_,
        label,
        f"{fmt_seconds(res['per_step_s'])} vs {fmt_seconds(res['matmul_pair_s'])} ({fmt_ratio(res['ratio'])})",
        f"≤ {fmt_ratio(GOAL_RATIO)}",
        res["ratio"] <= GOAL_RATIO,
        f"{res['gd_steps']} steps, best of {k}; oracle alone at θ0 {fmt_seconds(res['oracle_s'])} "
        f"({fmt_ratio(res['oracle_s'] / res['matmul_pair_s'])}); torch float64, {res['torch_threads']} threads",
        res,
    )


def finite_sample(quick: bool = False) -> list[Row]:
    """Rows d1 and d2 (the same in a fresh process with BLAS/OpenMP pinned to one thread)."""
    n, k = (20_000, 1) if quick else (100_000, 2)
    kwargs = {"n": n, "d": 100, "m": 8, "steps": 10 if quick else 30, "k": k}
    label = f"finite-sample GD step, n={n:.0e}, d=100, m=8 vs its two matmuls (X Wᵀ, Gᵀ X)"
    rows = [_row("d1", label, measure_sample(**kwargs), k)]
    try:
        pinned = call_in_subprocess("bench_sample", "measure_sample", kwargs, env=blas_env(1))
        rows.append(_row("d2", "d1 again, BLAS/OpenMP pinned to 1 thread (fresh process)", pinned, k))
    except RuntimeError as err:
        rows.append(Row("d2", "d1 with BLAS pinned to 1 thread", "failed", "—", None, str(err)))
    return rows
