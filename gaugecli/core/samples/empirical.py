"""The empirical loss ``L_n`` on a sample read in chunks of rows, on a torch device.

Every sum over the sample runs over chunks of rows (:class:`EmpiricalSample`), so that no
intermediate — ``Z = X Wᵀ``, ``σ(Z)``, ``G`` (``n × m``) or the Hessian's ``J``
(``n × m(d+1)``) — is larger than :data:`~gaugecli.core.samples.sample_draw.DEFAULT_CHUNK_BYTES`; the sums are the same up to the
order of floating-point additions (round-off). The sample ``X`` itself is either kept
(``8 n d`` bytes: 1.28 GB at ``n = 10⁷, d = 16``) or, beyond :data:`~gaugecli.core.samples.sample_draw.STORE_LIMIT_BYTES`,
regenerated chunk by chunk from its seed at every pass: numpy's Gaussian stream drawn in
consecutive blocks is the same stream drawn at once, so both give the same ``X`` to the bit,
but regeneration makes a gradient evaluation ~7× slower (measured at ``n = 10⁶, d = 16,
m = 1``: 0.21 s streamed against 0.03 s stored). The torch work runs on ``device`` (``cpu``,
``cuda``, or ``auto``: CUDA where torch sees a GPU). On the CPU the gradient — the flow's and
GD's every step — is summed in numpy on views of the same tensors instead: numpy's matmul beat
torch's there at every shape measured (×1.1–×3 per gradient, most at small ``n`` and in
stacks, where torch's per-call dispatch dominates; benchmark row d3). :mod:`gaugecli.core.samples.sample`
re-exports what callers need; the sample itself (its draw, storage and chunks) is
:mod:`gaugecli.core.samples.sample_draw`'s.

A stored sample may also be a *stack*, one sample per member of an ensemble (``X (B, n, d)``,
``y (B, n)``, :meth:`EmpiricalSample.stack`): member ``b`` descends the ``L_n`` of its own sample
``b``, and one call evaluates all ``B`` gradients (batched products instead of ``B`` calls, whose
per-call cost dominates at small ``n``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

from gaugecli.core.activations.base import Activation
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import GradientOracle, Objective
from gaugecli.core.population.route import fused_enabled
from gaugecli.core.samples import empirical_fused
from gaugecli.core.samples.sample_draw import SampleRows, to_numpy
from gaugecli.core.types import Array, Indices

SMALL_PROBLEM_FLOPS = 5e7
"""Below this many multiply-adds per step, run torch on one thread: intra-op threads
cost more in synchronisation than they save, and on a busy 2-core machine they were
measured to slow small runs down a hundredfold."""


@contextmanager
def _threads_for(flops: float) -> Iterator[None]:
    threads = torch.get_num_threads()
    small = flops < SMALL_PROBLEM_FLOPS
    if small and threads != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if small and threads != 1:
            torch.set_num_threads(threads)


class EmpiricalSample(SampleRows):
    """The empirical loss ``L_n`` on a :class:`~gaugecli.core.samples.sample_draw.SampleRows`: gradient,
    Hessian, loss (also along a trajectory), each summed chunk by chunk of rows."""

    # -- the loss and its derivatives ---------------------------------------------------

    def gradient(self, a: Array, W: Array) -> tuple[Array, Array, Array]:
        """``(∂L_n/∂a, ∂L_n/∂W, L_n)`` with the ensemble axes of ``a (..., m)``, ``W (..., m, d)``:

        ``∂L_n/∂a_j = (1/n) Σ_i r_i σ(w_j·x_i)``, ``∂L_n/∂w_j = (a_j/n) Σ_i r_i σ'(w_j·x_i) x_i``,
        ``r = f − y``, summed chunk by chunk."""
        if self.device.type == "cpu":
            a, W = np.asarray(a, dtype=np.float64), np.asarray(W, dtype=np.float64)
            lead, m = W.shape[:-2], W.shape[-2]
            compiled = self._compiled(lead, m)
            if compiled is not None:  # the same sums in one compiled pass (empirical_fused)
                return _fused_gradient(a, W, *compiled)
            g_a, g_W, sq = _gradient_sums_numpy(a, W, self._transposed_chunks(W), self.activation)
            return g_a / self.n, g_W * (a[..., None] / self.n), 0.5 * sq / self.n
        with _threads_for(2 * np.size(W) * self.n):
            at = self._tensor(a)
            ta, tW, tsq = _gradient_sums(at, self._tensor(W), self._chunks_for(W), self.activation)
            return to_numpy(ta / self.n), to_numpy(tW * (at.unsqueeze(-1) / self.n)), to_numpy(0.5 * tsq / self.n)

    def batch_gradient(self, a: Array, W: Array, rows: Indices) -> tuple[Array, Array, Array]:
        """:meth:`gradient` of a stack of ``S`` samples (members ``a (S, m)``, ``W (S, m, d)``) on a
        minibatch of each: member ``b``'s loss ``(1/2B) Σ_{i∈rows[b]} (f(x_i) − y_i)²`` over the ``B`` rows
        ``rows (S, B)`` of its own sample, summed in the order of ``rows[b]``.

        On the compiled route (:meth:`_compiled` of the whole stack) the compiled pass gathers each
        batch's ``Xᵀ`` from the stack's rows itself
        (:func:`~gaugecli.core.samples.empirical_fused.batch_gradient_packed`): the same arrays, hence the
        same numbers to the bit, as the gradient of a sample holding the gathered rows, without building
        that sample (the gather, its tensors, its transposed copy, its route) at every step — most of a
        B = 32 step's cost. Elsewhere that sample is built."""
        if self.device.type == "cpu" and self.X is not None and self.y is not None:
            a, W = np.asarray(a, dtype=np.float64), np.asarray(W, dtype=np.float64)
            stack = W.ndim == 3 and W.shape[0] == rows.shape[0] == self.members
            route = self.batch_route(W.shape[-2]) if stack else None
            if route is not None:
                m = W.shape[-2]
                Y = np.concatenate((np.broadcast_to(a, W.shape[:-1]), W.reshape(-1, m * self.d)), axis=1)
                G, loss = empirical_fused.batch_gradient_packed(Y, route[0], route[1], rows, route[2])
                return G[:, :m], G[:, m:].reshape(W.shape), loss
            # gathered in numpy: a tensor's fancy indexing cost more than a B = 32 batch's gradient
            members, X, y_all = np.arange(rows.shape[0])[:, None], self.X.numpy(), self.y.numpy()
            return self.holding(torch.from_numpy(X[members, rows]), torch.from_numpy(y_all[members, rows])).gradient(
                a, W
            )
        members_t = torch.arange(rows.shape[0], device=self.device)[:, None]
        rows_t = torch.from_numpy(rows).to(self.device)
        assert self.X is not None and self.y is not None
        return self.holding(self.X[members_t, rows_t], self.y[members_t, rows_t]).gradient(a, W)

    def batch_route(self, m: int) -> tuple[Array, Array, tuple[float, float]] | None:
        """``(X (S, n, d), y (S, n), (α, β))`` of :func:`~gaugecli.core.samples.empirical_fused.batch_gradient_packed`
        for a stack's ``S`` members of ``m`` neurons, one on each sample, where the compiled route applies
        (:meth:`_compiled`); else ``None``. ``X`` whole rows, as each gathered row is read."""
        if self.members is None or self.X is None or self.device.type != "cpu":
            return None
        compiled = self._compiled((self.members,), m)
        return None if compiled is None else (np.ascontiguousarray(self.X.numpy()), compiled[1], compiled[2])

    def _compiled(self, lead: tuple[int, ...], m: int) -> tuple[Array, Array, tuple[float, float]] | None:
        """``(Xᵀ (S, d, n), y (S, n), (α, β))`` for :mod:`~gaugecli.core.samples.empirical_fused`'s pass over
        ``lead`` members of ``m`` neurons, where it applies: the compiled route on
        (:func:`~gaugecli.core.population.route.fused_enabled`), a student of the ReLU family, a stored CPU
        sample that is one chunk for them (whose ``Xᵀ`` :meth:`_transposed_chunks` keeps anyway), and a
        stack's members one per sample; else ``None`` (the numpy sums). Decided once per shape."""
        if not fused_enabled():
            return None
        try:
            return self._routes[lead, m]
        except KeyError:
            pass
        route = None
        family = self._relu_family
        one_chunk = self.rows_per_chunk(math.prod(lead) * m) >= self.n
        one_each = self.members is None or lead == (self.members,)  # a stack: member b on sample b
        if family is not None and self.y is not None and one_chunk and one_each:
            XT = self._inputs_transposed
            route = XT.reshape((-1,) + XT.shape[-2:]), self.y.numpy().reshape(-1, self.n), family
        self._routes[lead, m] = route
        return route

    @functools.cached_property
    def _routes(self) -> dict[tuple[tuple[int, ...], int], tuple[Array, Array, tuple[float, float]] | None]:
        return {}

    @functools.cached_property
    def _relu_family(self) -> tuple[float, float] | None:
        """``(α, β)`` of a student ``σ = α relu + β id`` on a stored CPU sample, else ``None``."""
        parts = self.activation.parts()
        if parts is None or parts[0] != "relu" or self.X is None or self.device.type != "cpu":
            return None
        return parts[1]

    def _packed_gradient(self, Y: Array) -> Array:
        """``∇L_n`` of packed states ``Y (B, P)`` in the same packing (:attr:`Objective.packed`)."""
        Y = np.ascontiguousarray(Y, dtype=np.float64)
        m = Y.shape[-1] // (self.d + 1)
        compiled = self._compiled((Y.shape[0],), m)
        if compiled is not None:
            return empirical_fused.gradient_packed(Y, *compiled)[0]
        ga, gW, _ = self.gradient(Y[:, :m], Y[:, m:].reshape(-1, m, self.d))
        return np.concatenate((ga, gW.reshape(-1, m * self.d)), axis=1)

    def _chunks_for(self, W: Array) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        return self.chunks(int(np.prod(np.shape(W)[:-1])))  # (members × m) columns

    def _transposed_chunks(self, W: Array) -> Iterator[tuple[Array, Array]]:
        """``(X_cᵀ (…, d, c), y_c)`` as numpy arrays over the chunks of :meth:`_chunks_for`.

        A stored CPU sample that is one chunk for this ``W`` — every sample of the figures up to
        ``n`` of a few thousand — is read from its contiguous ``Xᵀ`` (made once, on the first such
        gradient, :attr:`_inputs_transposed`): ``Z = W Xᵀ`` is then a plain matrix product, where on
        the transposed view of ``X`` it went through BLAS's transposed path, ×1.4–×3.6 slower at the
        figures' shapes (benchmark row d3). A larger sample is read as views of its rows: column
        blocks of a kept ``Xᵀ`` would stride across all of it."""
        rows = self.rows_per_chunk(int(np.prod(np.shape(W)[:-1])))
        if self.X is not None and self.y is not None and self.device.type == "cpu" and rows >= self.n:
            yield self._inputs_transposed, self.y.numpy()
            return
        for Xc, yc in self._chunks_for(W):
            yield np.swapaxes(Xc.numpy(), -1, -2), yc.numpy()

    @functools.cached_property
    def _inputs_transposed(self) -> Array:
        """``Xᵀ (…, d, n)`` in one contiguous block (a second copy of a sample small enough to be one chunk)."""
        assert self.X is not None
        return np.ascontiguousarray(np.swapaxes(self.X.numpy(), -1, -2))

    def hessian(self, a: Array, W: Array) -> Array:
        """Closed-form ``∇²L_n`` away from the kinks, packed ``θ = (a_1..a_m, w_1, ..., w_m)``.

        With ``J_i = ∂r_i/∂θ = (σ(w_j·x_i))_j ⊕ (a_j σ'(w_j·x_i) x_i)_j``:

            ∇²L_n = (1/n) Σ_i J_iᵀ J_i + (1/n) Σ_i r_i ∂²r_i,

        and the second derivatives of ``r_i`` are ``∂²r_i/∂a_j∂w_j = σ'(w_j·x_i) x_i`` and
        ``∂²r_i/∂w_j² = a_j σ''(w_j·x_i) x_i x_iᵀ`` — zero off the kinks for a piecewise-linear σ
        (ReLU: ``σ'' = δ(z)``), whose :meth:`~gaugecli.core.activations.base.Activation.curvature_torch`
        is ``None``. Shape ``(..., P, P)``, ``P = m (d + 1)``; ensemble axes are kept. ``J`` is built
        one chunk of rows at a time (``rows × members × P`` ≤ ``chunk_bytes``).
        """
        act = self.activation
        at, Wt = self._tensor(a), self._tensor(W)
        batch, (m, d) = tuple(at.shape[:-1]), tuple(Wt.shape[-2:])
        P = m * (d + 1)
        members = math.prod(batch)
        with _threads_for(2 * self.n * P**2 * members):
            hess = torch.zeros(batch + (P, P), dtype=torch.float64, device=self.device)
            cross = torch.zeros(batch + (m, d), dtype=torch.float64, device=self.device)
            curved = None
            WT, a_col, a_row = Wt.transpose(-1, -2), at.unsqueeze(-1), at.unsqueeze(-2)
            for Xc, yc in self.chunks(members * P):
                Z = torch.matmul(Xc, WT)  # (..., c, m)
                H = act.sigma_torch(Z)
                r = torch.matmul(H, a_col).squeeze(-1) - yc
                slope = act.derivative_torch(Z)
                n_rows = Xc.shape[-2]
                J = torch.empty(batch + (n_rows, P), dtype=torch.float64, device=self.device)
                J[..., :m] = H
                J_w = J[..., m:].view(batch + (n_rows, m, d))
                torch.mul((slope * a_row).unsqueeze(-1), Xc.unsqueeze(-2), out=J_w)
                hess += torch.matmul(J.transpose(-1, -2), J)
                curvature = act.curvature_torch(Z)
                if curvature is not None:  # Σ_i r_i a_j σ''(z_ij) x_i x_iᵀ, one d × d block per neuron
                    weights = curvature * r.unsqueeze(-1) * a_row  # (..., c, m)
                    term = torch.einsum("...cm,...cx,...cy->...mxy", weights, Xc, Xc)
                    curved = term if curved is None else curved + term
                slope *= r.unsqueeze(-1)
                cross += torch.matmul(slope.transpose(-1, -2), Xc)
            hess /= self.n
            cross /= self.n
            rows = torch.arange(m, device=self.device).repeat_interleave(d)
            cols = m + torch.arange(m * d, device=self.device)
            flat = cross.reshape(batch + (m * d,))
            hess[..., rows, cols] += flat
            hess[..., cols, rows] += flat
            if curved is not None:
                for j in range(m):
                    block = slice(m + j * d, m + (j + 1) * d)
                    hess[..., block, block] += curved[..., j, :, :] / self.n
            return to_numpy(hess)

    def hessian_vector(self, a: Array, W: Array, v: Array) -> Array:
        """``∇²L_n(θ) v`` for one network ``a (m,)``, ``W (m, d)`` and ``v (P,)`` packed as ``θ``, without
        forming the ``P × P`` matrix of :meth:`hessian` (the same terms): with ``v = (u, V)``,

            ∇²L_n v = (1/n) Jᵀ (J v) + (1/n) Σ_i r_i ∂²r_i v,

        ``(J v)_i = Σ_j u_j σ(z_ij) + a_j σ'(z_ij) (V_j·x_i)``; the residual's cross terms add
        ``(1/n) Σ_i r_i σ'(z_ij) (V_j·x_i)`` to ``a_j`` and ``(u_j/n) Σ_i r_i σ'(z_ij) x_i`` to ``w_j``,
        and a curved σ adds ``(a_j/n) Σ_i r_i σ''(z_ij) (V_j·x_i) x_i`` to ``w_j``. Two passes over the
        sample's rows: the cost of two gradients."""
        act = self.activation
        at, Wt = self._tensor(a), self._tensor(W)
        m, d = Wt.shape
        vt = self._tensor(v)
        u, V = vt[:m], vt[m:].reshape(m, d)
        out_a = torch.zeros(m, dtype=torch.float64, device=self.device)
        out_W = torch.zeros((m, d), dtype=torch.float64, device=self.device)
        with _threads_for(4 * self.n * m * d):
            for Xc, yc in self.chunks(m):
                Z = Xc @ Wt.T  # (c, m)
                H = act.sigma_torch(Z)
                slope = act.derivative_torch(Z)
                r = H @ at - yc
                XV = Xc @ V.T  # (c, m): V_j·x_i
                Jv = H @ u + (slope * XV) @ at
                weight = slope * r.unsqueeze(-1)  # r_i σ'(z_ij)
                out_a += H.T @ Jv + (weight * XV).sum(0)
                out_W += (slope * at * Jv.unsqueeze(-1) + weight * u).T @ Xc
                curvature = act.curvature_torch(Z)
                if curvature is not None:
                    out_W += (curvature * r.unsqueeze(-1) * at * XV).T @ Xc
        return to_numpy(torch.cat([out_a, out_W.reshape(-1)]) / self.n)

    def loss(self, theta: Network) -> Array:
        """``L_n(θ)`` with the ensemble axes of ``θ``."""
        a = np.asarray(theta.a, float)
        return self.loss_along(Network(a[..., None, :], np.asarray(theta.W, float)[..., None, :, :]))[..., 0]

    def loss_along(self, theta: Network) -> Array:
        """``L_n`` along a trajectory ``θ`` (``a (..., n_t, m)``, ``W (..., n_t, m, d)``): every saved
        state in one product ``X_c W_allᵀ`` per chunk of rows (blocks of states keep the
        ``rows × states·m`` intermediate within ``chunk_bytes``)."""
        a, W = np.asarray(theta.a, float), np.asarray(theta.W, float)
        if self.members is not None:  # member b along its own sample b
            assert self.X is not None and self.y is not None
            X, y = self.X, self.y
            return np.stack([self.holding(X[b], y[b]).loss_along(Network(a[b], W[b])) for b in range(self.members)])
        lead, (m, d) = a.shape[:-1], W.shape[-2:]
        states = math.prod(lead)
        a_all, W_all = a.reshape(states, m), W.reshape(states * m, d)
        # at least 1024 rows per chunk: a block of states has ≤ chunk_bytes / (8·1024·m) of them
        block = max(1, self.chunk_bytes // (8 * 1024 * m))
        out = np.empty(states)
        with _threads_for(2 * self.n * W.size):
            for s0 in range(0, states, block):
                s1 = min(s0 + block, states)
                at = self._tensor(a_all[s0:s1])  # (s, m)
                WT = self._tensor(W_all[s0 * m : s1 * m]).T  # (d, s·m)
                sq = torch.zeros(s1 - s0, dtype=torch.float64, device=self.device)
                for Xc, yc in self.chunks((s1 - s0) * m):
                    H = self.activation.sigma_torch(torch.matmul(Xc, WT)).view(Xc.shape[0], s1 - s0, m)
                    r = torch.sum(H.mul_(at), dim=-1) - yc.unsqueeze(-1)  # (c, s)
                    sq += torch.sum(r * r, dim=0)
                out[s0:s1] = to_numpy(0.5 * sq / self.n)
        return out.reshape(lead)

    def oracle(self) -> GradientOracle:
        """:meth:`gradient` as a :data:`~gaugecli.core.population.objective.GradientOracle` for GD."""

        def oracle(a: Array, W: Array) -> tuple[Array, Array, Array]:
            return self.gradient(a, W)

        oracle.objective_name = self.name  # type: ignore[attr-defined]
        return oracle

    def objective(self) -> Objective:
        """``L_n`` as an :class:`~gaugecli.core.population.objective.Objective` (gradient and Hessian); of a
        stack, with the objective of any subset of members (the flow integrates chunks of them)."""
        packed = self._packed_gradient if self._relu_family is not None and fused_enabled() else None
        if self.members is None:
            return Objective(self.oracle(), self.hessian, self.name, packed=packed, hessian_vector=self.hessian_vector)
        X, y = self.X, self.y
        assert X is not None and y is not None

        def members(idx: Indices) -> Objective:
            rows = torch.as_tensor(np.asarray(idx), device=self.device)
            return self.holding(X[rows], y[rows]).objective()

        return Objective(self.oracle(), self.hessian, self.name, members, packed=packed)


def _fused_gradient(a: Array, W: Array, XT: Array, y: Array, family: tuple[float, float]) -> tuple[Array, Array, Array]:
    """``(∂L_n/∂a, ∂L_n/∂W, L_n)`` of ``a (..., m)``, ``W (..., m, d)`` by :mod:`~gaugecli.core.samples.empirical_fused`'s
    pass over the samples ``XT (S, d, n)``, ``y (S, n)``, packed and unpacked in its layout."""
    lead, (m, d) = W.shape[:-2], W.shape[-2:]
    Y = np.concatenate((np.broadcast_to(a, lead + (m,)).reshape(-1, m), W.reshape(-1, m * d)), axis=1)
    G, loss = empirical_fused.gradient_packed(Y, XT, y, family)
    return G[:, :m].reshape(lead + (m,)), G[:, m:].reshape(W.shape), loss.reshape(lead)[()]


def _gradient_sums_numpy(
    a: Array,
    W: Array,
    chunks: Iterator[tuple[Array, Array]],
    activation: Activation,
) -> tuple[Array, Array, Array]:
    """:func:`_gradient_sums` in numpy, for a sample on the CPU, over chunks ``(X_cᵀ (…, d, c), y_c)``.

    The same sums in the same layout (module docstring: why numpy on the CPU)."""
    a_row = a[..., None, :]
    sums: list[Array] = []
    for XTc, yc in chunks:
        Xc = np.swapaxes(XTc, -1, -2)  # (..., c, d)
        Z = np.matmul(W, XTc)  # (..., m, c)
        H = activation.sigma(Z)
        r = np.matmul(a_row, H)[..., 0, :] - yc  # (..., c)
        G = activation.derivative(Z)
        G *= r[..., None, :]  # σ'(Z) r
        terms = (np.matmul(H, r[..., None])[..., 0], np.matmul(G, Xc), np.einsum("...c,...c->...", r, r))
        # new sums, not +=: the loss of one member is a numpy scalar, which += would rebind
        sums = list(terms) if not sums else [total + term for total, term in zip(sums, terms, strict=True)]
    return sums[0], sums[1], sums[2]


def _gradient_sums(
    at: torch.Tensor,
    Wt: torch.Tensor,
    chunks: Iterator[tuple[torch.Tensor, torch.Tensor]],
    activation: Activation,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``Σ_i r_i σ(Z_i)``, ``Σ_i (σ'(Z_i) r_i) x_iᵀ`` and ``Σ_i r_i²`` over the chunks
    (``Z = X Wᵀ``, ``r = σ(Z) a − y``): the unnormalised gradient of ``L_n`` and ``2 n L_n``."""
    # Laid out (..., m, c) — neurons × rows — so that every elementwise step runs over contiguous
    # rows and σ' enters as a multiply: measured ×2.4 faster per gradient than (..., c, m)
    # with torch.where (n = 32000, m = 2, d = 16, one thread).
    a_row = at.unsqueeze(-2)
    sums: list[torch.Tensor] = []
    for Xc, yc in chunks:
        Z = torch.matmul(Wt, Xc.transpose(-1, -2))  # (..., m, c)
        H = activation.sigma_torch(Z)
        r = torch.matmul(a_row, H).squeeze(-2) - yc  # (..., c)
        G = activation.derivative_torch(Z).mul_(r.unsqueeze(-2))  # σ'(Z) r
        terms = (
            torch.matmul(H, r.unsqueeze(-1)).squeeze(-1),
            torch.matmul(G, Xc),
            torch.sum(r * r, dim=-1),
        )
        if sums:  # the first chunk's terms start the sums (one chunk: no extra work at small n)
            for total, term in zip(sums, terms, strict=True):
                total += term
        else:
            sums = list(terms)
    return sums[0], sums[1], sums[2]
