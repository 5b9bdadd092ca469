"""Know before you allocate: peak memory and step counts estimated from the configuration alone.

Every run is checked before it computes anything (:func:`check_memory`, :func:`check_steps`); a
request beyond the machine's available memory, or a GD run longer than its step budget, is a
:class:`BudgetExceeded` naming the option to change, the estimate and a value that fits.

The memory model counts the arrays the numerics hold at their peak (8 bytes per float64), with
the factors measured by ``tracemalloc`` on the closed forms (m = 30 … 200, r = 2 … 16):

* gradient: ``≈ 6 m² r`` floats (pair geometry, kernel and its gradient, per ensemble member);
* Hessian: ``≈ 6 m² (r+1)²`` floats, and the solver's Jacobian with its LU ``≈ 3 P²``, ``P = m(r+1)``
  unknowns per member (ensembles: a band of ``2P − 1`` per unknown, chunks of ≤ 1000 unknowns);
* the dense output of the flow: ≤ 13 Nordsieck columns of ``P`` per step, for ~1000 steps;
* the saved trajectory and its observables: ``~12`` floats per saved time, neuron and coordinate;
* a finite sample ``X``: ``n d`` floats, plus ``~4 n m`` for the activations of each member;
* the vectors in R^d (teacher, start, their subspace): ``5 (k + m) d`` floats, checked when the
  teacher is built (:func:`check_input_dimension`), before anything of size d exists.

The memory available is what the process can still allocate (:func:`available_memory`): the least
of the machine's free memory, its cgroup's headroom and its address-space limit (``ulimit -v``).

Measured peak RSS against these estimates (d = 16, r = 2, whole CLI): m = 200 duplicates 171 MB
(estimate 374 MB), m = 1000: 525 MB (1.38 GB); traced numpy peaks m = 120: 58 MB against 123 MB
above the baseline, m = 300: 69 MB against 250 MB. The model errs on the safe side.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.experiments.memory import available_memory

FLOAT = 8
BASELINE_BYTES = 200 * 2**20
"""The interpreter with numpy, scipy and the package loaded (measured 100–160 MB)."""
FLOW_STEPS_GUESS = 1000
"""Solver steps assumed for the flow's dense output (measured 200–700 at m = 1 … 1000, d = 16)."""
NORDSIECK_COLUMNS = 13
OBSERVE_BYTES = 64 * 2**20
"""The observables' pair arrays: ~8 arrays of ≤ 8 MB (observables.PAIRWISE_CHUNK_BYTES) at a time."""
CHUNK_UNKNOWNS = 1000  # as gaugecli.core.integrate.flow_options.ENSEMBLE_CHUNK_STATES
USABLE_FRACTION = 0.9
"""Share of the available memory a run may plan to use (the rest for the OS and other processes)."""


class BudgetExceeded(NumericalFault):
    """A run refused before it starts: ``param`` is the option to change (underscores)."""

    def __init__(self, param: str, message: str) -> None:
        # mentions of other parameters are spelled `name`; the CLI spells them as flags
        super().__init__(f"{param}: {message.replace('`', '')}")
        self.param = param
        self.message = message

    def __reduce__(self) -> tuple[type[BudgetExceeded], tuple[str, str]]:
        # raised in worker processes too: pickle by the constructor's arguments, not by ``args``
        return type(self), (self.param, self.message)


VECTORS_PER_DIRECTION = 5
"""Float64 vectors in R^d a run holds at its peak per direction it starts from (each teacher
feature, each neuron): the teacher, the start's directions and its ``W0``, their stack and QR for
the invariant subspace, the coordinates' temporaries. Measured ``VmPeak`` of ``simulate`` above
the interpreter (d = 10⁷ … 5·10⁷): k = 1, m = 1: 9.0–9.6 vectors; k = 2: 14.4; k = 3: 19.5;
m = 2: 11.3 (duplicates), 14.5 (random); m = 4: 17.1; k = 3, m = 3: 23.5 — all ≤ 5 (k + m)."""
SMALL_INPUT_BYTES = 64 * 2**20
"""Vectors in R^d below this in all are never what does not fit: the run's other checks
(:func:`check_run`) speak for the rest, and a d = 16 run reads no file for this check."""
_fitted_input_bytes = 0
"""The largest total of d-vectors this process has found to fit (see :func:`check_input_dimension`)."""


def check_input_dimension(d: int, directions: int, param: str = "d") -> None:
    """Refuse, before anything of size ``d`` is allocated, a run whose float64 vectors in R^d do
    not fit: :data:`VECTORS_PER_DIRECTION` per direction (``directions``: teacher features plus
    neurons; the teacher alone checks ``k + 1``, the least any run has) — at d = 10⁹ each vector is
    7.45 GiB. The hint is the largest d that fits (memory ∝ d).

    Checked once per process: a size that fitted is not checked again, as the later teachers of a
    run are built while its first arrays in R^d are held, which would count against it."""
    global _fitted_input_bytes
    vectors = FLOAT * VECTORS_PER_DIRECTION * directions * d
    if vectors <= max(SMALL_INPUT_BYTES, _fitted_input_bytes):
        return
    check_memory(MemoryEstimate(int(BASELINE_BYTES + vectors), int(vectors), "vectors in R^d"), param, 1.0, d)
    _fitted_input_bytes = vectors


@dataclass(frozen=True)
class MemoryEstimate:
    """Peak bytes of a run, and the largest term with what it is (``"the flow's Jacobian"``)."""

    total: int
    largest: int
    what: str


def _estimate(terms: dict[str, float]) -> MemoryEstimate:
    what = max(terms, key=lambda k: terms[k])
    return MemoryEstimate(int(BASELINE_BYTES + sum(terms.values())), int(terms[what]), what)


def population_flow_memory(members: int, m: int, r: int, d: int, grid_points: int) -> MemoryEstimate:
    """Peak memory of a population flow of ``members`` runs of ``m`` neurons in ``r`` coordinates
    (``r = dim S``; ``d``: the input dimension, for the initial condition only)."""
    P = m * (r + 1)
    per_chunk = max(1, CHUNK_UNKNOWNS // P)
    chunk = min(members, per_chunk)
    unknowns = chunk * P
    jacobian = 3.0 * (unknowns**2 if chunk == 1 else (2 * P - 1) * unknowns)
    return _estimate(
        {
            "the flow's Jacobian (the Hessian, m(r+1) unknowns squared)": FLOAT
            * (jacobian + 6.0 * chunk * m**2 * (r + 1) ** 2),
            "the gradient's pair arrays": FLOAT * 6.0 * chunk * m * (m + 1) * r,
            "the solver's dense output": FLOAT * NORDSIECK_COLUMNS * unknowns * FLOW_STEPS_GUESS,
            "the saved trajectory": FLOAT * 12.0 * members * grid_points * m * (r + 1),
            "the observables' pair arrays": OBSERVE_BYTES,
            "the initial condition in R^d": FLOAT * 3.0 * members * m * d,
        }
    )


def descent_memory(members: int, m: int, r: int, d: int, grid_points: int, stable_bound: bool) -> MemoryEstimate:
    """Peak memory of population gradient descent (``stable_bound``: the step's stability bound
    or step choice needs the Hessian's eigenvalues, one member at a time)."""
    P = m * (r + 1)
    return _estimate(
        {
            "the Hessian for the step's stability bound": FLOAT
            * (3.0 * members * P**2 + 6.0 * members * m**2 * (r + 1) ** 2)
            if stable_bound
            else 0.0,
            "the gradient's pair arrays": FLOAT * 6.0 * members * m * (m + 1) * r,
            "the saved trajectory": FLOAT * 12.0 * members * grid_points * m * (r + 1),
            "the observables' pair arrays": OBSERVE_BYTES,
            "the initial condition in R^d": FLOAT * 3.0 * members * m * d,
        }
    )


def sample_memory(
    members: int, m: int, d: int, n: int, grid_points: int, *, stored: bool | None = None
) -> MemoryEstimate:
    """Peak memory of a finite-sample run on ``n`` points in ``R^d``: the sample (kept, or streamed
    from its seed when too large; ``stored=True``: always kept), the chunked passes over it, the
    Jacobian of ``L_n`` and the trajectory (:func:`gaugecli.core.samples.sample.sample_memory_estimate`)."""
    from gaugecli.core.samples.sample import sample_memory_estimate  # torch: only for finite samples

    total = float(sample_memory_estimate(n, d, m, members=members, grid_points=grid_points, stored=stored))
    return _estimate({"the sample, its chunked passes, the Jacobian and the trajectory": total})


def batch_memory(members: int, m: int, d: int, batch_size: int) -> MemoryEstimate:
    """Peak memory of one SGD minibatch of ``B`` points per member: its inputs and labels, and the
    passes over them (``Z``, ``relu(Z)``, ``G``: ``~3 B m``)."""
    return _estimate({"a minibatch and its passes": FLOAT * 2.0 * members * batch_size * (d + 1 + 3 * m)})


class LongRunWarning(UserWarning):
    """A run that fits in memory but will take long: shown by the CLI as one line before it starts."""


STREAMED_SECONDS_PER_POINT = 8.4e-8
"""One gradient of ``L_n`` on a streamed sample, seconds per point at d = 16, m = 1 (regenerating the
points dominates: 7× the 1.2e-8 s of a stored sample, measured at n = 10⁷)."""
FLOW_GRADIENTS = 400
"""Gradient evaluations of a finite-sample flow to its default horizon (measured ~400 at n = 10⁷)."""
LONG_RUN_SECONDS = 600.0
"""A streamed-sample run estimated to take longer than this is announced before it starts."""


def streamed_flow_seconds(n: int, d: int, m: int, members: int, stored_limit: int) -> float:
    """Estimated seconds of a finite-sample flow of ~:data:`FLOW_GRADIENTS` gradients whose sample is
    too large to keep (``8 n (d + 1) > stored_limit`` bytes) and so is regenerated at every
    gradient; 0 when the sample is kept (then memory, not time, is what limits it)."""
    if 8 * n * (d + 1) <= stored_limit:
        return 0.0
    return STREAMED_SECONDS_PER_POINT * n * (d + 1) / 17 * max(m, 1) ** 0.75 * members * FLOW_GRADIENTS


def streamed_message(n: int, d: int, seconds: float, stored_limit: int) -> str:
    """What a long streamed run costs, and the largest ``--n-samples`` that stays in memory."""
    kept = stored_limit // (8 * (d + 1))
    return (
        f"`n_samples` {n:.3g} does not fit in memory and is regenerated from its seed at every pass: "
        f"≈ {duration(seconds / FLOW_GRADIENTS)} per gradient, ≈ {duration(seconds)} for a flow of "
        f"~{FLOW_GRADIENTS} gradients; `n_samples` ≤ {kept:.3g} stays in memory"
    )


def warn_if_streamed_and_slow(n: int, d: int, m: int, members: int, stored_limit: int) -> None:
    """Warn (:class:`LongRunWarning`) before a streamed finite-sample run estimated
    (:func:`streamed_flow_seconds`) to take more than :data:`LONG_RUN_SECONDS`."""
    seconds = streamed_flow_seconds(n, d, m, members, stored_limit)
    if seconds > LONG_RUN_SECONDS:
        warnings.warn(streamed_message(n, d, seconds, stored_limit), LongRunWarning, stacklevel=2)


def duration(seconds: float) -> str:
    """``42 s``, ``12 min``, ``5 h`` or ``389 days``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h" if seconds < 172_800 else f"{seconds / 86_400:.0f} days"


def _count(n: float) -> str:
    return f"{int(n)}" if n < 1e6 else f"{n:.3g}"


def _gb(n: float) -> str:
    return f"{n / 2**30:.3g} GB" if n >= 2**27 else f"{n / 2**20:.3g} MB"


def _growth(scaling: float) -> str:
    words = {1.0: "in proportion to it", 2.0: "like its square", 3.0: "like its cube"}
    return "memory grows " + words.get(float(scaling), f"like its power {scaling:g}")


def check_memory(
    estimate: MemoryEstimate,
    param: str,
    scaling: float,
    value: float,
    *,
    available: int | None = None,
    estimate_at: Callable[[int], MemoryEstimate] | None = None,
) -> None:
    """Refuse a run whose estimate exceeds :data:`USABLE_FRACTION` of the available memory.

    ``param``/``value``: the option the hint is about and its current value; ``scaling``: how the
    estimate grows with it (memory ∝ value**scaling), so the hint can name a value that fits.
    ``estimate_at(v)``, where given (an integer option), is the estimate at ``v``: the hint is
    then the largest ``v`` whose whole estimate fits, found by bisection."""
    free = available_memory() if available is None else available
    usable = USABLE_FRACTION * free
    if estimate.total <= usable:
        return
    if estimate_at is not None:
        lo, hi = 0, int(value)  # estimate_at(lo) fits (or lo = 0), estimate_at(hi) does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if estimate_at(mid).total <= usable else (lo, mid)
        fits: float = lo
    else:  # shrink the largest term into the room the others leave
        room = max(usable - BASELINE_BYTES - (estimate.total - BASELINE_BYTES - estimate.largest), 0.0)
        fits = value * (room / max(estimate.largest, 1)) ** (1.0 / scaling)
    flag = f"`{param}`"  # the CLI spells it as its flag
    needs = f"this run needs ≈ {_gb(estimate.total)} (mostly {estimate.what}: {_gb(estimate.largest)}), more than the "
    if fits < 1:
        raise BudgetExceeded(param, needs + f"{_gb(free)} this machine has available, at any {flag}; free memory")
    fits_text = f"{math.floor(fits):d}" if float(value).is_integer() else f"{fits:.3g}"
    raise BudgetExceeded(
        param,
        needs + f"{_gb(free)} this machine has available; use {flag} ≤ {fits_text} "
        f"({_growth(scaling)}) or run it on a larger machine",
    )


def check_steps(steps: float, max_steps: int, eta: float, t_max: float, *, chosen: bool) -> None:
    """Refuse a GD run of more than ``max_steps`` steps (``t_max/η``) before it starts."""
    if steps <= max_steps:
        return
    least = t_max / max_steps
    if chosen:
        raise BudgetExceeded(
            "max_steps",
            f"the step chosen for a ≤ 1 % error on T_spec, eta = {eta:.3g}, needs {_count(steps)} steps to "
            f"t_max = {t_max:.4g}, over the budget of {_count(max_steps)}; raise `max_steps`, shorten `t_max`, "
            "or use `mode` flow",
        )
    raise BudgetExceeded(
        "eta",
        f"eta = {eta:g} needs {_count(steps)} steps to reach t_max = {t_max:.4g}, over the budget of `max_steps` "
        f"{_count(max_steps)}; use `eta` ≥ {least:.4g}, a shorter `t_max`, a larger `max_steps`, or `mode` flow",
    )


def check_run(
    kind: str,
    *,
    members: int,
    m: int,
    r: int,
    d: int,
    grid_points: int,
    n: int | None = None,
    t_max: float | None = None,
    eta: float | None = None,
    max_steps: int | None = None,
    batch_size: int | None = None,
    width_flag: str = "m",
    members_per_width: bool = False,
    available: int | None = None,
) -> MemoryEstimate:
    """Check a run before it starts: ``kind`` is ``"flow"`` (population flow in ``r = dim S``
    coordinates), ``"descent"`` (population GD, or SGD on fresh batches, in ``r`` coordinates) or
    ``"sample"`` (any dynamics on a fixed sample of ``n`` points in ``R^d``); a given step ``eta``
    must reach ``t_max`` within ``max_steps`` (``None``: no step budget); an SGD ``batch_size`` must fit. A refusal for
    memory names the parameter ``width_flag``; ``members_per_width``: the ensemble has one member per
    neuron (the owner sweep's m designations), so both grow with the width. Returns the memory
    estimate."""
    if eta is not None and t_max is not None and max_steps is not None:
        check_steps(math.ceil(t_max / eta), max_steps, eta, t_max, chosen=False)
    if batch_size is not None:
        check_memory(
            batch_memory(members, m, d, batch_size),
            "batch_size",
            1.0,
            float(batch_size),
            available=available,
            estimate_at=lambda b: batch_memory(members, m, d, b),
        )
    if kind == "sample":
        estimate = sample_memory(members, m, d, int(n or 0), grid_points)
        check_memory(estimate, "n_samples", 1.0, float(n or 0), available=available)
        return estimate

    def at(width: int) -> MemoryEstimate:
        count = width if members_per_width else members
        if kind == "descent":
            return descent_memory(count, width, r, d, grid_points, stable_bound=True)
        return population_flow_memory(count, width, r, d, grid_points)

    estimate = at(m)
    scaling = 3.0 if members_per_width else 2.0
    check_memory(estimate, width_flag, scaling, float(m), available=available, estimate_at=at)
    return estimate


def check_flow(shape: tuple[int, ...], grid_points: int, available: int | None = None) -> MemoryEstimate:
    """Check a flow of :func:`gaugecli.core.integrate.flow.gradient_flow` from input weights shaped
    ``(..., m, r)`` — ``prod(...)`` members of ``m`` neurons in ``r`` coordinates — before its solver
    allocates its Jacobian. Every caller of the flow asks this first: the core reads no memory.
    ``available``: the bytes the process can still allocate, where the caller has just read them."""
    *batch, m, r = shape
    return check_run("flow", members=math.prod(batch), m=m, r=r, d=r, grid_points=grid_points, available=available)
