"""Modular addition ``(a, b) ↦ (a + b) mod M`` and the two-layer network of Tian's released code.

Task (facebookresearch/luckmatters, ``ssl/real-dataset/cogo/modular_addition_simple2.py``, written
anew here): the ``M²`` pairs, a fraction of them (drawn by the seed) for training, the rest for test.
Input: the one-hot embeddings of a and b side by side, ``x = [e_a; e_b] ∈ R^{2M}``. Network: a
bias-free linear map ``W (K × 2M)`` to K hidden units (equivalently two maps of a and b, added),
``σ = x²`` or ReLU, a bias-free read-out ``V (M × K)``: ``o = V σ(W x)``. Loss: the MSE of the
zero-mean outputs against the zero-mean one-hot target,

    L = (1/n) Σ_i ‖P o_i − ỹ_i‖²,   P = I − 11ᵀ/M,   ỹ_i = e_{y_i} − 1/M,

which is Tian's ``‖o − ō‖² − 2(o − ō)_y + 1 − 1/M`` per sample (expand the square:
``‖ỹ‖² = 1 − 1/M`` and ``(P o)ᵀ1 = 0``). Initialisation as ``nn.Linear``'s default:
``W ~ U(±1/√(2M))``, ``V ~ U(±1/√K)``, from a ``torch.Generator`` seeded by the seed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from gaugecli.core.activations import activation as registered

ACTIVATIONS = {"x2": "square", "relu": "relu"}
"""σ of the hidden layer by the task's label (Tian's ``sqr`` is lockin's ``x2``), with the registry's
activation (:mod:`gaugecli.core.activations`) that computes it."""


class Split(NamedTuple):
    """The pairs ``(a, b)`` and labels ``(a + b) mod M`` of the training and test sets (int64 tensors)."""

    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def all_pairs(M: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair ``(a, b) ∈ Z_M²`` (``M² × 2``, a-major) and its sum mod M."""
    a, b = np.divmod(np.arange(M * M), M)
    x = torch.from_numpy(np.stack([a, b], axis=1))
    return x, (x[:, 0] + x[:, 1]) % M


def train_size(M: int, fraction: float) -> int:
    """``round(fraction · M²)``, kept within ``[1, M² − 1]`` (both sets non-empty)."""
    return min(max(1, round(fraction * M * M)), M * M - 1)


def split(M: int, fraction: float, seed: int, test_pairs: int | None = None) -> Split:
    """A random ``fraction`` of the pairs for training (:func:`train_size`, drawn by a numpy
    ``default_rng(seed)`` permutation), the rest for test; ``test_pairs``: keep only the first that
    many test pairs of the permutation (a uniform subsample of the held-out pairs)."""
    x, y = all_pairs(M)
    n_train = train_size(M, fraction)
    order = torch.from_numpy(np.random.default_rng(seed).permutation(M * M))
    tr, te = order[:n_train], order[n_train:]
    if test_pairs is not None:
        te = te[:test_pairs]
    return Split(x[tr], y[tr], x[te], y[te])


def one_hot_inputs(x: torch.Tensor, M: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``[e_a; e_b]`` per row of ``x (n × 2)``: the ``n × 2M`` input."""
    e = torch.nn.functional.one_hot(x, M).to(dtype)
    return e.reshape(x.shape[0], 2 * M)


def centered_targets(y: torch.Tensor, M: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``ỹ = e_y − 1/M`` (``n × M``)."""
    return torch.nn.functional.one_hot(y, M).to(dtype) - 1.0 / M


class Params(NamedTuple):
    """The network's weights: ``W (K × 2M)``, ``V (M × K)`` (torch tensors)."""

    W: torch.Tensor
    V: torch.Tensor


def initial_params(M: int, K: int, seed: int, dtype: torch.dtype = torch.float32) -> Params:
    """``nn.Linear``'s default draw: ``W ~ U(±1/√(2M))``, ``V ~ U(±1/√K)`` (seeded CPU generator)."""
    gen = torch.Generator().manual_seed(seed)
    W = (torch.rand(K, 2 * M, generator=gen, dtype=torch.float64) * 2 - 1) / np.sqrt(2 * M)
    V = (torch.rand(M, K, generator=gen, dtype=torch.float64) * 2 - 1) / np.sqrt(K)
    return Params(W.to(dtype), V.to(dtype))


def activate(z: torch.Tensor, activation: str) -> torch.Tensor:
    """``σ(z)`` of the task's ``activation`` (a key of :data:`ACTIVATIONS`), as the registry computes it."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; one of {', '.join(ACTIVATIONS)}")
    return registered(ACTIVATIONS[activation]).sigma_torch(z)


def preactivations(W: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``W [e_a; e_b] = W[:, a] + W[:, M + b]`` per pair of ``x (n × 2)`` (``n × K``): the one-hot
    product as two column gathers (n·K additions instead of the n·2M·K of the dense product)."""
    M = W.shape[1] // 2
    return W.T[x[:, 0]] + W.T[M + x[:, 1]]


def hidden(W: torch.Tensor, x: torch.Tensor, activation: str) -> torch.Tensor:
    """The hidden activations ``F = σ(W [e_a; e_b])`` per pair of ``x (n × 2)`` (``n × K``)."""
    return activate(preactivations(W, x), activation)


def outputs(params: Params, x: torch.Tensor, activation: str) -> torch.Tensor:
    """``o = V σ(W [e_a; e_b])`` per pair of ``x (n × 2)`` (``n × M``)."""
    return hidden(params.W, x, activation) @ params.V.T


def mse_loss(o: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """``(1/n) Σ_i ‖P o_i − ỹ_i‖²`` (``Y = ỹ``, zero-mean rows)."""
    return ((o - o.mean(dim=1, keepdim=True) - Y) ** 2).sum(dim=1).mean()


def accuracy(o: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of rows whose largest output is the label."""
    return float((o.argmax(dim=1) == y).to(torch.float64).mean()) if y.numel() else float("nan")


def ridge_readout(F: torch.Tensor, Y: torch.Tensor, reg: float) -> torch.Tensor:
    """The read-out Tian's ``set_weight_reg`` writes each step: ``Vᵀ = (FᵀF + reg I)⁻¹FᵀY`` by the
    thin SVD ``F = U diag(s) Rᵀ``: ``Vᵀ = R diag(s/(s² + reg)) UᵀY`` (``M × K`` returned)."""
    U, s, Rt = torch.linalg.svd(F, full_matrices=False)
    return (Rt.T @ ((U.T @ Y) * (s / (s * s + reg))[:, None])).T
