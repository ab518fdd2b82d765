"""Benchmark: counts and listings that take over 10 s on one job, on two jobs by default
(issue 29).

    python benchmarks/two_jobs.py [PIPELINE.toml ...] [--seed S] [--draws N] [--keep K]
                                  [--areas 90,100,110] [--limit SECONDS] [--repeat R]
                                  [--mode count|all] [--nine]

Draws random instances (``polytile_core.testing.random_instance``: holes, all three kinds,
exact, ranged and unlimited copies; or, with ``--nine``, the issue's 9×9 kind from
``random_vs_dlx3.py``; the seed is printed), solves each on one job with no backend named
(``--mode count``, or ``all``: every tiling listed to a ``.jsonl`` file), and keeps the
first ``--keep`` that take from 10 s to ``--limit``; pipelines named are kept first, drawn
ones after them (``--draws 0``: none).  Each kept instance is then solved on
two jobs, the runs taken in turn, and the run's own seconds compared (``seconds`` in its
result: the interpreter's start is not counted).  Counts must agree.  Prints a Markdown
table, the median and the worst speedup.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import tomli_w

from polytile_core.testing import random_instance

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_vs_dlx3 import nine_by_nine  # noqa: E402

LONG = 10.0  # seconds on one job from which two jobs are measured


def solve(pipeline: Path, mode: str, jobs: int, limit: float) -> tuple[float, int | None, str]:
    """The run's own seconds, its count (None unless it completed) and how it was made; a
    listing is written to a file beside the pipeline, its lines counted, then removed."""
    listing = pipeline.with_suffix(".jsonl")
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(pipeline), "--mode", mode]
    command += ["--jobs", str(jobs), "--time-limit", str(limit), "--quiet"]
    command += ["-o", "-"] if mode == "count" else ["-o", str(listing)]
    done = subprocess.run(command, capture_output=True, text=True)
    if mode == "count":
        result = json.loads(done.stdout) if done.stdout.strip() else None
        listed = None
    else:
        result, listed = None, 0
        if listing.exists():
            with listing.open() as lines:
                for line in lines:
                    if line.startswith('{"line":"solution"'):
                        listed += 1
                    elif line.startswith('{"line":"end"'):
                        result = json.loads(line)
            listing.unlink()
            os.sync()  # its writeback is not left to the next run (a listing can be gigabytes)
    if result is None:
        return float("nan"), None, done.stderr.strip()[-200:]
    details = result.get("details", {})
    how = details.get("when_long") or details.get("route", {}).get("how", "")
    if result["termination"] != "completed" or (listed is not None and listed != result["count"]):
        return result["seconds"], None, how
    return result["seconds"], result["count"], how


def candidates(named: list[Path], draws: int, nine: bool, rng: random.Random, areas: list[int], folder: Path):
    """(name, pipeline): those named, then up to ``draws`` drawn and written to ``folder``."""
    for pipeline in named:
        yield pipeline.stem, pipeline
    for number in range(draws):
        table = nine_by_nine(rng) if nine else random_instance(rng, rng.choice(areas))
        pipeline = folder / f"d{number}.toml"
        pipeline.write_text(tomli_w.dumps(table))
        yield f"d{number}", pipeline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pipelines", nargs="*", type=Path, help="pipelines measured, before any drawn")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--draws", type=int, default=40, help="instances drawn at most")
    parser.add_argument("--keep", type=int, default=3, help="instances over 10 s measured")
    parser.add_argument("--areas", default="90,100,110")
    parser.add_argument("--limit", type=float, default=90.0, help="seconds a one-job count may take")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--long", type=float, default=LONG, help="seconds on one job from which two are measured")
    parser.add_argument("--mode", choices=("count", "all"), default="count", help="count, or list every tiling")
    parser.add_argument("--nine", action="store_true", help="the issue's 9×9 kind (random_vs_dlx3.py)")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed {seed}; mode {arguments.mode}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    rng = random.Random(seed)
    areas = [int(area) for area in arguments.areas.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="polytile-two-jobs-"))
    rows: list[dict] = []
    for name, pipeline in candidates(arguments.pipelines, arguments.draws, arguments.nine, rng, areas, folder):
        if len(rows) >= arguments.keep + len(arguments.pipelines):
            break
        one, counted, _ = solve(pipeline, arguments.mode, 1, arguments.limit)
        if counted is None or (one < arguments.long and pipeline not in arguments.pipelines):
            print(f"{name}: {one:.1f} s on one job; not measured", flush=True)
            continue
        ones, twos, how = [one], [], ""
        counts: set[int | None] = {counted}
        for turn in range(arguments.repeat):
            if turn:
                seconds, counted, _ = solve(pipeline, arguments.mode, 1, 10 * arguments.limit)
                ones.append(seconds)
                counts.add(counted)
            seconds, counted, how = solve(pipeline, arguments.mode, 2, 10 * arguments.limit)
            twos.append(seconds)
            counts.add(counted)
        table = tomllib.loads(pipeline.read_text())
        area = sum(row.count("#") for row in table["region"]["rows"])
        row = {
            "name": name,
            "area": area,
            "pieces": len(table["pieces"]),
            "count": f"{counted:,}" if len(counts) == 1 and counted is not None else f"DISAGREE {counts}",
            "one": statistics.median(ones),
            "two": statistics.median(twos),
            "how": how,
        }
        row["speedup"] = row["one"] / row["two"]
        rows.append(row)
        print(f"{name}: {row['one']:.1f} s -> {row['two']:.1f} s ({row['speedup']:.2f}x)", flush=True)
    print()
    print("| instance | area | pieces | tilings | 1 job | 2 jobs | speedup | two jobs' route |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['name']} | {row['area']} | {row['pieces']} | {row['count']} | {row['one']:.1f} s "
            f"| {row['two']:.1f} s | {row['speedup']:.2f} | {row['how']} |"
        )
    if rows:
        speedups = [row["speedup"] for row in rows]
        print(f"\nspeedup on two jobs: median {statistics.median(speedups):.2f}, worst {min(speedups):.2f}")


if __name__ == "__main__":
    main()
