"""Claims of the hidden gauge one layer deeper (issue 51; docs/theory.md, deeper networks): the number of
conservation laws of an architecture is the known one (a balance per hidden neuron; n(n+1)/2 per hidden
layer of a linear network), the balances of a two-hidden-layer network hold along its flow on a sample,
the favorable duplicate owns the feature at either hidden layer, and T_spec(+D) follows the outgoing
mobility (D⁻² in layer 1 under a balanced layer 2, D⁻¹ in layer 2).

The runs are fig13's (:mod:`gaugecli.plots._fig13_panels`): a figure's run is a claim's run."""

from __future__ import annotations

import numpy as np

from gaugecli.pipeline import Inputs, Need
from gaugecli.verify.claim import Check, Claim, rounded

SLOPE_TOL = 0.1
"""On T_spec(+D)'s local slope at the largest D against its law: the corrections are O(c0²/D) relative
(the mobility's next term); measured within 0.01 at D = 4 → 8 and 0.05 at D = 2 → 4."""


def _laws_needs(quick: bool) -> dict[str, Need]:
    from gaugecli.plots import fig13

    return {k: v for k, v in fig13.needs(quick).items() if v.kind == "laws"}


def _deep_needs(quick: bool) -> dict[str, Need]:
    from gaugecli.plots import fig13

    return {k: v for k, v in fig13.needs(quick).items() if k in ("layer1", "layer2")}


def _counts(inputs: Inputs, quick: bool) -> Check:
    from gaugecli.plots._fig13_panels import ARCHITECTURES

    rows, ok = {}, True
    for widths, activation in ARCHITECTURES[quick]:
        r = inputs[f"laws-{activation.replace('-', '_')}_{'_'.join(map(str, widths))}"]
        hidden = widths[1:-1]
        known = sum(n * (n + 1) // 2 for n in hidden) if r.linear else sum(hidden)
        rows["-".join(map(str, widths)) + f" {activation}"] = int(r.n_laws)
        ok = ok and int(r.n_laws) == known and int(r.others) == 0 and bool(r.holds)
    return Check(
        "conservation laws found (D − rank of the generated Lie algebra) per architecture",
        rows,
        "one per hidden neuron (ReLU, leaky ReLU); n(n+1)/2 per hidden layer (linear); no others",
        "exact",
        ok,
        "gaugecli laws, 4 random points, rank tolerance 1e-8·σ_max; each law checked along a flow",
    )


def _balances(inputs: Inputs, quick: bool) -> Check:
    worst = max(float(np.max(inputs[k].drift) / inputs[k].drift_tolerance) for k in ("layer1", "layer2"))
    return Check(
        "largest balance drift along the flow, over its tolerance 10·rtol·max‖θ‖²",
        rounded(worst, 3),
        "≤ 1",
        "",
        worst <= 1.0,
        "gaugecli deep, layers 1 and 2, m = 3, ±4; RK45 at rtol 1e-5 on n = 500 samples, d = 4",
    )


def _selection(inputs: Inputs, quick: bool) -> Check:
    owners = {k: (int(inputs[k].selected), int(inputs[k].gd_selected)) for k in ("layer1", "layer2")}
    ok = all(flow == 0 and gd == 0 for flow, gd in owners.values())
    return Check(
        "the owner after the flow and after GD, duplicates in layer 1 and in layer 2 (+4 to neuron 0)",
        {k: list(v) for k, v in owners.items()},
        "neuron 0 at both layers, by flow and by GD",
        "exact",
        ok,
        "gaugecli deep, m = 3, the other layer at 0 (layer 1) or −4 (layer 2); GD η = 0.01",
    )


def _mobility(inputs: Inputs, quick: bool) -> Check:
    slopes = {k: float(inputs[k].plus_slopes[-1]) for k in ("layer1", "layer2")}
    ok = abs(slopes["layer1"] + 2.0) <= SLOPE_TOL and abs(slopes["layer2"] + 1.0) <= SLOPE_TOL
    return Check(
        "local slope of T_spec(+D) at the largest D, one neuron in layer 1 / in layer 2",
        rounded(slopes),
        "−2 (layer 1: (aW₂)² ≈ D² under a balanced layer 2) and −1 (layer 2: a² ≈ D)",
        f"± {SLOPE_TOL:g}",
        ok,
        "gaugecli deep, m = 1 from u0 ⊥ v, α ≥ 0.99",
    )


CLAIMS = [
    Claim(
        "D-law-counts",
        "The conservation laws of gradient flow are the known ones, and no others",
        _laws_needs,
        _counts,
        "fig13",
    ),
    Claim(
        "D-balances",
        "One layer deeper every hidden neuron's balance is conserved along the flow",
        _deep_needs,
        _balances,
        "fig13",
    ),
    Claim(
        "D-selection",
        "One layer deeper the favorable duplicate owns the feature, at either hidden layer",
        _deep_needs,
        _selection,
        "fig13",
    ),
    Claim(
        "D-mobility",
        "T_spec(+D) follows the outgoing mobility: D⁻² in layer 1 (balanced layer 2), D⁻¹ in layer 2",
        _deep_needs,
        _mobility,
        "fig13",
    ),
]
