"""``lockin``: configuration checks, the epoch-grid finite-sample driver, and an artifact that validates."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gaugecli.core.analyses.symmetry import ROUNDOFF_EXPONENT
from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.model.state import Network
from gaugecli.core.samples.sample import empirical_oracle
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.experiments import lockin as ex
from gaugecli.experiments.common import duplicates
from gaugecli.experiments.config import ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.store.artifacts import ArtifactError, build_artifact, now
from gaugecli.store.schemas import validate

RUN_KEYS = {
    "assign",
    "mode",
    "D",
    "seed",
    "activation",
    "t_spec",
    "owner",
    "rank2_peak",
    "rank2_t_peak",
    "detector_fire_raw",
    "detector_fire_floored",
    "frac_neg_given_similar",
    "Lambda_total",
}

SMALL = ex.LockinConfig(
    model=ModelConfig(d=4),
    m=5,
    strengths=(4.0,),
    per=100,
    span=2.5,
    burn_in=50,
    seeds=(0,),
    n_samples=1000,
    quadratic=True,
    scan_strengths=(2.0, 4.0),
    scan_pers=(50, 100),
    scan_eps=(1e-16, 1e-8),
)


@pytest.fixture(scope="module")
def small_result() -> ex.LockinResult:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return ex.lockin(SMALL)
    finally:
        torch.set_num_threads(before)


def test_assignments() -> None:
    np.testing.assert_array_equal(ex.assignment_imbalances("select", 3, 4.0, 1), [-4.0, 4.0, -4.0])
    np.testing.assert_array_equal(ex.assignment_imbalances("reversed", 3, 4.0, 0), [-4.0, 4.0, 4.0])
    np.testing.assert_array_equal(ex.assignment_imbalances("all-plus", 2, 2.0), [2.0, 2.0])
    np.testing.assert_array_equal(ex.assignment_imbalances("all-minus", 2, 2.0), [-2.0, -2.0])
    with pytest.raises(ValueError, match="unknown assignment"):
        ex.assignment_imbalances("some", 2, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"window": 2}, "window"),
        ({"lag": 0}, "lag"),
        ({"assignments": ("select", "sideways")}, "assign"),
        ({"assignments": ("all-minus",)}, "assign"),  # select sets the clocks
        ({"seeds": ()}, "seeds"),
        ({"per": 5}, "span"),  # 25 epochs < window + lag
        ({"floor": 0.0}, "floor"),
        ({"ridge": -1.0}, "ridge"),
        ({"strengths": (4.0, -1.0)}, "gauge_strength"),
        ({"owner": 5}, "owner"),
        ({"seeds": (-1,)}, "seeds"),
        ({"scan_pers": (4,)}, "scan_pers"),
        ({"quadratic_step_fraction": 1.5}, "x2_step_fraction"),
    ],
)
def test_config_errors_name_the_option(kwargs: dict, param: str) -> None:
    with pytest.raises(ConfigError) as info:
        ex.LockinConfig(**kwargs)
    assert info.value.param == param


def test_finite_sample_grid_reproduces_one_uninterrupted_gd_run() -> None:
    """Chunking GD at the epochs changes nothing: the epoch states equal the iterates of one GD run
    (bitwise-level agreement, 1e-15), and T_spec is the same linear interpolation."""
    model = ModelConfig(d=4)
    teacher = model.build()
    a0, W0 = duplicates(model, np.array([[4.0, -4.0, -4.0]]))
    X, y = draw_sample(teacher, 500, 0)
    eta, steps = 4e-4, 3
    times = np.arange(121) * (steps * eta)
    a, W, dW, t_spec = ex.finite_sample_on_grid(
        Network(a0[0], W0[0]), teacher, empirical_oracle(X, y), times, eta, 0.01
    )
    ref = gradient_descent(
        Network(a0[0], W0[0]), teacher, eta, times[-1] * (1 - 1e-12), oracle=empirical_oracle(X, y), grid_points=10**6
    )
    k = np.searchsorted(ref.t, times - 1e-15)
    np.testing.assert_allclose(ref.t[k], times, rtol=1e-12)
    np.testing.assert_allclose(W, ref.W[k], rtol=0, atol=1e-15)
    np.testing.assert_allclose(a, ref.a[k], rtol=0, atol=1e-15)
    assert t_spec == pytest.approx(float(np.nanmin(ref.crossing_times)), rel=1e-12)
    np.testing.assert_allclose(dW[5], -empirical_oracle(X, y)(a[5], W[5])[1], rtol=1e-14)


def test_small_run_records_every_condition(small_result: ex.LockinResult) -> None:
    runs = small_result.runs
    flows = {(r.assign, r.control): r for r in runs if r.mode == "flow"}
    assert set(flows) == {(a, False) for a in ex.ASSIGNMENTS} | {("select", True)}
    assert flows[("select", False)].owner == 0
    assert flows[("all-minus", False)].owner is None and flows[("all-plus", False)].owner is None
    # Λ(all-minus) ≈ 2.45 m D over 5 T_spec (m = 5, D = 4: 49.5; m = 3: 30.1 < 36)
    assert flows[("all-minus", False)].Lambda_total > ROUNDOFF_EXPONENT
    assert flows[("select", False)].Lambda_total < 0.2
    assert flows[("select", True)].rank2_peak < 1e-14  # aligned control flow: rank one
    assert {(r.activation, r.control) for r in runs if r.mode == "sample"} == {
        ("relu", False),
        ("relu", True),
        ("x2", False),
        ("x2", True),
    }
    assert any("exact saddle" in note for note in small_result.notes)
    conditions = {(row["condition"], row["mode"], row["activation"]) for row in small_result.summary}
    assert ("select", "sample", "x2") in conditions and ("control", "flow", "relu") in conditions
    scan = small_result.tspec_vs_eps  # ε × seeds, select and all-minus for each draw
    assert [(row["eps"], row["seed"]) for row in scan] == [(e, s) for e in SMALL.scan_eps for s in SMALL.seeds]
    assert small_result.owner_overshoot["max_deg"] > 1.0


def test_artifact_validates(small_result: ex.LockinResult) -> None:
    artifact = build_artifact("lockin", SMALL, small_result, seed=None, started=now())
    assert validate(artifact) == ("lockin", 1)
    text = json.dumps(artifact, allow_nan=False)  # NaN/inf became null
    runs = json.loads(text)["result"]["runs"]
    for run in runs:
        assert RUN_KEYS <= set(run)
        for key in ("detector_fire_raw", "detector_fire_floored"):
            assert run[key] is None or run[key] >= 0
    bad = json.loads(text)
    del bad["result"]["runs"][0]["rank2_peak"]
    with pytest.raises(ArtifactError, match="rank2_peak"):
        validate(bad)


def test_a_run_whose_epoch_grids_do_not_fit_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--per`` sets the epochs of every run's grid: at per = 10⁶ a default run needed > 100 GB
    and was killed by the OOM killer. It is refused at once, with the largest per that fits."""
    import gaugecli.experiments.budget as budget
    from gaugecli.experiments.budget import USABLE_FRACTION, BudgetExceeded

    monkeypatch.setattr(budget, "available_memory", lambda: 4 * 2**30)
    config = ex.LockinConfig(per=1_000_000)
    with pytest.raises(BudgetExceeded, match=r"^per: this run needs ≈ \d+ GB \(mostly the runs on their epoch grids"):
        ex.lockin(config)  # would take hours if it started
    with pytest.raises(BudgetExceeded) as info:
        ex.lockin(config)
    fits = int(str(info.value).split("per ≤ ")[1].split()[0])
    usable = USABLE_FRACTION * 4 * 2**30
    assert ex.memory_estimate(config, per=fits).total <= usable < ex.memory_estimate(config, per=fits + 1).total
    assert ex.memory_estimate(ex.LockinConfig()).total < 2**30  # the defaults: well under a gigabyte


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"n_samples": 10**9}, "n_samples"),  # the sample dominates
        ({"m": 3000}, "m"),  # even the coarsest grid is too large: fewer neurons
        ({"span": 10**6}, "span"),  # per = 1 is below the detector's window: a shorter horizon
    ],
)
def test_the_refusal_names_what_can_make_it_fit(monkeypatch: pytest.MonkeyPatch, kwargs: dict, flag: str) -> None:
    import gaugecli.experiments.budget as budget
    from gaugecli.experiments.budget import BudgetExceeded

    monkeypatch.setattr(budget, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(BudgetExceeded, match=rf"^{flag}: this run needs .* use {flag} ≤ \d"):
        ex.check_memory_budget(ex.LockinConfig(**kwargs))
