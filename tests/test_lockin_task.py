"""``gaugecli lockin --task modular-addition``: the network's gradient against the hand formula, the
loss against Tian's expanded form, Xu's detector on a constructed spectrum (streamed = batch), Tian's
sign rule on constructed features, the study end to end (quick, cached per seed, resumed), the
estimates before a run and the one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.core.analyses import lockin as lk
from gaugecli.core.tasks import modular_addition as ma
from gaugecli.experiments.lockin_task import TaskLockinConfig, lockin_task, memory_estimate
from gaugecli.experiments.lockin_task.runs import first_epoch, magnitude_separation
from gaugecli.run.sweep import make_runner
from gaugecli.store.cache import Cache

TINY = {"modulus": 11, "hidden_units": 32, "epochs": 60, "sign_every": 30, "gauge_seeds": ()}
"""A study of well under a second per run (the detector needs epochs ≥ window + lag = 45); the gauge-model
cross-check (6 runs of 3000 Adam steps, ≈ 8 CPU-s) is left out: test_gauge_model_trained_as_the_task covers it."""


@pytest.fixture
def one_torch_thread():
    """Small torch products: one thread (no oversubscription on a loaded machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# ----------------------------------------------------------------------------------------
# the task and its network


def test_split_covers_every_pair_once() -> None:
    data = ma.split(13, 0.3, seed=4)
    pairs = torch.cat([data.train_x, data.test_x])
    assert len(data.train_x) == round(0.3 * 169) and len(pairs) == 169
    assert len({tuple(p) for p in pairs.tolist()}) == 169  # a partition: no pair twice
    assert torch.equal(data.train_y, (data.train_x[:, 0] + data.train_x[:, 1]) % 13)


def test_loss_is_tians_expanded_mse() -> None:
    """``‖P o − ỹ‖²`` against Tian's ``‖o − ō‖² − 2(o − ō)_y + 1 − 1/M`` per sample: the same number up to
    float64 round-off on O(1) terms (1e-12)."""
    rng = np.random.default_rng(0)
    M, n = 7, 40
    o = torch.from_numpy(rng.normal(size=(n, M)))
    y = torch.from_numpy(rng.integers(0, M, n))
    oc = o - o.mean(dim=1, keepdim=True)
    tian = (oc.pow(2).sum(dim=1) - 2 * oc.gather(1, y[:, None])[:, 0] + 1 - 1 / M).mean()
    assert float(ma.mse_loss(o, ma.centered_targets(y, M, torch.float64))) == pytest.approx(float(tian), abs=1e-12)


@pytest.mark.parametrize("activation", ["x2", "relu"])
def test_gradient_matches_the_hand_formula(activation: str) -> None:
    """Autograd of ``L = (1/n)Σ‖P V σ(W x) − ỹ‖²`` against ``∂L/∂V = (2/n) Rᵀ F`` and
    ``∂L/∂W = ((2/n) R V ⊙ σ'(Z))ᵀ X`` with ``R = P o − ỹ`` (zero-mean rows, so ``P R = R``) and the dense
    one-hot ``X``; float64, so the two agree to ~1e-13 relative."""
    M, K = 7, 12
    data = ma.split(M, 0.5, seed=1)
    W, V = (p.double().requires_grad_(True) for p in ma.initial_params(M, K, seed=2))
    Y = ma.centered_targets(data.train_y, M, torch.float64)
    loss = ma.mse_loss(ma.outputs(ma.Params(W, V), data.train_x, activation), Y)
    loss.backward()
    with torch.no_grad():
        X = ma.one_hot_inputs(data.train_x, M, torch.float64)
        Z = X @ W.T
        F = Z * Z if activation == "x2" else torch.relu(Z)
        o = F @ V.T
        R = o - o.mean(dim=1, keepdim=True) - Y
        n = len(X)
        dV = 2 / n * R.T @ F
        slope = 2 * Z if activation == "x2" else (Z > 0).double()
        dW = ((2 / n * R @ V) * slope).T @ X
    assert torch.allclose(V.grad, dV, rtol=1e-12, atol=1e-14)
    assert torch.allclose(W.grad, dW, rtol=1e-12, atol=1e-14)


def test_ridge_readout_solves_the_normal_equations() -> None:
    """The SVD form against ``(FᵀF + reg I)⁻¹FᵀY`` by a direct solve (float64, 1e-10 relative)."""
    rng = np.random.default_rng(3)
    F, Y = torch.from_numpy(rng.normal(size=(30, 8))), torch.from_numpy(rng.normal(size=(30, 5)))
    direct = torch.linalg.solve(F.T @ F + 0.3 * torch.eye(8, dtype=torch.float64), F.T @ Y).T
    assert torch.allclose(ma.ridge_readout(F, Y, 0.3), direct, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------------------
# the detector and the sign rule


def test_detector_fires_where_a_constructed_gap_starts_to_grow() -> None:
    """λ2/λ3 = 1 until epoch 150, then e^{0.1 (k − 150)}: the slope over lag 25 is 0.1 (k − 150)/25, above
    0.04 first at k = 161 — the same epoch from :func:`lk.xu_lockin`, raw or floored (λ3 is far above it)."""
    k = np.arange(400, dtype=float)
    lam = np.stack([np.full(k.size, 10.0), np.exp(0.1 * np.maximum(k - 150, 0)), np.ones(k.size)], axis=1)
    assert lk.xu_lockin(lam, lag=25, threshold=0.04, burn_in=100).fire_epoch == 161
    assert lk.xu_lockin(lam, lag=25, threshold=0.04, burn_in=100, floor=1e-10).fire_epoch == 161
    assert lk.xu_lockin(lam, lag=25, threshold=0.04, burn_in=200).fire_epoch == 200  # slope 0.1·(25)/25 there
    flat = lam.copy()
    flat[:, 1] = 2.0
    assert lk.xu_lockin(flat, lag=25, threshold=0.04, burn_in=100).fire_epoch is None


def test_rolling_gram_streams_the_windowed_gram_eigenvalues() -> None:
    """The streamed window (Gram rows in arrival order) against the batch window: the same eigenvalues to
    the Gram matrix's round-off, ~window · ε · λ1 (1e-12 λ1 allowed)."""
    rng = np.random.default_rng(5)
    updates = rng.normal(size=(70, 9, 4)) * np.linspace(1, 3, 70)[:, None, None]
    batch = lk.window_gram_eigenvalues(updates, 20)
    rolling = lk.RollingGram(20)
    stream = np.array([rolling.push(u) for u in updates])
    assert np.all(np.isnan(stream[:19])) and np.all(np.isnan(batch[:19]))
    assert np.allclose(stream[19:], batch[19:], rtol=0, atol=1e-12 * np.max(batch[19:, 0]))


def test_effective_rank() -> None:
    assert lk.effective_rank(np.array([3.0, 0.0, 0.0])) == pytest.approx(1.0, abs=1e-15)
    assert lk.effective_rank(np.array([2.0, 2.0, 2.0, 2.0])) == pytest.approx(4.0, rel=1e-14)
    assert np.isnan(lk.effective_rank(np.zeros(3)))


def test_sign_rule_on_constructed_features() -> None:
    """Four features: two near-duplicate pairs (cosine ≈ 0.99) and the pairs across them ≈ 0. The two most
    similar pairs are the duplicates; for each, ``B_jl < 0`` (2 × 2 block: ``B_12 = −c/((a + η)² − c²)``,
    c > 0) and the direct sign of ``f̃_jᵀP_ηf̃_l`` is ``−sign B_jl`` (an identity; ridge 1e-3 keeps it
    far above round-off)."""
    rng = np.random.default_rng(7)
    base = rng.normal(size=(2000, 2))
    F = np.column_stack([base[:, 0], base[:, 0], base[:, 1], base[:, 1]]) + 0.1 * rng.normal(size=(2000, 4))
    G = lk.sample_feature_gram(F)
    first, second = lk.similar_pairs(lk.feature_similarity(G), 2)
    assert sorted(zip(first.tolist(), second.tolist(), strict=True)) == [(0, 1), (2, 3)]
    rule = lk.pair_sign_rule(F, 2, ridge=1e-3)
    assert rule.match == 1.0 and rule.negative == 1.0  # fractions of 2 pairs: exact
    assert rule.similarity > 0.98
    anti = F * np.array([1.0, -1.0, 1.0, 1.0])  # the first pair anti-aligned: no longer among the most similar
    first, second = lk.similar_pairs(lk.feature_similarity(lk.sample_feature_gram(anti)), 1)
    assert (int(first[0]), int(second[0])) == (2, 3)


def test_first_epoch_and_magnitude_separation() -> None:
    assert first_epoch(np.array([0.1, 0.5, 0.95, 0.8, 0.99]), 0.9) == 2
    assert first_epoch(np.array([0.1, 0.5]), 0.9) is None
    assert magnitude_separation(np.ones(50)) == pytest.approx(1.0, rel=1e-15)
    magnitudes = np.ones(100)
    magnitudes[:10] = 20.0  # the top decile carries the function
    assert magnitude_separation(magnitudes) == pytest.approx(20.0, rel=1e-15)


# ----------------------------------------------------------------------------------------
# the study


def test_study_is_cached_per_seed_and_resumes(tmp_path: Path, one_torch_thread) -> None:
    """Seeds (0,) then (0, 1): the second study trains only seed 1's runs (4 of 8 points cached) and reads
    seed 0's back unchanged."""
    cache = Cache(tmp_path)
    first = lockin_task(TaskLockinConfig(**TINY, seeds=(0,)), None, make_runner(cache=cache))
    assert len(list((tmp_path / "point").glob("*.json"))) == 4
    second = lockin_task(TaskLockinConfig(**TINY, seeds=(0, 1)), None, make_runner(cache=cache))
    assert len(list((tmp_path / "point").glob("*.json"))) == 8
    again = [r for r in second.runs if r.seed == 0]
    assert [r.series["test_acc"] for r in again] == [r.series["test_acc"] for r in first.runs]  # read back, not rerun
    assert [(r.activation, r.control) for r in second.runs[:4]] == [
        ("x2", False),
        ("x2", True),
        ("relu", False),
        ("relu", True),
    ]
    for run in second.runs:
        assert run.train_pairs == round((0.1 if run.control else 0.3) * 121)
        assert len(run.series["epoch"]) == len(run.series["test_acc"]) == 15  # every 4th of 60 epochs
        assert run.sign_epochs == [0.0, 30.0, 59.0]
        # the direct sign is an identity's: a pair loses it only where |η² B_jl| sinks to round-off
        # (~ε · cond(G + ηI) · ‖G‖, cond ≤ ~1e3 at ridge 1e-3): measured 1.0 here, a few such pairs allowed
        assert run.sign_match_min >= 0.9
    rows = {(r["activation"], r["condition"]): r for r in second.summary}
    assert rows[("x2", "grokking")]["runs"] == 2 and rows[("relu", "control")]["fraction"] == 0.1


def test_quick_study_end_to_end(tmp_path: Path) -> None:
    """``--quick`` (≈ 2 s): exit 0, an artifact that validates and carries the quick sizes, the summary with
    the estimate printed before."""
    out = tmp_path / "xu.json"
    result = CliRunner().invoke(
        app,
        ["lockin", "--task", "modular-addition", "--quick", "--cache-dir", str(tmp_path / "runs"), "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "of CPU (estimated)" in result.output and "x² grokking (0.3)" in result.output
    check = CliRunner().invoke(app, ["validate", str(out)])
    assert check.exit_code == 0 and "lockin-task artifact" in check.output
    artifact = json.loads(out.read_text())
    assert (artifact["config"]["modulus"], artifact["config"]["hidden_units"], artifact["config"]["epochs"]) == (
        23,
        256,
        150,
    )
    assert len(artifact["result"]["runs"]) == 4


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--task", "chess"], "--task"),
        (["--task", "modular-addition", "--modulus", "2"], "--modulus"),
        (["--task", "modular-addition", "--train-fraction", "0.3", "--control-fraction", "0.4"], "--control-fraction"),
        (["--task", "modular-addition", "--epochs", "30"], "--epochs"),
        (["--task", "modular-addition", "--task-activation", "tanh"], "--task-activation"),
        (["--task", "modular-addition", "--per", "100"], "--per"),
        (["--task", "modular-addition", "-D", "4"], "--gauge-strength"),
        (["--modulus", "31"], "--modulus"),
        (["--quick"], "--quick"),
        (["--task", "modular-addition", "--hidden-units", "60000"], "--hidden-units"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(args: list[str], flag: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lockin", *args, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert flag in result.output and "Traceback" not in result.output
    assert not list(tmp_path.rglob("*.json"))  # refused before anything is written


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: --device cuda is accepted")
def test_cuda_is_refused_in_one_line_where_there_is_none(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["lockin", "--task", "modular-addition", "--quick", "--device", "cuda", "--cache-dir", str(tmp_path)]
    )
    assert result.exit_code == 2 and "--device" in result.output and "sees no CUDA device" in result.output


def test_memory_estimate_grows_with_the_sign_rules_gram() -> None:
    """At large K the K × K float64 matrices of the sign rule dominate: ≈ 4 · 8 K² bytes."""
    config = TaskLockinConfig()
    big = memory_estimate(config, hidden_units=32768)
    assert big.what == "the sign rule's K × K matrices"
    assert big.largest == pytest.approx(8 * (4 * 32768**2 + round(0.3 * 71**2) * 32768), rel=1e-12)
    assert memory_estimate(config).total < big.total


def test_gauge_model_trained_as_the_task(one_torch_thread) -> None:
    """The cross-check's gauge-model runs: the aligned control is aligned at epoch 0, the select start
    (u0 ⊥ v) is not; every firing is at or after the burn-in; the ΔW windows are Adam's steps, the
    gradient's those of −∂L/∂W (two streams: they need not fire together)."""
    from gaugecli.experiments.lockin_task.gauge_check import gauge_adam_run

    settings = {"eta": 1e-3, "weight_decay": 1e-4, "epochs": 150, "n_samples": 400, "window": 20, "lag": 25,
                "threshold": 0.04, "burn_in": 100, "floor": 1e-10}  # fmt: skip
    control = gauge_adam_run(True, 0, **settings)
    select = gauge_adam_run(False, 0, **settings)
    assert control.align_epoch == 0 and select.align_epoch != 0
    for run in (control, select):
        fires = (run.fire_raw, run.fire_floored, run.fire_gradient_raw, run.fire_gradient_floored)
        assert all(f is None or 100 <= f < 150 for f in fires)
