"""Running many points: executors (serial, local pool, Dask) and resumable sweeps."""
