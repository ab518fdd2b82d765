"""Benchmark: one tiling of paper instances, whole and split by 2, 3, 4 colours, on CP-SAT and exact cover.

    python benchmarks/colours.py [PIPELINE ...] [--time-limit S] [--jobs N]
                                 [--backends cpsat,exactcover] [--colours 2,3,4]
                                 [--variants patterns,counts]

Without pipelines it runs four of the 2022 paper's instances (examples/paper/).  For each
instance and backend: the whole problem, then the ``colours`` split (docs/split.md) with
each k and each way of making variants, ``--jobs`` parts at once.  Per route it prints the
parts (the number of solutions of the colour-count equations, or 0 when the colouring
proves there is no tiling), the variables of the whole model and of the first 20 parts
that reach the search (least–most), the parts the run solved, and the seconds to the
first tiling (or the time limit).  The colour-count tables are built in the same run, so
their time is in the split's.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import attrs
from polytile_colours import ColoursOptions

from polytile_core.config.pipeline import Chosen, load_plan
from polytile_core.host.registry import Host
from polytile_core.output.results import Found
from polytile_core.solve.run import run

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ("gb2022-fig02", "gb2022-fig06", "gb2022-fig08", "gb2022-fig12")


def part_sizes(plan, options: ColoursOptions) -> tuple[int | None, str]:
    """(parts, variables of the first 20 parts that reach the search, least–most)."""
    problem, model = plan.tiling_problem(), plan.build()
    split = plan.split.provides.split(problem, model, plan.build, options, jobs=plan.jobs)
    if split.impossible:
        return 0, "—"
    sizes = [part.model.num_variables for part in itertools.islice(split.parts, 200) if part.empty is None]
    sizes = sizes[:20]
    return split.total, f"{min(sizes)}–{max(sizes)}" if sizes else "all empty"


def measure(path: Path, backend: str, args) -> list[dict]:
    host = Host()
    overrides = {"time_limit": args.time_limit, "jobs": args.jobs, "backend": backend, "mode": "one"}
    whole = attrs.evolve(load_plan(path, host, overrides), split=None)
    rows = []
    started = time.monotonic()
    result = run(whole)
    rows.append(
        {
            "route": "whole",
            "parts": 1,
            "variables": str(whole.build().num_variables),
            "solved": "",
            "seconds": time.monotonic() - started,
            "found": result.found,
        }
    )
    for colours in args.colours:
        for variants in args.variants:
            options = ColoursOptions(colours=colours, variants=variants)
            plan = attrs.evolve(whole, split=Chosen(host.get("decomposers", "colours"), options))
            parts, variables = part_sizes(plan, options)
            started = time.monotonic()
            result = run(plan)
            rows.append(
                {
                    "route": f"{colours} colours ({variants})",
                    "parts": parts,
                    "variables": variables,
                    "solved": result.details.get("parts_solved", ""),
                    "seconds": time.monotonic() - started,
                    "found": result.found,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipelines", nargs="*", type=Path)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--backends", default="cpsat,exactcover")
    parser.add_argument("--colours", default="2,3,4")
    parser.add_argument("--variants", default="patterns,counts")
    args = parser.parse_args()
    args.colours = [int(k) for k in args.colours.split(",")]
    args.variants = args.variants.split(",")
    paths = args.pipelines or [ROOT / "examples" / "paper" / f"{name}.toml" for name in INSTANCES]
    print(f"time limit {args.time_limit} s, {args.jobs} jobs, {time.strftime('%Y-%m-%d %H:%M')}")
    print("| instance | backend | route | parts | variables (whole; first 20 parts) | parts solved | s to one tiling |")
    print("|---|---|---|---:|---|---:|---:|")
    for path in paths:
        for backend in args.backends.split(","):
            for row in measure(path, backend, args):
                seconds = f"{row['seconds']:.2f}"
                if row["found"] == Found.INFEASIBLE:
                    seconds += " (proved impossible)"
                elif row["found"] != Found.FEASIBLE:
                    seconds = f"> {args.time_limit:g} (none)"
                parts = f"{row['parts']:,}" if isinstance(row["parts"], int) else str(row["parts"])
                print(
                    f"| {path.stem} | {backend} | {row['route']} | {parts} | {row['variables']} | {row['solved']} | {seconds} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
