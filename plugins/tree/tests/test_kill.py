"""Workers never outlive the run: SIGKILL the run's process (what an out-of-memory kill or
a batch scheduler's time limit does) and find none of the processes it started alive
five seconds later; the result file is not left half-written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# 10×10 dominoes counted by search: hours of work (258,584,046,368 tilings), so the run
# is surely still searching when it is killed (6×10 pentominoes now ends within a second).
PIPELINE = """
[region]
width = 10
height = 10

[[pieces]]
name = "D"
shape = ["##"]
unlimited = true

[solve]
mode = "count"
backend = "exactcover"
jobs = 2

[split]
method = "tree"

[options.exactcover]
counter = "search"
kernel = "dlx"
"""


def processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, start time), from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), fields[19])
    return found


def descendants(pid: int) -> dict[int, str]:
    """The living processes below ``pid``, with their start times (to tell a reused pid)."""
    table = processes()
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, started) in table.items():
            if ppid == parent and child not in found:
                found[child] = started
                frontier.append(child)
    return found


def still_alive(started: dict[int, str]) -> list[int]:
    table = processes()
    return [pid for pid, when in started.items() if pid in table and table[pid][1] == when]


def kill_mid_run(tmp_path: Path, extra: list[str], workers: int, timeout: float = 120) -> tuple[dict[int, str], Path]:
    """Start a split run, wait until it has ``workers`` worker processes busy, SIGKILL it;
    return the processes it had started, and where its result file was to go."""
    pipeline = tmp_path / "run.toml"
    pipeline.write_text(PIPELINE, encoding="utf-8")
    output = tmp_path / "result.json"
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(pipeline), "-q", "-o", str(output), *extra]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + timeout
        below: dict[int, str] = {}
        while time.monotonic() < end and run.poll() is None:
            below = descendants(run.pid)
            # The worker processes (and a forkserver, a resource tracker...) are up.
            if len(below) >= workers + 1:
                break
            time.sleep(0.1)
        time.sleep(1.0)  # into the search
        below = descendants(run.pid) or below
        assert run.poll() is None, f"the run ended before it was killed: {run.stderr.read().decode()}"
        assert len(below) >= workers, below
        os.kill(run.pid, signal.SIGKILL)
    finally:
        run.kill()
        run.wait()
    return below, output


def test_sigkill_of_a_split_run_leaves_no_process_pool_worker(tmp_path):
    started, output = kill_mid_run(tmp_path, ["--executor", "process"], workers=2)
    time.sleep(5)
    assert still_alive(started) == []
    assert not output.exists()


@pytest.mark.slow  # a local Dask cluster takes seconds to start
def test_sigkill_of_a_split_run_leaves_no_local_dask_worker(tmp_path):
    started, output = kill_mid_run(tmp_path, ["--executor", "dask"], workers=2)
    time.sleep(5)
    assert still_alive(started) == []
    assert not output.exists()
