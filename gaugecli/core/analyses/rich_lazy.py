"""Kunin et al.'s measurements of how far a run moved from its start, on its training set
("Get rich quick", NeurIPS 2024, ``two-layer-relu/run_grid.py``), named as they name them.

At checkpoints ``θ_t`` of a run from ``θ_0`` with training inputs ``X (n, d)``:

* :func:`kernel_distance`, ``S(t) = 1 − ⟨K_t, K_0⟩_F / (‖K_t‖_F ‖K_0‖_F)`` of the empirical NTK
  ``K_t = J_t J_tᵀ (n, n)`` on the training set (:func:`~gaugecli.core.analyses.tangent.tangent_kernel`):
  0 while the kernel only rescales (lazy), towards 1 as it turns (rich).
* :func:`hamming_distance`, ``H(t) = Σ_j (1/n) Σ_i [sign(w_j(t)·x_i) ≠ sign(w_j(0)·x_i)]``: how many
  neurons, on average over the training inputs, changed their ReLU activation pattern (their
  ``compute_hamming_distance``: the mean over inputs, summed over neurons).
* :func:`parameter_distance`, ``‖θ_t − θ_0‖ = (‖a_t − a_0‖² + ‖W_t − W_0‖_F²)^{1/2}``.

The test loss is the loss on a held-out sample (:meth:`~gaugecli.core.samples.empirical.EmpiricalSample.loss`).
"""

from __future__ import annotations

import numpy as np

from gaugecli.core.activations.base import Activation
from gaugecli.core.analyses.tangent import tangent_kernel
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array


def kernel_distance(theta: Network, X: Array, activation: Activation) -> Array:
    """``S(t)`` along checkpoints ``θ`` (``a (n_t, m)``, ``W (n_t, m, d)``; the first is ``θ_0``) on the
    training inputs ``X (n, d)``: one ``n × n`` kernel at a time (memory ``2·8n²`` bytes)."""
    K0 = tangent_kernel(theta[0], X, activation)
    norm0 = np.linalg.norm(K0)
    out = np.empty(theta.a.shape[0])
    for i in range(out.size):
        K = K0 if i == 0 else tangent_kernel(theta[i], X, activation)
        out[i] = 1.0 - np.vdot(K, K0) / (np.linalg.norm(K) * norm0)
    return out


def hamming_distance(W: Array, X: Array) -> Array:
    """``H(t)`` along checkpoints ``W (n_t, m, d)`` (the first is ``W_0``) on the inputs ``X (n, d)``:
    the number of neurons whose ReLU pattern ``sign(w_j·x)`` differs from the start's, averaged over
    the inputs (``sign`` with ``sign(0) = 0``, as theirs)."""
    signs0 = np.sign(X @ W[0].T)
    return np.array([np.sum(np.mean(np.sign(X @ Wt.T) != signs0, axis=0)) for Wt in W])


def parameter_distance(theta: Network) -> Array:
    """``‖θ_t − θ_0‖`` along checkpoints ``θ`` (``a (n_t, m)``, ``W (n_t, m, d)``; the first is ``θ_0``)."""
    da = theta.a - theta.a[:1]
    dW = theta.W - theta.W[:1]
    return np.sqrt(np.sum(da**2, axis=-1) + np.sum(dW**2, axis=(-1, -2)))
