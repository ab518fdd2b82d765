"""Scale-out that pays: the whole problem on one core against the tree split and the
checkerboard split, on one and two jobs, through the local process pool and a real local
Dask cluster (a scheduler and two single-thread worker processes, started once and warmed
up by an untimed run).  Exact cover counts with dancing links (``counter = "search"``,
``kernel = "dlx"``; issue 24's ``counter = "dlx"``).

    .venv/bin/python benchmarks/scaleout.py [--repeat 3] [--only 9x9] [--no-dask]
    .venv/bin/python benchmarks/scaleout.py --long [--whole-cpu SECONDS]

For each instance it prints the work (CPU seconds in one thread, so that the load of a
shared machine does not enter): the whole problem, Σ tree parts / whole (alternately,
``--repeat`` times) and Σ checkerboard parts / whole; the per-part overhead; the makespan
simulated from the tree part times on 8, 32 and 128 workers (greedy: a free worker takes
the next part, in the split's order); then wall times of the whole on one core against
the tree split on one job and on two (process pool, Dask) and the checkerboard split on two.

``--long`` runs the long job instead: counting the 1,031,151,241 domino tilings of 8×10
(Kasteleyn's formula) with dancing links, whole on one core, then split by the tree into
4,096 parts (32 per worker of 128) solved on two jobs; the simulation uses those part
times.  With ``--whole-cpu`` (the whole's CPU seconds from an earlier ``--long``) it
measures the CPU seconds of the 4,096 parts one after another in one thread instead.

Counts: 6×10 pentominoes 9,356; 9×9 minus a corner with 20 L-tetrominoes 1,709,594
(docs/oracles.md); 8×10 dominoes from Kasteleyn's product formula, computed here.
"""

from __future__ import annotations

import argparse
import heapq
import logging
import math
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, cast

import attrs
from polytile_checkerboard import CheckerboardSplit
from polytile_exactcover import ExactCoverBackend, ExactCoverOptions
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
DOMINOES_8X10 = '[region]\nwidth = 10\nheight = 8\n\n[[pieces]]\nshape = ["##"]\nname = "D"\nunlimited = true\n'


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
LONG = ("8×10 dominoes, count", DOMINOES_8X10, "count", kasteleyn(8, 10))


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


def timed(host: Host, path: Path, expected: int, **overrides) -> Timing:
    scheduler = overrides.pop("scheduler", None)
    plan = load_plan(path, host, overrides)
    if scheduler:
        options: Any = plan.executor_options
        plan = attrs.evolve(plan, executor_options=attrs.evolve(options, scheduler=scheduler))
    wall, cpu = time.perf_counter(), time.process_time()
    result = run(plan)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert result.termination == Termination.COMPLETED and result.count == expected, (result.count, expected)
    parts = tuple(report.seconds for report in result.subproblems)
    prepare, sent = result.details.get("part_prepare_seconds_mean"), result.details.get("models_sent")
    return Timing(wall, cpu, parts, None if prepare is None else float(prepare), None if sent is None else int(sent))


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
        seconds.append(time.thread_time() - started)
        assert isinstance(outcome, splitting.PartOutcome)
        total += outcome.answer.count or 0
    assert total == expected, (total, expected)
    return sum(seconds), seconds


def measure(host: Host, key: str, repeat: int, scheduler: str | None) -> None:
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
        if not part.details.get("empty")
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
    print(f"  makespan simulated from these part times: {simulation(whole_cpu, tuple(part_seconds))}")

    # Wall times: the whole on one core against two jobs.
    whole = timed(host, whole_path, expected)
    rows = [("whole, one core", whole)]
    rows.append(("tree, --jobs 1 (thread)", timed(host, tree_path, expected, jobs=1, executor="thread")))
    tree_two = timed(host, tree_path, expected, jobs=2, executor="process")
    rows.append(("tree, --jobs 2, process pool", tree_two))
    if scheduler:
        rows.append(
            (
                "tree, --jobs 2, Dask (2 workers)",
                timed(host, tree_path, expected, jobs=2, executor="dask", scheduler=scheduler),
            )
        )
    rows.append(
        ("checkerboard, --jobs 2, process pool", timed(host, checker_path, expected, jobs=2, executor="process"))
    )
    print("\n| run | wall s | speedup over whole | Σ part wall s |")
    print("|---|---|---|---|")
    for label, timing in rows:
        total = f"{sum(timing.part_seconds):.2f}" if timing.part_seconds else ""
        print(f"| {label} | {timing.wall:.2f} | {whole.wall / timing.wall:.2f}× | {total} |")
    print(
        f"tree on 2 jobs: preparing a part in its worker {1000 * (tree_two.prepare_mean or 0):.3f} ms on average; "
        f"models sent {tree_two.models_sent}; ({load()})"
    )


def measure_long(host: Host) -> None:
    name, body, mode, expected = LONG
    print(f"\n## the long job: {name}, {expected:,} tilings ({load()})")
    whole = timed(host, pipeline(body, mode, None, {}), expected)
    print(f"whole, one core: {whole.wall:.1f} s wall, {whole.cpu:.1f} s cpu ({load()})")
    tree = timed(host, pipeline(body, mode, "tree", {"tree": "parts = 4096"}), expected, jobs=2, executor="process")
    total = sum(tree.part_seconds)
    print(
        f"tree, 4096 parts, --jobs 2: {tree.wall:.1f} s wall ({whole.wall / tree.wall:.2f}×), "
        f"Σ parts {total:.1f} s = {total / whole.wall:.2f} × whole, "
        f"longest part {max(tree.part_seconds):.2f} s ({load()})"
    )
    print(f"simulated from these part times: {simulation(whole.wall, tree.part_seconds)}")
    print(f"  (against Σ parts instead of the whole: {simulation(total, tree.part_seconds)})")


def measure_long_work(host: Host, whole_cpu: float) -> None:
    name, body, mode, expected = LONG
    print(f"\n## the long job, work: {name}, {expected:,} tilings, whole {whole_cpu:.1f} CPU s ({load()})")
    plan = load_plan(pipeline(body, mode, None, {}), host)
    model = plan.build()
    started = time.thread_time()
    parts = list(TreeSplit().split(plan.tiling_problem(), model, plan.build, TreeOptions(parts=4096)).parts)
    print(f"split into {len(parts)} parts in {time.thread_time() - started:.1f} CPU s")
    total, seconds = work(model, mode, expected, parts)
    print(f"Σ parts {total:.1f} CPU s = {total / whole_cpu:.3f} × whole; longest part {max(seconds):.2f} s ({load()})")
    print(f"makespan simulated from these part times: {simulation(whole_cpu, tuple(seconds))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of the whole and the tree parts, alternately")
    parser.add_argument("--only", choices=sorted(INSTANCES), action="append")
    parser.add_argument("--long", action="store_true", help="run the long job (8×10 dominoes) only")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--whole-cpu", type=float, help="with --long: measure the parts' CPU seconds against this")
    arguments = parser.parse_args()
    splitting.MAX_REPORTS = 10**6  # every part's time, for the simulation
    host = Host()
    print(f"polytile scale-out benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {os.uname().nodename}, {load()}")
    if arguments.long:
        if arguments.whole_cpu:
            measure_long_work(host, arguments.whole_cpu)
        else:
            measure_long(host)
        return
    cluster = client = None
    if not arguments.no_dask:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
        warm = pipeline(NINE_BY_NINE, "count", "tree", {"tree": "parts = 8"})
        timed(host, warm, 1_709_594, jobs=2, executor="dask", scheduler=cluster.scheduler_address)
    try:
        for key in arguments.only or INSTANCES:
            measure(host, key, arguments.repeat, cluster.scheduler_address if cluster else None)
    finally:
        if client is not None and cluster is not None:
            client.close()
            cluster.close()
    print(f"\nended {time.strftime('%H:%M')}, {load()}")


if __name__ == "__main__":
    main()
