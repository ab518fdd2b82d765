"""Limits that hold: building the 100×100 model with unlimited pentominoes (peak memory,
time), and ``time_limit = 5`` on it with CP-SAT (wall time, status, peak memory).

    .venv/bin/python benchmarks/limits.py [--repeat 3] [--only build|limit]

Each measurement runs in a fresh process, which reports its own peak resident memory
(``ru_maxrss``), so one measurement's memory cannot leak into the next.  Prints medians.
The solve is timed twice: the whole command (Python start, plugins, plan included) and
the run itself (the Result's ``seconds``: build and solve, what the time limit covers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

PIPELINE = """
[region]
width = 100
height = 100
[[pieces]]
family = "pentominoes"
unlimited = true
[solve]
backend = "cpsat"
time_limit = 5
"""

BUILD = """
import gc, resource, time
from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.model.tiling import build_tiling
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
pieces = tuple(PieceType(name, cells_from_rows(rows), "free", 0, None)
               for name, rows in CLASSIC_FAMILIES["pentominoes"].items())
gc.disable()  # as the run does while it builds (solve/run.py)
started = time.perf_counter()
model = build_tiling(pieces, Region.rectangle(100, 100))
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{seconds} {peak} {model.num_variables}")
"""

# The CLI run, in-process, so the peak memory is the run's own.
LIMIT = """
import resource, sys, time
from polytile_core.cli.main import main
started = time.perf_counter()
code = main(["solve", sys.argv[1], "-q", "-o", sys.argv[2], "--force"])
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{seconds} {peak} {code}")
"""


def child(code: str, *arguments: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the measurement failed:\n{done.stderr}")
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("build", "limit"))
    arguments = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average), {time.strftime('%Y-%m-%d %H:%M')}")
    if arguments.only in (None, "build"):
        runs = [child(BUILD) for _ in range(arguments.repeat)]
        seconds = statistics.median(float(run[0]) for run in runs)
        peak = statistics.median(float(run[1]) for run in runs)
        print(f"build 100x100, unlimited pentominoes: {runs[0][2]} variables, {seconds:.2f} s, peak {peak:.0f} MB")
    if arguments.only in (None, "limit"):
        with tempfile.TemporaryDirectory() as folder:
            pipeline = os.path.join(folder, "big.toml")
            output = os.path.join(folder, "result.json")
            with open(pipeline, "w") as stream:
                stream.write(PIPELINE)
            timed: list[tuple[float, float, str, float]] = []
            for _ in range(arguments.repeat):
                wall, memory, _ = child(LIMIT, pipeline, output)
                with open(output) as stream:
                    result = json.load(stream)
                status = f"{result['termination']}/{result['found']}"
                timed.append((float(wall), float(memory), status, result["seconds"]))
        seconds = statistics.median(run[0] for run in timed)
        peak = statistics.median(run[1] for run in timed)
        statuses = sorted({run[2] for run in timed})
        print(f"solve with time_limit = 5 (cpsat): {seconds:.2f} s, peak {peak:.0f} MB, status {', '.join(statuses)}")
        print("  each run (command; the run itself):", ", ".join(f"{run[0]:.2f} s; {run[3]:.2f} s" for run in timed))


if __name__ == "__main__":
    main()
