"""Benchmark: one tiling of large squares with a few random holes, unlimited free pentominoes.

    python benchmarks/large.py [--seed S] [--time-limit T] [--instances NAME,...]
                               [--routes bands,default,dlx3] [--dlx3 PATH]

The instances of issue 31 (and 29): 30x30 minus 5 random cells, 100x100, 100x100 minus 5,
300x300 minus 30, 1000x1000.  The holes are drawn from ``--seed`` (default: a fresh one,
printed); a seed whose holes cut off a part of the region that no number of pentominoes
covers (the counting proof of ``polytile_bands.impossibility``) is passed over for the next.

Every measurement runs in a process of its own, so its peak memory is its own:

- ``bands``: ``polytile_bands.tile_large`` on the problem (no model), then the core's
  cell-by-cell check ``TilingProblem.tiling_errors``; peak resident memory by
  ``resource.getrusage`` in that process.
- ``default``: ``polytile solve`` on a pipeline file with no backend and no split (what a
  user gets), its result file checked cell by cell the same way; peak = the largest sum of
  resident memory over the process tree, sampled every 0.1 s (the racers are processes).
- ``dlx3``: Knuth's ``dlx3big t1`` (``--dlx3``: the binary, built as
  ../shared/tools/knuth/README.md says) on ``toml2dlx.py``'s encoding; time to the first
  solution, not checked here.

Prints one row per instance and route: status, seconds, check seconds, peak MB, and the
sweep's own counters.  The targets (issue 31): 30x30-5 and 100x100 under 5 s,
100x100-5 under 10 s, 300x300-30 and 1000x1000 under 60 s and 2 GB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KNUTH = ROOT.parent / "shared" / "tools" / "knuth"
INSTANCES = {
    "30x30-5": (30, 5),
    "100x100": (100, 0),
    "100x100-5": (100, 5),
    "300x300-30": (300, 30),
    "1000x1000": (1000, 0),
}
TARGET_SECONDS = {"30x30-5": 5, "100x100": 5, "100x100-5": 10, "300x300-30": 60, "1000x1000": 60}


def region_cells(side: int, holes: int, seed: int) -> set[tuple[int, int]]:
    cells = [(x, y) for y in range(side) for x in range(side)]
    return set(cells) - set(random.Random(seed).sample(cells, holes))


def pentominoes():
    from polytile_core.host.builtin import CLASSIC_FAMILIES
    from polytile_core.model.geometry import cells_from_rows, normalise
    from polytile_core.model.problem import PieceType

    return tuple(
        PieceType(name, normalise(cells_from_rows(rows)), "free", 0, None)
        for name, rows in CLASSIC_FAMILIES["pentominoes"].items()
    )


def problem_of(name: str, seed: int):
    from polytile_core.model.geometry import Region
    from polytile_core.model.problem import TilingProblem

    side, holes = INSTANCES[name]
    return TilingProblem(Region(region_cells(side, holes, seed)), pentominoes())


def usable_seed(name: str, seed: int) -> int:
    """The first seed from ``seed`` on whose region no counting proof rules out."""
    from polytile_bands import impossibility

    while impossibility(problem_of(name, seed)):
        seed += 1
    return seed


def child_bands(name: str, seed: int, time_limit: float) -> dict:
    from polytile_bands import tile_large

    started = time.monotonic()
    problem = problem_of(name, seed)
    built = time.monotonic()
    found = tile_large(problem, seed=seed, deadline=started + time_limit)
    tiled = time.monotonic()
    errors = problem.tiling_errors(found.placements) if found.status == "found" else []
    return {
        "status": found.status if not errors else f"WRONG: {errors[0]}",
        "seconds": round(tiled - started, 2),
        "region_seconds": round(built - started, 2),
        "check_seconds": round(time.monotonic() - tiled, 2),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "details": found.details,
    }


def pipeline_text(name: str, seed: int) -> str:
    side, holes = INSTANCES[name]
    if holes:
        cells = region_cells(side, holes, seed)
        rows = ",\n".join(
            '  "' + "".join("#" if (x, y) in cells else "." for x in range(side)) + '"' for y in range(side)
        )
        region = f"[region]\nrows = [\n{rows}\n]\n"
    else:
        region = f"[region]\nwidth = {side}\nheight = {side}\n"
    return f'{region}\n[[pieces]]\nfamily = "pentominoes"\nunlimited = true\n\n[solve]\nmode = "one"\n'


def watched(command: list[str], time_limit: float, stdin=None) -> tuple[float, int, subprocess.CompletedProcess | None]:
    """Run ``command``; (seconds, peak MB of its process tree, the finished process or None
    when it ran past ``time_limit`` + 10 s and was killed)."""
    import psutil

    started = time.monotonic()
    process = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = psutil.Process(process.pid)
    peak = 0
    while process.poll() is None:
        try:
            tree = [watch, *watch.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        if time.monotonic() - started > time_limit + 10:
            for p in [*watch.children(recursive=True), watch]:
                p.kill()
            process.wait()
            return time.monotonic() - started, peak // 2**20, None
        time.sleep(0.1)
    out, err = process.communicate()
    return time.monotonic() - started, peak // 2**20, subprocess.CompletedProcess(command, process.returncode, out, err)


def run_default(name: str, seed: int, time_limit: float, folder: Path) -> dict:
    from polytile_core.output.reading import read_result

    pipeline = folder / f"{name}.toml"
    pipeline.write_text(pipeline_text(name, seed))
    output = folder / f"{name}.json"
    polytile = str(Path(sys.executable).parent / "polytile")
    command = [polytile, "solve", str(pipeline), "-q", "--time-limit", str(time_limit), "-o", str(output), "--force"]
    seconds, peak, done = watched(command, time_limit)
    if done is None:
        return {"status": "killed (ran past its time limit)", "seconds": round(seconds, 2), "peak_mb": peak}
    if done.returncode:
        return {"status": f"exit {done.returncode}: {done.stderr.strip()[-200:]}", "seconds": round(seconds, 2)}
    result = read_result(output)
    status = f"{result.termination.value}/{result.found.value}"
    if result.solutions:
        placements = [(placed.piece, placed.cells) for placed in result.solutions[0].placements]
        errors = problem_of(name, seed).tiling_errors(placements)
        status += f" WRONG: {errors[0]}" if errors else " checked"
    route = result.details.get("route", {})
    return {"status": status, "seconds": round(seconds, 2), "peak_mb": peak, "route": route.get("name", "")}


def run_dlx3(name: str, seed: int, time_limit: float, folder: Path, binary: str) -> dict:
    pipeline = folder / f"{name}.toml"
    pipeline.write_text(pipeline_text(name, seed))
    encoded = folder / f"{name}.dlx"
    with encoded.open("w") as out:
        subprocess.run([sys.executable, str(KNUTH / "toml2dlx.py"), str(pipeline)], stdout=out, check=True)
    with encoded.open() as stdin:
        seconds, peak, done = watched([binary, "t1"], time_limit, stdin=stdin)
    if done is None:
        return {"status": "killed (ran past its time limit)", "seconds": round(seconds, 2), "peak_mb": peak}
    summary = next((line for line in done.stderr.splitlines() if line.startswith("Altogether")), done.stderr[-120:])
    return {"status": summary.strip(), "seconds": round(seconds, 2), "peak_mb": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--instances", default=",".join(INSTANCES))
    parser.add_argument("--routes", default="bands,default")
    parser.add_argument("--dlx3", default=None, help="Knuth's dlx3big binary (route dlx3)")
    parser.add_argument("--child", nargs=2, metavar=("INSTANCE", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child_bands(args.child[0], int(args.child[1]), args.time_limit)))
        return
    seed = random.randrange(1 << 30) if args.seed is None else args.seed
    print(f"seed {seed}, time limit {args.time_limit} s, {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name in args.instances.split(","):
            own_seed = usable_seed(name, seed)
            for route in args.routes.split(","):
                if route == "bands":
                    command = [sys.executable, __file__, "--child", name, str(own_seed)]
                    done = subprocess.run(
                        [*command, "--time-limit", str(args.time_limit)], capture_output=True, text=True
                    )
                    row = json.loads(done.stdout) if done.returncode == 0 else {"status": done.stderr[-300:]}
                elif route == "default":
                    row = run_default(name, own_seed, args.time_limit, folder)
                elif route == "dlx3" and args.dlx3:
                    row = run_dlx3(name, own_seed, args.time_limit, folder, args.dlx3)
                else:
                    continue
                target = f"target {TARGET_SECONDS[name]} s"
                print(f"{name:11} seed {own_seed:<11} {route:8} {target:13} " + json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
