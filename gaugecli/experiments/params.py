"""Every parameter of every experiment, declared once: range, default, help and ``--help`` panel.

One :class:`~gaugecli.experiments.declare.Fields` class per config dataclass, one attribute per
field. The configs take their defaults from here and check their fields with ``X.check(self)``;
the command line builds every option (flag, help with its range, default, panel, the check at
parse time) from the same attributes, and docs/cli.md is generated from the command line. A
parameter used by several experiments is declared once and specialised with ``.but(...)``
(another default or a tighter bound). Stdlib only: ``--help`` and a refused value answer before
numpy is imported.
"""

from __future__ import annotations

import math
from enum import Enum

from gaugecli.core.activations import REGISTRY as ACTIVATION_REGISTRY
from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.tolerance import POPULATION_RTOL, SAMPLE_RTOL
from gaugecli.experiments.declare import Fields, Param, number

MODEL, DYNAMICS, NUMERICS, EXPERIMENT = "Model", "Dynamics", "Numerics", "Experiment"
"""The ``--help`` panels of the declared parameters (Output and Execution are the CLI's own)."""


class Mode(str, Enum):
    """Dynamics of SPEC §1 and §6.

    ``flow``: population gradient flow (the reference); ``gd``: GD on the population loss;
    ``sample``: gradient flow on the empirical loss ``L_n`` (same adaptive solver and
    event-located ``T_spec`` as ``flow``, so its deviation from ``flow`` is sampling alone);
    ``sample-gd``: full-batch GD on ``L_n``; ``sgd``: minibatch SGD (fresh batches from the
    population, or batches resampled from a fixed sample of ``n``)."""

    flow = "flow"
    gd = "gd"
    sample = "sample"
    sample_gd = "sample-gd"
    sgd = "sgd"

    @property
    def stochastic(self) -> bool:
        """Depends on a seed (a sample or a batch stream)."""
        return self in (Mode.sample, Mode.sample_gd, Mode.sgd)

    @property
    def stepped(self) -> bool:
        """A step η (GD or SGD) rather than an adaptive flow solver."""
        return self in (Mode.gd, Mode.sample_gd, Mode.sgd)


# -- the bounds, and why they are where they are ------------------------------------------------
C0_RANGE = (1e-6, 1e6)
"""The initial coefficients the numerics honour (d = 16, ±D, D = 4). Above: δ = a² − ‖w‖² is a
difference of two numbers of size ~c0, so its drift grows like ε_machine·c0 — measured 3e-9 at
c0 = 1e6, 3e-8 at 1e8, 3e-4 at 1e12 and O(1) at 1e15 (C2 asks ≤ 1e-8). Below: the favorable
neuron's ‖w‖ ≈ c0/√D nears the absolute tolerance 1e-13, and T_spec (∝ c0) loses digits — off by
1e-3 at c0 = 1e-10 and 1 % at 1e-12; at 1e-6 it scales exactly (≤ 4e-6)."""
MAX_GAUGE_STRENGTH = 1e6
"""The largest |δ| (gauge strength D or explicit δ) the numerics honour (d = 16, c0 = 0.1): the
unfavorable run's final loss is 1e-14 at D = 1e6 but 1e-12 at 1e8 and 1e-5 at 1e15 (its gradient
∝ 1/D meets the stopping tolerance first), and T_spec(+D) ∝ 1/D is off by 2 % at D = 1e15."""
HORIZON_RANGE = (1e-9, 1e14)
"""The horizons ``t_max`` a run honours. Below: the fastest rate in the model is the favorable
neuron's ``~2D ≤ 2e6`` (D ≤ :data:`MAX_GAUGE_STRENGTH`), so in 1e-9 no state moves by more than
~1e-3 of itself (and at 1e-300 the declared grid reaches subnormal times: the flow stalled for 14 s,
then failed). Above: the automatic horizon (``auto_horizon``) is at most 2e13 (D = 1e6,
c0 = 1e-6); at 1e300 the solver used its whole gradient budget (28 s) and failed."""
MIN_RTOL = 1e-13
"""The tightest flow tolerance: scipy's solvers raise anything below 100 ε_machine ≈ 2.2e-14 to that
floor (with a warning), so a smaller request would silently not be met; 1e-13 is the tightest
decade above it (measured at d = 16, ±D: T_spec agrees with rtol 1e-12 to 1e-12, δ drift ≤ 4e-13)."""
MIN_EPS = 1e-12
"""The smallest perturbation ``eps`` of the duplicates. Below it the perturbation competes with
round-off: all −D duplicates at m = 5, D = 4, perturbed by ε and run alone or in one batch (same
starts, other arithmetic), gave other winners and T_spec 37 % apart at ε = 1e-16, the same winners
and T_spec within 2e-3 at 1e-14 and 5e-5 at 1e-12 (measured; the last is the solver's tolerance)."""
MAX_WEIGHT_DECAY = 1e3
"""The largest weight decay λ: at 1e3 every neuron decays by e^{−λt} within t ~ 1e-3, long before the
loss can move it (the model's slowest rates are O(1/D)), so a larger λ has nothing left to measure."""
DEFAULT_NEGATIVE_SLOPE = 0.01
"""leaky-relu's slope β when ``negative_slope`` is not given: that of ``torch.nn.LeakyReLU``."""
DEFAULT_N_SAMPLES = 10_000
DEFAULT_MAX_STEPS = 10_000_000
"""The default step budget of gradient descent (``max_steps``): ~10 min of population GD at m ≤ 5."""
DEFAULT_BATCH_SIZE = 100
DEFAULT_DEVICE = "auto"
"""Where the finite-sample modes run their torch work when ``device`` is not given: a CUDA
GPU if torch sees one, else the CPU (results agree to round-off)."""
INITS = ("duplicates", "random", "adversarial", "gaussian")
DEVICES = ("cpu", "cuda", "auto")
BATCHES = ("fresh", "resampled")
ASSIGNMENTS = ("select", "reversed", "all-plus", "all-minus")
"""Gauge assignments of lockin's m duplicates: ``select`` one +D (the owner) among −D,
``reversed`` one −D among +D, ``all-plus`` / ``all-minus`` every neuron at ±D."""
PERTURB_SWEEPS = ("visible", "step", "samples", "selection")
"""``gaugecli perturb``'s four sweeps, (a) to (d) of C8 (:mod:`gaugecli.experiments.perturb`)."""
MAX_SUCCESS_HORIZON = 1000.0
"""Longest horizon of perturb's selection-vs-n runs, in units of T_spec^flow (the default is 25)."""
MIN_PSI_STEP = 0.1
"""Finest step of reln's gate-angle grid, in degrees (901 angles; 1e-7° asked for 10⁹)."""
PRUNE_SWEEP_DELTAS: tuple[float, ...] = (
    -4.0,
    -3.0,
    -2.0,
    -1.0,
    -0.5,
    -0.25,
    -0.1,
    0.0,
    0.1,
    0.25,
    0.5,
    1.0,
    2.0,
    3.0,
    4.0,
)
"""The non-owner's δ in prune's boundary sweep (owner at ``+coalign_strength``, default 4), denser
near 0. Closer to 0 from below the pruning time ≈ 3.3/|δ| exceeds the default horizon 200(1 + 4)."""

# -- parameters several experiments share -------------------------------------------------------
GAUGE_STRENGTH = Param(
    "gauge_strength",
    "Gauge strength D (units of a*²‖v‖²)",
    MODEL,
    4.0,
    low=0.0,
    high=MAX_GAUGE_STRENGTH,
    open_low=True,
    short="-D",
    metavar="D",
    why_high="beyond it the flow stops on its gradient tolerance before the loss is resolved",
)
STRENGTHS = GAUGE_STRENGTH.but(plural=True, help="Gauge strengths D (units of a*²‖v‖²), e.g. -D 4,16")
DELTAS = Param(
    "deltas",
    "Per-neuron δ, e.g. 2,-1,0.5 (fixes m; the owner is argmax δ)",
    MODEL,
    None,
    low=-MAX_GAUGE_STRENGTH,
    high=MAX_GAUGE_STRENGTH,
    plural=True,
    metavar="δ1,δ2,…",
    why_low=GAUGE_STRENGTH.why_high,
    why_high=GAUGE_STRENGTH.why_high,
)
NEURONS = Param("m", "Number of student neurons m", MODEL, 1, int, low=1)
OWNER = Param("owner", "Designated owner o ∈ [0, m−1]: it gets +D, the others −D", MODEL, 0, int, low=0)
SEEDS = Param(
    "seeds",
    "Seeds of the sample or batch stream, one run each (sample, sample-gd, sgd)",
    DYNAMICS,
    None,
    int,
    low=0,
    plural=True,
    distinct=True,  # a repeated seed repeats its run: a share or interval would count it twice
    metavar="S1,S2,…",
)
WIDTHS = Param("ms", "Widths m", EXPERIMENT, (2, 5), int, low=2, plural=True, metavar="M1,M2,…")
RTOL = Param(
    "rtol",
    "Relative tolerance of the population flow solver",
    NUMERICS,
    POPULATION_RTOL,
    low=MIN_RTOL,
    high=1e-2,
    open_high=True,
    why_low="below it the solver cannot meet it in float64",
)


class Model(Fields):
    """:class:`~gaugecli.experiments.config.ModelConfig`: teacher, activation, weight decay, initial function, alignment."""

    d = Param("d", "Input dimension d", MODEL, 16, int, low=2)
    k = Param("k", "Number of teacher features k", MODEL, 1, int, low=1)
    activation = Param(
        "activation",
        "Activation σ of student and teacher",
        MODEL,
        "relu",
        str,
        choices=tuple(ACTIVATION_REGISTRY),
        metavar="NAME",
    )
    teacher_activation = Param(
        "teacher_activation",
        "The teacher's activation τ, of the student's family: relu, leaky-relu, linear or relu2, square",
        MODEL,
        None,
        str,
        choices=tuple(ACTIVATION_REGISTRY),
        metavar="NAME",
        default_text="the student's",
    )
    negative_slope = Param(
        "negative_slope",
        "leaky-relu's slope β for z < 0 (student's and teacher's)",
        MODEL,
        None,
        low=0.0,
        high=1.0,
        metavar="β",
        default_text=number(DEFAULT_NEGATIVE_SLOPE),
        why_high="beyond 1 the negative side is the steeper one: that is −β times the leaky-relu of slope 1/β",
    )
    weight_decay = Param(
        "weight_decay",
        "Weight decay λ: the objective gains (λ/2)(a² + ‖w‖²) per neuron",
        MODEL,
        0.0,
        low=0.0,
        high=MAX_WEIGHT_DECAY,
        metavar="λ",
        why_high="beyond it every neuron decays to 0 before the loss can move it",
    )
    c0 = Param(
        "c0",
        "Initial coefficient c0 of f0 = c0 σ(u0·x)",
        MODEL,
        C0,
        low=C0_RANGE[0],
        high=C0_RANGE[1],
        why_low="below it the neurons' weights approach the solver's absolute tolerance",
        why_high="above it δ = a² − ‖w‖² is a difference of numbers ~c0, lost to round-off",
    )
    theta0 = Param(
        "theta0",
        "Initial angle θ0 to the teacher",
        MODEL,
        THETA0,
        low=0.0,
        high=math.pi,
        open_high=True,
        high_text="π",
        default_text=f"π/2 = {THETA0:.6g}",
    )
    eps_align = Param(
        "eps_align",
        "Alignment threshold ε: α ≥ 1 − ε counts as aligned",
        MODEL,
        EPS_ALIGN,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )


class Dynamics(Fields):
    """:class:`~gaugecli.experiments.config.DynamicsConfig`: how the network moves. A default of
    ``None`` is "not given": the mode's default applies, and an option without effect is refused."""

    mode = Param(
        "mode",
        "flow: population gradient flow; gd: GD on the population loss; sample: gradient flow on the "
        "empirical loss L_n; sample-gd: full-batch GD on L_n; sgd: minibatch SGD",
        DYNAMICS,
        Mode.flow,
        Mode,
        choices=tuple(m.value for m in Mode),
    )
    eta = Param(
        "eta",
        "GD/SGD step η",
        DYNAMICS,
        None,
        low=0.0,
        open_low=True,
        default_text="chosen so that the T_spec error is ≤ 1 %",
    )
    n_samples = Param(
        "n_samples",
        "Sample size n (sample, sample-gd, resampled sgd)",
        DYNAMICS,
        None,
        int,
        low=1,
        default_text=str(DEFAULT_N_SAMPLES),
    )
    batch_size = Param(
        "batch_size", "SGD minibatch size B", DYNAMICS, None, int, low=1, default_text=str(DEFAULT_BATCH_SIZE)
    )
    batches = Param(
        "batches",
        "SGD batches: fresh (new Gaussian points each step) or resampled (from a fixed sample of `n_samples`)",
        DYNAMICS,
        None,
        str,
        choices=BATCHES,
        default_text="resampled with `n_samples`, else fresh",
    )
    t_max = Param(
        "t_max",
        "Horizon t",
        DYNAMICS,
        None,
        low=HORIZON_RANGE[0],
        high=HORIZON_RANGE[1],
        default_text="until convergence",
        why_low="shorter, nothing moves",
        why_high="longer than any run needs to converge",
    )
    rtol = RTOL.but(
        help="Relative tolerance of the flow solver (flow and sample)",
        default=None,
        default_text=f"{number(POPULATION_RTOL)} flow, {number(SAMPLE_RTOL)} sample",
    )
    max_steps = Param(
        "max_steps",
        "Step budget of gd, sample-gd and sgd: a run needing more steps (`t_max`/η) is refused before it starts",
        NUMERICS,
        None,
        int,
        low=1,
        default_text=number(float(DEFAULT_MAX_STEPS)),
    )
    device = Param(
        "device",
        "Where the finite-sample torch work runs (sample, sample-gd, sgd): cpu, cuda, or auto "
        "(a CUDA GPU if torch sees one, else the CPU)",
        NUMERICS,
        None,
        str,
        choices=DEVICES,
        default_text=DEFAULT_DEVICE,
    )


FLOW_RTOL = Dynamics.rtol.but(
    help="Relative tolerance of the population flow solver (the finite-sample rows keep their own)",
    default_text=number(POPULATION_RTOL),
)
"""``--rtol`` of the commands whose sweeps set their own modes (prune, perturb, lockin): the same
field and range as every dynamics' ``rtol``, read as the population flow's only."""


class Initial(Fields):
    """The initial condition shared by ``simulate`` and ``select``."""

    init = Param(
        "init",
        "Initial condition: duplicates (m copies of u0, c0/m each; SPEC §1), random "
        "(seeded random unit directions, c0/m each), adversarial (the duplicates turned by `eps` against "
        "selection, as `perturb --kind adversarial`: argmax δ to θ0 + ε with (c0/m)e^(−ε), the others to "
        "θ0 − ε with (c0/m)e^(ε)) or gaussian (a practitioner's draw, a_j = |N(0, σ_a²)|, w_j ~ N(0, σ_w² I/d), "
        "seeded by `init_seed`: its function, with the gauge given, or its own δ with `gauge` natural; a drawn "
        "start reads no `c0` or `theta0` (random: no `theta0`), and `gauge` natural no D)",
        MODEL,
        "duplicates",
        str,
        choices=INITS,
    )
    eps = Param(
        "eps",
        "Make the duplicates visibly different: u_j ∝ u0 + ε ξ_j, c_j = (c0/m) e^(ε ζ_j), ξ, ζ Gaussian "
        "(seeded by `init_seed`); with `init` adversarial, the angle ε of the adversarial turn",
        MODEL,
        None,
        low=MIN_EPS,
        high=1.0,
        why_low="a smaller perturbation is at round-off, where the arithmetic, not ε, picks the winner",
    )
    init_seed = Param(
        "init_seed",
        "Seed of `init` random or gaussian, or of the `eps` perturbation",
        MODEL,
        None,
        int,
        low=0,
        default_text="0",
    )
    init_scale_a = Param(
        "init_scale_a",
        "σ_a of the output weights: |a_j| with a_j ~ N(0, σ_a²) (`init` gaussian)",
        MODEL,
        None,
        low=1e-3,
        high=10.0,
        metavar="σ_a",
        default_text="0.3",
        why_low="below it the run's horizon (∝ 1/(σ_a σ_w)) is impractically long",
    )
    init_scale_w = init_scale_a.but(
        name="init_scale_w", help="σ_w of the input weights: w_j ~ N(0, σ_w² I/d) (`init` gaussian)", metavar="σ_w"
    )
    mixed_signs = Param(
        "mixed_signs",
        "Keep each output weight's drawn sign, a_j ~ N(0, σ_a²), instead of |a_j| (`init` gaussian); a neuron "
        "with a_j < 0 < δ_j may be absorbed at w = 0 and leave it again (population flow, ReLU)",
        MODEL,
        False,
        bool,
    )


class Simulate(Initial):
    """:class:`~gaugecli.experiments.simulate.SimulateConfig`."""

    gauge = Param(
        "gauge",
        "favorable | unfavorable | balanced, natural (the draw's own δ, with `init` gaussian), or a signed number "
        "(an explicit δ)",
        MODEL,
        "favorable",
        str,
        metavar="GAUGE",
    )
    strengths = STRENGTHS.but(default=(4.0,))
    m = NEURONS.but(help="Number of student neurons m (all in the same gauge)")
    deltas = DELTAS
    seed = SEEDS.but(
        name="seed",
        plural=False,
        help="Seed of the sample or batch stream (sample, sample-gd, sgd)",
        metavar=None,
        flag="--seeds",  # the command takes --seeds, one run each (--seed is its alias)
    )


class Select(Initial):
    """:class:`~gaugecli.experiments.select.SelectConfig`."""

    m = NEURONS.but(default=5, help="Number of duplicates m")
    strength = GAUGE_STRENGTH
    owner = OWNER
    deltas = DELTAS
    seeds = SEEDS


class OwnerSweep(Fields):
    """:class:`~gaugecli.experiments.select.OwnerSweepConfig` (``select --sweep``)."""

    ms = WIDTHS.but(default=(2, 3, 4, 5, 6, 7, 8), help="Widths m of `sweep`")
    strength = GAUGE_STRENGTH
    seeds = SEEDS


class Prune(Fields):
    """:class:`~gaugecli.experiments.prune.PruneConfig`."""

    strengths = STRENGTHS.but(default=(1.0, 4.0, 16.0, 64.0, 256.0))
    ms = WIDTHS
    sample = Param("sample", "Also run the finite-sample rows (gradient flow on L_n)", EXPERIMENT, True, bool)
    n_samples = Dynamics.n_samples.but(help="Sample size n of the finite-sample rows", panel=EXPERIMENT)
    seeds = SEEDS.but(help="Seeds of the finite-sample rows, one run each")
    coalign_strength = GAUGE_STRENGTH.but(
        name="coalign_strength",
        short=None,
        metavar=None,
        panel=EXPERIMENT,
        help="D of the co-alignment contrast (m = 3; non-owners at −D, pruned, or +D/2, co-aligned)",
    )
    sweep_deltas = Param(
        "sweep_deltas",
        "The non-owner's δ in the boundary sweep (m = 2, owner at +`coalign_strength`); each ≤ that δ",
        EXPERIMENT,
        PRUNE_SWEEP_DELTAS,
        low=-MAX_GAUGE_STRENGTH,
        high=MAX_GAUGE_STRENGTH,
        plural=True,
        metavar="δ1,δ2,…",
    )


class Perturb(Fields):
    """:class:`~gaugecli.experiments.perturb.PerturbConfig`: the four sweeps of claim C8."""

    m = NEURONS.but(default=2, low=2, help="Number of neurons m (neuron 0 favorable)")
    eps = Param(
        "eps",
        "Perturbation sizes ε: angles below π − θ0 (adversarial) or any size (random)",
        EXPERIMENT,
        (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.56),
        low=0.0,
        plural=True,
        metavar="LIST",
    )
    strengths = STRENGTHS.but(default=(1.0, 4.0, 16.0, 64.0, 256.0, 1024.0))
    kind = Param(
        "kind",
        "Perturbations: adversarial (deterministic, the favorable neuron turned away by ε) or random (seeded)",
        EXPERIMENT,
        "adversarial",
        str,
        choices=("adversarial", "random"),
    )
    seeds = SEEDS.but(default=tuple(range(8)), help="Seeds of the random perturbations (`kind` random)")
    step_strength = GAUGE_STRENGTH.but(
        name="step_strength", short=None, metavar=None, panel=EXPERIMENT, help="D of the step-size sweep"
    )
    step_fractions = Param(
        "step_fractions",
        "GD steps η as fractions of T_spec^flow (at least three: a fit)",
        EXPERIMENT,
        (0.00125, 0.0025, 0.005, 0.01, 0.02, 0.04),
        low=0.0,
        high=0.1,
        open_low=True,
        plural=True,
        min_items=3,
        metavar="LIST",
        why_high="η/T_spec^flow ≤ 0.1 keeps ≥ 10 steps before T_spec, where the error is first order",
    )
    stability_fractions = Param(
        "stability_fractions",
        "GD steps as fractions of the stability bound 2/λ_max: does selection survive large steps (> 1 diverges)?",
        EXPERIMENT,
        (0.1, 0.3, 0.6, 0.9, 1.2, 1.5),
        low=0.0,
        open_low=True,
        plural=True,
        min_items=0,
        metavar="LIST",
    )
    sample_strength = step_strength.but(name="sample_strength", help="D of the sample-size sweep")
    ns = Param(
        "ns",
        "Sample sizes n of the finite-sample flows (at least two)",
        EXPERIMENT,
        (500, 1000, 2000, 4000, 8000, 16000, 32000),
        int,
        low=1,
        plural=True,
        min_items=2,
        metavar="LIST",
    )
    sample_seeds = SEEDS.but(
        name="sample_seeds",
        default=tuple(range(10)),
        panel=EXPERIMENT,
        min_items=2,
        help="Seeds per sample size (at least two: error bars)",
    )
    window = Param(
        "window", "Horizon of the sample sweep, in units of T_spec^flow", EXPERIMENT, 3.0, low=0.0, open_low=True
    )
    sample_gd = Param("sample_gd", "Also check the sample sweep with GD on L_n at η and η/2", EXPERIMENT, False, bool)
    success_ns = ns.but(
        name="success_ns",
        default=(16, 24, 32, 48, 64, 96, 128),
        min_items=1,
        help="Sample sizes of the selection-vs-n sweep",
    )
    success_seeds = SEEDS.but(
        name="success_seeds", default=tuple(range(20)), panel=EXPERIMENT, help="Seeds per size of the selection sweep"
    )
    success_horizon = Param(
        "success_horizon",
        "Horizon of the selection sweep, in units of T_spec^flow",
        EXPERIMENT,
        25.0,
        low=0.0,
        high=MAX_SUCCESS_HORIZON,
        open_low=True,
        why_high="selection is decided within a few T_spec, and each unit costs solver steps at every n and seed",
    )
    refine = Param("refine", "Bisection steps that locate the ε boundary of selection", EXPERIMENT, 8, int, low=0)
    sweeps = Param(
        "sweeps",
        "The sweeps to run: visible (ε × D), step (GD η), samples (n, the flow on L_n), selection (against n)",
        EXPERIMENT,
        PERTURB_SWEEPS,
        str,
        choices=PERTURB_SWEEPS,
        plural=True,
        distinct=True,
        metavar="LIST",
    )


class Lockin(Fields):
    """:class:`~gaugecli.experiments.lockin.LockinConfig`."""

    m = NEURONS.but(default=5, low=2, help="Number of duplicates m")
    owner = OWNER.but(help="The neuron o ∈ [0, m−1] that select gives +D (reversed: −D)")
    strengths = STRENGTHS.but(
        default=(4.0, 16.0),
        help="Gauge strengths D of the flow runs (the first also sets the finite-sample runs and the scans)",
    )
    assignments = Param(
        "assign",
        "Gauge assignments of the flow runs (select required)",
        EXPERIMENT,
        ASSIGNMENTS,
        str,
        choices=ASSIGNMENTS,
        plural=True,
        metavar="LIST",
    )
    control = Param("control", "Also run the aligned control (select started at θ0 = 0)", EXPERIMENT, True, bool)
    per = Param("per", "Epochs per T_spec (the epoch is T_spec/per)", EXPERIMENT, 200, int, low=2)
    span = Param("span", "Horizon in units of T_spec", EXPERIMENT, 5.0, low=1.0)
    window = Param("window", "Xu's detector: updates per windowed Gram matrix", EXPERIMENT, 20, int, low=3)
    lag = Param("lag", "Xu's detector: epochs of the log-gap slope", EXPERIMENT, 25, int, low=1)
    threshold = Param("threshold", "Xu's detector fires where the log-gap slope exceeds this", EXPERIMENT, 0.04)
    burn_in = Param("burn_in", "Xu's detector: first epoch at which it may fire", EXPERIMENT, 100, int, low=0)
    floor = Param(
        "floor",
        "Round-off floor of the floored detector: λ3 ← max(λ3, floor·λ1)",
        EXPERIMENT,
        1e-10,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )
    ridge = Param(
        "ridge", "Tian's ridge η relative to the features' mean variance", EXPERIMENT, 1e-3, low=0.0, open_low=True
    )
    seeds = SEEDS.but(default=(0, 1, 2), help="Seeds of the finite-sample runs and the perturbation scan")
    n_samples = Dynamics.n_samples.but(
        default=DEFAULT_N_SAMPLES,
        low=2,
        default_text=None,
        panel=EXPERIMENT,
        help="Sample size n of the finite-sample runs",
    )
    steps_per_unit = Param(
        "steps_per_unit", "ReLU finite sample: at least this many GD steps per T_spec", EXPERIMENT, 200, int, low=1
    )
    quadratic = Param(
        "x2",
        "Add the σ = x² finite-sample runs (Xu's contrast; ≈ 20 s; on by default, as in the lockin figure)",
        EXPERIMENT,
        True,
        bool,
    )
    quadratic_step_fraction = Param(
        "x2_step_fraction",
        "σ = x² GD step as a fraction of the stable step",
        EXPERIMENT,
        0.2,
        low=0.0,
        high=1.0,
        open_low=True,
        open_high=True,
    )
    scan_strengths = STRENGTHS.but(
        name="scan_strengths",
        default=(1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
        short=None,
        metavar="LIST|none",
        panel=EXPERIMENT,
        min_items=0,
        help="D of the rank-2 collapse scan (none: skip)",
    )
    scan_pers = Param(
        "scan_pers",
        "Epochs per T_spec of the resolution scan (none: skip)",
        EXPERIMENT,
        (50, 100, 200, 400, 800),
        int,
        low=2,
        plural=True,
        min_items=0,
        metavar="LIST|none",
    )
    scan_eps = Param(
        "scan_eps",
        "Sizes ε of the perturbations of the duplicates, one draw per seed (none: skip)",
        EXPERIMENT,
        (1e-16, 1e-13, 1e-10, 1e-7, 1e-4),
        low=0.0,
        high=1.0,
        open_low=True,
        plural=True,
        min_items=0,
        metavar="LIST|none",
    )
    store_every = Param("store_every", "Keep every k-th epoch in the stored series", EXPERIMENT, 4, int, low=1)


class Reln(Fields):
    """:class:`~gaugecli.experiments.reln.RelnConfig` (population flow only)."""

    strengths = STRENGTHS.but(
        default=(1.0, 4.0, 16.0, 64.0), help="Gauge strengths D of the m = 1 comparisons (each run at +D and −D)"
    )
    m = NEURONS.but(default=5, low=2, help="Neurons m of the select comparison")
    select_strength = GAUGE_STRENGTH.but(
        name="select_strength",
        short=None,
        metavar=None,
        panel=EXPERIMENT,
        help="Gauge strength D of the select comparison",
    )
    owner = OWNER.but(help="Designated owner o ∈ [0, m−1] of the select comparison: +D, others −D")
    restart = Param(
        "restart",
        "Restart times t0 in units of the ReLU run's T_spec",
        EXPERIMENT,
        (0.5, 1.0, 2.0, 5.0),
        low=0.0,
        high=100.0,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    levels = Param(
        "levels",
        "Loss-reduction factors a restarted ReLN must reach: L(t0)/factor",
        EXPERIMENT,
        (10.0, 100.0),
        low=1.0,
        high=1e8,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    envelope_levels = Param(
        "envelope_levels",
        "Loss levels ℓ of the fixed-gate envelope",
        EXPERIMENT,
        (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002),
        low=0.0,
        open_low=True,
        plural=True,
        metavar="LIST",
    )
    psi_step = Param(
        "psi_step",
        "Step of the envelope's gate angles ψ ∈ [0°, 90°], in degrees",
        EXPERIMENT,
        2.0,
        low=MIN_PSI_STEP,
        high=45.0,
    )


PHASE_KINDS = ("simulate", "select")
PHASE_METRICS = (
    "t-spec",
    "ratio",
    "owner-share",
    "p-end",
    "outcome",
    "reaction-share",
    "gap",
    "kernel-distance",
    "exponent",
    "constant",
    "owner-probability",
)
"""The metrics of ``gaugecli phase`` (:mod:`gaugecli.experiments.phase.metrics` defines each)."""
PHASE_PRESETS = ("outcomes", "robustness", "sensitivity", "rich-lazy")
MAX_AXIS_POINTS = 129
"""The most values one axis of ``gaugecli phase`` takes (a 129 × 129 map is 16 641 runs)."""


class Phase(Fields):
    """:class:`~gaugecli.experiments.phase.PhaseConfig` (its two axes are parsed by
    :func:`~gaugecli.experiments.phase.axes.parse_axis`)."""

    kind = Param(
        "kind",
        "The command each cell runs: simulate (the ±D pair) or select (m neurons)",
        EXPERIMENT,
        "simulate",
        str,
        choices=PHASE_KINDS,
    )
    x = Param(
        "x",
        "Horizontal axis NAME=START:STOP:NUM[:log], NAME a numeric option of the command without its dashes",
        EXPERIMENT,
        "gauge-strength=1:64:7:log",
        str,
        metavar="NAME=START:STOP:NUM[:log]",
    )
    y = x.but(name="y", help="Vertical axis NAME=START:STOP:NUM[:log], as `x`", default="c0=0.01:0.5:5:log")
    metrics = Param(
        "metric",
        "What each cell records",
        EXPERIMENT,
        ("t-spec",),
        str,
        choices=PHASE_METRICS,
        plural=True,
        metavar="NAME",
    )
    m = NEURONS.but(default=None, default_text="1 (simulate), 5 (select)", help="Number of student neurons m")
    preset = Param(
        "preset",
        "A map referees asked for: its kind, axes, metrics and width (options given override it)",
        EXPERIMENT,
        None,
        str,
        choices=PHASE_PRESETS,
    )
    limit_strengths = STRENGTHS.but(
        name="limit_strengths",
        flag="--limit-d",
        short=None,
        min_items=2,
        default=(16.0, 64.0),
        panel=EXPERIMENT,
        metavar="D1,D2,…",
        help="Large gauge strengths D (increasing, at least two) at which the metrics exponent and constant "
        "run each cell's ±D pair",
    )
    seeds = SEEDS.but(
        panel=EXPERIMENT,
        help="Seeds of the cells' random draws (the `eps` or random start, the sample or batch stream): "
        "every cell runs once per seed and each metric is the mean over them",
    )


PREDICTORS = ("delta", "alignment", "c-alpha", "angular-speed", "race", "race-matched")
"""The rules of ``gaugecli predict`` (:mod:`gaugecli.experiments.predict.predictors` defines each)."""
MAX_PREDICT_WIDTH = 64
"""The most neurons per feature (``m/k``) of ``gaugecli predict``: each run is a flow of ``m (k + m + 1)``
unknowns (in the invariant subspace), so its cost grows like ``m³`` at least."""
MAX_PREDICT_SAMPLES = 100_000
"""The largest sample of ``gaugecli predict --n-samples``: a chunk of 50 flows on ``L_n`` costs ≈ 5–7 s
on one core at n ≤ 1000 (d = 16, m = 4, natural δ), and the cost of a gradient grows with n."""
MAX_PREDICT_FEATURES = 8
"""The most teacher features of ``gaugecli predict`` (``d ≥ k + 1``; each adds a column to every run)."""


class Predict(Fields):
    """:class:`~gaugecli.experiments.predict.PredictConfig`: which neuron owns each feature from a
    random Gaussian start, against what each predictor names (population flow, ReLU)."""

    ks = Param(
        "ks",
        "Teacher features k of the study (each its own cells)",
        EXPERIMENT,
        (1, 2, 3),
        int,
        low=1,
        high=MAX_PREDICT_FEATURES,
        plural=True,
        metavar="K1,K2,…",
    )
    widths = Param(
        "widths",
        "Neurons per feature m/k (a cell has m = width·k neurons)",
        EXPERIMENT,
        (1, 8),
        int,
        low=1,
        high=MAX_PREDICT_WIDTH,
        plural=True,
        metavar="W1,W2,…",
        why_high="each run is a flow of m(k + m + 1) unknowns; wider runs cost minutes each",
    )
    spreads = Param(
        "spreads",
        "δ-spread ratios ρ = σ_δ/σ_vis: δ_j ~ N(0, ρ² σ_vis²) beside the visible draw, σ_vis = σ_a σ_w/√d "
        "the standard deviation of c_j α_jk(0)",
        EXPERIMENT,
        (0.0, 10.0, 100.0),
        low=0.0,
        high=1e4,
        plural=True,
        min_items=0,
        metavar="ρ1,ρ2,…",
        why_high="beyond it the largest |δ| makes the flow's horizon (∝ 1 + max|δ|) impractically long",
    )
    natural = Param(
        "natural",
        "Also run each cell with δ as the Gaussian draw gives it (δ_j = a_j² − ‖w_j‖²)",
        EXPERIMENT,
        True,
        bool,
    )
    runs = Param("runs", "Random starts (seeds) per cell", EXPERIMENT, 30, int, low=2, high=100_000)
    n_samples = Param(
        "n_samples",
        "Sample sizes n: every cell is also trained by gradient flow on the empirical loss L_n of n Gaussian "
        "inputs, a sample of its own per seed (none by default: the population flow only); each such cell runs "
        "to the cell's horizon, long at large ρ (ρ = 100: minutes per chunk of 50 seeds)",
        EXPERIMENT,
        (),
        int,
        low=2,
        high=MAX_PREDICT_SAMPLES,
        plural=True,
        min_items=0,
        distinct=True,
        metavar="N1,N2,…",
        why_high="each run is a flow on L_n in d dimensions to the cell's horizon; larger n cost minutes per chunk",
    )
    sgd_batch = Param(
        "sgd_batch",
        "Minibatch size B: every finite-sample cell is also trained by SGD on its samples (batches resampled "
        "every epoch, seeded by the run's seed), step --sgd-eta; none by default",
        EXPERIMENT,
        None,
        int,
        low=1,
        metavar="B",
    )
    sgd_eta = Param(
        "sgd_eta",
        "Step size η of the SGD cells (run to the cell's horizon: ⌈t_max/η⌉ steps)",
        EXPERIMENT,
        0.1,
        low=1e-4,
        high=1.0,
        open_low=False,
        why_low="the SGD cells run ⌈t_max/η⌉ steps to the cell's horizon (t_max ≈ 340 at the defaults)",
    )
    first_seed = Param(
        "first_seed",
        "Seed of the first start (a cell's starts are seeds first_seed, first_seed + 1, …)",
        EXPERIMENT,
        0,
        int,
        low=0,
    )
    init_scale_a = Initial.init_scale_a.but(help="σ_a of the output weights: |a_j| with a_j ~ N(0, σ_a²)", default=0.3)
    mixed_signs = Initial.mixed_signs.but(
        help="Keep each output weight's drawn sign, a_j ~ N(0, σ_a²), instead of |a_j|: a neuron with "
        "a_j < 0 < δ_j may be absorbed at w = 0 and leave it again (population flow only: not with --n-samples)"
    )
    init_scale_w = Initial.init_scale_w.but(help="σ_w of the input weights: w_j ~ N(0, σ_w² I/d)", default=0.3)
    rtol = RTOL.but(
        default=1e-7,
        help="Relative tolerance of the population flow solver (owners agree with rtol 1e-10 in every run measured)",
    )
