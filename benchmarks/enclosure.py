"""Enclosure benchmark: how long CP-SAT (2 workers) takes to reach the 128-cell pentomino
farm, and the bound it proves in a fixed time.

Each repeat is one run of the pipeline with a time limit (a different seed each time);
it records when each better fence arrived, so one run answers both questions.  Prints the
median time to reach the target (runs that never reach it count as the limit) and the
median bound at the end.

    .venv/bin/python benchmarks/enclosure.py --repeat 3 --time-limit 600
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from polytile_core.host.registry import Host
from polytile_core.config.pipeline import load_plan
from polytile_core.solve.run import run

PIPELINE = """
problem = "enclose"

[[pieces]]
family = "pentominoes"

[options.enclose]
neighbours = 8
{board}

[options.cpsat]
parameters = {{ linearization_level = 0 }}

[solve]
backend = "cpsat"
workers = 2
time_limit = {time_limit}
seed = {seed}
"""


def one_run(host: Host, board: str, time_limit: float, seed: int) -> tuple[list[tuple[float, int]], object]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "farm.toml"
        path.write_text(PIPELINE.format(board=board, time_limit=time_limit, seed=seed), encoding="utf-8")
        plan = load_plan(path, host)
        started = time.perf_counter()
        progress: list[tuple[float, int]] = []
        result = run(plan, on_solution=lambda solution: progress.append((time.perf_counter() - started, solution.objective)))
    return progress, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=600)
    parser.add_argument("--target", type=int, default=128)
    parser.add_argument("--side", type=int, default=18, help="board side (0: sized automatically from the pieces)")
    arguments = parser.parse_args()
    board = f"width = {arguments.side}\nheight = {arguments.side}" if arguments.side else ""
    host = Host()
    reached, bounds, best = [], [], []
    for seed in range(arguments.repeat):
        progress, result = one_run(host, board, arguments.time_limit, seed)
        hit = next((seconds for seconds, area in progress if area >= arguments.target), None)
        reached.append(hit if hit is not None else arguments.time_limit)
        bounds.append(result.bound)
        best.append(result.objective)
        trail = ", ".join(f"{area}@{seconds:.0f}s" for seconds, area in progress[-6:])
        print(
            f"seed {seed}: best {result.objective}, bound {result.bound}, "
            f"{arguments.target} reached {'at %.1f s' % hit if hit is not None else 'not within the limit'}; "
            f"board {result.details.get('board')}; last fences {trail}",
            flush=True,
        )
    print(f"median time to reach {arguments.target}: {statistics.median(reached):.1f} s "
          f"(runs that did not reach it count as {arguments.time_limit:.0f} s; reached in "
          f"{sum(t < arguments.time_limit for t in reached)}/{len(reached)})")
    print(f"median best area: {statistics.median(best)}; median bound after {arguments.time_limit:.0f} s: "
          f"{statistics.median(bounds)}")


if __name__ == "__main__":
    main()
