"""The Jacobian of an ensemble flow in the format its solver reads.

Members of an ensemble do not interact, so the flow's Jacobian is block-diagonal, one ``P × P``
block per member (``P = m (d + 1)``, the member's closed-form ``−∇²L``): one member passes its
block as it is; LSODA reads the blocks as a band of half-width ``P − 1`` in its packed band
storage; Radau and BDF read a block-sparse matrix."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from gaugecli.core.types import Array


class BlockDiagonal:
    """``n`` blocks of ``P × P`` for ``method``: :attr:`solver_options` are the band's half-widths
    ``solve_ivp`` needs beside the Jacobian (LSODA over several members), and calling it formats
    the blocks ``H (n, P, P)``."""

    def __init__(self, n: int, P: int, method: str) -> None:
        self.n, self.P = n, P
        self.banded = method == "LSODA" and n > 1
        self.solver_options: dict[str, Any] = {}
        if self.banded:
            r, c = np.meshgrid(np.arange(P), np.arange(P), indexing="ij")
            self.rows = (P - 1 + r - c).ravel()[None, :]
            self.cols = np.arange(n)[:, None] * P + c.ravel()[None, :]
            self.solver_options = {"lband": P - 1, "uband": P - 1}

    def __call__(self, H: Array) -> Array | sparse.bsr_array:
        n, P = self.n, self.P
        if n == 1:
            return H[0]
        if self.banded:  # block-diagonal = banded: LSODA's packed band storage
            packed = np.zeros((2 * P - 1, n * P))
            packed[self.rows, self.cols] = H.reshape(n, P * P)
            return packed
        return sparse.bsr_array((H, np.arange(n), np.arange(n + 1)), shape=(n * P, n * P))
