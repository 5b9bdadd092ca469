"""Figure 11's panels — finite samples: what a sample changes in who owns a feature from a Gaussian
start (a, b), and how many samples selection needs against the input dimension d (c, d).

(a, b) ``gaugecli predict --ks 1 --m-per-k 4 --spreads none --n-samples …``: one feature, ``m = 4``,
δ as drawn, each start trained on the population loss and on ``L_n`` (a sample per seed): against
n, (a) the share of runs with an owner and the share whose owner is the one the population flow
from the same start gives, by flow (filled) and by minibatch SGD on the same samples (hollow,
dotted); (b) three rules' accuracies among the runs with an owner, as in fig10 (b) (population at
the right, past a break). The other rules are in the sidecar's ``key/sampled``.

The paper's selection problem (``m = 2`` duplicates, the first at ``+D``, the other at ``−D``,
``D = 4``) trained by gradient flow on the empirical loss ``L_n`` of ``n`` Gaussian samples
(``gaugecli perturb --sweeps selection --d d``): (c) the share of seeds whose ``+D`` neuron is the
unique owner at ``25 T_spec`` (95 % Wilson intervals), and a logistic fit in ``ln n`` per d
(:func:`~gaugecli.experiments.perturb.fits.fit_logistic`) that locates ``n_½`` and ``n_0.9``, the
sizes at which half and nine in ten of the runs select; (d) their dependence on d, a power law
fitted over the four d (:func:`~gaugecli.experiments.perturb.fits.power_law_through`) whose
exponent's uncertainty is a bootstrap over seeds (:mod:`gaugecli.experiments.perturb.bootstrap`),
and the local slopes between neighbouring d (sidecar).

The size grid is ``n = r·d`` for the same ratios ``r`` at every d, so that a collapse in ``n/d``
shows as curves on top of each other. Each d draws its own seeds (:func:`selection_seeds`), so no
two dimensions share a sample stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.experiments.perturb.bootstrap import bootstrap_exponents
from gaugecli.experiments.perturb.fits import fit_logistic, power_law_through
from gaugecli.plots import style
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.perturb import PerturbConfig
    from gaugecli.experiments.predict import PredictConfig

DIMENSIONS = {False: (8, 16, 32, 64), True: (8, 16)}
RATIOS = {False: (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0), True: (2.0, 3.0, 4.0, 6.0)}
"""Sample sizes ``n = r·d``: 1.5× steps across the threshold (``n_½ ≈ 3d``), up to where all seeds select."""
SEEDS = {False: 20, True: 8}
SEED_BLOCK = 1000
"""Dimension d's seeds are ``SEED_BLOCK·d + s``: each (seed, n) draws its own sample, and with a
block per d no two dimensions share a seed, so their samples are independent."""
BOOTSTRAP = {False: 1000, True: 100}
"""Bootstrap replicates B of the exponents' interval (≈ 0.1 s per 1000 on one core)."""
BOOTSTRAP_SEED = 0
RULES = ("delta", "c-alpha", "race")
"""(b)'s rules: those of fig10 (b)."""
SAMPLED_NS = {False: (64, 128, 256, 1024), True: (128,)}
SAMPLED_RUNS = {False: 50, True: 10}
"""(b): one chunk of seeds per n (≈ 6 CPU-s each: flows on L_n in d = 16 to the cell's horizon)."""
SGD_BATCH = 32
"""(b)'s SGD runs: batches of 32 rows of each run's sample, step η = 0.1 (≈ 4 CPU-s per chunk of 50)."""
POPULATION_AT = 2.0
"""(b) draws the population flow at 2× the largest n, past a break in the axis."""


def sampled_config(quick: bool) -> PredictConfig:
    """(b)'s study: one feature among four neurons, δ as drawn, on L, and on L_n for each n by flow
    and by SGD (batch :data:`SGD_BATCH`, the default step η = 0.1)."""
    from gaugecli.experiments.predict import PredictConfig

    return PredictConfig(
        ks=(1,), widths=(4,), spreads=(), n_samples=SAMPLED_NS[quick], runs=SAMPLED_RUNS[quick], sgd_batch=SGD_BATCH
    )


def _agreement(row: Any, reference: Any, given: bool = False) -> float | None:
    """The share of (run, feature) pairs whose owner in ``row`` is the one in ``reference`` (none ≠
    any); ``given``: among the pairs where ``reference`` has an owner (``None`` if it has none)."""
    pairs = [(o, p) for r, q in zip(row.owners, reference.owners, strict=True) for o, p in zip(r, q, strict=True)]
    if given:
        pairs = [(o, p) for o, p in pairs if p != -1]
    return sum(o == p and o != -1 for o, p in pairs) / len(pairs) if pairs else None


def _name(row: Any) -> str:
    return "population" if row.n is None else f"n{row.n}" + ("" if row.batch is None else "-sgd")


def sampled_reading(result: Any) -> dict[str, Any]:
    """Per n (flow, and SGD with ``-sgd``): the share with an owner, the agreement with the
    population's owner (and, for SGD, with the flow's on the same sample, among the runs where the
    flow has one), each predictor's accuracy
    and its interval."""
    population = next(r for r in result.rows if r.n is None)
    flow = {r.n: r for r in result.rows if r.n is not None and r.batch is None}
    return {
        _name(r): {
            "owned_share": r.owned / r.pairs,
            "agreement": _agreement(r, population),
            "agreement_with_flow": None if r.batch is None else _agreement(r, flow[r.n], given=True),
            "failed": r.failed,
            "batch": r.batch,
            "eta": r.eta,
            "accuracy": {p: [r.accuracy[p], r.low[p], r.high[p]] for p in result.predictors},
        }
        for r in result.rows
    }


def _rows(result: Any) -> tuple[list[Any], list[Any], Any]:
    """(flow rows by n, then the population), SGD rows by n, and the population row."""
    population = next(r for r in result.rows if r.n is None)
    flows = [*sorted((r for r in result.rows if r.n is not None and r.batch is None), key=lambda r: r.n), population]
    sgd = sorted((r for r in result.rows if r.batch is not None), key=lambda r: r.n)
    return flows, sgd, population


def _size_axis(ax: Any, sizes: np.ndarray, x: np.ndarray) -> None:
    """n on a log₂ axis, the population (∞) past a break."""
    style.axis_break(ax, sizes[-1], x[-1])
    ax.set_xscale("log", base=2)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{n:g}" for n in sizes] + [r"$\infty$"])
    ax.minorticks_off()
    ax.set_xlim(sizes[0] / 1.4, x[-1] * 1.4)
    ax.set_yticks([0.0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel(r"samples $n$ ($\infty$: on $\mathcal{L}$)")


def panel_owners(ax: Any, result: Any, layout: Layout) -> dict[str, Any]:
    """(a) (module docstring)."""
    flows, sgd, population = _rows(result)
    sizes = np.array([r.n for r in flows[:-1]], float)
    x = np.append(sizes, POPULATION_AT * sizes[-1])
    out: dict[str, Any] = {}
    for rows, xs, tag, face, ls in ((flows, x, "", None, "-"), (sgd, np.array([r.n for r in sgd], float) * 1.1, "sgd-", "white", ":")):  # fmt: skip
        if not rows:
            continue
        owned = np.array([r.owned / r.pairs for r in rows])
        agree = np.array([_agreement(r, population) for r in rows], float)
        ax.plot(xs, owned, color=style.GUIDE, lw=1.4, ls=ls, marker="X", ms=3.8, mfc=face or style.GUIDE, zorder=4)
        ax.plot(xs, agree, color=style.PURPLE, lw=1.2, ls=ls, marker="o", ms=3.4, mfc=face or style.PURPLE, zorder=4)
        out[f"{tag}owned"] = style.series(xs, owned, n=[r.n for r in rows])
        out[f"{tag}agreement"] = style.series(xs, agree, n=[r.n for r in rows])
    _size_axis(ax, sizes, x)
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("share of runs")
    ax.set_title(rf"$k=1$, $m=4$, {len(result.seeds)} seeds", loc="right", fontsize=layout.small)
    handles = [
        style.line_handle(style.GUIDE, "-", "X", "an owner", lw=1.4),
        style.line_handle(style.PURPLE, "-", "o", r"the owner on $\mathcal{L}$"),
        style.line_handle("0.3", "-", None, "flow"),
    ]
    if sgd:
        handles.append(style.line_handle("0.3", ":", "o", rf"SGD $B={sgd[0].batch}$, $\eta={sgd[0].eta:g}$", mfc="white"))  # fmt: skip
    ax.legend(handles=handles, loc="lower right", ncols=1, handlelength=1.6, borderaxespad=0.2)
    return out


def panel_predictors(ax: Any, result: Any, layout: Layout) -> dict[str, Any]:
    """(b) (module docstring): three rules' accuracy on ``L_n`` against n, and on ``L``."""
    from gaugecli.plots._fig10_accuracy import COLORS, LABELS

    flows, _, _ = _rows(result)
    sizes = np.array([r.n for r in flows[:-1]], float)
    x = np.append(sizes, POPULATION_AT * sizes[-1])
    out: dict[str, Any] = {}
    handles = []
    for i, name in enumerate(RULES):
        acc = np.array([np.nan if r.accuracy[name] is None else r.accuracy[name] for r in flows], float)
        low = np.array([np.nan if r.low[name] is None else r.low[name] for r in flows], float)
        high = np.array([np.nan if r.high[name] is None else r.high[name] for r in flows], float)
        xi = x * 1.06 ** (i - 0.5 * (len(RULES) - 1))
        marker = style.SEQUENCE_MARKERS[i]
        ax.errorbar(xi, acc, yerr=[acc - low, high - acc], color=COLORS[name], lw=0.9, marker=marker, ms=3.2, capsize=1.0, elinewidth=0.6)  # fmt: skip
        out[name] = style.series(xi, acc, wilson_low=low, wilson_high=high, n=[r.n for r in flows])
        handles.append(style.line_handle(COLORS[name], "-", marker, LABELS[name]))
    ax.axhline(0.25, color=style.GUIDE, ls="--", lw=0.8, zorder=1)
    handles.append(style.line_handle(style.GUIDE, "--", None, "chance 1/4"))
    _size_axis(ax, sizes, x)
    ax.set_ylim(-0.42, 1.05)  # the legend sits below 0, under every point
    ax.set_ylabel("share naming the owner")
    ax.set_title("among runs with an owner", loc="right", fontsize=layout.small)
    ax.legend(handles=handles, loc="lower center", ncols=2, handlelength=1.5, columnspacing=0.8, handletextpad=0.4, borderaxespad=0.2)  # fmt: skip
    return out


def sample_config(d: int, quick: bool) -> PerturbConfig:
    """The selection-against-n sweep at dimension ``d`` (the paper's model otherwise)."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.perturb import PerturbConfig

    return PerturbConfig(
        model=ModelConfig(d=d),
        sweeps=("selection",),
        success_ns=tuple(round(r * d) for r in RATIOS[quick]),
        success_seeds=selection_seeds(d, quick),
    )


def selection_seeds(d: int, quick: bool) -> tuple[int, ...]:
    """Dimension ``d``'s seeds (:data:`SEED_BLOCK`)."""
    return tuple(SEED_BLOCK * d + s for s in range(SEEDS[quick]))


def _fits(sweeps: dict[int, Any]) -> dict[int, Any]:
    return {d: fit_logistic(s.ns, s.successes, s.trials) for d, s in sweeps.items()}


def panel_rates(ax: Any, sweeps: dict[int, Any], layout: Layout) -> dict[str, Any]:
    """(e) the share of seeds that select against ``n/d``, one colour per d, with its logistic fit."""
    colors = style.sequential_colors(len(sweeps))
    fits = _fits(sweeps)
    out: dict[str, Any] = {}
    handles = []
    for i, ((d, s), color) in enumerate(zip(sweeps.items(), colors, strict=True)):
        n = np.array(s.ns, float)
        rate = np.array([np.nan if r is None else r for r in s.rate], float)
        low, high = np.array(s.ci_low, float), np.array(s.ci_high, float)
        x = n / d * 1.025 ** (i - 0.5 * (len(sweeps) - 1))  # side by side: the intervals stay apart
        marker = style.SEQUENCE_MARKERS[i]
        ax.errorbar(x, rate, yerr=[rate - low, high - rate], color=color, ls="none", marker=marker, ms=3.2, mfc="white", mew=0.9, capsize=1.2, elinewidth=0.7)  # fmt: skip
        entry = {"n": style.tolist(n), "successes": list(s.successes), "trials": list(s.trials)}
        out[f"d{d}"] = style.series(x, rate, wilson_low=low, wilson_high=high, **entry)
        fit = fits[d]
        if fit is not None:
            grid = np.geomspace(n[0], n[-1], 120)
            ax.plot(grid / d, fit.rate(grid), color=color, lw=1.0)
            out[f"d{d}"]["fit"] = style.series(grid / d, fit.rate(grid))
        handles.append(style.line_handle(color, "-", marker, f"$d={d}$", mfc="white"))
    ax.set_xscale("log")
    ax.set_xticks([1, 2, 3, 4, 6, 8, 12])
    ax.set_xticklabels(["1", "2", "3", "4", "6", "8", "12"])
    ax.minorticks_off()
    ax.set_ylim(-0.04, 1.04)
    ax.set_xlabel(r"samples per dimension $n/d$ (flow on $\mathcal{L}_n$)")
    ax.set_ylabel(r"share of seeds: $+D$ owns")
    seeds = len(next(iter(sweeps.values())).seeds)
    ax.set_title(rf"$m=2$, $D=4$, {seeds} seeds", loc="right", fontsize=layout.small)
    ax.legend(handles=handles, loc="upper left")
    return out


def panel_sizes(ax: Any, sweeps: dict[int, Any], layout: Layout, quick: bool) -> dict[str, Any]:
    """(d) ``n_½`` and ``n_0.9`` against d (one standard error), with their fitted power laws; the
    exponent's interval by a bootstrap over seeds, and the local slopes ``Δ ln n / Δ ln d``."""
    fits = _fits(sweeps)
    dims = np.array([d for d in sweeps if fits[d] is not None], float)
    boot = None
    if dims.size >= 2:
        cells = [(sweeps[int(d)].ns, sweeps[int(d)].successes, sweeps[int(d)].trials) for d in dims]
        boot = bootstrap_exponents(dims, cells, BOOTSTRAP[quick], BOOTSTRAP_SEED)
    out: dict[str, Any] = {}
    for key, color, marker, label in (("half", style.PURPLE, "o", r"$n_{1/2}$"), ("ninety", style.ORANGE, "D", r"$n_{0.9}$")):  # fmt: skip
        size = np.array([getattr(fits[int(d)], f"n_{key}") for d in dims])
        err = np.array([getattr(fits[int(d)], f"log_err_{key}") for d in dims])
        ax.errorbar(dims, size, yerr=[size - size * np.exp(-err), size * np.exp(err) - size], color=color, ls="none", marker=marker, ms=3.4, mfc="white", mew=0.9, capsize=1.5, elinewidth=0.8)  # fmt: skip
        entry: dict[str, Any] = style.series(dims, size, log_err=err)
        if boot is not None:
            law = power_law_through(dims, size, err)
            low, high = getattr(boot, key)
            grid = np.geomspace(dims[0] / 1.2, dims[-1] * 1.2, 50)
            ax.plot(grid, law.prefactor * grid**law.slope, color=color, lw=0.9, label=f"{label} $\\propto d^{{{law.slope:.2f}}}$, [{low:.2f}, {high:.2f}]")  # fmt: skip
            local = np.diff(np.log(size)) / np.diff(np.log(dims))
            entry.update(slope=law.slope, interval=[low, high], prefactor=law.prefactor, chi2_dof=style.tolist(law.chi2_dof), local_slopes=style.tolist(local))  # fmt: skip
        out[key] = entry
    if boot is not None:
        out["bootstrap"] = {"replicates": boot.replicates, "kept": boot.kept, "confidence": boot.confidence, "seed": boot.seed}  # fmt: skip
        ax.legend(loc="upper left", title=f"{round(100 * boot.confidence)} % bootstrap, $B={boot.replicates}$")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(dims)
    ax.set_xticklabels([f"{d:g}" for d in dims])
    ax.minorticks_off()
    ax.set_xlabel(r"input dimension $d$")
    ax.set_ylabel(r"samples $n$ (logistic fit)")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * 2.5)  # the legend above the points
    ticks = [v for v in (10, 20, 50, 100, 200, 500, 1000, 2000) if low <= v <= high * 2.5]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{v:g}" for v in ticks])
    ax.minorticks_off()
    ax.set_title(f"{len(next(iter(sweeps.values())).seeds)} seeds per $d$", loc="right", fontsize=layout.small)
    return out


__all__ = [
    "BOOTSTRAP",
    "DIMENSIONS",
    "RATIOS",
    "SAMPLED_NS",
    "SEEDS",
    "panel_owners",
    "panel_predictors",
    "panel_rates",
    "panel_sizes",
    "sample_config",
    "sampled_config",
    "sampled_reading",
    "selection_seeds",
]
