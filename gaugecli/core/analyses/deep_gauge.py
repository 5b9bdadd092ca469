"""The paper's experiment one hidden layer deeper: duplicates in one hidden layer of a two-hidden-layer
ReLU network, their gauges set without changing the function, and who owns the teacher's feature.

**Layer 1.** Teacher ``y(x) = relu(relu(v·x))`` (SPEC's teacher written with two hidden layers, v = e1);
the student's ``m₁`` first-layer neurons are duplicates of direction ``u0 = e2 ⊥ v`` feeding ``m₂``
identical second-layer neurons, the complete initial function ``f0 = c0 relu(u0·x)`` (every weight
of layers 2 and 3 ``√(c0/(m₁m₂))``). A first-layer neuron's feature is its direction ``u_j = w_j/‖w_j‖``;
its alignment ``α_j = u_j·v``; its coefficient ``c_j = ‖w_j‖ Σ_k a_k W₂[k, j]`` (its share of f where
every second-layer neuron is active, as at the start).

**Layer 2.** Teacher ``y(x) = relu(v₂·relu(V₁x))`` with ``V₁ = (e1; e2)`` and ``v₂ = (1, 1)/√2``; the
student's first layer starts at ``V₁``, its ``m`` second-layer neurons are duplicates of direction
``u0 = (1, −1)/√2 ⊥ v₂`` in the hidden space (``f0 = c0 relu(u0·relu(V₁x))``). A second-layer neuron's
feature is its input in the first layer's function coordinates, ``W₂[k, j] ‖w_j‖`` (the first layer's
directions stay near ``V₁``'s); its alignment is that vector's cosine with ``v₂``, its coefficient
``a_k ‖W₂[k] ⊙ ‖W₁‖‖``.

Gauges are the balances of :mod:`gaugecli.core.model.deep`, set by :func:`~gaugecli.core.model.deep.with_balances`:
they change no prediction. The owner is SPEC's: among the neurons with ``α ≥ 1 − ε``, the one with the
largest coefficient.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from gaugecli.core.integrate.deep_train import deep_flow
from gaugecli.core.model.deep import DeepNetwork, with_balances
from gaugecli.core.samples.deep_sample import DeepSample
from gaugecli.core.types import Array

FEATURE_2 = np.array([1.0, 1.0]) / math.sqrt(2.0)
"""v₂: the teacher's second-layer direction in the first layer's hidden space (layer 2)."""
U0_2 = np.array([1.0, -1.0]) / math.sqrt(2.0)
"""u0 of the layer-2 duplicates, orthogonal to v₂."""


def teacher(layer: int, d: int) -> DeepNetwork:
    """The teacher of the experiment at ``layer`` (the module's docstring), in ``d`` dimensions."""
    eye = np.eye(d)
    if layer == 1:
        return DeepNetwork.of([eye[:1], [[1.0]]], [1.0])
    return DeepNetwork.of([eye[:2], FEATURE_2[None, :]], [1.0])


def duplicates(layer: int, m: int, d: int, c0: float, m_other: int = 1) -> DeepNetwork:
    """The complete initial function with ``m`` duplicates in hidden layer ``layer`` (``m_other``
    neurons in the other hidden layer at layer 1; the layer-2 study's first layer is ``V₁``): gauge
    still free (balances set afterwards by :func:`with_gauges`)."""
    eye = np.eye(d)
    if layer == 1:
        s = math.sqrt(c0 / (m * m_other))
        return DeepNetwork.of([np.tile(eye[1], (m, 1)), np.full((m_other, m), s)], np.full(m_other, s))
    s = math.sqrt(c0 / m)
    return DeepNetwork.of([eye[:2], np.tile(s * U0_2, (m, 1))], np.full(m, s))


def with_gauges(net: DeepNetwork, layer: int, deltas: ArrayLike, other: float | ArrayLike) -> DeepNetwork:
    """``net`` with balances ``deltas`` at ``layer`` and ``other`` (one value, or one per neuron) at the other
    hidden layer: the same function."""
    widths = net.widths
    other_layer = 2 if layer == 1 else 1
    targets = {
        layer: np.asarray(deltas, float),
        other_layer: np.broadcast_to(np.asarray(other, float), (widths[other_layer],)),
    }
    return with_balances(net, [targets[1], targets[2]])


def features(net: DeepNetwork, layer: int) -> Array:
    """Each neuron's feature vector at ``layer``: ``w_j`` (layer 1), ``W₂[k] ⊙ ‖W₁‖`` (layer 2)."""
    if layer == 1:
        return net.weights[0]
    return net.weights[1] * np.linalg.norm(net.weights[0], axis=1)[None, :]


def alignment(net: DeepNetwork, layer: int) -> Array:
    """``α`` of every neuron of ``layer``: the cosine of its feature with the teacher's (e1 or v₂)."""
    F = features(net, layer)
    target = np.eye(F.shape[1])[0] if layer == 1 else FEATURE_2
    norms = np.linalg.norm(F, axis=1)
    return np.where(norms > 0, (F @ target) / np.where(norms > 0, norms, 1.0), 0.0)


def coefficients(net: DeepNetwork, layer: int) -> Array:
    """Each neuron's coefficient at ``layer`` (the module's docstring)."""
    if layer == 1:
        return np.linalg.norm(net.weights[0], axis=1) * (net.a @ net.weights[1])
    return net.a * np.linalg.norm(features(net, 2), axis=1)


def owner(net: DeepNetwork, layer: int, eps_align: float) -> int | None:
    """Among the neurons of ``layer`` with ``α ≥ 1 − ε``, the one with the largest coefficient (None: none aligned)."""
    aligned = alignment(net, layer) >= 1.0 - eps_align
    if not np.any(aligned):
        return None
    return int(np.argmax(np.where(aligned, coefficients(net, layer), -np.inf)))


def specialization_time(
    sample: DeepSample, start: DeepNetwork, layer: int, neuron: int, *, eps_align: float, t_max: float, rtol: float
) -> tuple[float, int]:
    """T_spec: the first time ``neuron``'s alignment at ``layer`` reaches ``1 − ε``, located as a root on
    the flow's dense output (``nan`` when not reached by ``t_max``), and the gradients it took."""

    def reached(net: DeepNetwork) -> float:
        return float(alignment(net, layer)[neuron]) - (1.0 - eps_align)

    run = deep_flow(sample, start, np.array([0.0, t_max]), rtol=rtol, events=[reached], terminal=True)
    found = run.t_events[0]
    return (float(found[0]) if found.size else math.nan), run.evaluations


def local_slopes(x: Array, y: Array) -> Array:
    """``Δ log y / Δ log x`` between consecutive points (nan where a value is missing)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.diff(np.log(np.asarray(y, float))) / np.diff(np.log(np.asarray(x, float)))
