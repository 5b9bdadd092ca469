"""Know before you allocate: memory and step estimates, and the refusals they drive, before any
computation (experiments/budget.py, and its use in run_ensemble)."""

from __future__ import annotations

import math
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from gaugecli.core.integrate.flow_options import FlowOptions, flow_progress
from gaugecli.core.model.state import Network
from gaugecli.experiments.budget import (
    BASELINE_BYTES,
    BudgetExceeded,
    available_memory,
    batch_memory,
    check_memory,
    check_run,
    population_flow_memory,
)
from gaugecli.experiments.common import duplicates, run_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
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
        run_ensemble(model, DynamicsConfig(t_max=1.0), Network(*start))
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
    assert message.startswith("m: ") and "GB" in message and "Jacobian" in message
    fits = int(message.split("m ≤ ")[1].split()[0])
    assert population_flow_memory(1, fits, 32, 32, 400).total <= 0.9 * 16 * 2**30
    assert population_flow_memory(1, int(fits * 1.25), 32, 32, 400).total > 0.9 * 16 * 2**30  # a tight hint


def test_the_hint_fits_even_when_the_smaller_terms_alone_overflow() -> None:
    """m = 10⁵ duplicates: beside the Jacobian, the pair arrays alone exceed the machine. The hint
    used to shrink only the largest term and so read '--m ≤ 0'; it must name an m that fits."""
    available = 23 * 2**30
    with pytest.raises(BudgetExceeded) as info:
        check_run("flow", members=1, m=100_000, r=2, d=16, grid_points=400, available=available)
    fits = int(str(info.value).split("m ≤ ")[1].split()[0])
    assert population_flow_memory(1, fits, 2, 16, 400).total <= 0.9 * available
    assert population_flow_memory(1, fits + 1, 2, 16, 400).total > 0.9 * available  # the largest that fits


def test_a_thousand_random_neurons_in_d32_refuse_at_once_on_a_small_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused before computing: the whole call takes a small fraction of one gradient evaluation
    of the run itself would (no wall-clock assertion: the call must raise before any solve)."""
    import gaugecli.experiments.budget as budget

    monkeypatch.setattr(budget, "available_memory", lambda: 8 * 2**30)
    config = SimulateConfig(m=1000, init="random", model=ModelConfig(d=32))
    with pytest.raises(BudgetExceeded, match=r"^m: this run needs ≈ \d+(\.\d+)? GB"):
        simulate(config)


def test_tiny_eta_refused_before_any_step() -> None:
    start = time.process_time()
    with pytest.raises(BudgetExceeded, match=r"^eta: eta = 1e-09 needs 1e\+12 steps") as info:
        simulate(SimulateConfig(dynamics=DynamicsConfig(mode="gd", eta=1e-9)))
    assert "eta ≥ 0.0001" in str(info.value)  # t_max = 1000 (auto horizon at D = 4) / 1e7
    assert time.process_time() - start < 5.0  # generous: one GD step costs ~50 µs; 1e12 would be days


def test_step_budget_counts_steps_to_the_horizon() -> None:
    check_run("descent", members=1, m=1, r=2, d=16, grid_points=400, t_max=10.0, eta=1e-3, max_steps=10_000)
    with pytest.raises(BudgetExceeded, match="10001 steps"):
        check_run("descent", members=1, m=1, r=2, d=16, grid_points=400, t_max=10.001, eta=1e-3, max_steps=10_000)


def test_sample_memory_refusal_names_n_samples() -> None:
    with pytest.raises(BudgetExceeded, match=r"^n_samples: "):
        check_run("sample", members=1, m=5, r=16, d=100_000, grid_points=400, n=100_000, available=4 * 2**30)


def test_flow_progress_is_logarithmic_and_ends_at_one() -> None:
    assert flow_progress(0.0, 1000.0) == 0.0  # exact by construction: 0/t: exact
    assert flow_progress(1000.0, 1000.0) == pytest.approx(1.0)
    # each decade of t adds about one sixth of the bar (6 decades below t_max)
    steps = np.diff([flow_progress(t, 1000.0) for t in (1e-1, 1.0, 10.0, 100.0)])
    np.testing.assert_allclose(steps, 1 / 6, rtol=0.02)


def test_sgd_batch_refusal_names_a_batch_that_fits() -> None:
    available = 4 * 2**30
    with pytest.raises(BudgetExceeded, match=r"^batch_size: .*a minibatch") as info:
        check_run("descent", members=1, m=5, r=2, d=16, grid_points=400, batch_size=10**9, available=available)
    fits = int(str(info.value).split("batch_size ≤ ")[1].split()[0])
    assert batch_memory(1, 5, 16, fits).total <= 0.9 * available < batch_memory(1, 5, 16, fits + 1).total


def test_every_flow_is_checked_before_its_jacobian_is_allocated(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flow's memory is checked by its caller before the solver allocates (the reln comparison once
    called the flow with no check and died allocating LSODA's 21 TiB work array at m = 10⁵; the core
    reads no memory): ``check_flow`` refuses the flow's shape, and every module of the experiments
    that calls a flow asks it."""
    import gaugecli.experiments.budget as budget

    monkeypatch.setattr(budget, "available_memory", lambda: 2 * 2**30)
    # the flow from a0 (5000,), W0 (5000, 16): one member of 5000 neurons in 16 coordinates
    with pytest.raises(BudgetExceeded, match=r"^m: this run needs .* Jacobian"):
        budget.check_flow((5000, 16), FlowOptions().grid_points)
    experiments = Path(budget.__file__).parent
    callers = {
        path.relative_to(experiments).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(experiments.rglob("*.py"))
        if any(call in path.read_text(encoding="utf-8") for call in ("gradient_flow(", "reln_flow("))
    }
    assert len(callers) >= 6, sorted(callers)
    assert not [name for name, text in callers.items() if "check_flow(" not in text]


def test_owner_sweep_refuses_a_width_before_building_its_starts() -> None:
    """m designations × m neurons × d: at m = 10⁵ the starts alone took 15 GB before any check."""
    from gaugecli.experiments.select import OwnerSweepConfig, owner_sweep

    with pytest.raises(BudgetExceeded, match=r"^ms: .* use ms ≤ \d+ \(memory grows like its cube\)"):
        owner_sweep(OwnerSweepConfig(ms=(2, 100_000)))


def test_a_streamed_sample_that_would_take_hours_is_announced_before_it_starts() -> None:
    from gaugecli.experiments.budget import LongRunWarning, warn_if_streamed_and_slow

    limit = 4 * 2**30
    with pytest.warns(LongRunWarning, match=r"^`n_samples` 1e\+09 does not fit in memory .* ≈ 9 h .* ≤ 3.16e\+07"):
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


# ----------------------------------------------------------------------------------------
# memory as the process sees it: cgroup and address-space limits bound what is available


def test_available_memory_is_the_least_of_meminfo_cgroup_and_rlimit(monkeypatch: pytest.MonkeyPatch) -> None:
    from gaugecli.experiments import memory as B

    monkeypatch.setattr(B, "_meminfo_available", lambda: 20 * 2**30)
    monkeypatch.setattr(B, "_cgroup_headroom", lambda: None)
    monkeypatch.setattr(B, "_rlimit_headroom", lambda: None)
    assert B.available_memory() == 20 * 2**30
    monkeypatch.setattr(B, "_cgroup_headroom", lambda: 6 * 2**30)
    assert B.available_memory() == 6 * 2**30
    monkeypatch.setattr(B, "_rlimit_headroom", lambda: 3 * 2**30)
    assert B.available_memory() == 3 * 2**30
    monkeypatch.setattr(B, "_cgroup_headroom", lambda: 2 * 2**30)
    assert B.available_memory() == 2 * 2**30
    monkeypatch.setattr(B, "_meminfo_available", lambda: None)
    monkeypatch.setattr(B, "_cgroup_headroom", lambda: None)
    monkeypatch.setattr(B, "_rlimit_headroom", lambda: None)
    assert B.available_memory() == 2**62  # nothing known: unbounded


def _cgroup_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")


def test_cgroup_v2_max_is_no_limit_and_a_parents_limit_binds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """memory.max of the process's group and of every group above it (a batch job's limit sits on
    the job, its steps' groups say ``max``): the least ``max − current`` is the headroom."""
    from gaugecli.experiments import memory as B

    monkeypatch.setattr(B, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(B, "_own_cgroups", lambda: ("/job/step", None))
    _cgroup_tree(tmp_path, {"job/memory.max": "max", "job/memory.current": "1000"})
    _cgroup_tree(tmp_path, {"job/step/memory.max": "max", "job/step/memory.current": "500"})
    assert B._cgroup_headroom() is None  # "max" all the way up: no limit
    _cgroup_tree(tmp_path, {"job/memory.max": str(8 * 2**30)})
    assert B._cgroup_headroom() == 8 * 2**30 - 1000  # the job's limit binds its step
    _cgroup_tree(tmp_path, {"job/step/memory.max": str(2**30)})
    assert B._cgroup_headroom() == 2**30 - 500
    _cgroup_tree(tmp_path, {"job/step/memory.current": str(2**31)})
    assert B._cgroup_headroom() == 0  # over its limit already: no room, not a negative one
    monkeypatch.setattr(B, "_meminfo_available", lambda: 20 * 2**30)
    monkeypatch.setattr(B, "_rlimit_headroom", lambda: None)
    _cgroup_tree(tmp_path, {"job/step/memory.current": "500"})
    assert B.available_memory() == 2**30 - 500


def test_cgroup_v1_limit_less_usage_and_its_huge_no_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gaugecli.experiments import memory as B

    monkeypatch.setattr(B, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(B, "_own_cgroups", lambda: ("/", "/grp"))
    unlimited = str(2**63 - 4096)  # what v1 writes for "no limit"
    _cgroup_tree(tmp_path, {"memory/memory.limit_in_bytes": unlimited, "memory/memory.usage_in_bytes": "7"})
    _cgroup_tree(tmp_path, {"memory/grp/memory.limit_in_bytes": unlimited, "memory/grp/memory.usage_in_bytes": "5"})
    assert B._cgroup_headroom() is None
    _cgroup_tree(tmp_path, {"memory/grp/memory.limit_in_bytes": str(4 * 2**30)})
    assert B._cgroup_headroom() == 4 * 2**30 - 5
    monkeypatch.setattr(B, "_own_cgroups", lambda: ("/", "/elsewhere"))  # a host path, the group mounted at root
    _cgroup_tree(tmp_path, {"memory/memory.limit_in_bytes": str(3 * 2**30)})
    assert B._cgroup_headroom() == 3 * 2**30 - 7


def test_own_cgroups_reads_the_v2_line_and_the_v1_memory_controller(tmp_path: Path) -> None:
    from gaugecli.experiments.memory import _own_cgroups

    listing = tmp_path / "cgroup"
    listing.write_text("12:pids:/a\n4:memory:/process_api/x\n3:cpu,cpuacct:/b\n0::/user.slice/job\n")
    assert _own_cgroups(str(listing)) == ("/user.slice/job", "/process_api/x")
    listing.write_text("0::/\n")
    assert _own_cgroups(str(listing)) == ("/", None)
    assert _own_cgroups(str(tmp_path / "absent")) == (None, None)


def test_rlimit_headroom_is_the_limit_less_what_is_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """RLIMIT_AS against VmSize, RLIMIT_DATA against VmData; RLIM_INFINITY is no limit."""
    import resource

    from gaugecli.experiments import memory as B

    monkeypatch.setattr(B, "_address_space", lambda: (2 * 10**9, 10**9))
    monkeypatch.setattr(B, "_rlimits", lambda: {"RLIMIT_AS": None, "RLIMIT_DATA": None})
    assert B._rlimit_headroom() is None
    monkeypatch.setattr(B, "_rlimits", lambda: {"RLIMIT_AS": 12 * 10**9, "RLIMIT_DATA": None})
    assert B._rlimit_headroom() == 10 * 10**9
    monkeypatch.setattr(B, "_rlimits", lambda: {"RLIMIT_AS": 12 * 10**9, "RLIMIT_DATA": 5 * 10**9})
    assert B._rlimit_headroom() == 4 * 10**9
    monkeypatch.setattr(B, "_rlimits", lambda: {"RLIMIT_AS": 10**9, "RLIMIT_DATA": None})
    assert B._rlimit_headroom() == 0  # already past it
    monkeypatch.undo()

    limits = {resource.RLIMIT_AS: 12 * 10**9, resource.RLIMIT_DATA: resource.RLIM_INFINITY}
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limits[which], resource.RLIM_INFINITY))
    assert B._rlimits() == {"RLIMIT_AS": 12 * 10**9, "RLIMIT_DATA": None}
    monkeypatch.setattr(B, "_meminfo_available", lambda: 20 * 10**9)
    monkeypatch.setattr(B, "_cgroup_headroom", lambda: None)
    monkeypatch.setattr(B, "_address_space", lambda: (3 * 10**9, 10**9))
    assert B.available_memory() == 9 * 10**9


def test_rlimit_as_bounds_the_headroom() -> None:
    """In a child with ``RLIMIT_AS`` = 12 GB, the headroom is 12 GB less the address space in use."""
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (12 * 10**9, resource.RLIM_INFINITY)); "
        "from gaugecli.experiments.memory import available_memory, _virtual_size; "
        "print(available_memory(), _virtual_size())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    free, used = map(int, out.stdout.split())
    assert 0 < free <= 12 * 10**9 - used


def test_the_input_dimension_is_refused_with_the_largest_d_that_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """5 vectors in R^d per teacher feature and neuron: at d = 10⁹, k = 1, one neuron, 74.5 GB."""
    from gaugecli.experiments import budget as B

    monkeypatch.setattr(B, "_fitted_input_bytes", 0)
    monkeypatch.setattr(B, "available_memory", lambda: 2 * 2**30)
    with pytest.raises(BudgetExceeded, match=r"^d: this run needs ≈ 74.7 GB \(mostly vectors in R\^d") as info:
        ModelConfig(d=10**9).build()
    fits = int(str(info.value).split("d ≤ ")[1].split()[0])
    vectors = B.FLOAT * B.VECTORS_PER_DIRECTION * 2
    assert BASELINE_BYTES + vectors * fits <= 0.9 * 2 * 2**30 < BASELINE_BYTES + vectors * (fits + 1)
    assert ModelConfig(d=fits).build().d == fits  # the hint fits (and is then not checked again)
    monkeypatch.setattr(B, "available_memory", lambda: 0)
    assert ModelConfig(d=16).build().d == 16  # a few kB in R^d: never what does not fit
    assert ModelConfig(d=fits // 2).build().d == fits // 2  # fitted before in this process
    with pytest.raises(BudgetExceeded, match=r"^d: .*at any d"):
        ModelConfig(d=2 * fits).build()


def test_a_d_beyond_the_address_space_limit_is_one_line_naming_d(tmp_path: Path) -> None:
    """``simulate --d 10⁹`` (7.45 GiB per vector in R^d) under ``RLIMIT_AS`` = 12 GB, as a batch
    cluster sets it: refused before the teacher is built, exit 2, one line naming --d (it ended in
    numpy's ``_ArrayMemoryError`` traceback, the budget reading only /proc/meminfo)."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (12 * 10**9, resource.RLIM_INFINITY))

    out = subprocess.run(
        [sys.executable, "-m", "gaugecli", "simulate", "--d", "1000000000"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    assert len(lines) == 1 and "--d" in lines[0] and "use --d ≤" in lines[0], lines
    assert not any(tmp_path.iterdir())  # no file, no cache folder


def test_perturb_and_lockin_name_d_first_when_d_alone_cannot_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """At d = 10⁸ on an 8 GiB machine the vectors in R^d alone (teacher and m neurons, 5 float64
    vectors each) do not fit: both commands name --d and a d that fits, before their own sample or
    grid budgets (which used to name --ns or --m "at any value")."""
    import gaugecli.experiments.budget as budget
    from gaugecli.experiments.lockin import LockinConfig, check_memory_budget
    from gaugecli.experiments.perturb import PerturbConfig, perturb

    monkeypatch.setattr(budget, "available_memory", lambda: 8 * 2**30)
    monkeypatch.setattr(budget, "_fitted_input_bytes", 0)
    model = ModelConfig(d=10**8)
    with pytest.raises(BudgetExceeded, match=r"^d: .* use d ≤ \d+"):
        perturb(PerturbConfig(model=model))
    with pytest.raises(BudgetExceeded, match=r"^d: .* use d ≤ \d+"):
        check_memory_budget(LockinConfig(model=model))


def test_a_population_flows_two_checks_read_the_memory_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's estimate and the flow's Jacobian are checked against one read of the memory available (nothing
    of the run is allocated between them), and a machine too small for the run still refuses it."""
    import gaugecli.experiments.budget as budget
    from gaugecli.experiments.common import integrate_ensemble

    reads: list[int] = []

    def available() -> int:
        reads.append(1)
        return 8 * 2**30

    monkeypatch.setattr(budget, "available_memory", available)
    model = ModelConfig()
    a0, W0 = duplicates(model, np.array([[2.0], [-2.0]]))
    integrate_ensemble(model, DynamicsConfig(t_max=1.0), Network(a0, W0))
    assert len(reads) == 1
    monkeypatch.setattr(budget, "available_memory", lambda: 2**20)  # 1 MB: less than the interpreter itself
    with pytest.raises(BudgetExceeded, match=r"^m: this run needs"):
        integrate_ensemble(model, DynamicsConfig(t_max=1.0), Network(a0, W0))
