"""Named numbers of a run's artifact for the documentation pages (:mod:`doc_numbers`): what a page
quotes of a ``predict`` study, by a name that says which cell and which quantity.

A cell of a study is ``k{k}.m{m}.{spread}``, ``spread`` being ``rho{ρ}`` (δ spread apart from the
visible draw, ``rho0``, ``rho100``) or ``drawn`` (δ as the Gaussian draw gives it), followed by
``.n{n}`` for a cell trained on the empirical loss ``L_n`` and ``.sgd`` for its minibatch-SGD twin.
Its numbers:

* ``CELL.PREDICTOR`` — the share of the owned (run, feature) pairs whose owner the predictor names
  (``delta``, ``alignment``, ``c-alpha``, ``angular-speed``, ``race``, ``race-matched``), and
  ``CELL.PREDICTOR.low``/``.high``, its 95 % Wilson interval;
* ``CELL.owned``, ``CELL.pairs``, ``CELL.no_owner`` (counts) and ``CELL.owned_share`` = owned/pairs;
* ``CELL.ratio`` (the declared or expected ρ) and ``CELL.measured_ratio`` (the draws' own);
* ``CELL.set-delta``, ``CELL.set-c-alpha`` — the share of runs with every feature owned whose top
  ``k`` of that score is exactly the owner set (:func:`~gaugecli.experiments.predict.sets.owner_sets`),
  and ``CELL.set-chance`` = 1/C(m, k) (population cells of a study with positive output weights);
* ``CELL.population`` (a finite-sample cell) — of the pairs that have an owner both here and in the
  population cell of the same starts, the share with the same owner;
* ``CELL.flow`` (an SGD cell) — of the pairs the flow on the same sample owns, the share SGD ends
  with the same owner.
"""

from __future__ import annotations

from typing import Any


def cell(row: Any) -> str:
    """The name of a row's cell, e.g. ``k1.m4.drawn.n64.sgd``."""
    spread = "drawn" if row.spread is None else f"rho{row.spread:g}"
    name = f"k{row.k}.m{row.m}.{spread}"
    if row.n is not None:
        name += f".n{row.n}"
    return name + (".sgd" if row.batch is not None else "")


def _agreement(row: Any, reference: Any, *, both: bool) -> float | None:
    """Of the pairs ``reference`` owns (and ``row`` too when ``both``), the share with the same owner."""
    pairs = [
        (o, q)
        for mine, theirs in zip(row.owners, reference.owners, strict=True)
        for o, q in zip(mine, theirs, strict=True)
        if q >= 0 and (o >= 0 or not both)
    ]
    return sum(o == q for o, q in pairs) / len(pairs) if pairs else None


def predict_view(artifact: Any) -> dict[str, float]:
    """Every named number of a ``predict`` artifact (:func:`gaugecli.api.load`'s)."""
    result, config = artifact.result, artifact.config
    out: dict[str, float] = {}
    rows = {cell(row): row for row in result.rows}
    for name, row in rows.items():
        for p in result.predictors:
            if row.accuracy[p] is not None:
                out[f"{name}.{p}"] = row.accuracy[p]
                out[f"{name}.{p}.low"] = row.low[p]
                out[f"{name}.{p}.high"] = row.high[p]
        out |= {f"{name}.owned": row.owned, f"{name}.pairs": row.pairs, f"{name}.no_owner": row.no_owner}
        out[f"{name}.owned_share"] = row.owned / row.pairs
        out[f"{name}.ratio"] = row.ratio
        out[f"{name}.measured_ratio"] = row.measured_ratio
        if row.n is not None:
            population = rows[name.split(".n")[0]]
            share = _agreement(row, population, both=True)
            if share is not None and row.batch is None:
                out[f"{name}.population"] = share
            if row.batch is not None:
                flow = _agreement(row, rows[name.removesuffix(".sgd")], both=False)
                if flow is not None:
                    out[f"{name}.flow"] = flow
    if not config.mixed_signs:
        from gaugecli.experiments.predict.sets import owner_sets

        for row, sets in zip(result.rows, owner_sets(result, config), strict=True):
            if row.n is None and sets.runs:
                out |= {f"{cell(row)}.set-{s}": sets.correct[s] / sets.runs for s in sets.correct}
                out[f"{cell(row)}.set-chance"] = sets.chance
    return out
