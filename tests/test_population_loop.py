"""The compiled population descent (:mod:`gaugecli.core.integrate.population_loop`) against gradient_descent's
Python loop, for every update rule it runs: iterates, δ̂, crossings, stops and divergence."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.optimizers import optimizer
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import population_objective
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.predict.starts import draw

STEPS = 1000
EPS = np.finfo(float).eps
A0, W0, _ = draw([0, 1, 2], 2, 3, 16, 0.3, 0.3, None)  # two features, three neurons, in k + m = 5 coordinates
RULES = {
    "gd, decay in the loss": (None, 0.01, 0.1),
    "heavy ball": (optimizer("momentum", momentum=0.9), 0.0, 0.01),
    "nesterov, decay in the loss": (optimizer("momentum", momentum=0.8, nesterov=True), 0.01, 0.01),
    "adam": (optimizer("adam"), 0.0, 0.01),
    "adamw": (optimizer("adamw", decay=0.05), 0.0, 0.01),
}


def _same(got: np.ndarray, want: np.ndarray, name: str = "") -> None:
    """Equal but for rounding: the same IEEE operations in the same order, equal to the bit on every CPU
    measured (both arithmetic paths of `make check-portable`); the tolerance is the basis for a compiler
    that fuses a product and a sum into one rounding: ≤ 1 ulp of the scale a step over :data:`STEPS`."""
    scale = float(np.max(np.abs(want)))
    np.testing.assert_allclose(got, want, rtol=4 * EPS * STEPS, atol=4 * EPS * STEPS * scale, err_msg=name)


def _both(rule: str, **kw: object) -> tuple[object, object, object]:
    """The same run by the compiled loop (the population objective) and by the Python loop (its gradient
    as a plain oracle, which the dispatch does not recognise)."""
    opt, lam, eta = RULES[rule]
    net = ModelConfig(d=W0.shape[-1], k=2, weight_decay=lam).build()
    objective = population_objective(net)
    common = dict(optimizer=opt, **kw)
    compiled = gradient_descent(Network(A0, W0), net, eta, STEPS * eta, oracle=objective, **common)  # type: ignore[arg-type]
    python = gradient_descent(Network(A0, W0), net, eta, STEPS * eta, oracle=lambda a, W: objective.gradient(a, W), **common)  # type: ignore[arg-type]  # fmt: skip
    return compiled, python, net


@pytest.mark.parametrize("rule", list(RULES))
def test_the_compiled_loop_takes_the_python_loops_iterates_and_crossings(rule: str) -> None:
    """1000 steps, every iterate saved. Iterates and δ̂ equal but for rounding (:func:`_same`): the same compiled
    gradient, ``λθ`` and update elementwise in the same order (Adam's corrections from the same Python
    floats), δ̂'s ``‖g_w‖²`` in numpy's pairwise order (tests/test_sgd_loop.py). A crossing reads α from
    sums of ``r`` products taken in another order than numpy's, a few ε off: at a crossing α moves by
    ``Δα`` in the step, so the interpolated time moves by ≤ η·16ε/Δα (Δα read off the saved iterates)."""
    compiled, python, net = _both(rule, record_every=1)
    np.testing.assert_array_equal(compiled.converged, python.converged)
    for name in ("t", "a", "W"):
        _same(getattr(compiled, name), getattr(python, name), name)
    if python.imbalance_by_steps is not None:
        _same(compiled.imbalance_by_steps, python.imbalance_by_steps)
    crossed = np.isfinite(python.crossing_times)
    np.testing.assert_array_equal(np.isfinite(compiled.crossing_times), crossed)
    assert crossed.sum() >= 3  # the check is not empty
    alpha = alignment(python.W, net)[0]  # (members, steps, m)
    eta = float(python.stats.step)
    for b, j in zip(*np.nonzero(crossed), strict=True):
        k = int(python.crossing_times[b, j] / eta)
        rise = alpha[b, k + 1, j] - alpha[b, k, j]
        assert abs(compiled.crossing_times[b, j] - python.crossing_times[b, j]) <= eta * 16 * np.finfo(float).eps / rise


def test_stopping_at_the_crossings_ends_where_the_python_loop_does() -> None:
    compiled, python, _ = _both("adam", grid_points=20, stop_at_crossing=True)
    assert compiled.stats.n_steps == python.stats.n_steps < STEPS
    _same(compiled.W, python.W)  # as above


def test_one_network_keeps_its_shapes() -> None:
    net = ModelConfig(d=W0.shape[-1], k=2).build()
    objective = population_objective(net)
    compiled = gradient_descent(Network(A0[0], W0[0]), net, 0.05, 10.0, oracle=objective)
    python = gradient_descent(Network(A0[0], W0[0]), net, 0.05, 10.0, oracle=lambda a, W: objective.gradient(a, W))
    for name in ("a", "W", "imbalance_by_steps", "converged", "crossing_times"):
        assert np.shape(getattr(compiled, name)) == np.shape(getattr(python, name)), name
    _same(compiled.W, python.W)


def test_a_diverging_step_faults_at_the_same_iterate() -> None:
    net = ModelConfig(d=W0.shape[-1], k=2).build()
    objective = population_objective(net)
    messages = []
    for oracle in (objective, lambda a, W: objective.gradient(a, W)):
        with pytest.raises(NumericalFault) as fault:
            gradient_descent(Network(A0, W0), net, 40.0, 4000.0, oracle=oracle, optimizer=optimizer("momentum"))
        messages.append(str(fault.value))
    assert messages[0] == messages[1]  # the step, the stable bound and the rule
