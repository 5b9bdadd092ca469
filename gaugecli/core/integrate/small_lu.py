"""LU factors with partial pivoting of a small dense matrix and the solve with them, compiled: the
iteration matrices ``I − cJ`` of :mod:`gaugecli.core.integrate.bdf_flow` (a member's 2–3 unknowns, where a
LAPACK call costs more in its dispatch than in its arithmetic)."""

from __future__ import annotations

from numba import njit

_jit = njit(cache=True, nogil=True, error_model="numpy")


@_jit
def lu_factor(M, piv):
    """``M`` overwritten by its LU factors with partial pivoting (``piv[k]``: the row swapped in at step ``k``)."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
        for i in range(k + 1, n):
            M[i, k] /= M[k, k]
            for j in range(k + 1, n):
                M[i, j] -= M[i, k] * M[k, j]


@_jit
def lu_solve(M, piv, x):
    """``x ← M⁻¹ x`` from :func:`lu_factor`'s factors."""
    n = M.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
    for i in range(n):
        for j in range(i):
            x[i] -= M[i, j] * x[j]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= M[i, j] * x[j]
        x[i] /= M[i, i]
