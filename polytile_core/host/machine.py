"""What this process may use of the machine: its cores and its memory, as the run's
defaults and the plugins' budgets need them (the cores it may run on, the memory its
container allows, not the machine's whole)."""

from __future__ import annotations

import os
from pathlib import Path

# Where a container's memory limit is written: cgroup v2, then v1 (no limit: a huge number, or "max").
CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # platforms without affinity
        return os.cpu_count() or 1


def usable_memory() -> int | None:
    """Bytes of memory this process may fill: the machine's, or its container's limit when
    lower; None where neither is known (then each budget keeps its fixed default)."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    for path in CGROUP_LIMITS:
        try:
            limit = Path(path).read_text().strip()
        except OSError:
            continue
        if limit.isdigit():
            memory = min(memory, int(limit))
    return memory
