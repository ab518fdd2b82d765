"""Enclosure benchmark: how long the default route (the fence backend) takes to prove the
optimum of each instance of issue 19, optionally side by side with CP-SAT's grid model;
and, with --all-fences, every optimal pentomino fence listed and counted up to symmetry.

Each instance runs through the pipeline as a user would run it (no backend named, 2
workers); the medians of the wall times are printed with the area, bound and status.

    .venv/bin/python benchmarks/enclosure.py --repeat 3
    .venv/bin/python benchmarks/enclosure.py --cpsat 150    # also the grid model on CP-SAT, 150 s each
    .venv/bin/python benchmarks/enclosure.py --all-fences   # slow: every optimal pentomino fence
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from polytile_core.config.pipeline import load_plan, resolve_pieces
from polytile_core.config.schema import PieceSpec
from polytile_core.host.registry import Host
from polytile_core.model.geometry import SQUARE_SYMMETRIES
from polytile_core.output.results import Result
from polytile_core.solve.run import run

ONE_SIDED = '[[pieces]]\nfamily = "n-ominoes"\nn = 4\nkind = "one-sided"\n'
INSTANCES = {
    "Furmanek: 7 one-sided tetrominoes, 11×9, classic": ONE_SIDED + "[options.enclose]\nwidth = 11\nheight = 9\n",
    "Furmanek: 7 one-sided tetrominoes, 11×9, 4 neighbours": (
        ONE_SIDED + "[options.enclose]\nneighbours = 4\nwidth = 11\nheight = 9\n"
    ),
    "5 free tetrominoes, automatic board, classic": '[[pieces]]\nfamily = "tetrominoes"\n',
    "5 free tetrominoes, automatic board, 4 neighbours": (
        '[[pieces]]\nfamily = "tetrominoes"\n[options.enclose]\nneighbours = 4\n'
    ),
    "12 pentominoes, automatic board, classic": '[[pieces]]\nfamily = "pentominoes"\n',
}
CPSAT = '[options.cpsat]\nparameters = { linearization_level = 0 }\n[solve]\nbackend = "cpsat"\ntime_limit = {limit}\n'


def one_run(host: Host, body: str) -> tuple[float, Result]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fence.toml"
        path.write_text('problem = "enclose"\n' + body, encoding="utf-8")
        plan = load_plan(path, host)
        started = time.perf_counter()
        result = run(plan)
        return time.perf_counter() - started, result


def grid_body(body: str, limit: float) -> str:
    """The same instance on CP-SAT's grid model, every pocket counted (as in issue 19's table)."""
    if "[options.enclose]" in body:
        body = body.replace("[options.enclose]\n", '[options.enclose]\nscore = "pockets"\n')
    else:
        body += '[options.enclose]\nscore = "pockets"\n'
    return body + CPSAT.replace("{limit}", str(limit)) + "workers = 2\n"


def proofs(repeat: int, cpsat: float | None) -> None:
    host = Host()
    for name, body in INSTANCES.items():
        runs = [one_run(host, body + "[solve]\nworkers = 2\n") for _ in range(max(1, repeat))]
        times, result = [seconds for seconds, _ in runs], runs[-1][1]
        print(
            f"{name}: median {statistics.median(times):.2f} s over {repeat} "
            f"(min {min(times):.2f}, max {max(times):.2f}); area {result.objective}, bound {result.bound}, "
            f"{result.found.value}; board {result.details.get('board')}; "
            f"dynamic program {result.details.get('dynamic program seconds')} s",
            flush=True,
        )
        if cpsat and "pentominoes" not in name:
            seconds, grid = one_run(host, grid_body(body, cpsat))
            print(
                f"    cpsat, grid model, pockets: {seconds:.1f} s; area {grid.objective}, bound {grid.bound}, "
                f"{grid.found.value}",
                flush=True,
            )


def canonical(placements, symmetries) -> tuple:
    """The smallest image of a fence under the symmetries, moved to the origin."""
    images = []
    for symmetry in symmetries:
        moved = [(name, [SQUARE_SYMMETRIES[symmetry](x, y) for x, y in cells]) for name, cells in placements]
        low_x = min(x for _, cells in moved for x, _ in cells)
        low_y = min(y for _, cells in moved for _, y in cells)
        images.append(
            tuple(sorted((name, tuple(sorted((x - low_x, y - low_y) for x, y in cells))) for name, cells in moved))
        )
    return min(images)


def all_fences() -> None:
    from polytile_enclosure.fence import BoundarySearch

    pentominoes = resolve_pieces([PieceSpec(family="pentominoes")], Host())
    started = time.perf_counter()
    outcome = BoundarySearch(pentominoes, 8).solve(every=True, workers=2)
    seconds = time.perf_counter() - started
    rotations = {canonical(fenced.placements, range(4)) for fenced in outcome.fences}
    classes = {canonical(fenced.placements, range(8)) for fenced in outcome.fences}
    pieces_used = {len(fenced.placements) for fenced in outcome.fences}
    print(
        f"12 pentominoes: optimum {outcome.bound} (proved: {outcome.proved}) in {seconds:.1f} s "
        f"(dynamic program {outcome.seconds_dp:.1f} s); {len(outcome.fences)} optimal fences listed, "
        f"{len(rotations)} up to rotation, {len(classes)} up to rotation and reflection; "
        f"pieces in a fence: {sorted(pieces_used)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpsat", type=float, default=None, help="also run CP-SAT's grid model with this time limit")
    parser.add_argument("--all-fences", action="store_true", help="list every optimal pentomino fence (slow)")
    arguments = parser.parse_args()
    if arguments.all_fences:
        all_fences()
    else:
        proofs(arguments.repeat, arguments.cpsat)


if __name__ == "__main__":
    main()
