"""Every summary the commands print: rich tables of what was computed, and where it lies."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

from gaugecli.pipeline import Outcome

ROUNDOFF_LOSS = 1e-15
"""The closed-form loss is a difference of O(1) kernel terms: below this it is round-off."""


@cache
def console() -> Any:
    from rich.console import Console

    return Console(soft_wrap=True)


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


def where(outcome: Outcome, path: Path | None) -> str:
    state = "computed" if outcome.computed else "reused from the cache"
    return f"{state}: {path}" if path is not None else state


def simulate(outcomes: list[Outcome], paths: list[Path | None]) -> None:
    from gaugecli.core.observables import resolved_residual

    table = _table("gaugecli simulate", ("δ", "T_spec", "final loss", "owner", "δ drift", "R+T resid."))
    for outcome in outcomes:
        obs = outcome.result
        deltas = obs.imbalance[0]
        label = ",".join(f"{x:+.4g}" for x in deltas) if len(deltas) <= 4 else f"{deltas[0]:+.4g},… (m={len(deltas)})"
        table.add_row(
            label,
            fmt(obs.t_spec),
            fmt_loss(obs.final_loss),
            str(obs.owner),
            fmt(obs.imbalance_drift, ".1e"),
            fmt(resolved_residual(obs), ".1e"),
        )
    out = console()
    out.print(table)
    for outcome, path in zip(outcomes, paths, strict=True):
        out.print(where(outcome, path))


def select(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    table = _table(
        f"gaugecli select — designated owner {result.designated}",
        ("seed", "owner", "ok", "T_spec", "P(end)", "loss(end)", "c_o", "α_o"),
    )
    for seed, run, ok in zip(result.seeds, result.runs, result.success, strict=True):
        o = run.owner
        table.add_row(
            str(seed),
            str(o),
            "yes" if ok else "NO",
            fmt(run.t_spec),
            fmt(float(run.nonowner_norm[-1]), ".2e"),
            fmt_loss(run.final_loss),
            fmt(float(run.coefficient[-1, o]), ".5f"),
            fmt(float(run.alignment[-1, o]), ".5f"),
        )
    console().print(table)
    console().print(where(outcome, path))


def owner_sweep(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    width = max(result.ms)
    table = _table(
        f"owner success (fraction of runs whose owner is the designated o), D={result.strength:g}",
        ("m", *(f"o={o}" for o in range(width))),
    )
    for m, row in zip(result.ms, result.success_matrix, strict=True):
        table.add_row(str(m), *[f"{x:.2f}" for x in row], *[""] * (width - m))
    console().print(table)
    total = sum(p.success for p in result.points)
    console().print(f"{total}/{len(result.points)} runs selected the designated neuron; {where(outcome, path)}")


def prune(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    table = _table(
        f"gaugecli prune — time at which P(t) ≤ {result.level:g}",
        ("D", "m", "mode", "seed", "owner", "t(P ≤ 1e-6)", "P(end)"),
    )
    for p in result.points:
        table.add_row(
            f"{p.strength:g}", str(p.m), p.mode, str(p.seed), str(p.owner), fmt(p.time_below), fmt(p.final, ".1e")
        )
    out = console()
    out.print(table)
    co = result.coalignment
    out.print(
        f"non-owners δ={co.deltas_pruned[1]:+g}: P(end)={co.pruned.nonowner_norm[-1]:.1e} (pruned); "
        f"δ={co.deltas_coaligned[1]:+g}: P(end)={co.coaligned.nonowner_norm[-1]:.3f}, "
        f"c={', '.join(f'{x:.3f}' for x in co.coaligned.coefficient[-1])} (co-aligned, coefficient shared)"
    )
    out.print(where(outcome, path))


def perturb(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    v, st, sm = result.visible, result.step, result.samples
    from rich.table import Table

    table = Table(title=f"gaugecli perturb — {v.kind} visible perturbations")
    table.add_column("D", justify="right")
    table.add_column("ε*(D)", justify="right")
    table.add_column("P(select) at ε = " + ", ".join(f"{e:g}" for e in v.eps), justify="left")
    for D, thr, row in zip(v.strengths, v.threshold, v.probability, strict=True):
        table.add_row(f"{D:g}", fmt(thr) if thr is not None else f"> {max(v.eps):g}", " ".join(f"{p:.2f}" for p in row))
    out = console()
    out.print(table)
    out.print(
        f"GD (D={st.strength:g}, stable bound η*={st.stable_bound:.4g}): |T_spec^GD − T_spec^flow| ∝ η^{fmt(st.slope, '.3f')}"
        f" (expected 1); selection held for {sum(st.success)}/{len(st.success)} step sizes"
    )
    out.print(
        f"finite sample (D={sm.strength:g}): sup_t |L(θ_n) − L(θ_∞)| ∝ n^{fmt(sm.slope, '.3f')} (expected −0.5); "
        f"selection held in {sum(map(sum, sm.success))}/{sum(map(len, sm.success))} runs"
    )
    out.print(where(outcome, path))


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
    out.print(table)
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
            fires = ", ".join(f"{row['per']}: {fmt(row['detector_fire_raw'], '.3g')}" for row in rows)
            label = "aligned control" if control else "select"
            out.print(f"Xu raw detector, {label} flow, fire time by per: {fires}")
    if result.tspec_vs_d:
        for assign in ("select", "all-minus"):
            ts = [row[assign] for row in result.tspec_vs_d if row[assign] is not None]
            if ts:
                dims = ",".join(str(row["d"]) for row in result.tspec_vs_d)
                out.print(
                    f"T_spec({assign}) over d = {dims}: {min(ts):.6g}…{max(ts):.6g} (spread {max(ts) / min(ts) - 1:.1e})"
                )
    for note in result.notes:
        out.print(f"note: {escape(note)}")
    out.print(where(outcome, path))
