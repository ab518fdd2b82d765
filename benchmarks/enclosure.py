"""Enclosure benchmark: how long the default route (the fence backend) takes to prove the
optimum of each instance of issue 19, optionally side by side with CP-SAT's grid model;
and, with --all-fences, every optimal pentomino fence listed up to symmetry to a .jsonl
file through the CLI, counted, and each re-checked by the flood fill.

Each instance runs through the pipeline as a user would run it (no backend named, 2
workers); the medians of the wall times are printed with the area, bound and status.

    .venv/bin/python benchmarks/enclosure.py --repeat 3
    .venv/bin/python benchmarks/enclosure.py --cpsat 150    # also the grid model on CP-SAT, 150 s each
    .venv/bin/python benchmarks/enclosure.py --all-fences   # every optimal pentomino fence (~1 min)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polytile_core.config.pipeline import load_plan
from polytile_core.host.registry import Host
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


ALL_FENCES = '[[pieces]]\nfamily = "pentominoes"\n[options.enclose]\nlist_optimal = true\n[solve]\nworkers = 2\n'


def all_fences() -> None:
    """Every optimal pentomino fence up to rotation and reflection, as a user lists them
    (``polytile solve ... -o fences.jsonl``), timed; then each one re-checked here."""
    from polytile_enclosure import enclosed_pockets
    from polytile_enclosure.fence import canonical

    from polytile_core.output.reading import read_result_lines

    with tempfile.TemporaryDirectory() as directory:
        pipeline, listing = Path(directory) / "fences.toml", Path(directory) / "fences.jsonl"
        pipeline.write_text('problem = "enclose"\n' + ALL_FENCES, encoding="utf-8")
        command = [str(Path(sys.executable).with_name("polytile")), "solve", str(pipeline), "-o", str(listing), "-q"]
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        result = read_result_lines(listing)
    classes, sizes = set(), set()
    for solution in result.solutions:
        placements = [(placed.piece, placed.cells) for placed in solution.placements]
        fence = [cell for _, cells in placements for cell in cells]
        pockets = enclosed_pockets(fence, result.region, 8)  # the independent flood fill
        assert pockets and sorted(pockets[0]) == sorted(solution.interior or ()), "a listed fence is wrong"
        sizes.add(len(pockets[0]))
        classes.add(canonical(placements, range(8)))
    print(
        f"12 pentominoes, every optimal fence: {seconds:.1f} s for `polytile solve -o fences.jsonl` "
        f"(dynamic program {result.details.get('dynamic program seconds')} s); count {result.count}, "
        f"{len(result.solutions)} lines, {len(classes)} distinct up to rotation and reflection, "
        f"pockets {sorted(sizes)} (each re-checked by the flood fill); {result.details.get('listed')}; "
        f"fences walked {result.details.get('fences walked')}"
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
