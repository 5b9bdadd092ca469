"""A phase map's per-cell work outside its flows, done chunk by chunk, against the per-cell paths it
replaces: the cells' configs (each still built and checked as its command builds it), their hashes (the
values every user's cache is keyed by: the old encoder is kept here as the reference), the starts, the
exact-saddle test, R and T, and the time integrals of a chunk's runs."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import pickle
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from gaugecli.core.analyses.symmetry import exact_saddle, exact_saddles
from gaugecli.core.model.gauge import duplicate_initial_condition, imbalance
from gaugecli.core.model.metrics import log_time_integral, log_time_integral_rows
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import dissipation, reaction_transport
from gaugecli.core.types import LATER_FIELD, UNKEYED_FIELD
from gaugecli.experiments.phase import PRESETS, PhaseConfig, chunk_key, chunks, parse_axis, preset_configs
from gaugecli.experiments.phase.axes import axis_specs
from gaugecli.experiments.phase.chunk import _deltas, _start, _starts
from gaugecli.experiments.phase.config import _set
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.store.artifacts import CACHE_LAYOUT, config_hash, package_version
from gaugecli.store.codec import canonical_json, to_jsonable

EPS = np.finfo(float).eps


def _reference_jsonable(obj: Any) -> Any:
    """The encoder before configurations were hashed from their parts (its text, kept as the reference)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.metadata.get(UNKEYED_FIELD):  # where it runs (phase's device), never part of the text
                continue
            if f.metadata.get(LATER_FIELD) and (
                value is f.default or (not isinstance(value, np.ndarray) and bool(value == f.default))
            ):
                continue
            out[f.name] = _reference_jsonable(value)
        return out
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): _reference_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return _reference_jsonable(obj.tolist())
    if isinstance(obj, (list, tuple)):
        return [_reference_jsonable(v) for v in obj]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return float(obj) if math.isfinite(float(obj)) else None
    return obj


def _reference_hash(config: Any) -> str:
    value = {"config": _reference_jsonable(config), "version": package_version(), "layout": CACHE_LAYOUT}
    text = json.dumps(value, sort_keys=True, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _grid(n: int, gauge: str) -> PhaseConfig:
    return PhaseConfig(
        "simulate",
        parse_axis(f"gauge-strength=1:64:{n}:log", "simulate"),
        parse_axis(f"c0=0.01:1:{n}:log", "simulate", "y"),
        ("t-spec",),
        base=replace(SimulateConfig(), m=1, gauge=gauge),
    )


@pytest.fixture(scope="module")
def configs() -> list[Any]:
    """Every preset's configs, cells and chunk keys, a T_spec map's, and values of each kind the encoder takes."""
    out: list[Any] = []
    maps = [(f"grid-{g}", _grid(3, g)) for g in ("favorable", "unfavorable")]
    maps += [pair for name in PRESETS for pair in preset_configs(name)]
    for _, config in maps:
        cells = [c for row in config.cells() for c in row]
        jobs, _ = chunks(config)
        out += [config, *cells[:12], *(chunk_key(j) for j in jobs[:3])]
    out.append({"x": np.array([1.0, np.nan, -0.0]), "y": (np.float64(2), np.int64(3), np.bool_(True), math.inf)})
    out.append({"word": 'é "quoted"\n', 2: [1, {"z": None}], "b": False})
    return out


def test_configs_encode_and_hash_as_before(configs: list[Any]) -> None:
    for config in configs:
        want = _reference_jsonable(config)
        assert json.dumps(to_jsonable(config)) == json.dumps(want)  # key order too: the files keep it
        assert canonical_json(config) == json.dumps(want, sort_keys=True, allow_nan=False, separators=(",", ":"))
        assert config_hash(config) == _reference_hash(config)
        assert config_hash(config) == _reference_hash(config)  # again: from the texts kept by identity


def test_cells_are_their_commands_configs_built_once() -> None:
    config = PhaseConfig(
        "simulate",
        parse_axis("theta0=0.3:2.5:3", "simulate"),
        parse_axis("c0=0.05:0.5:2:log", "simulate", "y"),
        ("t-spec", "ratio"),
        base=replace(SimulateConfig(), m=1, gauge="favorable"),
    )
    specs = axis_specs("simulate")
    sx, sy = specs["theta0"], specs["c0"]
    base = config.run_base
    # the per-cell chain it replaces: the row's y set anew in every cell
    want = [[_set(_set(base, sy, vy, "y"), sx, vx, "x") for vx in config.x.values] for vy in config.y.values]
    got = config.cells()
    assert got == want and [[_reference_hash(c) for c in row] for row in got] == [
        [_reference_hash(c) for c in row] for row in want
    ]
    got[0][0] = got[1][1]  # a caller's list: the cells kept stay whole
    assert config.cells()[0][0] == want[0][0]
    copy = pickle.loads(pickle.dumps(config))  # the kept cells are no part of a pickle, the JSON or equality
    assert copy == config and "_cells" not in copy.__dict__
    assert to_jsonable(copy) == to_jsonable(config)


def test_a_chunks_starts_are_each_runs_alone() -> None:
    config = _grid(3, "unfavorable")
    jobs, _ = chunks(config)
    runs = list(jobs[1].cells)
    runs.append(replace(runs[0], eps=0.1, init_seed=3))  # a perturbed start: its own path
    a0, W0 = _starts(runs, [_deltas(r) for r in runs])
    for b, run in enumerate(runs):
        a, W = _start(run)
        # the same operations on the same numbers (the shared direction u0 is the one each run would find)
        np.testing.assert_allclose(a0[b], a[0], rtol=2 * EPS, atol=0)
        np.testing.assert_allclose(W0[b], W[0], rtol=2 * EPS, atol=2 * EPS * float(np.max(np.abs(W))))


@pytest.mark.parametrize("activation", ["relu", "square"])
def test_exact_saddles_of_a_batch_are_each_starts(activation: str) -> None:
    from gaugecli.core.activations import activation as make

    model = standard_model(4, activation=make(activation))
    deltas = np.array([[1.0, 0.5], [-2.0, 0.0], [0.0, 0.0]])
    rng = np.random.default_rng(0)
    starts = [
        duplicate_initial_condition(model, deltas, theta0=np.pi / 2),  # orthogonal to the teacher: tested
        duplicate_initial_condition(model, deltas, theta0=1.0),  # not orthogonal
        (rng.standard_normal((3, 2)), rng.standard_normal((3, 2, 4))),
    ]
    for a, W in starts:
        want = [exact_saddle(Network(a[b], W[b]), model) for b in range(a.shape[0])]
        assert exact_saddles(Network(a, W), model).tolist() == want
    assert exact_saddles(Network(*starts[0]), model).all() == (activation == "square")  # z²'s saddle, not ReLU's


def test_reaction_and_transport_are_the_dissipations() -> None:
    model = standard_model(3)
    rng = np.random.default_rng(1)
    theta = Network(rng.standard_normal((5, 7, 2)), rng.standard_normal((5, 7, 2, 3)))
    full = dissipation(theta, model)
    reaction, transport = reaction_transport(theta, model)
    # the same operations: equal to round-off of each series' scale
    for got, want in ((reaction, full.reaction), (transport, full.transport)):
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * EPS * float(np.max(np.abs(want))))
    assert imbalance(theta).shape == reaction.shape + (2,)


def test_time_integrals_of_rows_are_each_rows() -> None:
    """Rows of every length from 2 samples (a trapezoid) on, of both parities, each on its own samples
    of one grid: Simpson in ln t per row, against scipy's call on that row alone."""
    rng = np.random.default_rng(2)
    t = np.concatenate([[0.0], np.geomspace(1e-3, 1e3, 120)])
    rows = 30
    keep = rng.random((rows, t.size)) < 0.8
    keep[:, 0] = True
    for b in range(rows):
        end = 1 + b if b < 6 else int(rng.integers(6, t.size))  # rows 0…5: 2…7 samples
        keep[b, end + 1 :] = False
        keep[b, end] = True
    values = rng.random((2, rows, t.size)) * np.exp(-t / 50.0)
    got = log_time_integral_rows(t, values, keep)
    want = np.array([[log_time_integral(t[keep[b]], values[k, b, keep[b]]) for b in range(rows)] for k in range(2)])
    # the same terms summed in another order (numpy's pairwise sum over ≤ 60 pairs): a few ε of the scale
    np.testing.assert_allclose(got, want, rtol=16 * EPS, atol=0)
    assert set(keep.sum(axis=1) % 2) == {0, 1}


def test_a_rows_integrals_and_horizon_losses_are_each_runs() -> None:
    """Runs of one ensemble at their own horizons (declared times of its grid), as a phase chunk reads
    them: ∫R dt and ∫T dt of all at once against each alone — with each run's own inserted times (the
    other runs' horizons and the crossings) as before, or the chunk's one array — and the loss computed at
    the horizons only against its series."""
    from gaugecli.core.integrate.flow import gradient_flow
    from gaugecli.experiments.phase import lean
    from gaugecli.experiments.phase.metrics import Observed, _spent_alone, spent_all

    model = standard_model(2)
    theta0 = Network(*duplicate_initial_condition(model, np.array([[4.0], [-4.0], [16.0]])))
    horizons = np.array([30.0, 60.0, 100.0])
    traj = gradient_flow(theta0, model, 100.0, eps_align=0.01, extra_times=horizons[:2])
    ats = np.argmin(np.abs(traj.t[None, :] - horizons[:, None]), axis=1)
    row, at_horizons = lean.observe_row(traj, model), lean.observe_row(traj, model, ats)
    shared = np.concatenate([traj.crossing_times.ravel(), horizons[:2]])
    seen = [Observed(row[b], int(ats[b]), shared) for b in range(3)]
    others = [horizons[:2][horizons[:2] != h] for h in horizons]  # as each run alone was given them
    alone = [Observed(row[b], int(ats[b]), np.concatenate([traj.crossing_times.ravel(), others[b]])) for b in range(3)]
    got = np.array(spent_all(seen))
    want = np.array([_spent_alone(s) for s in alone])
    np.testing.assert_allclose(got, want, rtol=16 * EPS, atol=0)  # the pairs summed in another order
    for b in range(3):
        i = int(ats[b])
        scale = float(np.max(np.abs(row[b].loss)))
        assert abs(at_horizons[b].loss[i] - row[b].loss[i]) <= 4 * EPS * scale  # the same closed form there
        assert np.isnan(np.delete(at_horizons[b].loss, i)).all()
        for j in (i, -1):  # the alignment at the horizon and at the end (the owner's): cosines, to a few ε
            assert abs(at_horizons[b].alignment[j, 0] - row[b].alignment[j, 0]) <= 4 * EPS
        assert (at_horizons[b].computed_owner, at_horizons[b].t_spec) == (row[b].computed_owner, row[b].t_spec)


def test_reaction_and_transport_are_computed_at_the_integrals_nodes_only() -> None:
    """R and T of a chunk's row at the Simpson nodes up to each run's horizon only (as a phase chunk asks them):
    the whole row's numbers there, NaN elsewhere, and the same integrals."""
    from gaugecli.core.integrate.flow import gradient_flow
    from gaugecli.experiments.phase import lean
    from gaugecli.experiments.phase.metrics import Observed, simpson_nodes, spent_all

    model = standard_model(2)
    theta0 = Network(*duplicate_initial_condition(model, np.array([[4.0], [-4.0], [16.0]])))
    horizons = np.array([30.0, 60.0, 100.0])
    traj = gradient_flow(theta0, model, 100.0, eps_align=0.01, extra_times=horizons[:2])
    ats = np.argmin(np.abs(traj.t[None, :] - horizons[:, None]), axis=1)
    inserted = np.concatenate([traj.crossing_times.ravel(), horizons[:2]])
    nodes = simpson_nodes(traj.t, inserted, ats)
    assert 0 < nodes.sum() < nodes.size  # some states are not read: the later runs' horizons, past each horizon
    whole, read = lean.observe_row(traj, model, ats), lean.observe_row(traj, model, ats, nodes)
    for b in range(3):
        for name in ("reaction", "transport"):
            got, want = getattr(read[b], name), getattr(whole[b], name)
            # exact by construction: the same compiled loop on the same states, each state's R and T its own
            np.testing.assert_array_equal(got[nodes[b]], want[nodes[b]])
            assert np.isnan(got[~nodes[b]]).all()
    series = lean.observe_row(traj, model)
    for b in range(3):  # the coefficient at the horizon and the last state only, the whole series' numbers there
        c, want = read[b].coefficient[:, 0], series[b].coefficient[:, 0]
        np.testing.assert_array_equal(c[[ats[b], -1]], want[[ats[b], -1]])  # exact: the same norm of the same state
        assert np.isnan(np.delete(c, [ats[b], c.size - 1])).all()
    spent = [spent_all([Observed(row[b], int(ats[b]), inserted) for b in range(3)]) for row in (whole, read)]
    assert spent[0] == spent[1]  # exact: the integrals read the nodes' values only, which are equal


def test_a_chunks_owners_are_each_runs() -> None:
    """The owners at the horizons of a chunk's runs found at once are each run's own (final_owner alone)."""
    from gaugecli.core.integrate.flow import gradient_flow
    from gaugecli.core.model.metrics import final_owner
    from gaugecli.experiments.phase import lean
    from gaugecli.experiments.phase.metrics import Observed, owners_all

    model = standard_model(2)
    theta0 = Network(*duplicate_initial_condition(model, np.array([[4.0], [-4.0], [16.0], [0.0]])))
    traj = gradient_flow(theta0, model, 60.0, eps_align=0.01, extra_times=np.array([3.0, 30.0]))
    ats = np.argmin(np.abs(traj.t[None, :] - np.array([3.0, 30.0, 60.0, 60.0])[:, None]), axis=1)
    seen = [Observed(run, int(at), np.array([])) for run, at in zip(lean.observe_row(traj, model), ats, strict=True)]
    alone = [final_owner(s.run.coefficient[s.at], s.run.alignment[s.at], 0.01) for s in seen]
    assert owners_all(seen, 0.01) == [(int(o), bool(k)) for o, k in alone]
    assert {k for _, k in alone} == {True, False}  # aligned runs and one not yet (δ = 4 at t = 3)
