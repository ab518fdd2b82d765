"""Benchmark: one tiling of each paper instance, unsplit and with the checkerboard split.

    python benchmarks/split.py [PIPELINE ...] [--time-limit S] [--repeat R] [--jobs N]
                               [--part-workers W] [--order ORDER] [--split-only]
                               [--plot FILE | --no-plot]

Without pipelines it runs every file in examples/paper/.  The unsplit run is a plain
CP-SAT model with ``--jobs`` workers (the same cores the split gets).  Prints medians
over the repeats and the paper's measures: T_full / min_i T_i over the parts that
found a tiling (speedup for one solution) and the wall-clock ratio; T_full / max_i T_i
and sum_i T_i / T_full only when every part was solved.  Draws a PNG with Pillow.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import attrs

from polytile_core.host import Host
from polytile_core.parallel import speedup_measures
from polytile_core.pipeline import load_plan
from polytile_core.results import Found, Result, Termination
from polytile_core.run import run

ROOT = Path(__file__).resolve().parent.parent


def solved(result: Result) -> bool:
    return result.termination == Termination.COMPLETED and result.found == Found.FEASIBLE


def plans(path: Path, host: Host, args):
    plan = load_plan(path, host, {"time_limit": args.time_limit, "jobs": args.jobs})
    unsplit = attrs.evolve(plan, split=None, settings=attrs.evolve(plan.settings, workers=args.jobs))
    split_options = attrs.evolve(plan.split_options, order=args.order) if args.order else plan.split_options
    split = attrs.evolve(
        plan, split_options=split_options, settings=attrs.evolve(plan.settings, workers=args.part_workers)
    )
    return unsplit, split


def measure(path: Path, host: Host, args) -> dict:
    unsplit_plan, split_plan = plans(path, host, args)
    unsplit_runs = [] if args.split_only else [run(unsplit_plan) for _ in range(args.repeat)]
    split_runs = [run(split_plan) for _ in range(args.repeat)]
    row = {"name": path.stem, "limit": args.time_limit}
    if unsplit_runs:
        row["unsplit"] = statistics.median(r.seconds for r in unsplit_runs)
        row["unsplit_ok"] = all(solved(r) for r in unsplit_runs)
    row["split"] = statistics.median(r.seconds for r in split_runs)
    row["split_ok"] = all(solved(r) for r in split_runs)
    last = split_runs[-1]
    row["subproblems"] = last.details.get("subproblems")
    row["parts_solved"] = last.details.get("parts_solved")
    row["status"] = f"{last.termination.value}/{last.found.value}"
    if unsplit_runs and row["unsplit_ok"]:
        measures = speedup_measures(row["unsplit"], last.subproblems)
        row["speedup_one"] = measures.get("speedup_one")
        if last.details.get("parts_solved") == row["subproblems"]:
            row["speedup_all"] = measures.get("speedup_all")
            row["serial_overhead"] = measures.get("serial_overhead")
        row["wall_ratio"] = row["unsplit"] / row["split"]
    return row


def _cell(value, ok=True, limit=None) -> str:
    if value is None:
        return "—"
    if not ok:
        return f"> {limit:g} (none)" if limit else "none"
    return f"{value:.2f}"


def table(rows: list[dict]) -> str:
    lines = [
        "| instance | subproblems | unsplit s | split s | T_full/min T_i | T_full/max T_i | ΣT_i/T_full | T_full/T_split |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        subproblems = row.get("subproblems")
        lines.append(
            f"| {row['name']} | {subproblems:,} | "
            f"{_cell(row.get('unsplit'), row.get('unsplit_ok', True), row['limit'])} | "
            f"{_cell(row['split'], row['split_ok'], row['limit'])} | "
            f"{_cell(row.get('speedup_one'))} | {_cell(row.get('speedup_all'))} | "
            f"{_cell(row.get('serial_overhead'))} | {_cell(row.get('wall_ratio'))} |"
            if subproblems is not None
            else f"| {row['name']} | 0 (impossible) | {_cell(row.get('unsplit'), row.get('unsplit_ok', True), row['limit'])} "
            f"| {_cell(row['split'])} | | | | |"
        )
    return "\n".join(lines)


def plot(rows: list[dict], path: Path) -> None:
    """Two bars per instance (unsplit grey, split blue), log-scaled seconds; a bar that
    reached the time limit without a tiling is drawn hollow."""
    import math

    from PIL import Image, ImageDraw

    left, bar, gap, width = 150, 9, 8, 760
    height = 40 + len(rows) * (2 * bar + gap) + 30
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    low, high = 0.1, max(row["limit"] for row in rows) * 1.2
    span = width - left - 20

    def x_of(seconds: float) -> int:
        seconds = min(max(seconds, low), high)
        return left + int(span * (math.log10(seconds) - math.log10(low)) / (math.log10(high) - math.log10(low)))

    for tick in (0.1, 1, 10, 60, 100):
        if tick <= high:
            draw.line([(x_of(tick), 25), (x_of(tick), height - 25)], fill=(220, 220, 220))
            draw.text((x_of(tick) - 8, height - 22), f"{tick:g} s", fill="black")
    draw.text((left, 5), "one tiling: unsplit CP-SAT (grey) vs checkerboard split (blue), log seconds", fill="black")
    y = 30
    for row in rows:
        draw.text((5, y + 3), row["name"], fill="black")
        for key, colour in (("unsplit", (150, 150, 150)), ("split", (60, 110, 200))):
            if key in row:
                ok = row.get(f"{key}_ok", True)
                box = [left, y, x_of(row[key]), y + bar - 1]
                draw.rectangle(box, fill=colour if ok else None, outline=colour)
            y += bar
        y += gap
    image.save(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="*", type=Path)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--part-workers", type=int, default=1, help="CP-SAT workers per part")
    parser.add_argument("--order", choices=("balanced", "lexicographic", "random"))
    parser.add_argument("--split-only", action="store_true")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "benchmarks" / "split.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    paths = args.pipelines or sorted((ROOT / "examples" / "paper").glob("*.toml"))
    host = Host()
    rows = []
    for path in paths:
        rows.append(measure(path, host, args))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    if not args.no_plot:
        plot(rows, args.plot)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
