"""Artifacts on disk: JSON serialisation, schemas, the run cache."""
