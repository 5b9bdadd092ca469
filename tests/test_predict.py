"""``gaugecli predict``: the realised owners against an independent recomputation, each predictor's
accuracy in the regime where it should decide (with Wilson-interval margins), and resuming."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import gaugecli.experiments.predict as predict_module
from gaugecli.cli import app
from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.state import Network
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.predict import PredictConfig, chunk_key, chunks, predict
from gaugecli.experiments.predict.chunk import predict_chunk
from gaugecli.experiments.predict.starts import draw, gaussian_start, subspace_coordinates
from gaugecli.pipeline import Pipeline
from gaugecli.run.sweep import make_runner
from gaugecli.store.schemas import validate

STUDY = PredictConfig(ks=(1,), widths=(2, 4), spreads=(0.0, 1000.0), natural=False, runs=60)
"""k = 1, m = 2 and 4, ρ = 0 and ρ = 1000, 60 seeds per cell (≈ 4 s on one core)."""


@pytest.fixture(scope="module")
def study():
    return {(r.m, r.spread): r for r in predict(STUDY).rows}


def test_the_gauge_decides_when_its_spread_dominates(study):
    # measured (seeds 0–59 and 1000–1059): δ names the owner in 57/60 and 55/60 runs at m = 2,
    # 57/60 and 59/60 at m = 4 when ρ = σ_δ/σ_vis = 1000; the misses are starts whose two largest δ
    # are close. Asserted: ≥ 51/60 (≥ 0.85, below the Wilson lower bound 0.86 of the lowest measurement),
    # and δ's Wilson interval lies entirely above that of α and of c·α (measured ≤ 0.65 there).
    for m in (2, 4):
        row = study[(m, 1000.0)]
        assert row.owned == 60
        assert row.correct["delta"] >= 51
        for geometric in ("alignment", "c-alpha"):
            assert row.low["delta"] > row.high[geometric]


def test_the_visible_geometry_decides_when_delta_has_no_spread(study):
    # ρ = 0: every δ is 0, so the δ rule names no neuron (0 correct by construction), while the start's
    # geometry names the owner far above chance 1/m — measured c·α 47/60 and 50/60 at m = 2 (alignment
    # 46/60, 50/60), 46/60 and 45/60 at m = 4. Asserted: the Wilson lower bounds exceed chance by 0.15
    # (measured lower bounds 0.63–0.72 against chance 0.5 and 0.25).
    for m in (2, 4):
        row = study[(m, 0.0)]
        assert row.correct["delta"] == 0
        assert row.low["c-alpha"] > 1 / m + 0.15
    assert study[(2, 0.0)].low["alignment"] > 0.5 + 0.1


def test_owners_match_an_independent_recomputation_from_the_final_states():
    # k = 2, m = 4, ρ = 1: the chunk's owners against the final states recomputed here from the same
    # draw, integrated in the full d = 16 (no subspace coordinates), owners read from a, W and e_1, e_2;
    # another solver too: the chunk's seeds each on the compiled DOP853 (POPULATION_METHOD), these on LSODA
    job = chunks(PredictConfig(ks=(2,), widths=(2,), spreads=(1.0,), natural=False, runs=6, rtol=1e-9))[0][0]
    result = predict_chunk(job)
    from gaugecli.experiments.common import integrate_ensemble

    starts = [gaussian_start(s, 2, 4, 16, 0.3, 0.3, 1.0) for s in job.seeds]
    a0, W0 = np.stack([a for a, _ in starts]), np.stack([W for _, W in starts])
    model = ModelConfig(d=16, k=2)
    owned = 0
    for b in range(len(job.seeds)):  # each alone: another ensemble, another subspace, the same flow
        traj, _ = integrate_ensemble(
            model, DynamicsConfig(rtol=1e-9, t_max=job.t_max), Network(a0[b : b + 1], W0[b : b + 1])
        )
        W, a = traj.input_weights()[0, -1], traj.a[0, -1]
        c, cos = a * np.linalg.norm(W, axis=1), W[:, :2] / np.linalg.norm(W, axis=1)[:, None]
        for f in range(2):
            aligned = np.flatnonzero(cos[:, f] >= 0.99)
            expected = int(aligned[np.argmax(c[aligned])]) if aligned.size else -1
            assert result.owners[b][f] == expected
            owned += expected >= 0
    assert owned >= 10  # the check is not empty: most features have an owner


def test_subspace_coordinates_keep_every_inner_product():
    _, W = gaussian_start(7, 2, 5, 16, 0.3, 0.3, None)
    Wt = subspace_coordinates(W, 2)
    assert Wt.shape == (5, 7)
    np.testing.assert_allclose(Wt @ Wt.T, W @ W.T, atol=1e-15)
    np.testing.assert_allclose(Wt[:, :2], W[:, :2], atol=0)
    # the visible function does not depend on ρ (SPEC C1); δ scales with it
    a1, W1, d1 = draw([3], 1, 4, 16, 0.3, 0.3, 1.0)
    a2, W2, d2 = draw([3], 1, 4, 16, 0.3, 0.3, 10.0)
    np.testing.assert_allclose(
        function_coordinates(Network(a1, W1))[0], function_coordinates(Network(a2, W2))[0], rtol=1e-12
    )
    np.testing.assert_allclose(d2, 10 * d1, rtol=1e-9)


def test_a_rerun_after_deleting_one_chunk_recomputes_only_that_chunk(tmp_path, monkeypatch):
    config = PredictConfig(ks=(1,), widths=(2,), spreads=(1.0,), natural=True, runs=4)
    monkeypatch.setattr(predict_module.config, "CHUNK_RUNS", 2)  # 2 cells × 2 chunks of 2 seeds
    monkeypatch.setattr(predict_module, "CHUNK_RUNS", 2)
    calls: list[tuple[int, ...]] = []

    @functools.wraps(predict_chunk)
    def counted(job):
        calls.append(job.seeds)
        return predict_chunk(job)

    monkeypatch.setattr(predict_module, "predict_chunk", counted)

    def run():
        pipe = Pipeline(tmp_path)
        pipe.runner = make_runner(None, pipe.cache)
        return pipe.ensure("predict", config)

    first = run()
    assert len(calls) == 4
    jobs, _ = chunks(config)
    pipe = Pipeline(tmp_path)
    pipe.cache.path("point", chunk_key(jobs[2])).unlink()
    pipe.cache.path("predict", config).unlink()
    calls.clear()
    second = run()
    assert calls == [jobs[2].seeds]
    assert second.computed and json.dumps(second.artifact["result"]["rows"]) == json.dumps(
        first.artifact["result"]["rows"]
    )
    validate(second.artifact)


def test_the_command_prints_the_table_and_writes_a_valid_artifact(tmp_path):
    out = tmp_path / "predict.json"
    res = CliRunner().invoke(
        app,
        ["predict", "--ks", "1,2", "--m-per-k", "1", "--spreads", "0,10", "--no-natural", "--runs", "4",
         "--cache-dir", str(tmp_path / "runs"), "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Wilson" in res.output and "race" in res.output
    artifact = json.loads(out.read_text())
    assert validate(artifact) == ("predict", 1)
    assert len(artifact["result"]["rows"]) == 4
    # every row's and rule's interval against scipy's Wilson interval, not the function under test
    # (basis: the same closed form on the same counts, to round-off: rel 1e-12)
    from scipy.stats import binomtest

    checked = 0
    for row in artifact["result"]["rows"]:
        for rule, correct in row["correct"].items():
            if row["owned"] == 0:
                assert row["low"][rule] is None and row["high"][rule] is None
                continue
            ci = binomtest(correct, row["owned"]).proportion_ci(confidence_level=0.95, method="wilson")
            assert row["low"][rule] == pytest.approx(ci.low, rel=1e-12, abs=1e-15)
            assert row["high"][rule] == pytest.approx(ci.high, rel=1e-12, abs=1e-15)
            checked += 1
    assert checked >= 6 * 3  # the check is not empty: most rows have owners


def test_stacked_minibatch_sgd_follows_each_seeds_own_stream():
    """SGD of an ensemble with one sample and one batch stream per member (one batched gradient a
    step) against each member run alone with :func:`minibatch_oracle` from the same seed and sample:
    the same batches (n = 50 is not a multiple of B = 16, so epochs restart mid-way as in the single
    stream), hence the same iterates to round-off — 300 steps of η = 0.1 grow it to ≲ 1e-12."""
    from gaugecli.core.integrate.descent import gradient_descent
    from gaugecli.core.samples.sample import minibatch_oracle, stacked_minibatch_oracle
    from gaugecli.core.samples.sample_draw import draw_sample
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.predict.starts import gaussian_start

    net = ModelConfig(d=8, k=1).build()
    seeds = [3, 11]
    starts = [gaussian_start(s, 1, 3, 8, 0.3, 0.3, None) for s in seeds]
    a0, W0 = np.stack([a for a, _ in starts]), np.stack([W for _, W in starts])
    samples = [draw_sample(net, 50, np.random.SeedSequence([s, 50])) for s in seeds]
    together = gradient_descent(
        Network(a0, W0), net, 0.1, 30.0, oracle=stacked_minibatch_oracle(samples, 16, seeds), grid_points=3
    )
    for b, seed in enumerate(seeds):
        alone = gradient_descent(
            Network(a0[b], W0[b]), net, 0.1, 30.0, oracle=minibatch_oracle(net, 16, seed, samples[b]), grid_points=3
        )
        assert np.allclose(together.a[b, -1], alone.a[-1], rtol=1e-10, atol=1e-12)
        assert np.allclose(together.input_weights()[b, -1], alone.input_weights()[-1], rtol=1e-10, atol=1e-12)
    assert not np.allclose(together.a[0, -1], together.a[1, -1])  # two streams, not one


def test_stacked_minibatches_are_each_seeds_epochs_in_order_across_blocks():
    """The stacked oracle's batches, read back through a gradient that records its rows, are each member's
    epochs of ``default_rng(seed).permutation(n)`` cut into batches of B, exactly (integers): n = 40 takes
    ⌊4096/40⌋ = 102 epochs a block, and 2.5 blocks of epochs are read (B = 16 leaves 8 rows of each unused)."""
    from gaugecli.core.samples import sample as S
    from gaugecli.core.samples.sample_draw import draw_sample
    from gaugecli.experiments.config import ModelConfig

    net = ModelConfig(d=4, k=1).build()
    n, B, seeds = 40, 16, [5, 9, 2]
    samples = [draw_sample(net, n, np.random.SeedSequence([s, n])) for s in seeds]
    epochs = int(2.5 * (S.EPOCH_BLOCK_ROWS // n))
    seen = []
    original = S.EmpiricalSample.batch_gradient

    def recording(self, a, W, rows):
        seen.append(np.array(rows))
        return original(self, a, W, rows)

    S.EmpiricalSample.batch_gradient = recording
    try:
        oracle = S.stacked_minibatch_oracle(samples, B, seeds)
        a, W = np.full((3, 2), 0.5), np.ones((3, 2, 4))
        for _ in range(2 * epochs):  # two batches of 16 an epoch of 40
            oracle(a, W)
    finally:
        S.EmpiricalSample.batch_gradient = original
    for b, seed in enumerate(seeds):
        rng = np.random.default_rng(seed)
        expected = [order[i : i + B] for order in (rng.permutation(n) for _ in range(epochs)) for i in (0, B)]
        np.testing.assert_array_equal(np.stack([rows[b] for rows in seen]), np.stack(expected))


def test_the_matched_race_is_the_least_total_time_pairing_by_brute_force():
    # matched_race against every injective pairing of k features with m neurons, enumerated here,
    # on random race times with some never-aligning (inf) entries
    import itertools

    from gaugecli.experiments.predict.predictors import NONE, matched_race

    rng = np.random.default_rng(7)
    for k, m in ((1, 3), (2, 4), (3, 5), (3, 3)):
        times = rng.exponential(1.0, (40, m, k))
        times[rng.random((40, m, k)) < 0.2] = np.inf
        picks = matched_race(times)
        for b in range(40):
            finite = np.where(np.isfinite(times[b]), times[b], 1e6)
            best = min(itertools.permutations(range(m), k), key=lambda p: sum(finite[p[f], f] for f in range(k)))
            want = [j if np.isfinite(times[b, j, f]) else NONE for f, j in enumerate(best)]
            assert picks[b].tolist() == want
    assert (matched_race(np.ones((2, 1, 2))) == NONE).all()  # fewer neurons than features: none


def test_with_two_features_the_matched_race_names_owners_the_plain_race_cannot(study2):
    # k = 2, m = 4, δ as drawn, 60 seeds (120 feature–run pairs, all owned): the plain race often names
    # one neuron for both features (70/120 right); pairing the features with distinct neurons
    # (race-matched) names 101/120, Wilson interval [0.77, 0.89] against the race's [0.49, 0.67].
    # Asserted: the two intervals are apart, and race-matched's lies above chance 1/4 by 0.3.
    row = study2
    assert row.low["race-matched"] > row.high["race"]
    assert row.low["race-matched"] > 0.25 + 0.3


@pytest.fixture(scope="module")
def study2():
    (row,) = predict(PredictConfig(ks=(2,), widths=(2,), spreads=(), natural=True, runs=60)).rows
    return row


def test_with_zero_tolerance_an_exact_tie_names_no_neuron():
    """A hand-made exact tie: with ``tol`` 0 the rule names none (:data:`NONE`), along either axis; a
    strict maximum is named."""
    from gaugecli.experiments.predict.predictors import NONE, unique_argmax

    x = np.array([[1.0, 3.0, 3.0, 2.0], [0.5, 4.0, 3.0, 2.0]])
    assert unique_argmax(x, axis=1).tolist() == [NONE, 1]
    assert unique_argmax(x.T, axis=0).tolist() == [NONE, 1]
    assert unique_argmax(np.array([[-2.0, -2.0]]), axis=1).tolist() == [NONE]


MIXED = PredictConfig(ks=(1,), widths=(4,), spreads=(1000.0,), natural=False, runs=24, mixed_signs=True)
"""k = 1, m = 4, ρ = 1000 (δ decides), output weights with their drawn signs: about half the neurons
have a < 0, and where δ > 0 such a neuron can never carry the teacher's positive function."""


def test_with_mixed_signs_the_delta_rule_never_names_a_neuron_that_cannot_turn_positive():
    from gaugecli.experiments.predict.predictors import NONE

    jobs, _ = chunks(MIXED)
    assert jobs and all(job.mixed_signs for job in jobs)
    trapped_tops = 0
    for job in jobs:
        result = predict_chunk(job)
        a0, W0, delta = draw(list(job.seeds), job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread, True)
        delta = a0**2 - np.sum(W0**2, axis=-1)
        trapped = (a0 < 0) & (delta > 0)  # a² ≥ δ > 0 keeps a < 0 for ever
        for b, picks in enumerate(result.picks["delta"]):
            pick = picks[0]
            assert pick == NONE or not trapped[b, pick], (job.seeds[b], a0[b], delta[b])
            trapped_tops += bool(trapped[b, np.argmax(delta[b])])
    # the check is not empty: in several runs the largest δ belongs to such a neuron (a plain argmax
    # would name it); measured 9 of 24
    assert trapped_tops >= 3


def test_mixed_signs_is_part_of_each_chunks_identity(tmp_path, monkeypatch):
    """A study with mixed signs reuses no chunk of the same study with positive output weights: each
    chunk's cache key holds ``mixed_signs``, and every chunk is computed again."""
    from dataclasses import replace

    plain = replace(MIXED, mixed_signs=False, runs=8)
    mixed = replace(plain, mixed_signs=True)
    calls: list[bool] = []

    @functools.wraps(predict_chunk)
    def counted(job):
        calls.append(job.mixed_signs)
        return predict_chunk(job)

    monkeypatch.setattr(predict_module, "predict_chunk", counted)
    cache = Pipeline(tmp_path).cache
    for job_plain, job_mixed in zip(chunks(plain)[0], chunks(mixed)[0], strict=True):
        assert cache.path("point", chunk_key(job_plain)) != cache.path("point", chunk_key(job_mixed))

    def run(config):
        pipe = Pipeline(tmp_path)
        pipe.runner = make_runner(None, pipe.cache)
        return pipe.ensure("predict", config)

    run(plain)
    n = len(calls)
    assert n == len(chunks(plain)[0]) and not any(calls)
    run(mixed)
    assert calls[n:] == [True] * len(chunks(mixed)[0])


def test_the_cells_of_one_seed_range_share_their_predictions(monkeypatch):
    # the predictors read the start alone: a chunk on L_n (or by SGD) names the neurons its
    # population twin names, from one evaluation of the rules per process (the race times are the cost)
    import dataclasses

    import gaugecli.experiments.predict.chunk as chunk_module
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.predict.predictors import predictions

    calls = []

    @functools.wraps(predictions)
    def counted(*args, **kwargs):
        calls.append(1)
        return predictions(*args, **kwargs)

    monkeypatch.setattr(chunk_module, "predictions", counted)
    chunk_module._start_picks.cache_clear()
    job = chunks(PredictConfig(ks=(1,), widths=(2,), spreads=(1.0,), natural=False, runs=4))[0][0]
    results = [predict_chunk(j) for j in (job, dataclasses.replace(job, n=64))]
    assert len(calls) == 1
    a0, W0, _ = draw(list(job.seeds), job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread, job.mixed_signs)
    net = ModelConfig(d=W0.shape[-1], k=1).build()  # the population's invariant coordinates, as the chunk draws them
    direct = predictions(Network(a0, W0), net, job.eps_align, job.rtol, job.t_max)
    for result in results:
        assert result.picks == {name: direct[name].tolist() for name in job.rules}


@pytest.mark.parametrize(("k", "m"), [(1, 4), (2, 2)])
def test_the_race_times_are_lsodas_to_the_solvers_tolerance(k: int, m: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race's compiled per-member DOP853 (``RACE_METHOD``) against LSODA on rows shared by the
    ensemble (the flow's default), six Gaussian starts at rtol 1e-9: the same neurons align (finite
    times), each time within 10·rtol relative (each solver's crossing is within a few rtol of the
    flow's; measured ≤ 7e-10)."""
    from gaugecli.experiments.predict import predictors

    a0, W0, _ = draw(list(range(6)), k, m, 16, 0.3, 0.3, None)
    net = ModelConfig(d=W0.shape[-1], k=k).build()
    compiled = predictors.race_times(Network(a0, W0), net, 0.01, 1e-9, 222.0)
    monkeypatch.setattr(predictors, "RACE_METHOD", "auto")
    shared = predictors.race_times(Network(a0, W0), net, 0.01, 1e-9, 222.0)
    finite = np.isfinite(shared)
    np.testing.assert_array_equal(np.isfinite(compiled), finite)
    assert finite.sum() >= 12  # most neurons race
    np.testing.assert_allclose(compiled[finite], shared[finite], rtol=1e-8)
