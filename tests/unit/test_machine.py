"""What a process may use of the machine (``polytile_core.host.machine``)."""

from __future__ import annotations

import os

from polytile_core.host import machine


def test_a_container_limit_below_the_machine_is_the_usable_memory(tmp_path, monkeypatch):
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    limit = tmp_path / "memory.max"
    limit.write_text(f"{2**30}\n")
    monkeypatch.setattr(machine, "CGROUP_LIMITS", (str(tmp_path / "absent"), str(limit)))
    assert machine.usable_memory() == min(physical, 2**30)
    limit.write_text("max\n")  # cgroup v2 without a limit
    assert machine.usable_memory() == physical
    limit.write_text(f"{2**63 - 4096}\n")  # cgroup v1 without a limit
    assert machine.usable_memory() == physical


def test_the_usable_cores_are_the_affinity():
    assert machine.usable_cores() == len(os.sched_getaffinity(0))
