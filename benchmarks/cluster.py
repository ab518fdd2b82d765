"""What sending the parts to Dask costs: the same split run through the local process
pool and through a Dask cluster on this machine (two single-thread workers, started
once, warmed up by one run that is not timed).  Prints the median of ``--repeat`` runs.

    .venv/bin/python benchmarks/cluster.py [--repeat 3]

Instances (counts from docs/oracles.md): 2×4 with two L-tetrominoes (3 tiny parts:
the cost of a run is all overhead) and 9×9 minus a corner with 20 L-tetrominoes
(21 parts of up to a few seconds, counted by the exactcover backend).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import attrs
from distributed import Client
from polytile_dask import DaskOptions, local_cluster

from polytile_core.config.pipeline import Chosen, load_plan
from polytile_core.host.registry import Host
from polytile_core.output.results import Termination
from polytile_core.solve.run import run

INSTANCES = {
    "2×4, 2 L-tetrominoes (3 parts)": ("width = 4\nheight = 2", 2, "cpsat", 2),
    "9×9 minus a corner, 20 L-tetrominoes (21 parts)": (
        "rows = [" + ", ".join(['"########."'] + ['"#########"'] * 8) + "]",
        20,
        "exactcover",
        1_709_594,
    ),
}


def pipeline(region: str, copies: int, backend: str) -> Path:
    path = Path(tempfile.mkdtemp()) / "pipeline.toml"
    path.write_text(
        f'[region]\n{region}\n\n[[pieces]]\nshape = ["###", "#.."]\nname = "L"\ncount = {copies}\n\n'
        f'[solve]\nmode = "count"\nbackend = "{backend}"\n\n[split]\nmethod = "checkerboard"\n',
        encoding="utf-8",
    )
    return path


def timed(plan, expected: int) -> float:
    started = time.perf_counter()
    result = run(plan)
    seconds = time.perf_counter() - started
    assert result.termination == Termination.COMPLETED and result.count == expected, result
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    host = Host()
    started = time.perf_counter()
    cluster = local_cluster(2)
    client = Client(cluster)
    print(f"local Dask cluster (2 workers) started in {time.perf_counter() - started:.1f} s")
    try:
        print(f"| instance | process pool, 2 jobs | Dask, 2 workers | median of {arguments.repeat} |")
        print("|---|---|---|---|")
        for name, (region, copies, backend, expected) in INSTANCES.items():
            path = pipeline(region, copies, backend)
            local = load_plan(path, host, {"jobs": 2, "executor": "process"})
            remote = load_plan(path, host, {"jobs": 2, "executor": "dask"})
            executor = remote.executor
            assert isinstance(executor, Chosen) and isinstance(executor.options, DaskOptions)  # dask's options
            options = attrs.evolve(executor.options, scheduler=cluster.scheduler_address)
            remote = attrs.evolve(remote, executor=attrs.evolve(executor, options=options))
            timed(remote, expected)  # the workers import polytile and the backend once
            pool = statistics.median(timed(local, expected) for _ in range(arguments.repeat))
            dask = statistics.median(timed(remote, expected) for _ in range(arguments.repeat))
            print(f"| {name} | {pool:.2f} s | {dask:.2f} s | |", flush=True)
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
