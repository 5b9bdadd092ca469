"""Full-batch training of the modular-addition network (:mod:`.modular_addition`) with the lock-in
diagnostics recorded per epoch (one epoch = one full-batch step, as in Tian's code).

Per epoch ``k`` (before its step, as Tian's loop evaluates): train/test loss and accuracy. Then the
step, and the update of the first layer ``ΔW_k = W_{k+1} − W_k`` (``K × 2M``, float64): its singular
values (the top ones and the effective rank), and the eigenvalues of the Gram matrix of the last
``window`` flattened updates (:class:`gaugecli.core.analyses.lockin.RollingGram`, the same quantity
as :func:`~gaugecli.core.analyses.lockin.window_gram_eigenvalues`, kept as a stream so that the
updates are never all held). The same for the gradient ``−∂L/∂W`` at W_k — the direction plain GD
would step along — so that one run tells the optimizer's part from the task's. Every
``sign_every`` epochs and at the last: Tian's sign rule on the most similar pairs of the zero-mean
hidden activations F̃ of the training set (:func:`gaugecli.core.analyses.lockin.pair_sign_rule`).
The detector runs on the finished series.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from gaugecli.core.analyses import lockin as lk
from gaugecli.core.tasks import modular_addition as ma
from gaugecli.core.types import Array, Progress

OPTIMIZERS = ("adam", "adamw", "sgd")
"""Tian's choices: Adam and AdamW (lr, weight decay), SGD with momentum 0.9."""
SGD_MOMENTUM = 0.9
"""Tian's ``optim.SGD(..., momentum=0.9)``."""
TOP_SINGULAR = 4
"""Singular values of each ΔW kept in the series (σ1…σ4)."""


class Recipe(NamedTuple):
    """How a run trains: ``optimizer`` (one of :data:`OPTIMIZERS`), step ``lr``, ``weight_decay``,
    ``epochs``, ``refit`` (Tian's ridge refit of V each epoch with this regulariser; None: off),
    ``test_pairs`` (held-out pairs evaluated per epoch; None: all), the detector's ``window``, the
    sign rule's cadence ``sign_every``, its ``sign_pairs`` and relative ``ridge``, the torch ``device``."""

    optimizer: str
    lr: float
    weight_decay: float
    epochs: int
    refit: float | None
    test_pairs: int | None
    window: int
    sign_every: int
    sign_pairs: int
    ridge: float
    device: str


class TaskTrajectory(NamedTuple):
    """Per-epoch series (length ``epochs``) and the coarse sign-rule series (at ``sign_epochs``).

    ``sv (epochs, TOP_SINGULAR)``: top singular values of ΔW_k; ``effective_rank``: of ΔW_k
    (:func:`~gaugecli.core.analyses.lockin.effective_rank`); ``gram (epochs, 3)``: λ1 ≥ λ2 ≥ λ3 of the
    window of updates ending at k (NaN while incomplete); ``gradient_sv``, ``gradient_gram``: the same
    for ``−∂L/∂W``; ``magnitudes``: ``‖w_j‖‖v_j‖`` per hidden unit at the end."""

    train_loss: Array
    test_loss: Array
    train_acc: Array
    test_acc: Array
    sv: Array
    effective_rank: Array
    gram: Array
    gradient_sv: Array
    gradient_gram: Array
    sign_epochs: Array
    sign_match: Array
    sign_negative: Array
    sign_similarity: Array
    magnitudes: Array


def _optimizer(recipe: Recipe, params: list[torch.Tensor]) -> torch.optim.Optimizer:
    if recipe.optimizer == "adam":
        return torch.optim.Adam(params, lr=recipe.lr, weight_decay=recipe.weight_decay)
    if recipe.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=recipe.lr, weight_decay=recipe.weight_decay)
    if recipe.optimizer == "sgd":
        return torch.optim.SGD(params, lr=recipe.lr, momentum=SGD_MOMENTUM, weight_decay=recipe.weight_decay)
    raise ValueError(f"unknown optimizer {recipe.optimizer!r}; one of {', '.join(OPTIMIZERS)}")


def singular_values(A: Array) -> Array:
    """All singular values of ``A (K × p)``, descending, from the ``p × p`` Gram matrix (p ≪ K here:
    the square roots of its eigenvalues, accurate to ~ε·σ1²/σ_k relative, enough for the top ones
    and the effective rank)."""
    return np.sqrt(np.maximum(np.linalg.eigvalsh(A.T @ A)[::-1], 0.0))


def sign_epochs(epochs: int, every: int) -> Array:
    """The epochs where the sign rule is evaluated: every ``every``-th and the last."""
    return np.unique(np.append(np.arange(0, epochs, every), epochs - 1))


def train(
    M: int, K: int, activation: str, fraction: float, seed: int, recipe: Recipe, progress: Progress | None = None
) -> TaskTrajectory:
    """Train one seed (split and initial weights drawn from ``seed``) and record the diagnostics.

    Raises ``FloatingPointError`` naming the epoch and the step where the loss stops being finite.
    """
    device = torch.device(recipe.device)
    data = ma.split(M, fraction, seed, recipe.test_pairs)
    X, Xt = data.train_x.to(device), data.test_x.to(device)
    Y, Yt = ma.centered_targets(data.train_y, M).to(device), ma.centered_targets(data.test_y, M).to(device)
    y, yt = data.train_y.to(device), data.test_y.to(device)
    W, V = (p.to(device).requires_grad_(True) for p in ma.initial_params(M, K, seed))
    opt = _optimizer(recipe, [W, V])
    n = recipe.epochs
    out = {name: np.full(n, np.nan) for name in ("train_loss", "test_loss", "train_acc", "test_acc", "erank")}
    sv, gsv = np.full((n, TOP_SINGULAR), np.nan), np.full((n, TOP_SINGULAR), np.nan)
    gram, ggram = np.full((n, 3), np.nan), np.full((n, 3), np.nan)
    rolling, grolling = lk.RollingGram(recipe.window), lk.RollingGram(recipe.window)
    at = sign_epochs(n, recipe.sign_every)
    signs = np.full((at.size, 3), np.nan)
    for k in range(n):
        if recipe.refit is not None:
            with torch.no_grad():
                V[:] = ma.ridge_readout(ma.hidden(W, X, activation), Y, recipe.refit)
        F = ma.hidden(W, X, activation)
        o = F @ V.T
        loss = ma.mse_loss(o, Y)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"the training loss is not finite at epoch {k} with lr={recipe.lr:g}; lower lr")
        with torch.no_grad():
            ot = ma.outputs(ma.Params(W, V), Xt, activation)
            out["train_loss"][k], out["train_acc"][k] = float(loss), ma.accuracy(o, y)
            out["test_loss"][k], out["test_acc"][k] = float(ma.mse_loss(ot, Yt)), ma.accuracy(ot, yt)
            if k in at:
                rule = lk.pair_sign_rule(F.double().cpu().numpy(), recipe.sign_pairs, recipe.ridge)
                signs[np.searchsorted(at, k)] = rule
            before = W.detach().double().clone()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        assert W.grad is not None  # W requires grad and the loss depends on it
        gradient = -W.grad.detach().double().cpu().numpy()
        opt.step()
        with torch.no_grad():
            dW = (W.detach().double() - before).cpu().numpy()
        s = singular_values(dW)
        sv[k], out["erank"][k] = s[:TOP_SINGULAR], lk.effective_rank(s)
        gsv[k] = singular_values(gradient)[:TOP_SINGULAR]
        gram[k] = rolling.push(dW)[:3]
        ggram[k] = grolling.push(gradient)[:3]
        if progress is not None:
            progress((k + 1) / n)
    with torch.no_grad():
        magnitudes = (W.norm(dim=1) * V.norm(dim=0)).double().cpu().numpy()
    return TaskTrajectory(
        out["train_loss"],
        out["test_loss"],
        out["train_acc"],
        out["test_acc"],
        sv,
        out["erank"],
        gram,
        gsv,
        ggram,
        at.astype(float),
        signs[:, 0],
        signs[:, 1],
        signs[:, 2],
        magnitudes,
    )
