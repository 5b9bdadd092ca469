"""The declarations several experiments share: the dynamics' modes, the bounds the numerics honour
(and why they are where they are), the model, the dynamics and the initial condition.

Stdlib only (as every module of :mod:`gaugecli.experiments.params`): ``--help`` and a refused value
answer before numpy is imported.
"""

from __future__ import annotations

import math
from enum import Enum

from gaugecli.core.activations import REGISTRY as ACTIVATION_REGISTRY
from gaugecli.core.defaults import C0, EPS_ALIGN, THETA0
from gaugecli.core.integrate.tolerance import POPULATION_RTOL, SAMPLE_RTOL
from gaugecli.experiments.declare import Fields, Param, number

MODEL, DYNAMICS, NUMERICS, EXPERIMENT = "Model", "Dynamics", "Numerics", "Experiment"
"""The ``--help`` panels of the declared parameters (Output and Execution are the CLI's own)."""


class Mode(str, Enum):
    """Dynamics of docs/theory.md (the model).

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
STRENGTHS = GAUGE_STRENGTH.but(plural=True, repeat=True, help="Gauge strengths D (units of a*²‖v‖²), e.g. -D 4,16")
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
        "GD/SGD step η on L = ½·mean (f − y)² (a learning rate lr on mean (f − y)², Kunin et al.'s, is η = 2·lr)",
        DYNAMICS,
        None,
        low=0.0,
        open_low=True,
        default_text="chosen so that the T_spec error is ≤ 1 %",
    )
    step_error = Param(
        "step_error",
        "With a given `eta`, also estimate T_spec's discretisation error at it: one more run at η/2 to its "
        "first crossing (the chosen step always has its estimate)",
        NUMERICS,
        None,
        bool,
        default_text="off",
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
        "Initial condition: duplicates (m copies of u0, c0/m each; docs/theory.md, the model), random "
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
