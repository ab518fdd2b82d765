"""The tree split on a real Dask cluster on 127.0.0.1: a scheduler and two worker processes,
one of them killed mid-run.  Counts from docs/oracles.md: 9×9 minus a corner with
20 L-tetrominoes has 1,709,594 tilings; 5×6 with L-trominoes 72 (OEIS A084478)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from polytile_dask import local_cluster  # noqa: E402

from polytile_core.plugin import Termination  # noqa: E402
from polytile_core.testing import Host, PieceSpec, Pipeline, RegionSpec, SolveSpec, SplitSpec, make_plan, run  # noqa: E402

NINE_BY_NINE = ["########."] + ["#########"] * 8


@pytest.fixture(scope="module")
def cluster():
    with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
        local = local_cluster(2)
    client = distributed.Client(local)
    yield local, client
    client.close()
    local.close()


def plan(address: str, region: RegionSpec, pieces: list[PieceSpec], parts: int):
    pipeline = Pipeline(
        region=region,
        pieces=pieces,
        solve=SolveSpec(mode="count", backend="exactcover", executor="dask", jobs=2),
        split=SplitSpec(method="tree"),
        options={
            "tree": {"parts": parts},
            "exactcover": {"counter": "search", "kernel": "dlx"},
            "dask": {"scheduler": address},
        },
    )
    return make_plan(pipeline, Host())


def run_in_thread(plan, timeout: float):
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(result=run(plan)), daemon=True)
    thread.start()

    def wait():
        thread.join(timeout)
        assert not thread.is_alive(), "the run did not end"
        return box["result"]

    return thread, wait


def kill_a_busy_worker(client, thread, settle: float) -> bool:
    """SIGKILL a worker once it holds parts (after ``settle`` seconds more in its search)."""
    pids = client.run(os.getpid)
    victim = sorted(pids)[1]
    end = time.monotonic() + 120
    while time.monotonic() < end and thread.is_alive() and not client.processing().get(victim):
        time.sleep(0.02)
    time.sleep(settle)
    if not thread.is_alive():
        return False
    os.kill(pids[victim], signal.SIGKILL)
    return True


def test_a_worker_killed_mid_run_loses_no_part(cluster):
    local, client = cluster
    client.wait_for_workers(2, timeout=120)
    pieces = [PieceSpec(shape=["#.", "##"], name="L", unlimited=True)]
    the_plan = plan(local.scheduler_address, RegionSpec(width=6, height=5), pieces, parts=60)
    thread, wait = run_in_thread(the_plan, 240)
    killed = kill_a_busy_worker(client, thread, settle=0.0)
    result = wait()
    assert result.termination == Termination.COMPLETED
    assert result.count == 72
    keys = [part.key for part in result.subproblems]
    assert len(keys) == len(set(keys)) == result.details["subproblems"]
    assert killed or result.details["parts_solved"] == len(keys)


@pytest.mark.slow
def test_killing_a_busy_worker_of_the_9x9_count_keeps_it_exact(cluster):
    local, client = cluster
    client.wait_for_workers(2, timeout=120)
    pieces = [PieceSpec(shape=["###", "#.."], name="L", count=20)]
    the_plan = plan(local.scheduler_address, RegionSpec(rows=NINE_BY_NINE), pieces, parts=64)
    thread, wait = run_in_thread(the_plan, 900)
    assert kill_a_busy_worker(client, thread, settle=0.5)
    result = wait()
    assert result.termination == Termination.COMPLETED
    assert result.count == 1_709_594
    keys = [part.key for part in result.subproblems]
    assert len(keys) == len(set(keys)) == result.details["subproblems"]
