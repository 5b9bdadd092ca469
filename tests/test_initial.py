"""Initial conditions of simulate/select (--init random, --eps, --init-seed) and the numeric
ranges the configs accept (--c0, -D/--gauge/--deltas, --rtol, --max-steps)."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.model.gauge import function_coordinates, imbalance, initial_direction, owner_imbalances
from gaugecli.core.model.state import Network
from gaugecli.core.model.subspace import invariant_subspace
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.initial import initial_condition
from gaugecli.experiments.select import SelectConfig, select
from gaugecli.experiments.simulate import SimulateConfig

MODEL = ModelConfig()


def test_random_init_has_unit_random_directions_and_equal_coefficients() -> None:
    deltas = np.stack([owner_imbalances(50, 4.0), owner_imbalances(50, 2.0)])
    a, W = initial_condition(MODEL, deltas, "random", init_seed=7)
    c, U = function_coordinates(Network(a, W))
    np.testing.assert_allclose(c, MODEL.c0 / 50, rtol=1e-14)
    np.testing.assert_allclose(imbalance(Network(a, W)), deltas, atol=1e-14)
    np.testing.assert_allclose(U[0], U[1], atol=0)  # members differ in δ only
    # isotropic: the mean of 50 unit vectors in R^16 is ~ 1/√50 ≈ 0.14 in norm, far from a duplicate's 1
    assert np.linalg.norm(U[0].mean(axis=0)) < 0.4
    space = invariant_subspace(MODEL.build(), W)
    assert space is None  # 51 generic vectors span R^16
    _, W2 = initial_condition(MODEL, deltas, "random", init_seed=7)
    np.testing.assert_array_equal(W2, W)
    assert not np.array_equal(initial_condition(MODEL, deltas, "random", init_seed=8)[1], W)


def test_eps_perturbs_duplicates_by_about_eps() -> None:
    deltas = owner_imbalances(5, 4.0)[None]
    a, W = initial_condition(MODEL, deltas, eps=0.1, init_seed=1)
    c, U = function_coordinates(Network(a[0], W[0]))
    u0 = initial_direction(MODEL.build(), MODEL.theta0)
    angles = np.arccos(np.clip(U @ u0, -1, 1))
    assert 0.01 < np.median(angles) < 0.3  # ε ξ with E‖ξ‖² = 1: angles ~ ε
    assert np.all(np.abs(np.log(c / (MODEL.c0 / 5))) < 0.5)
    assert len({tuple(w) for w in W[0]}) == 5  # visibly distinct: no symmetric start left


def test_eps_resolves_the_symmetric_start_into_a_unique_owner() -> None:
    """All −D duplicates are decided by round-off (symmetric start); with --eps the owner is set
    by the perturbation and the run reports it."""
    base = SelectConfig(m=3, deltas=(-4.0, -4.0, -4.0), dynamics=DynamicsConfig(t_max=200.0))
    plain = select(base)
    perturbed = select(SelectConfig(**{**base.__dict__, "eps": 0.05}))
    assert plain.symmetric_start and plain.owner is None
    assert not perturbed.symmetric_start and perturbed.owner is not None


@pytest.mark.parametrize(
    ("kwargs", "param", "words"),
    [
        ({"init": "uniform"}, "init", "one of duplicates, random"),
        ({"init": "random", "eps": 0.1}, "eps", "init random has none"),
        ({"eps": 0.0}, "eps", "[1e-12, 1]"),
        ({"eps": 2.0}, "eps", "[1e-12, 1]"),
        ({"eps": 1e-16}, "eps", "round-off"),
        ({"init_seed": 3}, "init_seed", "no effect"),
        ({"init": "random", "init_seed": -1}, "init_seed", "≥ 0"),
        ({"model": ModelConfig(d=16), "strengths": (1e15,)}, "gauge_strength", "(0, 1e6]"),
        ({"gauge": "-2e6"}, "gauge", "[-1e6, 1e6]"),
        ({"deltas": (1.0, -3e7)}, "deltas", "[-1e6, 1e6]"),
    ],
)
def test_simulate_refuses_what_the_numerics_cannot_honour(kwargs: dict, param: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        SimulateConfig(**kwargs)
    assert info.value.param == param and words in str(info.value)


@pytest.mark.parametrize(("c0", "words"), [(1e300, "[1e-6, 1e6]"), (1e30, "round-off"), (1e-7, "absolute tolerance")])
def test_c0_range(c0: float, words: str) -> None:
    with pytest.raises(ConfigError, match="c0") as info:
        ModelConfig(c0=c0)
    assert words in str(info.value)
    ModelConfig(c0=1e-6), ModelConfig(c0=1e6)  # the ends are inside


def test_rtol_and_max_steps_ranges() -> None:
    DynamicsConfig(rtol=1e-13)
    for bad in (1e-14, 1e-2):
        with pytest.raises(ConfigError, match=r"\[1e-13, 1e-2\)"):
            DynamicsConfig(rtol=bad)
    with pytest.raises(ConfigError, match="no effect in mode flow"):
        DynamicsConfig(max_steps=10)
    with pytest.raises(ConfigError, match="≥ 1"):
        DynamicsConfig(mode="gd", max_steps=0)
    assert DynamicsConfig(mode="gd").step_budget == 10_000_000


# -- init gaussian --------------------------------------------------------------------------


def _draw(seed: int, m: int, d: int, sa: float = 0.3, sw: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """The draw as a user would write it (independent of gaugecli.experiments.initial)."""
    rng = np.random.default_rng(seed)
    return np.abs(rng.normal(0.0, sa, m)), rng.normal(0.0, sw / np.sqrt(d), (m, d))


def test_gaussian_natural_gauge_is_the_draw_itself() -> None:
    config = SimulateConfig(init="gaussian", gauge="natural", m=6, init_seed=11, init_scale_a=0.5, init_scale_w=0.2)
    a, W = _draw(11, 6, MODEL.d, 0.5, 0.2)
    deltas = config.imbalances()
    np.testing.assert_allclose(deltas, [a**2 - np.sum(W**2, axis=1)], rtol=1e-15)
    a0, W0 = initial_condition(config.model, deltas, "gaussian", init_seed=11, scales=config.init_scales)
    # rebuilt from (c, u, δ): the draw, to round-off
    np.testing.assert_allclose(a0[0], a, rtol=1e-13)
    np.testing.assert_allclose(W0[0], W, rtol=1e-13, atol=1e-16)


def test_gaussian_draw_keeps_its_function_under_every_gauge() -> None:
    """SPEC C1 for a practitioner's start: the gauge changes (a, ‖w‖), never c = a‖w‖ or u."""
    deltas = np.stack([owner_imbalances(4, 4.0), -np.full(4, 4.0), np.zeros(4)])
    a, W = initial_condition(MODEL, deltas, "gaussian", init_seed=2)
    c, U = function_coordinates(Network(a, W))
    a_draw, W_draw = _draw(2, 4, MODEL.d)
    c_draw, U_draw = function_coordinates(Network(a_draw, W_draw))
    for b in range(3):
        np.testing.assert_allclose(c[b], c_draw, rtol=1e-13)
        np.testing.assert_allclose(U[b], U_draw, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(imbalance(Network(a[b], W[b])), deltas[b], atol=1e-13)


def test_gaussian_run_conserves_its_natural_gauge() -> None:
    from gaugecli.experiments.simulate import simulate

    config = SimulateConfig(init="gaussian", gauge="natural", m=4, init_seed=3)
    (run,) = simulate(config)
    np.testing.assert_allclose(run.imbalance[0], config.imbalances()[0], rtol=1e-12)
    assert run.imbalance_drift <= 1e-8  # C2 along the flow, from a practitioner's start
    assert run.t_spec is not None


def test_later_fields_keep_old_hashes_until_set() -> None:
    from gaugecli.store.codec import to_jsonable

    plain = to_jsonable(SimulateConfig())
    assert "init_scale_a" not in plain and "init_scale_w" not in plain
    assert "init_scale_a" not in to_jsonable(SelectConfig())
    drawn = to_jsonable(SimulateConfig(init="gaussian", init_scale_a=0.5))
    assert drawn["init_scale_a"] == 0.5 and "init_scale_w" not in drawn


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"init_scale_a": 0.5}, "init_scale_a"),
        ({"gauge": "natural"}, "gauge"),
        ({"init": "gaussian", "gauge": "natural", "strengths": (1.0, 4.0)}, "gauge_strength"),
        ({"init": "gaussian", "gauge": "natural", "deltas": (1.0, -1.0)}, "deltas"),
        ({"init": "gaussian", "eps": 0.1}, "eps"),
        ({"init": "gaussian", "init_scale_w": 100.0}, "init_scale_w"),
        ({"init": "gaussian", "gauge": "natural", "strengths": (16.0,)}, "gauge_strength"),
        ({"init": "gaussian", "gauge": "natural", "model": ModelConfig(c0=0.5)}, "c0"),
        ({"init": "gaussian", "gauge": "natural", "model": ModelConfig(theta0=1.0)}, "theta0"),
        ({"init": "gaussian", "model": ModelConfig(c0=0.5)}, "c0"),
        ({"init": "random", "model": ModelConfig(theta0=1.0)}, "theta0"),
    ],
)
def test_gaussian_refusals_name_the_parameter(kwargs: dict, parameter: str) -> None:
    with pytest.raises(ConfigError) as info:
        SimulateConfig(**kwargs)
    assert info.value.param == parameter


@pytest.mark.parametrize("kind", [SimulateConfig, SelectConfig])
def test_a_gaussian_start_reads_neither_c0_nor_theta0(kind: type) -> None:
    """Why they are refused (above): the draw is the same whatever c0 and θ0 are — the start built
    with them changed is exactly the default's (no arithmetic touches them)."""
    from dataclasses import replace

    config = kind(init="gaussian", init_seed=3)
    deltas = np.atleast_2d(config.imbalances())
    a, W = initial_condition(config.model, deltas, "gaussian", init_seed=3)
    changed = replace(config.model, c0=0.5, theta0=1.0)  # the model alone: its own check allows both
    a2, W2 = initial_condition(changed, deltas, "gaussian", init_seed=3)
    np.testing.assert_array_equal(a2, a)
    np.testing.assert_array_equal(W2, W)
    with pytest.raises(ConfigError) as info:
        SelectConfig(init="gaussian", model=changed)
    assert info.value.param in ("c0", "theta0")


def test_the_summary_header_prints_no_option_the_start_ignored() -> None:
    from gaugecli.cli.report import header

    natural = header("simulate", SimulateConfig(init="gaussian", gauge="natural"))
    assert "c0" not in natural and "θ0" not in natural and "D = " not in natural
    assert "δ natural" in natural
    drawn = header("select", SelectConfig(init="gaussian"))
    assert "c0" not in drawn and "θ0" not in drawn and "D = 4" in drawn  # select's D sets the draw's δ
    random = header("simulate", SimulateConfig(init="random"))
    assert "c0 = 0.1" in random and "θ0" not in random
    duplicates = header("simulate", SimulateConfig())
    assert "c0 = 0.1, θ0 = 1.571" in duplicates and "D = 4 (favorable)" in duplicates
