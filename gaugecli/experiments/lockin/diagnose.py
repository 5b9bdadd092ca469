"""One run's diagnostics (:mod:`gaugecli.core.analyses.lockin`) on its epoch-grid trajectory → :class:`LockinRun`.

From the update matrix ``Ẇ (n_epochs, m, d)``: the rank-2 share ``σ2/σ1`` and its peak, Xu's
windowed-Gram detector raw and floored; from the stored states: Tian's ``B`` on the centered
features (population closed form for the ReLU flow, activations for finite samples), the
owner–non-owner similarity, and the owner's overshoot past v; from the invariant-set flow (when
the start has an equal pair): the duplicates' separation rate ``λ_anti`` and its integral ``Λ``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.model.metrics import final_owner
from gaugecli.core.model.model import Model
from gaugecli.core.types import Array
from gaugecli.experiments.lockin.config import LockinConfig
from gaugecli.experiments.lockin.result import LockinRun


@dataclass(frozen=True)
class Condition:
    """What a run is: gauge ``assign``-ment, ``mode`` (flow | sample), ``D``, sample ``seed``,
    ``activation`` (relu | x2), and whether it is the aligned ``control`` (θ0 = 0)."""

    assign: str
    mode: str
    D: float
    seed: int | None
    activation: str
    control: bool


class Trajectory(NamedTuple):
    """A run on its epoch grid ``times`` (``τ = t_unit/per``): states ``a (n, m)``, ``W (n, m, d)``,
    updates ``dW = Ẇ (n, m, d)``, its ``t_spec`` (absolute, None if never aligned), the GD step
    ``eta`` (None for the flow), the sample ``X (n_samples, d)`` (None: population) and ``u0``."""

    times: Array
    t_unit: float
    a: Array
    W: Array
    dW: Array
    t_spec: float | None
    eta: float | None
    X: Array | None
    u0: Array


GRAM_BLOCK_BYTES = 32 * 2**20
"""Activations held at once by :func:`gram_series` (epochs × n × m): all epochs at once grew
like per · n · m (12 GB at per = 8000, n = 10⁴)."""


def gram_series(activation: str, W: Array, X: Array | None) -> Array:
    """Centered feature Gram per stored epoch: population closed form (ReLU flow) or activations
    (computed in blocks of epochs of at most :data:`GRAM_BLOCK_BYTES`)."""
    if X is None:
        return lk.centered_feature_gram(W)
    block = max(1, GRAM_BLOCK_BYTES // (8 * X.shape[0] * W.shape[-2]))
    grams = []
    for start in range(0, W.shape[0], block):
        Z = np.matmul(X, np.swapaxes(W[start : start + block], -1, -2))  # (t, n, m): BLAS, not einsum's loop
        F = np.maximum(Z, 0.0) if activation == "relu" else Z * Z
        grams.append(lk.sample_feature_gram(F))
    return np.concatenate(grams)


def fire_time(epoch: int | None, per: int) -> float | None:
    """A firing epoch in units of ``t_unit`` (None: never fired)."""
    return None if epoch is None else epoch / per


def as_list(x: Array) -> list[float | None]:
    """A series for the artifact: NaN and ±inf as None."""
    return [None if not np.isfinite(v) else float(v) for v in np.asarray(x, float)]


def owner_overshoot(W: Array, owner: int, net: Model, u0: Array) -> float:
    """Largest angle (degrees) by which the owner passes v, away from u0, in the plane (v, u0)."""
    v = net.unit_directions()[0]
    u = W[:, owner] / np.linalg.norm(W[:, owner], axis=-1, keepdims=True)
    angle = np.degrees(np.arctan2(u @ u0, u @ v))  # 90° at u0, 0 at v, < 0 past v
    return float(max(0.0, -np.min(angle)))


def unique_owner(deltas: Array, c: Array, alpha: Array, eps_align: float) -> int | None:
    """The final owner, or None for a symmetric start (the largest δ is shared: docs/theory.md §9)."""
    if np.sum(deltas == np.max(deltas)) > 1:
        return None
    owner, specialized = final_owner(c, alpha, eps_align)
    return int(owner) if bool(specialized) else None


def gauge_classes(deltas: Array) -> int:
    """Number of distinct gauges δ_j among the duplicates (bounds the rank of Ẇ)."""
    return len(set(np.asarray(deltas, float).tolist()))


def diagnose(
    config: LockinConfig,
    condition: Condition,
    run: Trajectory,
    net: Model,
    *,
    owner: int | None,
    deltas: Array,
    instability: tuple[Array, Array] | None = None,
) -> LockinRun:
    """Every diagnostic of one run; series kept at every ``store_every``-th epoch, times in ``t_unit``."""
    per = config.per
    x = run.times / run.t_unit
    sv = lk.update_singular_values(run.dW)
    share = lk.rank2_share(sv)
    peak = lk.sampled_peak(x, share)
    lam = lk.window_gram_eigenvalues(run.dW, config.window)
    raw = lk.xu_lockin(lam, config.lag, config.threshold, config.burn_in)
    floored = lk.xu_lockin(lam, config.lag, config.threshold, config.burn_in, config.floor)

    keep = np.arange(0, run.times.size, config.store_every)
    G = gram_series(condition.activation, run.W[keep], run.X)
    tb = lk.tian_b(G, lk.ridge_from_gram(G, config.ridge))
    S = lk.feature_similarity(G)
    o = config.owner
    others = [j for j in range(config.m) if j != o]
    iu = np.triu_indices(config.m, k=1)
    similar = S[:, iu[0], iu[1]] > 0
    negative = tb.B[:, iu[0], iu[1]] < 0
    frac = float(np.sum(similar & negative) / np.sum(similar)) if np.any(similar) else None

    series: dict[str, list[float | None]] = {
        "t": as_list(x[keep]),
        "rank2_share": as_list(share[keep]),
        "gap_raw": as_list(raw.gap[keep]),
        "gap_floored": as_list(floored.gap[keep]),
        "lambda2_over_lambda1": as_list(lam[keep, 1] / lam[keep, 0]),
        "lambda3_over_lambda1": as_list(lam[keep, 2] / lam[keep, 0]),
        "slope_raw": as_list(raw.slope[keep]),
        "slope_floored": as_list(floored.slope[keep]),
        "similarity_owner": as_list(np.mean(S[:, o, others], axis=-1)),
        "informative_rate": as_list(lk.informative_rate(tb.B, S)),
        "direct_sign_match": as_list(lk.direct_sign_match(tb)),
    }
    Lambda_total = None
    if instability is not None:
        series["lambda_anti"] = as_list(instability[0])
        series["Lambda"] = as_list(instability[1])
        Lambda_total = float(instability[1][-1])
    return LockinRun(
        assign=condition.assign,
        mode=condition.mode,
        D=float(condition.D),
        seed=condition.seed,
        activation=condition.activation,
        control=condition.control,
        theta0=0.0 if condition.control else config.model.theta0,
        t_unit=float(run.t_unit),
        t_spec=None if run.t_spec is None else float(run.t_spec) / run.t_unit,
        owner=owner,
        epoch=float(run.times[1] - run.times[0]),
        eta=run.eta,
        rank2_peak=peak.height,
        rank2_t_peak=peak.t_peak,
        rank_max=int(np.max(lk.structural_rank(sv))),
        gauge_classes=gauge_classes(deltas),
        detector_fire_raw=fire_time(raw.fire_epoch, per),
        detector_fire_floored=fire_time(floored.fire_epoch, per),
        roundoff_fraction=lk.roundoff_fraction(lam),
        frac_neg_given_similar=frac,
        sign_identity_residual=float(np.max(lk.sign_identity_residual(tb))),
        direct_sign_match=float(np.mean(lk.direct_sign_match(tb))),
        owner_overshoot_deg=owner_overshoot(run.W, o, net, run.u0),
        Lambda_total=Lambda_total,
        series=series,
    )
