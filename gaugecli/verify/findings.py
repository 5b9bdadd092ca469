"""Findings beyond SPEC §3, each checked like a claim: the dissipation budget, the ReLN lens,
the lock-in diagnostics, symmetric starts."""

from __future__ import annotations

from gaugecli.verify.claim import Claim

CLAIMS: list[Claim] = []
