"""A fully connected architecture as :mod:`gaugecli.core.analyses.conservation` counts its laws: the
shapes of its layers, its parameter vector θ, its reparametrization φ (the path products, or the
end-to-end affine map of a linear network) and its known laws, as torch functions of θ.

Its own module so that a ``laws`` config checks its sizes without importing torch (imported where
φ or the laws are evaluated): the plots and the configs of ``plot all``'s main process do not need it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Architecture:
    """A fully connected network with layer ``widths`` (input first), a bias in every layer when
    ``bias``; ``linear`` picks the end-to-end map as φ, else the path lifting. θ lists, layer by
    layer, ``W_ℓ`` (``n_ℓ × n_{ℓ−1}``, row-major) and then ``b_ℓ``."""

    widths: tuple[int, ...]
    bias: bool = False
    linear: bool = False

    @property
    def shapes(self) -> list[tuple[int, int]]:
        """``(n_ℓ, n_{ℓ−1} + bias)`` per layer: each layer's ``[W_ℓ | b_ℓ]``."""
        return [(n, m + int(self.bias)) for m, n in zip(self.widths[:-1], self.widths[1:], strict=False)]

    @property
    def n_params(self) -> int:
        return sum(n * m for n, m in self.shapes)

    @property
    def n_paths(self) -> int:
        """N, the length of φ: the entries of the end-to-end map, or the paths (into a neuron of
        layer 1: its ``n_0`` weights and its bias; into one of layer ℓ: ``n_{ℓ−1}`` times those into
        layer ℓ − 1, and its bias)."""
        if self.linear:
            return self.widths[-1] * (self.widths[0] + int(self.bias))
        into = self.widths[0] + int(self.bias)
        for m in self.widths[1:-1]:
            into = m * into + int(self.bias)
        return self.widths[-1] * into

    def layers(self, theta: torch.Tensor) -> list[torch.Tensor]:
        """θ split into each layer's ``[W_ℓ | b_ℓ]``."""
        out, start = [], 0
        for n, m in self.shapes:
            out.append(theta[start : start + n * m].reshape(n, m))
            start += n * m
        return out

    def reparametrization(self, theta: torch.Tensor) -> torch.Tensor:
        """φ(θ): the path products (ReLU, leaky ReLU) or the end-to-end affine map (linear)."""
        import torch

        layers = self.layers(theta)
        if self.linear:
            end = layers[0]
            for Wb in layers[1:]:
                W = Wb[:, : Wb.shape[1] - int(self.bias)]
                end = W @ end
                if self.bias:
                    end = torch.cat([end[:, :-1], end[:, -1:] + Wb[:, -1:]], dim=1)
            return end.reshape(-1)
        paths = layers[0]  # paths into each neuron of layer 1: its weights and its bias
        for Wb in layers[1:]:
            W = Wb[:, : Wb.shape[1] - int(self.bias)]
            through = (W[:, :, None] * paths[None, :, :]).reshape(W.shape[0], -1)
            paths = torch.cat([through, Wb[:, -1:]], dim=1) if self.bias else through
        return paths.reshape(-1)

    def forward(
        self, theta: torch.Tensor, x: torch.Tensor, sigma: Callable[[torch.Tensor], torch.Tensor]
    ) -> torch.Tensor:
        """The network on inputs ``x`` (n, n_0): σ after every layer but the last."""
        h = x
        layers = self.layers(theta)
        for ell, Wb in enumerate(layers):
            W = Wb[:, : Wb.shape[1] - int(self.bias)]
            h = h @ W.T + (Wb[:, -1] if self.bias else 0.0)
            if ell < len(layers) - 1:
                h = sigma(h)
        return h

    def known_laws(self, theta: torch.Tensor) -> torch.Tensor:
        """The known laws at θ: per hidden neuron ``‖incoming (with bias)‖² − ‖outgoing‖²``; for a
        linear network every entry ``i ≤ j`` of ``[W_ℓ|b_ℓ][W_ℓ|b_ℓ]ᵀ − W_{ℓ+1}ᵀW_{ℓ+1}`` per hidden layer."""
        import torch

        layers = self.layers(theta)
        laws = []
        for Wb, after in itertools.pairwise(layers):
            out = after[:, : after.shape[1] - int(self.bias)]
            if self.linear:
                G = Wb @ Wb.T - out.T @ out
                i, j = torch.triu_indices(G.shape[0], G.shape[0])
                laws.append(G[i, j])
            else:
                laws.append((Wb**2).sum(dim=1) - (out**2).sum(dim=0))
        return torch.cat(laws)
