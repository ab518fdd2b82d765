"""Benchmark: what ``backend = "auto"`` costs against the backends it chooses from.

    python benchmarks/auto.py [--repeat R] [--time-limit S] [--small N]

Two tables:

- **Small problems**, as an embedding program solves them by the thousand: plan and
  solve the 2×4 rectangle with two L-tetrominoes (mode one and mode count), one shared
  ``Host``, ``--small`` times each; median milliseconds per plan+solve for auto and for
  each named backend.  Auto must not pay for a race here.
- **Counts**: every paper instance whose count is known (docs/oracles.md) and the 8×8
  dominoes, with no backend named (auto) and with each backend named; median seconds
  of ``run`` (model building included; a run that reaches ``--time-limit`` is not
  repeated).  Auto must be exact and no slower than the fastest named backend (within
  20 % or 0.5 s).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import attrs

from polytile_core import api
from polytile_core.config.pipeline import make_plan, read_pipeline
from polytile_core.config.schema import SolveSpec
from polytile_core.host.registry import Host
from polytile_core.output.results import Termination
from polytile_core.solve.run import run

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("exactcover", "cpsat", "scip")
# From docs/oracles.md: fig09a is 5x18 with L-trominoes (OEIS A084478, n = 6); fig09b is
# 6x10 with the 12 pentominoes; 2022 fig02 is 9x9 minus a corner with 20 L-tetrominoes.
COUNTS = {
    "examples/paper/gb2020-fig09a.toml": 1_168_512,
    "examples/paper/gb2020-fig09b.toml": 9_356,
    "examples/paper/gb2022-fig02.toml": 1_709_594,
    "examples/dominoes-8x8-count.toml": 12_988_816,
}


def small_problems(host: Host, times: int) -> list[str]:
    lines = [
        "| 2×4, two L-tetrominoes | " + " | ".join(("auto", *BACKENDS)) + " |",
        "|---|" + "---:|" * (1 + len(BACKENDS)),
    ]
    for mode in ("one", "count"):
        cells = []
        for backend in ("auto", *BACKENDS):
            seconds = []
            for attempt in range(times + 1):  # the first one warms up (imports, caches) and is not counted
                started = time.perf_counter()
                plan = api.plan(
                    ["####", "####"],
                    [api.piece("L", ["#.", "#.", "##"], count=2)],
                    mode=mode,
                    backend=backend,
                    host=host,
                )
                api.solve(plan)
                if attempt:
                    seconds.append(time.perf_counter() - started)
            cells.append(f"{1000 * statistics.median(seconds):.2f} ms")
        lines.append(f"| mode {mode} | " + " | ".join(cells) + " |")
    return lines


def count_plan(path: str, backend: str, host: Host, limit: float):
    pipeline = read_pipeline(ROOT / path)
    solve = SolveSpec(mode="count", backend=backend, time_limit=limit)
    return make_plan(attrs.evolve(pipeline, split=None, solve=solve), host)


def counts(host: Host, repeat: int, limit: float) -> list[str]:
    lines = [
        "| instance | count | " + " | ".join(("auto", *BACKENDS)) + " | auto within 20 % or 0.5 s |",
        "|---|---:|" + "---:|" * (1 + len(BACKENDS)) + "---|",
    ]
    for path, expected in COUNTS.items():
        times = {}
        cells = []
        for backend in ("auto", *BACKENDS):
            results = [run(count_plan(path, backend, host, limit))]
            if results[0].termination == Termination.COMPLETED:  # a run at the limit is not repeated
                results += [run(count_plan(path, backend, host, limit)) for _ in range(repeat - 1)]
            exact = all(r.termination == Termination.COMPLETED and r.count == expected for r in results)
            median = statistics.median(r.seconds for r in results)
            if exact:
                times[backend] = median
                cells.append(f"{median:.2f}")
            elif results[-1].termination == Termination.COMPLETED:
                cells.append(f"WRONG ({results[-1].count})")
            else:
                cells.append(f"> {limit:g}")
        named = [seconds for backend, seconds in times.items() if backend != "auto"]
        verdict = "auto not exact"
        if "auto" in times and named:
            fastest = min(named)
            verdict = "yes" if times["auto"] <= max(1.2 * fastest, fastest + 0.5) else "NO"
        lines.append(f"| {Path(path).stem} | {expected:,} | " + " | ".join(cells) + f" | {verdict} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0, help="per count run")
    parser.add_argument("--small", type=int, default=200, help="plan+solve calls per cell of the first table")
    args = parser.parse_args(argv)
    host = Host()
    print("\n".join(small_problems(host, args.small)), flush=True)
    print()
    print("\n".join(counts(host, args.repeat, args.time_limit)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
