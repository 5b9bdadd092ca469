"""The one error of the storage layer."""

from __future__ import annotations


class ArtifactError(RuntimeError):
    """An artifact that cannot be written or read; the message names the file and the remedy."""
