"""Initial conditions of simulate/select (--init random, --eps, --init-seed) and the numeric
ranges the configs accept (--c0, -D/--gauge/--deltas, --rtol, --max-steps)."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.gauge import function_coordinates, imbalance, initial_direction, owner_imbalances
from gaugecli.core.subspace import invariant_subspace
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.initial import initial_condition
from gaugecli.experiments.select import SelectConfig, select
from gaugecli.experiments.simulate import SimulateConfig

MODEL = ModelConfig()


def test_random_init_has_unit_random_directions_and_equal_coefficients() -> None:
    deltas = np.stack([owner_imbalances(50, 4.0), owner_imbalances(50, 2.0)])
    a, W = initial_condition(MODEL, deltas, "random", init_seed=7)
    c, U = function_coordinates(a, W)
    np.testing.assert_allclose(c, MODEL.c0 / 50, rtol=1e-14)
    np.testing.assert_allclose(imbalance(a, W), deltas, atol=1e-14)
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
    c, U = function_coordinates(a[0], W[0])
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
        ({"init": "gaussian"}, "init", "one of duplicates, random"),
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
