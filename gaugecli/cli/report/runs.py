"""The summaries of the commands on one network: ``simulate``, ``select`` (and its owner sweep),
``prune`` and ``perturb``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaugecli.cli.report.header import dynamics_lines, header, model_lines, model_tag
from gaugecli.cli.report.terminal import console, fmt, fmt_loss, new_table, owner_label, show, where

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome


def simulate(outcomes: list[Outcome], paths: list[Path | None]) -> None:
    from gaugecli.core.analyses.observables import resolved_residual
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
    table = new_table(title, columns)
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
    for line in model_lines(configs[0].model, [o.result for o in outcomes]) + dynamics_lines(
        [o.result for o in outcomes]
    ):
        out.print(line)
    for outcome in outcomes:
        _measurements(outcome)
    for outcome, path in zip(outcomes, paths, strict=True):
        out.print(where(outcome, path))


def _measurements(outcome: Outcome) -> None:
    """Kunin et al.'s measurements of a run (``--checkpoints``), one row per checkpoint."""
    obs, config = outcome.result, outcome.config
    if getattr(obs, "checkpoint_t", None) is None:
        return
    eta = obs.eta
    stepped = eta is not None
    tested = obs.test_loss is not None
    columns = ("step" if stepped else "t", "kernel distance S", "Hamming", "‖θ − θ₀‖", *(("test L",) if tested else ()))
    gauge = f"δ = {obs.imbalance[0][0]:+.4g}"
    table = new_table(f"Kunin et al.'s measurements ({gauge}, on the n training inputs)", columns)
    for i, t in enumerate(obs.checkpoint_t):
        table.add_row(
            f"{round(t / eta):d}" if stepped else fmt(float(t)),
            fmt(float(obs.kernel_distance[i]), ".4g"),
            fmt(float(obs.hamming_distance[i]), ".4g"),
            fmt(float(obs.parameter_distance[i]), ".4g"),
            *((fmt_loss(float(obs.test_loss[i])),) if tested else ()),
        )
    show(table)
    console().print(
        "S = 1 − ⟨K_t, K_0⟩/(‖K_t‖‖K_0‖) of the empirical NTK on the training set (0: lazy, → 1: rich); Hamming: "
        "neurons whose ReLU pattern flipped, averaged over the inputs"
        + ("; test L: ½·mean (f − y)² held out (theirs is twice it)" if tested else "")
        + ("" if getattr(config, "inputs", "gaussian") == "gaussian" else "; L: on the unit sphere")
    )


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
    table = new_table(
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
    for line in dynamics_lines(result.runs):
        out.print(line)
    out.print(where(outcome, path))


def owner_sweep(outcome: Outcome, path: Path | None) -> None:
    result = outcome.result
    width = max(result.ms)
    table = new_table(
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
    table = new_table(
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
