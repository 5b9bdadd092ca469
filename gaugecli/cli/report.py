"""Every summary the commands print: rich tables of what was computed, and where it lies."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome

ROUNDOFF_LOSS = 1e-15
"""The closed-form loss is a difference of O(1) kernel terms: below this it is round-off."""


@cache
def console() -> Any:
    from rich.console import Console

    return Console(soft_wrap=True)


@cache
def errors_console() -> Any:
    """Where warnings and side notes go: stderr, so that stdout holds only the summary or ``--json``."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def escape(text: str) -> str:
    """Rich markup-escape: artifact paths and messages may contain ``[``."""
    from rich.markup import escape as _escape

    return _escape(text)


def fmt(x: float | None, spec: str = ".4g") -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def fmt_loss(x: float | None) -> str:
    """A loss, or ``< 1e-15`` where it is below round-off (never ``0.000e+00`` or a negative)."""
    if x is None or math.isnan(x):
        return "—"
    return f"< {ROUNDOFF_LOSS:.0e}" if x < ROUNDOFF_LOSS else f"{x:.3e}"


def _table(title: str, columns: tuple[str, ...]) -> Any:
    from rich.table import Table

    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right")
    return table


def show(table: Any) -> None:
    """Print ``table``; in a terminal too narrow for it, ``column: value`` lines instead (a rich
    table squeezed below its width cuts every number to an ellipsis)."""
    out = console()
    heads = [str(c.header) for c in table.columns]
    rows = [[str(c._cells[i]) for c in table.columns] for i in range(table.row_count)]  # rich keeps cells in order
    widths = [max([len(h), *(len(line) for r in rows for line in r[j].splitlines())]) for j, h in enumerate(heads)]
    if sum(widths) + 3 * len(widths) + 1 <= out.width:  # every cell on its line, as rich draws it
        out.print(table)
        return
    if table.title:
        out.print(table.title)
    for i, cells in enumerate(rows):
        out.print(f"row {i + 1}:")
        for head, value in zip(heads, cells, strict=True):
            out.print(f"  {head}: {' '.join(value.split())}")


def model_tag(model: Any) -> str:
    """``σ = relu · teacher τ = linear · λ = 1e-2``: the activation, the teacher's where it differs, and the
    weight decay where there is one."""
    from gaugecli.experiments.declare import number

    def name(activation: str) -> str:
        return activation + (f" (β = {number(model.slope)})" if activation == "leaky-relu" else "")

    teacher = model.teacher_activation
    tau = "" if teacher in (None, model.activation) else f" · teacher τ = {name(teacher)}"
    return f"σ = {name(model.activation)}{tau}" + (f" · λ = {number(model.weight_decay)}" if model.weight_decay else "")


def header(command: str, config: Any, runs: list[Any] | None = None, gauges: str | None = None) -> str:
    """The run's effective configuration in one line: activation, mode, d, m, D or δ, n, seed, η,
    t_max and rtol — the values the run used, where a default was left to the mode. ``gauges``
    replaces the D part for a command that ran several gauges or strengths together."""
    from gaugecli.experiments.declare import number

    model = config.model
    dynamics = getattr(config, "dynamics", None)
    parts = [f"gaugecli {command}", model_tag(model)]
    if dynamics is not None:
        parts.append(f"mode {dynamics.mode.value}")
    parts.append(f"d = {model.d}" + (f", k = {model.k}" if model.k > 1 else ""))
    ignored = _ignored(config)
    start = [f"c0 = {number(model.c0)}"] * ("c0" not in ignored) + [f"θ0 = {model.theta0:.4g}"] * (
        "theta0" not in ignored
    )
    if start:  # what the start read: a drawn one reads neither (its scales are the config's)
        parts.append(", ".join(start))
    deltas = getattr(config, "deltas", None)
    if deltas is not None:
        parts.append("δ = " + ",".join(f"{x:+g}" for x in deltas))
    else:
        if hasattr(config, "m"):
            parts.append(f"m = {config.m}")
        strengths = getattr(config, "strengths", None) or [getattr(config, "strength", None)]
        gauge = getattr(config, "gauge", None)
        if gauges is not None:
            parts.append(gauges)
        elif "gauge_strength" in ignored:
            parts.append("δ natural (the draw's own)")
        elif strengths[0] is not None:
            parts.append(("D = " + ",".join(number(float(s)) for s in strengths)) + (f" ({gauge})" if gauge else ""))
    if dynamics is not None:
        if dynamics.sample_size is not None:
            parts.append(f"n = {dynamics.sample_size}")
        if dynamics.mode.stochastic:
            seeds = getattr(config, "seeds", None) or (getattr(config, "seed", None),)
            parts.append("seed = " + ",".join("0" if s is None else str(s) for s in seeds))
        etas = sorted({r.eta for r in runs or [] if r.eta is not None})
        if etas:
            parts.append(
                "η = " + ",".join(f"{e:.4g}" for e in etas) + ("" if dynamics.eta is not None else " (chosen)")
            )
        horizon = "auto" if dynamics.t_max is None else number(dynamics.t_max)
        parts.append(f"t_max = {horizon}")
        if not dynamics.mode.stepped:
            parts.append(f"rtol = {number(dynamics.solver_rtol)}")
    elif hasattr(config, "rtol"):
        parts.append(f"rtol = {number(config.rtol)}")
    return " · ".join(parts)


def _ignored(config: Any) -> dict[str, str]:
    """The options the run's start never read (:func:`~gaugecli.experiments.initial.ignored_by_start`):
    a header prints none of them."""
    from gaugecli.experiments.initial import ignored_by_config

    return ignored_by_config(config)


def where(outcome: Outcome, path: Path | None) -> str:
    state = "computed" if outcome.computed else "reused from the cache"
    return f"{state}: {path}" if path is not None else state


def owner_label(owner: int | None) -> str:
    return "none" if owner is None else str(owner)


def _dynamics_lines(runs: list[Any]) -> list[str]:
    """What the summary must say besides the table: the step used, and symmetric starts."""
    lines = []
    for obs in runs:
        if obs.eta is not None:
            error = "not estimated" if obs.step_error is None else f"estimated T_spec error {obs.step_error:.2%}"
            lines.append(f"step η = {obs.eta:.4g} ({error}; {obs.stats.objective} loss)")
        if obs.imbalance_step_residual is not None:
            lines.append(
                "δ drift: the step's departure from the flow's law; GD's per-step identity "
                "δ_{k+1} = (1 − 2ηλ)δ_k + η²(g_a² − ‖g_w‖²/p) accounts for it to "
                f"{obs.imbalance_step_residual:.1e}"
            )
        if obs.symmetric_start:
            lines.append(f"[yellow]warning:[/] {escape(obs.symmetry_note or 'symmetric start: no unique owner')}")
    return list(dict.fromkeys(lines))


def model_lines(model: Any, runs: list[Any]) -> list[str]:
    """What the activation and weight decay change in a summary's reading of δ, T_spec and R + T."""
    from gaugecli.core.activations import activation_class

    lines = []
    cls = activation_class(model.activation)
    if cls.degree is None:
        drift = max((r.imbalance_drift for r in runs), default=float("nan"))
        lines.append(
            f"σ = {model.activation} is not homogeneous: it has no gauge, δ = a² − ‖w‖² is not conserved "
            f"(it drifted by {drift:.2g} relative to max(1, |δ(0)|)) and no gauge claim applies; R + T: no split (—)"
        )
    elif cls.degree != 1:
        lines.append(
            f"σ = {model.activation} has degree p = {cls.degree}: δ = a² − ‖w‖²/{cls.degree}, c = a‖w‖^{cls.degree}"
        )
    if model.weight_decay:
        lines.append(
            f"weight decay λ = {model.weight_decay:g}: δ drift is measured against its law δ(0)·e^(−2λt); "
            "R + T splits ‖∇L‖² of the loss L without the decay"
        )
    return lines


def simulate(outcomes: list[Outcome], paths: list[Path | None]) -> None:
    from gaugecli.core.observables import resolved_residual
    from gaugecli.experiments.declare import number
    from gaugecli.experiments.simulate import NATURAL, parse_gauge

    sampled = any(o.result.empirical_loss is not None for o in outcomes)
    columns = ("δ", "T_spec", "final L", *(("final L_n",) if sampled else ()), "owner", "δ drift", "R+T resid.")
    configs = [o.config for o in outcomes]
    runs = ", ".join(
        g
        if parse_gauge(g) == NATURAL
        else f"{g}: D = " + ",".join(number(float(c.strengths[0])) for c in configs if c.gauge == g)
        for g in dict.fromkeys(c.gauge for c in configs)
    )
    title = header("simulate", configs[0], [o.result for o in outcomes], None if len(configs) == 1 else runs)
    table = _table(title, columns)
    for outcome in outcomes:
        obs = outcome.result
        deltas = obs.imbalance[0]
        label = ",".join(f"{x:+.4g}" for x in deltas) if len(deltas) <= 4 else f"{deltas[0]:+.4g},… (m={len(deltas)})"
        empirical = () if not sampled else (fmt_loss(_last(obs.empirical_loss)),)
        table.add_row(
            label,
            fmt(obs.t_spec),
            fmt_loss(obs.final_loss),
            *empirical,
            owner_label(obs.owner),
            fmt(obs.imbalance_drift, ".1e"),
            fmt(resolved_residual(obs), ".1e"),
        )
    out = console()
    show(table)
    out.print(
        "L: the population loss; L_n: the empirical loss on the run's sample" if sampled else "L: the population loss"
    )
    for line in model_lines(configs[0].model, [o.result for o in outcomes]) + _dynamics_lines(
        [o.result for o in outcomes]
    ):
        out.print(line)
    for outcome, path in zip(outcomes, paths, strict=True):
        out.print(where(outcome, path))


def _last(series: Any) -> float | None:
    return None if series is None else float(series[-1])


def select(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    deltas = getattr(outcome.config, "deltas", None)
    tied = deltas is not None and list(deltas).count(max(deltas)) > 1
    if tied:
        owner = "no predicted owner (the largest δ is shared)"
    elif deltas is not None:
        owner = f"the gauge predicts owner {result.designated} (argmax δ)"
    else:
        owner = f"designated owner {result.designated} (+D, the others −D)"
    table = _table(
        header("select", outcome.config, result.runs) + " — " + owner,
        ("seed", "owner", "ok", "T_spec", "P(end)", "final L", "c_o", "α_o"),
    )
    for seed, run, ok in zip(result.seeds, result.runs, result.success, strict=True):
        o = run.owner if run.owner is not None else run.computed_owner
        table.add_row(
            "—" if seed is None else str(seed),
            owner_label(run.owner),
            "yes" if ok else "NO",
            fmt(run.t_spec),
            fmt(float(run.nonowner_norm[-1]), ".2e"),
            fmt_loss(run.final_loss),
            fmt(float(run.coefficient[-1, o]), ".5f"),
            fmt(float(run.alignment[-1, o]), ".5f"),
        )
    out = console()
    show(table)
    for line in _dynamics_lines(result.runs):
        out.print(line)
    out.print(where(outcome, path))


def owner_sweep(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    width = max(result.ms)
    table = _table(
        f"owner success (fraction of runs whose owner is the designated o), D={result.strength:g}",
        ("m", *(f"o={o}" for o in range(width))),
    )
    for m, row in zip(result.ms, result.success_matrix, strict=True):
        table.add_row(str(m), *[f"{x:.2f}" for x in row], *[""] * (width - m))
    show(table)
    total = sum(p.success for p in result.points)
    console().print(f"{total}/{len(result.points)} runs selected the designated neuron; {where(outcome, path)}")


def prune(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    table = _table(
        f"gaugecli prune · {model_tag(outcome.config.model)} — time at which P(t) ≤ {result.level:g}",
        ("D", "m", "mode", "seed", "owner", "t(P ≤ 1e-6)", "P(end)"),
    )
    for p in result.points:
        table.add_row(
            f"{p.strength:g}", str(p.m), p.mode, str(p.seed), str(p.owner), fmt(p.time_below), fmt(p.final, ".1e")
        )
    out = console()
    show(table)
    co = result.coalignment
    out.print(
        f"non-owners δ={co.deltas_pruned[1]:+g}: P(end)={co.pruned.nonowner_norm[-1]:.1e} (pruned); "
        f"δ={co.deltas_coaligned[1]:+g}: P(end)={co.coaligned.nonowner_norm[-1]:.3f}, "
        f"c={', '.join(f'{x:.3f}' for x in co.coaligned.coefficient[-1])} (co-aligned, coefficient shared)"
    )
    pruned = [s for s in result.sweep if s.time_below is not None]
    kept = [s for s in result.sweep if s.time_below is None]
    out.print(
        f"sweep (m=2, owner δ=+{result.sweep_strength:g}): pruned for δ = "
        + (", ".join(f"{s.delta:g}" for s in pruned) or "none")
        + "; co-aligned, non-owner share of c: "
        + (", ".join(f"{s.delta:g}: {s.share:.3f}" for s in kept) or "none")
    )
    out.print(where(outcome, path))


def perturb(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    v, st, sm, sel = result.visible, result.step, result.samples, result.selection
    out = console()
    if v is not None:
        _perturb_visible(v, outcome.config.model)
    if st is not None:
        out.print(
            f"GD step (D={st.strength:g}): order {fmt(st.order, '.6f')} ± {fmt(st.order_err, '.1g')} as η → 0 (expected 1); "
            f"error per step → C₁ = {fmt(st.first_order, '.6g')}; η → 0 gives T_spec {fmt(st.intercept, '.8g')} "
            f"± {fmt(st.intercept_err, '.1g')} against the flow's {fmt(st.t_spec_flow, '.8g')}"
        )
        diverged = [f"{e:.3g}" for e, d in zip(st.stability_etas, st.diverged, strict=True) if d]
        held = sum(st.success)
        out.print(
            f"  large steps (fractions of 2/λ_max = {st.stable_bound:.4g}): selection held at {held}/{len(st.stability_etas)}"
            + (f"; diverged at η = {', '.join(diverged)}" if diverged else "")
        )
    if sm is not None:
        fit = sm.fit
        slope = "—" if fit is None else f"{fit.slope:.3f} ± {fit.slope_err:.3f}"
        out.print(
            f"finite-sample flow (D={sm.strength:g}, {len(sm.seeds)} seeds): sup_t ‖f_n − f_∞‖ ∝ n^{slope} (expected −0.5)"
        )
    if sel is not None:
        hold = "never within the grid" if sel.n_hold is None else f"from n = {sel.n_hold}"
        rates = ", ".join(f"{n}: {s}/{t}" for n, s, t in zip(sel.ns, sel.successes, sel.trials, strict=True))
        out.print(f"selection from a finite sample (m={sel.m}): holds {hold} ({rates})")
    out.print(where(outcome, path))


def _perturb_visible(v: Any, model: Any) -> None:
    from rich.table import Table

    table = Table(title=f"gaugecli perturb · {model_tag(model)} — {v.kind} visible perturbations")
    table.add_column("D", justify="right")
    table.add_column("ε*(D)", justify="right")
    adversarial = v.kind == "adversarial"
    if adversarial:  # ε* ends the majority; the last grid ε where the +D neuron carries the feature alone
        from gaugecli.experiments.perturb.visible import exclusive_boundary

        alone = exclusive_boundary(v)["by_D"]
        table.add_column("exclusive to ε", justify="right")
    table.add_column("P(select) at ε = " + ", ".join(f"{e:g}" for e in v.eps), justify="left")
    for D, thr, row in zip(v.strengths, v.threshold, v.probability, strict=True):
        cells = [f"{D:g}", fmt(thr) if thr is not None else f"> {max(v.eps):g}"]
        if adversarial:
            last = alone.get(f"{D:g}", {}).get("last_exclusive_eps")
            cells.append("—" if last is None else f"{last:g}")
        table.add_row(*cells, " ".join(f"{p:.2f}" for p in row))
    show(table)


def reln(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    table = _table(
        "gaugecli reln — T_spec (m = 1): ReLU, ReLN gated by v, aligned race; ReLN gated by u0",
        ("δ", "ReLU", "ReLN", "ReLN/ReLU", "race", "L(end) u0", "L_floor"),
    )
    for r in result.ratios:
        ratio = r.t_spec_reln / r.t_spec_relu if r.t_spec_reln is not None and r.t_spec_relu else None
        table.add_row(
            f"{r.delta:+g}",
            fmt(r.t_spec_relu),
            fmt(r.t_spec_reln),
            fmt(ratio, ".4f"),
            fmt(r.t_spec_race),
            fmt_loss(r.loss_end_reln_initial),
            fmt_loss(r.floor_reln_initial),
        )
    out = console()
    show(table)
    for D in dict.fromkeys(r.D for r in result.ratios):
        by = {r.delta: r for r in result.ratios if r.D == D}
        plus, minus = by.get(D), by.get(-D)
        if plus is None or minus is None:
            continue
        parts = []
        for label, key in (("ReLU", "t_spec_relu"), ("ReLN", "t_spec_reln"), ("race", "t_spec_race")):
            hi, lo = getattr(minus, key), getattr(plus, key)
            parts.append(f"{label} {fmt(hi / lo if hi is not None and lo else None, '.4g')}")
        out.print(f"T_spec(−D)/T_spec(+D) at D={D:g}: " + ", ".join(parts))
    fits = result.fits
    if fits.unfavorable_log_fit is not None:
        slope, intercept = fits.unfavorable_log_fit
        out.print(f"T_ReLN(−D)/D = {slope:.3f} ln D + {intercept:.3f} over D ≥ 4 (asymptote 4 ln D + const)")
    s = result.select
    out.print(
        f"select (m={s.m}, D={s.D:g}, designated {s.designated}): owner ReLU {s.owner_relu}, ReLN {s.owner_reln}; "
        f"T_spec {fmt(s.t_spec_relu)} vs {fmt(s.t_spec_reln)}; max|ΔL|/L(0) = {s.max_abs_dloss_over_l0:.3f}; "
        f"P(end) ReLN {s.nonowner_norm_end:.1e}, ReLU {s.nonowner_norm_end_relu:.1e}; "
        f"one gate v for all: owner {s.owner_reln_shared}, P(end) {s.nonowner_norm_end_shared:.1e} (no pruning)"
    )
    for k in dict.fromkeys(x.t0_over_t_spec for x in result.restart):
        rows = [x for x in result.restart if x.t0_over_t_spec == k]
        errs = [abs(x.rel_error) for x in rows if x.rel_error is not None]
        floor = sum(1 for x in rows if x.resolved and x.time_reln is None)
        worst = f"max |time error| {max(errs):.1%} ({len(errs)} reached)" if errs else "none reached"
        out.print(
            f"restart at t0 = {k:g} T_spec ({len(rows)} runs × levels): {worst}, {floor} stopped at the gate floor"
        )
    levels = result.envelope[0].levels if result.envelope else []
    env = _table("T_ReLU / T_fastest fixed gate, to reach loss level ℓ", ("δ", *(f"{x:g}" for x in levels)))
    for e in result.envelope:
        env.add_row(f"{e.delta:+g}", *(fmt(r, ".3f") for r in e.ratio))
    out.print(env)
    out.print(
        f"identity (gates = current directions): max |ΔL|, |Δ∇L| = {result.identity_error:.1e} "
        f"over {result.identity_states} states"
    )
    out.print(where(outcome, path))


def verify(result: Any, path: Path | None, report_path: Path | None) -> None:
    """One line per claim — id, verdict, what was measured and what was expected; in a terminal cut
    to its width, off one (a log, CI, a pipe) whole, since no width applies there and a cut line
    loses the measured values. Every detail is in the artifact and in ``--report``."""
    verdicts = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "not run"}
    out = console()
    for c in result.claims:
        measured = c.error or ("—" if c.measured is None else _one_line(c.measured))
        expected = f"{c.expected} {c.tolerance}".strip()
        text = f"{c.quantity or c.statement}: {measured} (expected {expected})"
        line = f"{c.id:<4} {verdicts[c.passed]:<4}  "
        if not out.is_terminal:
            out.print(line + escape(text), soft_wrap=True)
            continue
        room = max(out.width - 14, 20)
        text = text if len(text) <= room else text[: room - 1] + "…"
        out.print(line + escape(text), overflow="ellipsis", no_wrap=True)
    ran = [c for c in result.claims if c.passed is not None]
    out.print(f"{sum(bool(c.passed) for c in ran)}/{len(ran)} claims pass; artifact: {path}")
    if report_path is not None:
        out.print(f"report: {report_path}")
    else:
        out.print("details of every measurement: gaugecli verify --report verify.md")


def _one_line(value: Any) -> str:
    """A measured value on one line: ``key = value; …`` for dicts."""
    return " ".join(_compact(value).split("\n")).replace(": ", " = ")


def _compact(value: Any) -> str:
    """A measured value on few lines: ``key: value`` pairs for dicts."""
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_compact(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def lockin(outcome: Outcome, path: Path | None) -> None:
    """Select vs aligned control (Xu's detector, rank-2 share, Tian's B), then Λ per assignment and the scans."""
    from rich import box

    result = outcome.result
    table = _table(
        "gaugecli lockin — select vs aligned control: Xu's detector (runs that fired, median time), "
        "peak of the rank-2 share × D, Tian's frac(B<0 | S>0); times in T_spec",
        ("run", "Xu raw", "floored", "λ3≈0", "D·σ2/σ1", "B<0|S>0"),
    )
    table.box, table.show_edge, table.pad_edge = box.SIMPLE_HEAD, False, False
    table.columns[0].justify = "left"
    for column in table.columns:
        column.no_wrap = True
    for row in result.summary:

        def fires(count: int, median: float | None, n: int = row["runs"]) -> str:
            return f"{count}/{n}" + (f" ({median:.2f})" if median is not None else "")

        peak = row["rank2_peak_times_D_median"]
        activation = " x²" if row["activation"] == "x2" else ""
        table.add_row(
            f"{row['condition']} {row['mode']}{activation} D={row['D']:g}",
            fires(row["fires_raw"], row["fire_raw_median"]),
            fires(row["fires_floored"], row["fire_floored_median"]),
            fmt(row["roundoff_fraction_median"], ".2f"),
            "0" if peak == 0 else fmt(peak, ".4f"),
            fmt(row["frac_neg_given_similar_median"], ".2f"),
        )
    out = console()
    show(table)
    flows = [r for r in result.runs if r.mode == "flow" and not r.control and r.Lambda_total is not None]
    if flows:
        lam = ", ".join(f"{r.assign} (D={r.D:g}) {r.Lambda_total:.3g}" for r in flows)
        out.print(f"duplicate separation Λ over the span: {lam}; ln(1/ε_machine) = {result.roundoff_exponent:.1f}")
    if result.rank2_collapse:
        dp = [row["D_times_peak"] for row in result.rank2_collapse]
        tp = [row["t_peak"] for row in result.rank2_collapse]
        Ds = [row["D"] for row in result.rank2_collapse]
        out.print(
            f"rank-2 share (select flow): D·peak = {min(dp):.5f}…{max(dp):.5f} over D = {min(Ds):g}…{max(Ds):g}, "
            f"at {min(tp):.3f}…{max(tp):.3f} T_spec"
        )
    for control in (False, True):
        rows = [row for row in result.resolution_scan if row["control"] is control]
        if rows:
            fire_times = ", ".join(f"{row['per']}: {fmt(row['detector_fire_raw'], '.3g')}" for row in rows)
            label = "aligned control" if control else "select"
            out.print(f"Xu raw detector, {label} flow, fire time by per: {fire_times}")
    for assign in ("select", "all-minus"):
        rows = [row for row in result.tspec_vs_eps if row[assign] is not None]
        if rows:
            ts, owners = [row[assign] for row in rows], sorted({row[f"{assign}_owner"] for row in rows})
            eps = [row["eps"] for row in rows]
            out.print(
                f"T_spec({assign}), duplicates perturbed by ε = {min(eps):.0e}…{max(eps):.0e}: "
                f"{min(ts):.6g}…{max(ts):.6g}; winners: {', '.join(map(str, owners))}"
            )
    for note in result.notes:
        out.print(f"note: {escape(note)}")
    out.print(where(outcome, path))


def predict(outcome: Outcome, path: Path | None, fresh: int | None = None) -> None:
    """``gaugecli predict``: one row per cell — k, m, the declared and measured δ-spread ratio, the
    pairs with an owner — and each predictor's accuracy with its Wilson interval."""
    result, config = outcome.result, outcome.config
    chunks = len(result.chunk_hashes)
    computed = "" if fresh is None else f", {fresh if outcome.computed else 0} of {chunks} chunks computed now"
    title = (
        f"gaugecli predict — owner per feature from Gaussian starts (σ_a = {config.init_scale_a:g}, "
        f"σ_w = {config.init_scale_w:g}, d = {config.model.d}{', signs as drawn' if config.mixed_signs else ''}), "
        f"{len(result.seeds)} seeds per cell{computed}; "
        f"accuracy [{result.confidence:.0%} Wilson interval]"
    )
    sampled = any(row.n is not None for row in result.rows)
    head = ("k", "m", "ρ = σ_δ/σ_vis", *(("loss",) if sampled else ()), "measured ρ", "owned/pairs")
    table = _table(title, (*head, *result.predictors))
    for row in result.rows:
        ratio = f"{row.ratio:.3g}" if row.spread is not None else f"natural ({row.ratio:.3g})"
        trained = (
            "L"
            if row.n is None
            else f"L_n, n={row.n}" + ("" if row.batch is None else f", SGD B={row.batch} η={row.eta:g}")
        )
        loss = (trained,) if sampled else ()
        cells = [
            "—" if row.accuracy[p] is None else f"{row.accuracy[p]:.2f} [{row.low[p]:.2f}, {row.high[p]:.2f}]"
            for p in result.predictors
        ]
        table.add_row(
            str(row.k), str(row.m), ratio, *loss, fmt(row.measured_ratio, ".3g"), f"{row.owned}/{row.pairs}", *cells
        )
    show(table)
    out = console()
    lost = sum(r.no_owner for r in result.rows)
    tied = sum(r.tied for r in result.rows)
    failed = sum(r.failed for r in result.rows)
    if lost or tied:
        solver = f" ({failed} runs whose flow on L_n failed among them)" if failed else ""
        out.print(
            f"pairs without an owner: {lost} none aligned by the horizon{solver}, {tied} tied (left out of the accuracies)"
        )
    out.print(
        "predictors: delta = argmax δ in the feature's basin; alignment = argmax α_jk(0); c-alpha = argmax c·α; "
        "angular-speed = largest initial turn toward v_k (M^u = 1/‖w‖²); race = first to align alone (reduced equations); "
        "race-matched = the race's times, one neuron per feature (least total time)"
    )
    out.print(where(outcome, path))
