"""The summaries of the studies beyond one run: ``reln``, ``verify``, ``lockin`` and ``predict``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaugecli.cli.report.terminal import console, escape, fmt, fmt_loss, new_table, show, where

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome


def reln(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    table = new_table(
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
    env = new_table("T_ReLU / T_fastest fixed gate, to reach loss level ℓ", ("δ", *(f"{x:g}" for x in levels)))
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
    table = new_table(
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
        f"σ_w = {config.init_scale_w:g}, d = {config.model.d}{', signs as drawn' if config.mixed_signs else ''}"
        f"{_stepped(config)}), "
        f"{len(result.seeds)} seeds per cell{computed}; "
        f"accuracy [{result.confidence:.0%} Wilson interval]"
    )
    sampled = any(row.n is not None for row in result.rows)
    head = ("k", "m", "ρ = σ_δ/σ_vis", *(("loss",) if sampled else ()), "measured ρ", "owned/pairs")
    table = new_table(title, (*head, *result.predictors))
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


def _stepped(config: Any) -> str:
    """How predict's population cells move when not by the flow: ``; population cells by adam, η = 0.01``."""
    if config.optimizer is None:
        return ""
    eta = "chosen" if config.eta is None else f"{config.eta:g}"
    return f"; population cells by {config.optimizer}, η = {eta}"


def lockin_task(outcome: Outcome, path: Path | None) -> None:
    """Grokking runs vs controls per activation on modular addition: how many grok, how many fire
    (Xu's detector on ΔW raw and floored, on the gradient), when, and Tian's sign rule."""
    from rich import box

    result = outcome.result
    table = new_table(
        "gaugecli lockin --task modular-addition — Xu's detector on ΔW (runs that fired; firing epoch median "
        "[IQR]), grokking, Tian's sign rule on the 200 most similar pairs",
        ("runs", "grok", "fires", "floored", "∇L", "epoch", "fire−grok", "rank", "sign", "B<0"),
    )
    table.box, table.show_edge, table.pad_edge = box.SIMPLE_HEAD, False, False
    table.columns[0].justify = "left"
    for row in result.summary:
        n = row["runs"]
        epoch = "—"
        if row["fire_epoch_median"] is not None:
            epoch = f"{row['fire_epoch_median']:.0f} [{row['fire_epoch_q1']:.0f}, {row['fire_epoch_q3']:.0f}]"
        label = f"{'x²' if row['activation'] == 'x2' else row['activation']} {row['condition']} ({row['fraction']:g})"
        table.add_row(
            label,
            f"{row['groks']}/{n}",
            f"{row['fires_raw']}/{n}",
            f"{row['fires_floored']}/{n}",
            f"{row['fires_gradient_raw']}/{n}",
            epoch,
            fmt(row["fire_minus_grok_median"], ".0f"),
            fmt(row["effective_rank_late_median"], ".3g"),
            f"{fmt(row['sign_match_min'], '.2f')}–{fmt(row['sign_match_max'], '.2f')}",
            f"{fmt(row['sign_negative_min'], '.2f')}–{fmt(row['sign_negative_max'], '.2f')}",
        )
    out = console()
    show(table)
    for control in (False, True):
        runs = [r for r in result.gauge_check if r.control == control]
        if runs:
            fired = sum(r.fire_raw is not None for r in runs)
            gradient = sum(r.fire_gradient_raw is not None for r in runs)
            out.print(
                f"gauge model trained as the task ({'aligned control' if control else 'select'}, Adam, "
                f"{runs[0].epochs} steps): the detector fires in {fired}/{len(runs)} (on ΔW), "
                f"{gradient}/{len(runs)} (on the gradient)"
            )
    cost = result.cost
    out.print(
        f"cost: {cost['cpu_seconds_total']:.0f} CPU-s in all, {cost['cpu_seconds_per_epoch_median']:.3g} CPU-s per "
        f"epoch (median; estimated {cost['estimated_cpu_seconds']:.0f} CPU-s before the run)"
    )
    for note in result.notes:
        out.print(f"note: {escape(note)}")
    out.print(where(outcome, path))
