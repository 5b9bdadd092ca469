"""The compiled SGD loop (:mod:`gaugecli.core.integrate.sgd_loop`) against gradient_descent's Python loop on
the same minibatch stream: every iterate, the imbalance law, the stream left behind, and divergence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.integrate.sgd_loop import PAIRWISE_BLOCK, _pairwise
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.state import Network
from gaugecli.core.samples.sample import stacked_minibatch_oracle
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.predict.starts import gaussian_start

N, B, D, M = 40, 16, 8, 3
SEEDS = [5, 9, 2]
EPS = np.finfo(float).eps


def _same(got: np.ndarray, want: np.ndarray, steps: int, name: str = "") -> None:
    """Equal but for rounding: the two loops make the same IEEE operations in the same order, so on every
    CPU measured (both arithmetic paths of `make check-portable`) they agree to the bit. The tolerance is
    the basis for a compiler that fuses a product and a sum into one rounding: ≤ 1 ulp of the iterate's
    scale a step, carried along by a descent that does not amplify it, so ``4 ε · steps`` of the scale."""
    scale = float(np.max(np.abs(want)))
    np.testing.assert_allclose(got, want, rtol=4 * EPS * steps, atol=4 * EPS * steps * scale, err_msg=name)


def _problem() -> tuple[Network, object, list[tuple[np.ndarray, np.ndarray]]]:
    net = ModelConfig(d=D, k=1).build()
    starts = [gaussian_start(s, 1, M, D, 0.3, 0.3, None) for s in SEEDS]
    theta0 = Network(np.stack([a for a, _ in starts]), np.stack([W for _, W in starts]))
    return theta0, net, [draw_sample(net, N, np.random.SeedSequence([s, N])) for s in SEEDS]


def _both(eta: float, steps: int, **kw: object) -> tuple[object, object, object, object]:
    """The same run by the compiled loop (the stream itself) and by the Python loop (the stream behind a
    plain function, which the dispatch does not recognise); each with its stream."""
    theta0, net, samples = _problem()
    fast, slow = stacked_minibatch_oracle(samples, B, SEEDS), stacked_minibatch_oracle(samples, B, SEEDS)
    common = dict(steps=steps, record_every=1, method="sgd", crossings=False, **kw)
    compiled = gradient_descent(theta0, net, eta, 1.0, oracle=fast, **common)  # type: ignore[arg-type]
    python = gradient_descent(theta0, net, eta, 1.0, oracle=lambda a, W: slow(a, W), **common)  # type: ignore[arg-type]
    return compiled, python, fast, slow


def test_the_compiled_loop_takes_the_python_loops_every_iterate() -> None:
    """250 steps cross a block of epoch orders (⌊4096/40⌋ = 102 epochs of two batches of 16: 204 batches)
    and restart each epoch mid-sample (40 = 2·16 + 8). The iterates are equal but for rounding (:func:`_same`): the
    same compiled gradient on the same rows, then the same elementwise ``θ − η g``; so is δ̂, whose
    ``‖g_w‖²`` the loop sums in numpy's pairwise order (checked below) and the rest elementwise. The stream
    is left where 251 calls leave it: the next gradient is the same too."""
    compiled, python, fast, slow = _both(0.1, 250)
    assert compiled.stats.n_gradient_evals == python.stats.n_gradient_evals == 251
    np.testing.assert_array_equal(compiled.converged, python.converged)
    for name in ("t", "a", "W", "imbalance_by_steps"):
        _same(getattr(compiled, name), getattr(python, name), 250, name)
    a, W = compiled.a[:, -1], compiled.W[:, -1]
    for got, want in zip(fast(a, W), slow(a, W), strict=True):
        if want is None:  # a part the oracle does not give
            assert got is None
        else:
            _same(got, want, 1)
    # the law tracks the iterates' δ = a² − ‖w‖² to round-off: 250 steps of η² g² terms ≲ 1e-12 here
    delta = compiled.a**2 - np.sum(compiled.W**2, axis=-1)
    np.testing.assert_allclose(compiled.imbalance_by_steps, delta, rtol=0, atol=1e-12)


def test_a_converged_ensemble_stops_where_the_python_loop_does() -> None:
    """A gradient tolerance that every member meets after some steps ends both loops at the same iterate."""
    compiled, python, _, _ = _both(0.1, 400, grad_tol=0.05)
    assert compiled.stats.n_steps == python.stats.n_steps < 400
    _same(compiled.W, python.W, 400)  # as in the test above


def test_a_diverging_step_faults_at_the_same_iterate() -> None:
    with pytest.raises(NumericalFault) as fast:
        _both(60.0, 200)
    theta0, net, samples = _problem()
    slow = stacked_minibatch_oracle(samples, B, SEEDS)
    with pytest.raises(NumericalFault) as python:
        gradient_descent(theta0, net, 60.0, 1.0, oracle=lambda a, W: slow(a, W), steps=200, crossings=False)
    assert str(fast.value) == str(python.value)  # the step and the stable bound it names


def test_the_pairwise_sum_is_numpys() -> None:
    """The order of ``np.add.reduce`` on a contiguous row (numpy's ``pairwise_sum``: plain C, no SIMD
    kernel) for every length the loop sums, on terms of mixed magnitude where another order rounds
    differently. The same order gives the same sum (it does on both arithmetic paths); what is asserted is
    the bound both orders obey against the exact sum (``math.fsum``): ≤ ⌈log₂ n⌉ ε Σ|v| each (blocks of 8
    summed in sequence: ≤ 8 ε Σ|v| more), so another numpy's order would not fail here, and a wrong sum
    would."""
    v = np.random.default_rng(3).standard_normal(PAIRWISE_BLOCK) * np.logspace(0, 12, PAIRWISE_BLOCK)
    for n in range(1, PAIRWISE_BLOCK + 1):
        bound = (math.ceil(math.log2(n)) + 8) * EPS * float(np.sum(np.abs(v[:n])))
        exact = math.fsum(v[:n])
        assert abs(_pairwise(v, n) - exact) <= bound and abs(np.add.reduce(v[:n]) - exact) <= bound, n
        assert abs(_pairwise(v, n) - np.add.reduce(v[:n])) <= 2 * bound, n
