"""Know before you allocate: memory and step estimates, and the refusals they drive, before any
computation (core/budget.py, and its use in run_ensemble)."""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import pytest

from gaugecli.core.budget import (
    BASELINE_BYTES,
    BudgetExceeded,
    available_memory,
    batch_memory,
    check_memory,
    check_run,
    population_flow_memory,
)
from gaugecli.core.flow import flow_progress
from gaugecli.experiments.common import DynamicsConfig, ModelConfig, duplicates, run_ensemble
from gaugecli.experiments.simulate import SimulateConfig, simulate


def test_available_memory_is_positive_and_below_physical() -> None:
    physical = 2**62
    try:
        import os

        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        pass
    assert 0 < available_memory() <= physical


def test_flow_memory_grows_like_m_squared_r_squared_for_one_member() -> None:
    """Large m (one member, dense Jacobian): the estimate's growth exponent in m is 2."""
    small, big = population_flow_memory(1, 500, 32, 32, 400), population_flow_memory(1, 1000, 32, 32, 400)
    slope = math.log((big.total - BASELINE_BYTES) / (small.total - BASELINE_BYTES)) / math.log(2)
    assert 1.85 <= slope <= 2.0  # the Jacobian's m² dominates; the dense output and trajectory add m¹
    assert "Jacobian" in big.what


def test_estimate_bounds_the_traced_peak_from_above() -> None:
    """The arrays a m = 100 duplicate run (r = 2) allocates at its peak (traced by tracemalloc,
    which numpy reports to) stay below the estimate less the interpreter's baseline, and not by
    more than a factor 4 (measured: m = 120: 58 MB traced against 123 MB; m = 300: 69 against 250)."""
    model = ModelConfig()
    start = duplicates(model, np.full((1, 100), 4.0))
    tracemalloc.start()
    try:
        run_ensemble(model, DynamicsConfig(t_max=1.0), *start)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = population_flow_memory(1, 100, 2, 16, 400).total - BASELINE_BYTES
    assert peak <= estimate <= 4 * peak


def test_memory_refusal_names_the_flag_and_a_value_that_fits() -> None:
    estimate = population_flow_memory(1, 1000, 32, 32, 400)
    with pytest.raises(BudgetExceeded) as info:
        check_memory(estimate, "m", 2.0, 1000.0, available=16 * 2**30)
    message = str(info.value)
    assert message.startswith("--m: ") and "GB" in message and "Jacobian" in message
    fits = int(message.split("--m ≤ ")[1].split()[0])
    assert population_flow_memory(1, fits, 32, 32, 400).total <= 0.9 * 16 * 2**30
    assert population_flow_memory(1, int(fits * 1.25), 32, 32, 400).total > 0.9 * 16 * 2**30  # a tight hint


def test_the_hint_fits_even_when_the_smaller_terms_alone_overflow() -> None:
    """m = 10⁵ duplicates: beside the Jacobian, the pair arrays alone exceed the machine. The hint
    used to shrink only the largest term and so read '--m ≤ 0'; it must name an m that fits."""
    available = 23 * 2**30
    with pytest.raises(BudgetExceeded) as info:
        check_run("flow", members=1, m=100_000, r=2, d=16, grid_points=400, available=available)
    fits = int(str(info.value).split("--m ≤ ")[1].split()[0])
    assert population_flow_memory(1, fits, 2, 16, 400).total <= 0.9 * available
    assert population_flow_memory(1, fits + 1, 2, 16, 400).total > 0.9 * available  # the largest that fits


def test_a_thousand_random_neurons_in_d32_refuse_at_once_on_a_small_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused before computing: the whole call takes a small fraction of one gradient evaluation
    of the run itself would (no wall-clock assertion: the call must raise before any solve)."""
    import gaugecli.core.budget as budget

    monkeypatch.setattr(budget, "available_memory", lambda: 8 * 2**30)
    config = SimulateConfig(m=1000, init="random", model=ModelConfig(d=32))
    with pytest.raises(BudgetExceeded, match=r"^--m: this run needs ≈ \d+(\.\d+)? GB"):
        simulate(config)


def test_tiny_eta_refused_before_any_step() -> None:
    start = time.process_time()
    with pytest.raises(BudgetExceeded, match=r"^--eta: eta = 1e-09 needs 1e\+12 steps") as info:
        simulate(SimulateConfig(dynamics=DynamicsConfig(mode="gd", eta=1e-9)))
    assert "--eta ≥ 0.0001" in str(info.value)  # t_max = 1000 (auto horizon at D = 4) / 1e7
    assert time.process_time() - start < 5.0  # generous: one GD step costs ~50 µs; 1e12 would be days


def test_step_budget_counts_steps_to_the_horizon() -> None:
    check_run("descent", members=1, m=1, r=2, d=16, grid_points=400, t_max=10.0, eta=1e-3, max_steps=10_000)
    with pytest.raises(BudgetExceeded, match="10001 steps"):
        check_run("descent", members=1, m=1, r=2, d=16, grid_points=400, t_max=10.001, eta=1e-3, max_steps=10_000)


def test_sample_memory_refusal_names_n_samples() -> None:
    with pytest.raises(BudgetExceeded, match=r"^--n-samples: "):
        check_run("sample", members=1, m=5, r=16, d=100_000, grid_points=400, n=100_000, available=4 * 2**30)


def test_flow_progress_is_logarithmic_and_ends_at_one() -> None:
    assert flow_progress(0.0, 1000.0) == 0.0
    assert flow_progress(1000.0, 1000.0) == pytest.approx(1.0)
    # each decade of t adds about one sixth of the bar (6 decades below t_max)
    steps = np.diff([flow_progress(t, 1000.0) for t in (1e-1, 1.0, 10.0, 100.0)])
    np.testing.assert_allclose(steps, 1 / 6, rtol=0.02)


def test_sgd_batch_refusal_names_a_batch_that_fits() -> None:
    available = 4 * 2**30
    with pytest.raises(BudgetExceeded, match=r"^--batch-size: .*a minibatch") as info:
        check_run("descent", members=1, m=5, r=2, d=16, grid_points=400, batch_size=10**9, available=available)
    fits = int(str(info.value).split("--batch-size ≤ ")[1].split()[0])
    assert batch_memory(1, 5, 16, fits).total <= 0.9 * available < batch_memory(1, 5, 16, fits + 1).total


def test_every_flow_is_checked_before_its_jacobian_is_allocated(monkeypatch: pytest.MonkeyPatch) -> None:
    """gradient_flow itself refuses (the reln comparison called it with no check of its own and
    died allocating LSODA's 21 TiB work array at m = 10⁵)."""
    import gaugecli.core.budget as budget
    from gaugecli.core.integrate import gradient_flow
    from gaugecli.core.teacher import Teacher

    monkeypatch.setattr(budget, "available_memory", lambda: 2 * 2**30)
    teacher = ModelConfig(d=16).teacher()
    assert isinstance(teacher, Teacher)
    a0, W0 = np.full(5000, 0.01), np.ones((5000, 16))
    with pytest.raises(BudgetExceeded, match=r"^--m: this run needs .* Jacobian"):
        gradient_flow(a0, W0, teacher, 1.0)


def test_owner_sweep_refuses_a_width_before_building_its_starts() -> None:
    """m designations × m neurons × d: at m = 10⁵ the starts alone took 15 GB before any check."""
    from gaugecli.experiments.select import OwnerSweepConfig, owner_sweep

    with pytest.raises(BudgetExceeded, match=r"^--ms: .* use --ms ≤ \d+ \(memory grows like its cube\)"):
        owner_sweep(OwnerSweepConfig(ms=(2, 100_000)))


def test_a_streamed_sample_that_would_take_hours_is_announced_before_it_starts() -> None:
    from gaugecli.core.budget import LongRunWarning, warn_if_streamed_and_slow

    limit = 4 * 2**30
    with pytest.warns(LongRunWarning, match=r"^--n-samples 1e\+09 does not fit in memory .* ≈ 9 h .* ≤ 3.16e\+07"):
        warn_if_streamed_and_slow(10**9, 16, 1, 1, limit)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_streamed_and_slow(10**7, 16, 1, 1, limit)  # kept in memory: nothing to say
        warn_if_streamed_and_slow(15 * 10**6, 16, 1, 1, 2**20)  # streamed, but ≈ 8 min in all


def test_warnings_reach_the_terminal_as_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from gaugecli.cli.app import _one_line_warning

    _one_line_warning(UserWarning("a long run ahead"), UserWarning, "file.py", 3)
    assert capsys.readouterr().err == "Warning: a long run ahead\n"
