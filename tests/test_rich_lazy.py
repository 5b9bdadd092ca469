"""Kunin et al.'s setting and measurements (simulate --init paired --teacher random --inputs sphere
--checkpoints --test-samples), each against an independent reference: torch autograd's NTK, a
brute-force Hamming count, their own GD update written out as their code writes it, Monte Carlo on the
sphere."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from gaugecli.core.activations.relu import ReLU
from gaugecli.core.analyses.observables import on_unit_sphere
from gaugecli.core.analyses.rich_lazy import hamming_distance, kernel_distance, parameter_distance
from gaugecli.core.model.gauge import paired_initial_condition, paired_scale_ratio
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.model.teacher import random_teacher
from gaugecli.core.population.dynamics import population_loss
from gaugecli.core.samples.sample_draw import SampleRows, draw_sample
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.simulate import SimulateConfig, simulate

EPS = np.finfo(float).eps


def _autograd_ntk(a: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """K = J Jᵀ with J the per-input gradient of f = Σ a_j relu(w_j·x) by torch autograd, row by row."""
    at = torch.tensor(a, requires_grad=True)
    Wt = torch.tensor(W, requires_grad=True)
    rows = []
    for x in torch.tensor(X):
        f = torch.relu(Wt @ x) @ at
        ga, gW = torch.autograd.grad(f, (at, Wt))
        rows.append(torch.cat([ga, gW.reshape(-1)]).numpy())
    J = np.array(rows)
    return J @ J.T


def test_kernel_distance_is_the_cosine_distance_of_the_autograd_ntk() -> None:
    rng = np.random.default_rng(3)
    m, d, n = 6, 5, 25
    X = rng.standard_normal((n, d))
    theta = Network(rng.standard_normal((3, m)), rng.standard_normal((3, m, d)))
    S = kernel_distance(theta, X, ReLU())
    K0 = _autograd_ntk(theta.a[0], theta.W[0], X)
    for i in range(3):
        K = _autograd_ntk(theta.a[i], theta.W[i], X)
        reference = 1.0 - np.sum(K * K0) / (np.linalg.norm(K) * np.linalg.norm(K0))
        # two summation orders of n² products of O(1) entries: round-off of a few hundred ε
        assert S[i] == pytest.approx(reference, abs=1e3 * EPS)
    assert 0.0 < S[1] < 1.0  # other weights: the kernel turned


def test_hamming_distance_counts_flipped_patterns_by_brute_force() -> None:
    rng = np.random.default_rng(4)
    n_t, m, d, n = 4, 7, 3, 30
    W = rng.standard_normal((n_t, m, d))
    X = rng.standard_normal((n, d))
    H = hamming_distance(W, X)
    for t in range(n_t):
        flips = sum((np.dot(W[t, j], X[i]) > 0) != (np.dot(W[0, j], X[i]) > 0) for i in range(n) for j in range(m))
        # counts over n: exact up to the one division (and the order of the sum over neurons)
        assert H[t] == pytest.approx(flips / n, abs=16 * EPS * m)


def test_parameter_distance_is_the_euclidean_norm_of_the_flattened_change() -> None:
    rng = np.random.default_rng(5)
    theta = Network(rng.standard_normal((3, 4)), rng.standard_normal((3, 4, 2)))
    flat = [Network(theta.a[i], theta.W[i]).flatten() for i in range(3)]
    expected = [np.linalg.norm(f - flat[0]) for f in flat]
    assert parameter_distance(theta) == pytest.approx(expected, rel=16 * EPS)


@pytest.mark.parametrize("tau, delta", [(0.1, -1.0), (0.1, 0.0), (0.447, 1.0), (1.995, 0.0), (0.1, 1e3)])
def test_paired_start_is_their_construction(tau: float, delta: float) -> None:
    a, W = paired_initial_condition(8, 5, tau, np.array([delta]), seed=2)
    a, W = a[0], W[0]
    norms = np.linalg.norm(W, axis=1)
    # their get_alpha, as written in their utils.py
    alpha = np.sqrt((np.sqrt(4 + (delta / tau**2) ** 2) - delta / tau**2) / 2)
    if delta <= 0:  # where their form takes no difference of close numbers: the same to round-off
        assert paired_scale_ratio(tau, delta) == pytest.approx(alpha, rel=16 * EPS)
    scale = max(1.0, abs(delta))
    assert np.abs(a) * norms == pytest.approx(np.full(8, tau**2), rel=64 * EPS)
    assert a**2 - norms**2 == pytest.approx(np.full(8, delta), abs=64 * EPS * scale)
    np.testing.assert_array_equal(W[:4], W[4:])  # the pairs share w: copies, not recomputed
    np.testing.assert_array_equal(a[:4], -a[4:])
    X = np.random.default_rng(0).standard_normal((50, 5))
    f0 = np.maximum(X @ W.T, 0.0) @ a
    assert np.max(np.abs(f0)) <= 8 * EPS * tau**2 * np.max(np.linalg.norm(X, axis=1))  # f0 ≡ 0 to round-off


def test_random_teacher_has_unit_directions_and_signed_unit_weights() -> None:
    teacher = random_teacher(20, 5, seed=7)
    assert np.linalg.norm(teacher.directions, axis=1) == pytest.approx(np.ones(5), rel=4 * EPS)
    assert set(np.abs(teacher.coefficients)) == {1.0}
    other = random_teacher(20, 5, seed=8)
    assert not np.allclose(teacher.directions, other.directions)


def test_sphere_sample_stored_and_streamed_agree() -> None:
    model = Model(random_teacher(6, 2, seed=1))
    X, _ = draw_sample(model, 500, 9, sphere=True)
    assert np.linalg.norm(X, axis=1) == pytest.approx(np.ones(500), rel=4 * EPS)
    streamed = SampleRows(500, 6, model=model, seed=9, sphere=True, chunk_bytes=8 * 6 * 64)
    Xs = np.concatenate([c[0].numpy() for c in streamed.chunks(6)])
    np.testing.assert_allclose(Xs, X, rtol=4 * EPS)  # the same draws, blocked differently


def test_sphere_population_loss_matches_monte_carlo() -> None:
    """L on the sphere = L_gauss/d for relu (E‖g‖² = d): Monte Carlo on the sphere within 5 standard errors."""
    d = 8
    model = Model(random_teacher(d, 2, seed=3))
    rng = np.random.default_rng(11)
    theta = Network(rng.standard_normal(4) * 0.5, rng.standard_normal((4, d)) * 0.5)
    exact = float(population_loss(theta, model)) / d
    X, y = draw_sample(model, 400_000, 12, sphere=True)
    sq = 0.5 * (np.maximum(X @ theta.W.T, 0.0) @ theta.a - y) ** 2
    assert abs(sq.mean() - exact) <= 5 * sq.std() / math.sqrt(sq.size)


def _their_gd(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, lr: float, marks: list[int]) -> list:
    """Their fit_nn_gd (two-layer-relu/utils.py), its update written as theirs: loss (1/n)Σ(f − y)²."""
    W, a, n = W0.copy(), a0.copy(), X.shape[0]
    saved = []
    for i in range(max(marks) + 1):
        if i in marks:
            saved.append((W.copy(), a.copy()))
        lin = X @ W.T
        act = np.maximum(0.0, lin)
        residual = 2 * (y - act @ a)
        a_grad = -act.T @ residual
        W_grad = -(np.outer(a, residual) * (lin.T >= 0)) @ X
        W -= lr / n * W_grad
        a -= lr / n * a_grad
    return saved


def _kunin_config(**changes: object) -> SimulateConfig:
    tau = 0.3
    base = dict(
        model=ModelConfig(d=8, k=2),
        dynamics=DynamicsConfig(mode="sample-gd", eta=1e-2 / tau**2, n_samples=60),
        gauge="-0.5",
        m=10,
        seed=3,
        init="paired",
        init_scale=tau,
        init_seed=4,
        teacher="random",
        teacher_seed=5,
        inputs="sphere",
        test_samples=400,
        checkpoints=(10.0, 100.0, 300.0),
    )
    base.update(changes)
    return SimulateConfig(**base)  # type: ignore[arg-type]


def test_simulate_in_their_setting_is_their_gd_at_eta_twice_lr() -> None:
    config = _kunin_config()
    (obs,) = simulate(config)
    eta = config.dynamics.eta
    assert eta is not None
    marks = [0, 10, 100, 300]
    assert obs.checkpoint_t == pytest.approx([k * eta for k in marks], rel=4 * EPS)
    net = config.network()
    X, y = draw_sample(net, 60, 3, sphere=True)
    start = config.start()
    saved = _their_gd(start.W[0], start.a[0], X, y, eta / 2, marks)
    theta = Network(np.array([s[1] for s in saved]), np.array([s[0] for s in saved]))
    # the same iterates by another order of the sums: 300 steps of round-off, each ~ε relative
    # to an O(1) update, amplified at most by the step's contraction (< 1 below the stability bound)
    assert obs.kernel_distance == pytest.approx(kernel_distance(theta, X, ReLU()), abs=1e4 * EPS)
    assert obs.parameter_distance == pytest.approx(parameter_distance(theta), rel=1e-10, abs=1e4 * EPS)
    assert obs.hamming_distance == pytest.approx(hamming_distance(theta.W, X), abs=1e-12)
    assert obs.kernel_distance[0] == pytest.approx(0.0, abs=1e3 * EPS)
    assert obs.kernel_distance[-1] > obs.kernel_distance[1]  # the kernel moves as the run learns
    assert obs.test_loss is not None and obs.test_loss[-1] < obs.test_loss[0]
    # the population loss on the sphere (L_gauss/d) and the held-out loss estimate the same number: a
    # mean of 400 squared residuals has a relative standard error ≈ √(2/400) ≈ 0.07 (Gaussian residuals),
    # so rel 0.35 is 5 standard errors
    assert obs.loss[0] == pytest.approx(obs.test_loss[0], rel=0.35)


def test_one_integer_seeds_independent_teacher_start_and_sample() -> None:
    """--seeds 7 --teacher-seed 7 --init-seed 7: three streams, no draw shared (the teacher's directions
    are not the sample's first inputs, the start's not the teacher's)."""
    config = _kunin_config(seed=7, teacher_seed=7, init_seed=7)
    net = config.network()
    X, _ = draw_sample(net, 60, 7, sphere=True)
    V, W = net.directions, config.start().W[0]
    units = W / np.linalg.norm(W, axis=1, keepdims=True)
    # two independent unit vectors in d = 8 have |cos| ≥ 1 − 1e-6 (a cap of angle 1.4e-3) with
    # probability ~(1.4e-3)^7 ≈ 1e-20 per pair: a shared draw would give |cos| = 1 to round-off
    assert np.max(np.abs(V @ X.T)) < 1 - 1e-6
    assert np.max(np.abs(units @ V.T)) < 1 - 1e-6
    assert np.max(np.abs(units @ X.T)) < 1 - 1e-6


def test_on_unit_sphere_scales_loss_and_dissipation() -> None:
    config = replace(_kunin_config(), checkpoints=None, test_samples=None, inputs="gaussian")
    (gauss,) = simulate(config)
    sphere = on_unit_sphere(gauss, config.network())
    assert sphere.loss == pytest.approx(gauss.loss / 8, rel=4 * EPS)
    assert sphere.reaction == pytest.approx(gauss.reaction / 64, rel=4 * EPS)


def test_flow_on_the_sample_is_measured_at_declared_times() -> None:
    config = _kunin_config(
        dynamics=DynamicsConfig(mode="sample", n_samples=60, t_max=30.0), checkpoints=(1.0, 10.0), test_samples=None
    )
    (obs,) = simulate(config)
    assert obs.checkpoint_t[:3] == pytest.approx([0.0, 1.0, 10.0], abs=4 * EPS * 10)
    assert obs.test_loss is None
    assert obs.kernel_distance[0] == pytest.approx(0.0, abs=1e3 * EPS)
    assert obs.parameter_distance[-1] > obs.parameter_distance[1] > 0.0  # the flow moves away from its start


@pytest.mark.parametrize(
    "changes, param",
    [
        ({"m": 9}, "m"),
        ({"init": "random"}, "init_scale"),
        ({"teacher": "standard"}, "teacher_seed"),
        ({"checkpoints": (10.5,)}, "checkpoints"),
        ({"dynamics": DynamicsConfig(mode="sample-gd", n_samples=60, eta=0.1, t_max=5.0)}, "t_max"),
        ({"dynamics": DynamicsConfig(mode="sample-gd", n_samples=60)}, "eta"),
        ({"dynamics": DynamicsConfig(mode="flow"), "seed": None}, "inputs"),
        ({"dynamics": DynamicsConfig(mode="sample-gd", n_samples=5000, eta=0.1)}, "n_samples"),
        ({"init": "duplicates", "init_scale": None, "init_seed": None}, "teacher"),
    ],
)
def test_their_options_refuse_what_has_no_effect(changes: dict[str, object], param: str) -> None:
    with pytest.raises(ConfigError) as err:
        _kunin_config(**changes)
    assert err.value.param == param


def test_eta_per_scale_steps_their_lr_over_tau_squared() -> None:
    """--eta-per-scale: `eta` is the step at τ = 1, the run steps eta/τ² (their lr = 5e-3/τ², η = 2·lr)."""
    base = _kunin_config(checkpoints=(10.0,), test_samples=None)
    scaled = replace(base, dynamics=replace(base.dynamics, eta=1e-2), eta_per_scale=True)
    (obs,) = simulate(scaled)
    assert obs.eta == pytest.approx(1e-2 / 0.3**2, rel=4 * EPS)
    assert obs.checkpoint_t[-1] == pytest.approx(10 * 1e-2 / 0.3**2, rel=16 * EPS)
    (same,) = simulate(base)  # the same step given directly: the same run
    assert obs.kernel_distance == pytest.approx(same.kernel_distance, rel=1e-12, abs=1e3 * EPS)


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--checkpoints", "10"], "--checkpoints"),  # the population flow has no training set
        (["--init", "paired", "--m", "3"], "--m"),  # pairs
        (["--mode", "sample-gd", "--n-samples", "60", "--eta", "0.1", "--checkpoints", "2.5"], "--checkpoints"),
        (["--init-scale", "0"], "--init-scale"),
    ],
)
def test_their_options_refuse_bad_input_in_one_line_with_exit_code_2(
    argv: list[str], flag: str, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from gaugecli.cli.app import app

    result = CliRunner().invoke(app, ["simulate", *argv, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert flag in result.output and "Traceback" not in result.output
    assert not any(tmp_path.iterdir())  # nothing written


def test_the_howto_tables_are_rendered_from_the_committed_json() -> None:
    """docs/howto/kunin.md's six-cell tables are tools/kunin_cells.py's rendering of
    docs/data/kunin-cells.json (regenerate: python tools/kunin_cells.py --write-doc)."""
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("kunin_cells", root / "tools" / "kunin_cells.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    data = json.loads((root / "docs" / "data" / "kunin-cells.json").read_text())
    page = (root / "docs" / "howto" / "kunin.md").read_text(encoding="utf-8")
    assert f"{tool.BEGIN}\n{tool.render(data)}\n{tool.END}" in page, "stale: python tools/kunin_cells.py --write-doc"
    assert {(c["scale"], c["delta"]) for c in data["cells"]} == set(tool.CELLS)
