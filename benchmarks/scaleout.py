"""Scale-out that pays: the whole problem on one core against the tree split and the
checkerboard split, on one and two jobs, through the local process pool and a real local
Dask cluster (a scheduler and two single-thread worker processes, started once and warmed
up by an untimed run).  Exact cover counts with dancing links (``counter = "search"``,
``kernel = "dlx"``; issue 24's ``counter = "dlx"``).

    .venv/bin/python benchmarks/scaleout.py [--repeat 3] [--only 9x9] [--no-dask]
    .venv/bin/python benchmarks/scaleout.py --long [--board 7x12] [--parts 4096] [--one-at-a-time]

For each instance it prints the work (CPU seconds in one thread, so that the load of a
shared machine does not enter): the whole problem, Σ tree parts / whole (alternately,
``--repeat`` times) and Σ checkerboard parts / whole; the per-part overhead; the makespan
simulated from the tree part times on 8, 32 and 128 workers (greedy: a free worker takes
the next part, in the split's order); then wall times (medians of ``--repeat`` runs, taken
in turn) of the whole on one core against the tree split on one job and on two (with no
executor named, which for exact cover is a thread pool; a process pool; Dask) and the
checkerboard split on two.

``--long`` runs the long job instead: counting the 2,188,978,117 domino tilings of 7×12
with dancing links, about eight CPU minutes on one core.  Two processes run at once (one
per core of a 2-core machine): one counts the whole problem, the other splits it by the
tree into 4,096 parts (32 per worker of 128) and solves them one after another; each is
timed in CPU seconds of its own thread.  It prints Σ parts / whole and the makespan
simulated from the part times on 8, 32 and 128 workers.  ``--board 4x6`` checks the
script in seconds.

Counts: 6×10 pentominoes 9,356; 9×9 minus a corner with 20 L-tetrominoes 1,709,594
(docs/oracles.md); dominoes from Kasteleyn's product formula, computed here (7×12 checked
against a transfer-matrix count and OEIS A099390's row 7, A028468).
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import attrs
from polytile_checkerboard import CheckerboardSplit
from polytile_exactcover import ExactCoverBackend, ExactCoverOptions
from polytile_exactcover.outcome import Limits
from polytile_tree import TreeOptions, TreeSplit

from polytile_core.config.pipeline import load_plan
from polytile_core.host.contracts import Mode, SolveSettings
from polytile_core.host.registry import Host
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Termination
from polytile_core.solve import split as splitting
from polytile_core.solve.parcels import ModelNeeded, ModelParcel
from polytile_core.solve.run import run

DLX = ExactCoverOptions(counter="search", kernel="dlx")

PENTOMINOES = '[region]\nwidth = 10\nheight = 6\n\n[[pieces]]\nfamily = "pentominoes"\n'
NINE_BY_NINE = (
    "[region]\nrows = [" + ", ".join(['"########."'] + ['"#########"'] * 8) + "]\n\n"
    '[[pieces]]\nshape = ["###", "#.."]\nname = "L"\ncount = 20\n'
)


def kasteleyn(m: int, n: int) -> int:
    """Domino tilings of an m×n board (Kasteleyn 1961), in exact integer arithmetic."""
    # prod over j, k of (4 cos²(πj/(m+1)) + 4 cos²(πk/(n+1))); rounded from high precision floats
    from decimal import Decimal, getcontext

    getcontext().prec = 60
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494")

    def cos(x: Decimal) -> Decimal:
        total, term, k = Decimal(1), Decimal(1), 0
        while abs(term) > Decimal(10) ** -55:
            k += 2
            term *= -x * x / (k * (k - 1))
            total += term
        return total

    product = Decimal(1)
    for j in range(1, math.ceil(m / 2) + 1):
        for k in range(1, math.ceil(n / 2) + 1):
            product *= 4 * cos(pi * j / (m + 1)) ** 2 + 4 * cos(pi * k / (n + 1)) ** 2
    return int(product.to_integral_value())


INSTANCES = {
    "6x10-count": ("6×10, the 12 pentominoes, count", PENTOMINOES, "count", 9_356),
    "6x10-list": ("6×10, the 12 pentominoes, list", PENTOMINOES, "all", 9_356),
    "9x9": ("9×9 minus a corner, 20 L-tetrominoes, count", NINE_BY_NINE, "count", 1_709_594),
}
# The long job: dominoes on 7×12, 2,188,978,117 tilings (Kasteleyn; OEIS A099390), in
# 4,096 tree parts (32 per worker of 128).
LONG_BOARD = "7x12"
LONG_PARTS = 4096


def pipeline(body: str, mode: str, split: str | None, options: dict[str, str]) -> Path:
    text = body + f'\n[solve]\nmode = "{mode}"\nbackend = "exactcover"\n'
    text += '\n[options.exactcover]\ncounter = "search"\nkernel = "dlx"\n'
    if split:
        text += f'\n[split]\nmethod = "{split}"\n'
    for table, lines in options.items():
        text += f"\n[options.{table}]\n{lines}\n"
    path = Path(tempfile.mkdtemp()) / "pipeline.toml"
    path.write_text(text, encoding="utf-8")
    return path


@attrs.frozen
class Timing:
    wall: float
    cpu: float  # of this process (the whole problem and thread-pool parts run in it)
    part_seconds: tuple[float, ...]
    prepare_mean: float | None
    models_sent: int | None
    executor: str  # what ran the parts (the executor's name), or "" for the whole


def timed(host: Host, path: Path, expected: int, **overrides) -> Timing:
    scheduler = overrides.pop("scheduler", None)
    plan = load_plan(path, host, overrides)
    if scheduler:
        executor: Any = plan.executor
        options = attrs.evolve(executor.options, scheduler=scheduler)
        plan = attrs.evolve(plan, executor=attrs.evolve(executor, options=options))
    wall, cpu = time.perf_counter(), time.process_time()
    result = run(plan)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert result.termination == Termination.COMPLETED and result.count == expected, (result.count, expected)
    parts = tuple(report.seconds for report in result.subproblems)
    prepare, sent = result.details.get("part_prepare_seconds_mean"), result.details.get("models_sent")
    executor = str(result.details.get("executor", "")).split(" ")[0]
    return Timing(
        wall, cpu, parts, None if prepare is None else float(prepare), None if sent is None else int(sent), executor
    )


def makespan(part_seconds: tuple[float, ...], workers: int) -> float:
    """Greedy list scheduling: each part, in order, goes to the first worker free."""
    free = [0.0] * workers
    for seconds in part_seconds:
        heapq.heapreplace(free, free[0] + seconds)
    return max(free)


def simulation(whole: float, part_seconds: tuple[float, ...]) -> str:
    cells = []
    for workers in (8, 32, 128):
        span = makespan(part_seconds, workers)
        cells.append(f"{workers}: {span:.2f} s ({whole / span:.1f}×)")
    return "; ".join(cells)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def work(model, mode: str, expected: int, parts) -> tuple[float, list[float]]:
    """CPU seconds of each part solved one after another in this thread (``parts`` of the
    tree split, or a list of models), so the load of a shared machine does not enter."""
    settings = SolveSettings(mode=cast(Mode, mode))
    parcel = ModelParcel(uuid.uuid4().hex, model)
    seconds: list[float] = []
    total = 0
    for part in parts:
        started = time.thread_time()
        outcome: splitting.PartOutcome | ModelNeeded
        if isinstance(part, Model):
            outcome = splitting.solve_part(ExactCoverBackend, DLX, part, settings, None if mode == "all" else 0)
        else:
            keep = None if mode == "all" else 0
            outcome = splitting.solve_fixed_part(ExactCoverBackend, DLX, parcel, part.fixed, settings, keep)
            # A part searched for one anchor placement per orbit stands for its images:
            # the run maps each solution (timed here) and multiplies the count.
            assert isinstance(outcome, splitting.PartOutcome)
            images = part.images or ((),)
            mapped = [sorted(image[var] for var in ones) for ones in outcome.solutions for image in images if image]
            assert len(mapped) in (0, len(images) * len(outcome.solutions))
            total += (outcome.answer.count or 0) * (len(images) - 1)
        seconds.append(time.thread_time() - started)
        assert isinstance(outcome, splitting.PartOutcome)
        total += outcome.answer.count or 0
    assert total == expected, (total, expected)
    return sum(seconds), seconds


def beyond_the_kernel(model: Model, mode: str, parts) -> list[float]:
    """CPU seconds of each tree part beyond its search: the part solved in this thread,
    less what exact cover's kernels spent in ``run`` (timed by wrapping
    ``Limits.run``, every kernel's way in).  What is left is the part's
    own cost: pinning, its cover made from the whole model's, the kernel's set-up, the answer."""
    settings = SolveSettings(mode=cast(Mode, mode))
    parcel = ModelParcel(uuid.uuid4().hex, model)
    in_kernel: list[float] = []
    run_kernel = Limits.run

    class Timed:
        """A kernel whose ``run`` is timed (the stop relay around it is the part's cost)."""

        def __init__(self, kernel):
            self.kernel = kernel
            self.cancel = kernel.cancel

        def run(self, *args):
            started = time.thread_time()
            try:
                return self.kernel.run(*args)
            finally:
                in_kernel.append(time.thread_time() - started)

    def timed_kernel(limits, kernel, *args):
        return run_kernel(limits, Timed(kernel), *args)

    beyond = []
    Limits.run = timed_kernel  # type: ignore[method-assign]
    try:
        for part in parts:
            in_kernel.clear()
            started = time.thread_time()
            splitting.solve_fixed_part(
                ExactCoverBackend, DLX, parcel, part.fixed, settings, None if mode == "all" else 0
            )
            beyond.append(time.thread_time() - started - sum(in_kernel))
    finally:
        Limits.run = run_kernel  # type: ignore[method-assign]
    return beyond


@contextlib.contextmanager
def dask_cluster(host: Host) -> Iterator[str]:
    """A local Dask cluster (a scheduler in this process, two worker processes), warmed up
    by an untimed run; yields the scheduler's address.  Started only for the Dask rows:
    idle, its workers and this process's scheduler thread still take a quarter of a core."""
    from distributed import Client
    from polytile_dask import local_cluster

    cluster = local_cluster(2)
    client = Client(cluster)
    try:
        warm = pipeline(NINE_BY_NINE, "count", "tree", {"tree": "parts = 8"})
        timed(host, warm, 1_709_594, jobs=2, executor="dask", scheduler=cluster.scheduler_address)
        yield cluster.scheduler_address
    finally:
        client.close()
        cluster.close()


def measure(host: Host, key: str, repeat: int, with_dask: bool) -> None:
    name, body, mode, expected = INSTANCES[key]
    print(f"\n## {name} ({load()})")
    whole_path = pipeline(body, mode, None, {})
    tree_path = pipeline(body, mode, "tree", {"tree": "parts = 64"})
    checker_path = pipeline(body, mode, "checkerboard", {})
    plan = load_plan(whole_path, host)
    model = plan.build()
    tree_parts = list(TreeSplit().split(plan.tiling_problem(), model, plan.build, TreeOptions(parts=64)).parts)
    checker_parts = [
        part.model
        for part in CheckerboardSplit().split(plan.tiling_problem(), model, plan.build, None).parts
        if part.empty is None
    ]

    # The work: CPU seconds in one thread, whole and tree parts alternately, `repeat` times.
    ratios: list[float] = []
    wholes: list[float] = []
    part_seconds: list[float] = []
    for _ in range(repeat):
        whole_cpu, _ = work(model, mode, expected, [model])
        tree_cpu, part_seconds = work(model, mode, expected, tree_parts)
        ratios.append(tree_cpu / whole_cpu)
        wholes.append(whole_cpu)
    whole_cpu = statistics.median(wholes)
    checker_cpu, _ = work(model, mode, expected, checker_parts)
    print(
        f"work, CPU seconds in one thread (median of {repeat}): whole {whole_cpu:.2f} s; "
        f"tree, {len(tree_parts)} parts: Σ parts / whole = {statistics.median(ratios):.3f} "
        f"(each run: {', '.join(f'{ratio:.3f}' for ratio in ratios)}); "
        f"checkerboard, {len(checker_parts)} parts searched: Σ parts / whole = {checker_cpu / whole_cpu:.2f}"
    )
    print(f"  (Σ tree parts − whole) / parts = {1000 * (sum(part_seconds) - whole_cpu) / len(tree_parts):.1f} ms")
    beyond = beyond_the_kernel(model, mode, tree_parts)
    print(
        f"  CPU per tree part beyond its search: median {1000 * statistics.median(beyond):.2f} ms, "
        f"mean {1000 * statistics.mean(beyond):.2f} ms (the first, which reads the whole model: "
        f"{1000 * beyond[0]:.1f} ms)"
    )
    print(f"  makespan simulated from these part times: {simulation(whole_cpu, tuple(part_seconds))}")

    # Wall times: the whole on one core against two jobs, each run `repeat` times in turn
    # (so a change of the machine's speed touches every row alike); medians.  The speed of
    # this shared virtual machine drifts by 10-20 % within seconds, so each run is also set
    # against the whole run just before it, and the median of those ratios printed.
    runs: dict[str, tuple[Path, dict[str, Any]]] = {
        "whole, one core": (whole_path, {}),
        "tree, --jobs 2, no executor named": (tree_path, {"jobs": 2}),
        "tree, --jobs 1 (thread)": (tree_path, {"jobs": 1, "executor": "thread"}),
        "tree, --jobs 2, process pool": (tree_path, {"jobs": 2, "executor": "process"}),
    }
    timings: dict[str, list[Timing]] = {label: [] for label in runs}
    for _ in range(repeat):
        for label, (path, overrides) in runs.items():
            timings[label].append(timed(host, path, expected, **overrides))
    if with_dask:
        with dask_cluster(host) as scheduler:
            timings["tree, --jobs 2, Dask (2 workers)"] = [
                timed(host, tree_path, expected, jobs=2, executor="dask", scheduler=scheduler) for _ in range(repeat)
            ]
    # The checkerboard split for contrast, once: on 6×10 it takes some 40 s.
    checker = timed(host, checker_path, expected, jobs=2, executor="process")
    timings["checkerboard, --jobs 2, process pool (one run)"] = [checker]
    wholes = [timing.wall for timing in timings["whole, one core"]]
    whole_wall = statistics.median(wholes)
    print(
        f"\n| run (median of {repeat}) | wall s | speedup: median whole / median run | "
        "median of (whole / run) in turn | each run, s | Σ part wall s |"
    )
    print("|---|---|---|---|---|---|")
    for label, done in timings.items():
        wall = statistics.median(timing.wall for timing in done)
        executor = done[0].executor if label.endswith("no executor named") else ""
        total = f"{statistics.median(sum(timing.part_seconds) for timing in done):.2f}" if done[0].part_seconds else ""
        each = ", ".join(f"{timing.wall:.2f}" for timing in done)
        name = f"{label} ({executor})" if executor else label
        paired = (
            f"{statistics.median(w / t.wall for w, t in zip(wholes, done, strict=True)):.2f}×" if label in runs else "—"
        )
        print(f"| {name} | {wall:.2f} | {whole_wall / wall:.2f}× | {paired} | {each} | {total} |")
    pool = timings["tree, --jobs 2, process pool"][-1]
    print(
        f"tree on a 2-process pool: preparing a part in its worker {1000 * (pool.prepare_mean or 0):.3f} ms on "
        f"average; models sent {pool.models_sent}; ({load()})"
    )


def long_board(text: str) -> tuple[str, str, int]:
    """(the long job's name, its pipeline body, its count) for dominoes on ``HEIGHTxWIDTH``."""
    height, width = (int(side) for side in text.lower().split("x"))
    body = f'[region]\nwidth = {width}\nheight = {height}\n\n[[pieces]]\nshape = ["##"]\nname = "D"\nunlimited = true\n'
    return f"{height}×{width} dominoes, count", body, kasteleyn(height, width)


def long_side(host: Host, side: str, board: str, parts: int, out: Path) -> None:
    """One side of the long job in this process, in CPU seconds of this thread: the whole
    count, or the tree split and its parts one after another.  Written to ``out`` as JSON."""
    _, body, expected = long_board(board)
    plan = load_plan(pipeline(body, "count", None, {}), host)
    model = plan.build()
    report: dict[str, Any] = {"side": side, "load_before": os.getloadavg()[0]}
    wall = time.perf_counter()
    if side == "whole":
        report["cpu"], _ = work(model, "count", expected, [model])
    else:
        started = time.thread_time()
        split = TreeSplit().split(plan.tiling_problem(), model, plan.build, TreeOptions(parts=parts))
        tree_parts = list(split.parts)
        report["split_cpu"] = time.thread_time() - started
        report["depth"] = split.summary.get("depth")
        report["cpu"], report["part_cpu"] = work(model, "count", expected, tree_parts)
    report["wall"] = time.perf_counter() - wall
    report["load_after"] = os.getloadavg()[0]
    out.write_text(json.dumps(report), encoding="utf-8")


def measure_long(board: str, parts: int, *, at_once: bool) -> None:
    """The long job: the whole count and its tree parts, each side in a process of its own,
    timed in CPU seconds of one thread; both at once (one per core of a 2-core machine)
    unless ``at_once`` is false."""
    name, _, expected = long_board(board)
    print(f"\n## the long job: {name}, {expected:,} tilings (Kasteleyn), {parts} tree parts ({load()})")
    folder = Path(tempfile.mkdtemp())
    sides = {}
    for side in ("whole", "parts"):
        out = folder / f"{side}.json"
        command = [sys.executable, __file__, "--long-side", side, "--board", board, "--parts", str(parts), "--out"]
        sides[side] = (subprocess.Popen([*command, str(out)]), out)
        if not at_once:
            sides[side][0].wait()
    for side, (process, _) in sides.items():
        if process.wait() != 0:
            raise SystemExit(f"the {side} side failed (exit {process.returncode})")
    whole, split = (json.loads(out.read_text(encoding="utf-8")) for _, out in sides.values())
    part_cpu = tuple(split["part_cpu"])
    total = sum(part_cpu)
    print(
        f"whole: {whole['cpu']:.1f} CPU s ({whole['wall']:.1f} s wall, load {whole['load_before']:.1f} → "
        f"{whole['load_after']:.1f})"
    )
    print(
        f"tree: split into {len(part_cpu)} parts (depth {split['depth']}) in {split['split_cpu']:.2f} CPU s; "
        f"Σ parts {total:.1f} CPU s = {total / whole['cpu']:.3f} × whole; (Σ − whole) / parts = "
        f"{1000 * (total - whole['cpu']) / len(part_cpu):.2f} ms; longest part {max(part_cpu):.2f} s "
        f"({split['wall']:.1f} s wall)"
    )
    print(f"makespan simulated from these part times, against the whole: {simulation(whole['cpu'], part_cpu)}")
    print(f"  (against Σ parts instead of the whole: {simulation(total, part_cpu)}) ({load()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of the whole and the tree parts, alternately")
    parser.add_argument("--only", choices=sorted(INSTANCES), action="append")
    parser.add_argument("--long", action="store_true", help=f"run the long job only ({LONG_BOARD} dominoes)")
    parser.add_argument("--board", default=LONG_BOARD, help="with --long: the domino board, HEIGHTxWIDTH")
    parser.add_argument("--parts", type=int, default=LONG_PARTS, help="with --long: tree parts")
    parser.add_argument(
        "--one-at-a-time", action="store_true", help="with --long: the whole, then the parts (default: both at once)"
    )
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--long-side", choices=["whole", "parts"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.long_side:
        long_side(Host(), arguments.long_side, arguments.board, arguments.parts, arguments.out)
        return
    splitting.MAX_REPORTS = 10**6  # every part's time, for the simulation
    host = Host()
    print(f"polytile scale-out benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {os.uname().nodename}, {load()}")
    if arguments.long:
        measure_long(arguments.board, arguments.parts, at_once=not arguments.one_at_a_time)
        return
    for key in arguments.only or INSTANCES:
        measure(host, key, arguments.repeat, not arguments.no_dask)
    print(f"\nended {time.strftime('%H:%M')}, {load()}")


if __name__ == "__main__":
    main()
