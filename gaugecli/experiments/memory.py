"""What memory this process can still have: the least of the machine's, its cgroup's and its
address space's headroom (:func:`available_memory`), read from /proc and /sys. The run budgets of
:mod:`gaugecli.experiments.budget` plan against it."""

from __future__ import annotations

import os


def _meminfo_available() -> int | None:
    """``MemAvailable`` of /proc/meminfo (what the system can give without swapping), else the free
    physical pages (``os.sysconf``)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        return None


def _read_int(path: str) -> int | None:
    """An integer file of /sys (``None`` if absent, unreadable or ``max``)."""
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


CGROUP_ROOT = "/sys/fs/cgroup"
CGROUP_V1_NO_LIMIT = 2**60
"""A cgroup v1 ``memory.limit_in_bytes`` at or above this is "no limit" (v1 writes ``2^63`` less a page)."""


def _own_cgroups(listing: str = "/proc/self/cgroup") -> tuple[str | None, str | None]:
    """The process's cgroup v2 path (the ``0::/path`` line of /proc/self/cgroup) and its v1 memory
    controller's path (a ``N:…memory…:/path`` line); ``None`` where the process has none."""
    v2 = v1 = None
    try:
        with open(listing, encoding="ascii") as f:
            for line in f:
                hierarchy, _, rest = line.strip().partition(":")
                controllers, _, path = rest.partition(":")
                if hierarchy == "0" and not controllers:
                    v2 = path
                elif "memory" in controllers.split(","):
                    v1 = path
    except OSError:
        pass
    return v2, v1


def _levels(path: str) -> list[str]:
    """``/a/b`` → ``["/a/b", "/a", ""]``: a group and its ancestors up to the mount's root (a limit
    set on a parent — a batch job's group above its steps — binds every group below it)."""
    parts = [p for p in path.split("/") if p]
    return ["".join("/" + p for p in parts[:i]) for i in range(len(parts), -1, -1)]


def _cgroup_headroom() -> int | None:
    """What the process's cgroup still lets it use: the least over its group and the group's
    ancestors of ``memory.max − memory.current`` (cgroup v2; ``max`` is no limit), and of
    ``memory.limit_in_bytes − memory.usage_in_bytes`` (cgroup v1, under /sys/fs/cgroup/memory;
    a limit ≥ 2^60 is none). A batch scheduler or container enforces this limit with the OOM
    killer, whatever /proc/meminfo says. ``current`` counts the group's page cache too, which the
    kernel could reclaim: the headroom errs on the safe side. ``None``: no limit found."""
    v2, v1 = _own_cgroups()
    rooms = []
    for level in _levels(v2) if v2 is not None else []:
        limit = _read_int(f"{CGROUP_ROOT}{level}/memory.max")
        if limit is not None:
            rooms.append(limit - (_read_int(f"{CGROUP_ROOT}{level}/memory.current") or 0))
    # v1: the group under the controller's mount, or the mount's root (a container that shows its
    # host's path but mounts its own group there)
    base = f"{CGROUP_ROOT}/memory"
    levels = _levels(v1) if v1 is not None and os.path.isdir(base + v1) else [""]
    for level in levels:
        limit = _read_int(f"{base}{level}/memory.limit_in_bytes")
        if limit is not None and limit < CGROUP_V1_NO_LIMIT:
            rooms.append(limit - (_read_int(f"{base}{level}/memory.usage_in_bytes") or 0))
    return max(min(rooms), 0) if rooms else None


def _address_space() -> tuple[int, int]:
    """The process's current virtual size and data segment (``VmSize``, ``VmData`` of
    /proc/self/status, bytes; 0 if unknown)."""
    sizes = {"VmSize:": 0, "VmData:": 0}
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                key = line[:7]
                if key in sizes:
                    sizes[key] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return sizes["VmSize:"], sizes["VmData:"]


def _virtual_size() -> int:
    """The process's current address space (``VmSize`` of /proc/self/status; 0 if unknown)."""
    return _address_space()[0]


def _rlimits() -> dict[str, int | None]:
    """The soft ``RLIMIT_AS`` and ``RLIMIT_DATA`` (``None``: ``RLIM_INFINITY``, or not on this system)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not a POSIX system
        return {"RLIMIT_AS": None, "RLIMIT_DATA": None}
    out: dict[str, int | None] = {}
    for which in ("RLIMIT_AS", "RLIMIT_DATA"):
        limit = getattr(resource, which, None)
        soft = resource.getrlimit(limit)[0] if limit is not None else resource.RLIM_INFINITY
        out[which] = None if soft == resource.RLIM_INFINITY or soft < 0 else int(soft)
    return out


def _rlimit_headroom() -> int | None:
    """Room left under the soft ``RLIMIT_AS`` less the virtual size (``VmSize``), and under
    ``RLIMIT_DATA`` less the data segment (``VmData``, which it counts since Linux 4.7): a
    cluster's ``ulimit -v`` makes an allocation beyond it fail (numpy's ``_ArrayMemoryError``)
    however much memory the machine has free. ``None``: neither limit is set."""
    limits = _rlimits()
    if limits["RLIMIT_AS"] is None and limits["RLIMIT_DATA"] is None:
        return None
    size, data = _address_space()
    rooms = [
        limit - used
        for limit, used in ((limits["RLIMIT_AS"], size), (limits["RLIMIT_DATA"], data))
        if limit is not None
    ]
    return max(min(rooms), 0)


def available_memory() -> int:
    """Bytes this process can still allocate: the least of three bounds, each where it exists
    (none: unlimited, ``2^62``), so that a run is refused here rather than failing in numpy:

    * the system's ``MemAvailable`` (/proc/meminfo): what the machine gives without swapping;
    * its cgroup's headroom (``memory.max − memory.current``, or v1's limit less usage): a
      container's or batch job's share, enforced by the OOM killer while the machine has more;
    * its address-space headroom (soft ``RLIMIT_AS`` − ``VmSize``, ``RLIMIT_DATA`` − ``VmData``):
      the ``ulimit -v`` of a batch cluster, where an allocation fails outright.

    Cheap (a few small files of /proc and /sys, no subprocess): it is asked before every run."""
    bounds = [b for b in (_meminfo_available(), _cgroup_headroom(), _rlimit_headroom()) if b is not None]
    return min(bounds) if bounds else 2**62
