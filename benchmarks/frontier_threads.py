"""Benchmark: the exactcover frontier scan alone on one thread and on two (issue 29).

    python benchmarks/frontier_threads.py [PIPELINE.toml ...] [--nine N] [--seed S]
                                          [--least SECONDS] [--repeat R]

Builds each pipeline's cover problem and frontier layout once, then runs the scan alone
(``Frontier.run(budget, 0, threads)``, no budget, no planning and no fallback) on one
thread and on two (a forward and a backward scan meeting in the middle), the runs taken
in turn ``--repeat`` times and the best kept.  ``--nine N`` adds N random instances of the
issue's 9×9 kind (``random_vs_dlx3.py``; the seed is printed); ``--least`` keeps only
those whose first one-thread scan takes at least that long.  Counts must agree.  Prints a
Markdown table: seconds on one and two threads, the speedup, the count, the peak states
on each and the peak memory on each.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import tomli_w
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import frontier, layout

from polytile_core.api import load
from polytile_core.solve.prepare import prepared_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_vs_dlx3 import nine_by_nine  # noqa: E402

BUDGET = 1 << 62


def timed(plan, threads: int) -> tuple[float, tuple[str, int, int, int]]:
    start = time.perf_counter()
    outcome = frontier(plan).run(BUDGET, 0.0, threads)
    return time.perf_counter() - start, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pipelines", nargs="*", type=Path)
    parser.add_argument("--nine", type=int, default=0, help="random 9×9 instances to add")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--least", type=float, default=0.0, help="seconds on one thread to be measured")
    parser.add_argument("--repeat", type=int, default=1)
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    folder = Path(tempfile.mkdtemp(prefix="frontier_threads_"))
    pipelines = list(arguments.pipelines)
    rng = random.Random(seed)
    for number in range(arguments.nine):
        pipeline = folder / f"n{number}.toml"
        pipeline.write_text(tomli_w.dumps({**nine_by_nine(rng), "solve": {"mode": "count"}}))
        pipelines.append(pipeline)
    print(f"seed {seed}, {len(pipelines)} pipelines, kept from {arguments.least} s on one thread\n")
    print("| pipeline | 1 thread | 2 threads | speedup | count | peak states (1; 2) | peak MB (1; 2) |")
    print("|---|---|---|---|---|---|---|")
    for pipeline in pipelines:
        plan = layout(cover_problem(prepared_model(load(pipeline))))
        if isinstance(plan, str):
            print(f"| {pipeline.name} | no layout: {plan} |")
            continue
        best = {1: float("inf"), 2: float("inf")}
        outcomes = {}
        for turn in range(arguments.repeat):
            for threads in (1, 2):
                seconds, outcomes[threads] = timed(plan, threads)
                best[threads] = min(best[threads], seconds)
                if turn == 0 and threads == 1 and seconds < arguments.least:
                    break
            if best[2] == float("inf"):
                break
        if best[2] == float("inf"):
            continue
        if outcomes[1][:2] != outcomes[2][:2]:
            raise SystemExit(f"{pipeline}: one and two threads disagree: {outcomes[1]} against {outcomes[2]}")
        status, count, _, _ = outcomes[1]
        peaks = f"{outcomes[1][2]:,}; {outcomes[2][2]:,}"
        memory = f"{outcomes[1][3] / 2**20:.0f}; {outcomes[2][3] / 2**20:.0f}"
        print(
            f"| {pipeline.name} | {best[1]:.2f} s | {best[2]:.2f} s | {best[1] / best[2]:.2f} "
            f"| {count if status == 'completed' else status} | {peaks} | {memory} |"
        )


if __name__ == "__main__":
    main()
