"""Benchmark: one tiling of each paper instance by five routes and by auto, side by side.

    python benchmarks/split.py [PIPELINE ...] [--time-limit S] [--repeat R] [--jobs N]
                               [--part-workers W] [--order ORDER] [--routes R,R,...]
                               [--plot FILE | --no-plot]

Without pipelines it runs every file in examples/paper/.  The routes:

- ``cpsat``: a plain CP-SAT model with ``--jobs`` workers (the same cores the splits get);
- ``checkerboard``: the paper's split, ``--jobs`` parts at once, ``--part-workers`` CP-SAT
  workers each;
- ``blocks``: the blocks split (tile one of several congruent blocks, then the whole),
  on CP-SAT, parts as for checkerboard;
- ``exactcover``: dancing links on the whole problem (one core);
- ``blocks+exactcover``: the blocks split with dancing links on each part;
- ``auto``: what a pipeline with no backend and no split gets (``backend = "auto"``,
  ``--jobs`` cores): the head start in process, then the race of routes.

Prints medians over the repeats, then for the checkerboard split the paper's measures
against the plain CP-SAT time: T_full / min_i T_i over the parts that found a tiling
(speedup for one solution) and the wall-clock ratio; T_full / max_i T_i and
sum_i T_i / T_full only when every part was solved.  Draws a PNG with Pillow.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import attrs
from polytile_checkerboard import CheckerboardOptions

from polytile_core.config.pipeline import Chosen, load_plan
from polytile_core.host.registry import Host
from polytile_core.output.results import Found, Result, Termination
from polytile_core.solve.run import run
from polytile_core.solve.split import speedup_measures

ROOT = Path(__file__).resolve().parent.parent
ROUTES = ("cpsat", "checkerboard", "blocks", "exactcover", "blocks+exactcover", "auto")


def solved(result: Result) -> bool:
    return result.termination == Termination.COMPLETED and result.found == Found.FEASIBLE


def route_plan(route: str, path: Path, host: Host, args):
    """The plan of one route for one pipeline file (its [split] replaced by the route's)."""
    if route == "auto":
        plan = load_plan(path, host, {"time_limit": args.time_limit, "jobs": args.jobs, "backend": "auto"})
        return attrs.evolve(plan, split=None)
    plan = load_plan(path, host, {"time_limit": args.time_limit, "jobs": args.jobs})
    split_method, _, backend = route.partition("+")
    if split_method in ("cpsat", "exactcover"):
        split_method, backend = "", split_method
    backend = backend or "cpsat"
    plan = attrs.evolve(plan, backend=Chosen(host.get("backends", backend)))
    if not split_method:
        return attrs.evolve(plan, split=None, settings=attrs.evolve(plan.settings, workers=args.jobs))
    options = plan.split.options if plan.split is not None and split_method == "checkerboard" else None
    if split_method == "checkerboard" and args.order:
        assert isinstance(options, CheckerboardOptions)
        options = attrs.evolve(options, order=args.order)
    return attrs.evolve(
        plan,
        split=Chosen(host.get("decomposers", split_method), options),
        settings=attrs.evolve(plan.settings, workers=args.part_workers),
    )


def measure(path: Path, host: Host, args) -> dict:
    row = {"name": path.stem, "limit": args.time_limit}
    runs = {}
    for route in args.routes:
        plan = route_plan(route, path, host, args)
        runs[route] = [run(plan) for _ in range(args.repeat)]
        row[route] = statistics.median(r.seconds for r in runs[route])
        row[f"{route}_ok"] = all(solved(r) for r in runs[route])
        if route == "auto":
            row["auto_route"] = runs[route][-1].details.get("route", {}).get("name")
    if "checkerboard" in runs:
        last = runs["checkerboard"][-1]
        row["subproblems"] = last.details.get("subproblems")
        if row.get("cpsat_ok") and row["checkerboard_ok"]:
            measures = speedup_measures(row["cpsat"], last.subproblems)
            row["speedup_one"] = measures.get("speedup_one")
            if last.details.get("parts_solved") == row["subproblems"]:
                row["speedup_all"] = measures.get("speedup_all")
                row["serial_overhead"] = measures.get("serial_overhead")
            row["wall_ratio"] = row["cpsat"] / row["checkerboard"]
    return row


def _cell(value, ok=True, limit=None) -> str:
    if value is None:
        return "—"
    if not ok:
        return f"> {limit:g} (none)" if limit else "none"
    return f"{value:.2f}"


def table(rows: list[dict], routes) -> str:
    """Seconds per route, best route in bold."""
    lines = ["| instance | " + " | ".join(f"{route} s" for route in routes) + " |", "|---|" + "---:|" * len(routes)]
    for row in rows:
        times = {route: row[route] for route in routes if row.get(f"{route}_ok")}
        best = min(times, key=lambda route: times[route]) if times else None
        cells = [_cell(row[route], row[f"{route}_ok"], row["limit"]) for route in routes]
        cells = [f"**{cell}**" if route == best else cell for route, cell in zip(routes, cells, strict=True)]
        if row.get("auto_route"):
            cells[routes.index("auto")] += f" ({row['auto_route']})"
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def measures_table(rows: list[dict]) -> str:
    """The paper's measures for the checkerboard split against plain CP-SAT."""
    lines = [
        "| instance | subproblems | T_full/min T_i | T_full/max T_i | ΣT_i/T_full | T_full/T_split |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        subproblems = row.get("subproblems")
        shown = "0 (impossible)" if subproblems is None else f"{subproblems:,}"
        lines.append(
            f"| {row['name']} | {shown} | {_cell(row.get('speedup_one'))} | {_cell(row.get('speedup_all'))} | "
            f"{_cell(row.get('serial_overhead'))} | {_cell(row.get('wall_ratio'))} |"
        )
    return "\n".join(lines)


COLOURS = {
    "cpsat": (150, 150, 150),
    "checkerboard": (60, 110, 200),
    "blocks": (60, 170, 90),
    "exactcover": (220, 140, 40),
    "blocks+exactcover": (170, 60, 160),
    "auto": (200, 40, 40),
}


def plot(rows: list[dict], routes, path: Path) -> None:
    """One bar per route and instance, log-scaled seconds; a bar that reached the time
    limit without a tiling is drawn hollow."""
    import math

    from PIL import Image, ImageDraw

    left, bar, gap, width = 150, 7, 8, 760
    height = 60 + len(rows) * (len(routes) * bar + gap) + 30
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    low, high = 0.01, max(row["limit"] for row in rows) * 1.2
    span = width - left - 20

    def x_of(seconds: float) -> int:
        seconds = min(max(seconds, low), high)
        return left + int(span * (math.log10(seconds) - math.log10(low)) / (math.log10(high) - math.log10(low)))

    for tick in (0.01, 0.1, 1, 10, 60, 100):
        if tick <= high:
            draw.line([(x_of(tick), 45), (x_of(tick), height - 25)], fill=(220, 220, 220))
            draw.text((x_of(tick) - 8, height - 22), f"{tick:g} s", fill="black")
    draw.text((left, 5), "one tiling of each paper instance, log seconds (hollow: none within the limit)", fill="black")
    x = left
    for route in routes:
        draw.rectangle([x, 26, x + 10, 34], fill=COLOURS[route])
        draw.text((x + 14, 24), route, fill="black")
        x += 20 + 7 * len(route)
    y = 50
    for row in rows:
        draw.text((5, y + 3), row["name"], fill="black")
        for route in routes:
            box = [left, y, x_of(row[route]), y + bar - 1]
            draw.rectangle(box, fill=COLOURS[route] if row[f"{route}_ok"] else None, outline=COLOURS[route])
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
    parser.add_argument(
        "--routes",
        type=lambda text: text.split(","),
        default=list(ROUTES),
        help=f"comma-separated, from {', '.join(ROUTES)}",
    )
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "benchmarks" / "split.png")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    paths = args.pipelines or sorted((ROOT / "examples" / "paper").glob("*.toml"))
    host = Host()
    rows = []
    for path in paths:
        rows.append(measure(path, host, args))
        print(table(rows[-1:], args.routes).splitlines()[-1], flush=True)
    print()
    print(table(rows, args.routes))
    if "checkerboard" in args.routes:
        print()
        print(measures_table(rows))
    if not args.no_plot:
        plot(rows, args.routes, args.plot)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
