"""Benchmark: polytile's exactcover backend against exact-cover tools from PyPI.

Every tool gets the same matrix, built from polytile's own tiling model (columns: the
cells, plus one per pentomino; rows: the placements), and every count is checked against
docs/oracles.md.  Tasks:

* 6×10 with the 12 pentominoes, all 9,356 tilings listed, and counted;
* the same up to symmetry, 2,339: polytile breaks the symmetry in its search
  (``distinct = true``); the other tools get Knuth's hand-made matrix with the X
  pentomino's centre restricted to one quadrant (8 of its 32 placements);
* 5×12 (4,040) and 8×8 minus the centre (520) with the pentominoes, listed;
* 8×8 dominoes, 12,988,816 tilings counted (each tool's fastest counting mode);
* the paper instances (examples/paper, Garvie & Burkardt 2020/2022) counted by polytile
  alone: the other tools have no piece multiplicities.  Their counts come from
  oracles.md and OEIS where published, else from a second kernel of this backend
  (PAPER_SOURCES says which).

polytile runs end to end on one core (``api.solve``: plan, model, kernel, every tiling
streamed back as a ``Solution``) with the default options (no backend option named), and
its rows show the kernel that ran, the peak size of its counting table (states in one
layer, MB) and the process's peak resident memory so far.

Install the tools with ``pip install -r benchmarks/requirements.txt`` (they are not
test dependencies), then run ``python benchmarks/exactcover.py [--repeats N]``.
A tool that is not installed is skipped; a wrong count is reported, not timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import resource
import statistics
import time
from pathlib import Path

import attrs
from polytile_exactcover.cover import cover_problem

from polytile_core import api
from polytile_core.config.pipeline import make_plan, read_pipeline
from polytile_core.host.registry import Host
from polytile_core.model.tiling import build_tiling

EXPECTED = {
    "6x10 all": 9356,
    "6x10 count": 9356,
    "6x10 distinct": 2339,
    "5x12 all": 4040,
    "8x8 minus centre all": 520,
    "8x8 dominoes count": 12_988_816,
}
PAPER = Path(__file__).resolve().parent.parent / "examples" / "paper"
# Counts of the paper instances and where they come from.
PAPER_SOURCES = {
    "gb2022-fig02": (1_709_594, "oracles.md"),
    "gb2022-fig05": (16, "dancing links and bitboards (counter = search)"),
    "gb2022-fig06": (731_092, "Python memo (counter = memo)"),
    "gb2022-fig08": (418_440, "Python memo (counter = memo)"),
    "gb2022-fig10": (105_344, "Python memo (counter = memo)"),
    "gb2022-fig11": (96, "dancing links and bitboards (counter = search)"),
    "gb2022-fig12": (429_800, "bitboards (counter = search, kernel = bitboard)"),
    "gb2022-fig13": (157_288, "Python memo, dancing links and bitboards"),
    "gb2020-fig09a": (1_168_512, "OEIS A084478 (5×18 with L-trominoes)"),
}
EXPECTED.update({f"{name} count": count for name, (count, _) in PAPER_SOURCES.items()})


RING = ["########"] * 3 + ["###..###"] * 2 + ["########"] * 3


def matrix(plan, keep=lambda placement: True):
    """(number of columns, rows as sorted 0-based column lists) of a plan's tiling model."""
    model = build_tiling(plan.pieces, plan.region)
    problem = cover_problem(model)
    rows = [
        sorted(item - 1 for item in items)
        for (items, _), var in zip(problem.options, problem.variables, strict=True)
        if keep(model.placements[var])
    ]
    return problem.n_items, rows


def x_in_one_quadrant(width, height):
    """Knuth's reduction: the X pentomino's centre in the top-left quarter of the board."""

    def keep(placement):
        if placement.piece != "X":
            return True
        cx = sorted(x for x, _ in placement.cells)[2]
        cy = sorted(y for _, y in placement.cells)[2]
        return 2 * cx < width and 2 * cy < height

    return keep


# --------------------------------------------------------------------------- polytile


LAST_DETAILS: dict[str, dict] = {}


def polytile_run(region, pieces, mode, **solve):
    """A factory of the timed call: build the plan and solve it end to end."""
    return lambda: _solved(lambda: api.plan(region, pieces, mode=mode, backend="exactcover", keep=0, **solve))


def polytile_paper(name):
    """The same for a paper instance: its pipeline file, counted whole on exactcover."""

    def plan():
        pipeline = read_pipeline(PAPER / f"{name}.toml")
        solve = attrs.evolve(pipeline.solve, mode="count", backend="exactcover", jobs=1)
        return make_plan(attrs.evolve(pipeline, split=None, solve=solve), Host())

    return lambda: _solved(plan)


def _solved(make_plan_):
    def go():
        result = api.solve(make_plan_())
        assert result.termination.value == "completed", result.raw_status
        LAST_DETAILS["polytile"] = result.details
        return result.distinct_count if result.distinct_count is not None else result.count

    return go


def polytile_note() -> str:
    """The kernel that ran, its counting table's peak, and this process's peak memory."""
    details = LAST_DETAILS.pop("polytile", {})
    parts = [f"kernel {details.get('exactcover_kernel', '?')}"]
    if "exactcover_table_peak_states" in details:
        parts.append(
            f"table {details['exactcover_table_peak_states']:,} states, {details['exactcover_table_peak_mb']} MB"
        )
    if "exactcover_counter_fallback" in details:
        parts.append(f"fallback: {details['exactcover_counter_fallback']}")
    parts.append(f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return "; ".join(parts)


# --------------------------------------------------------------------------- other tools


def dense(columns, rows):
    import numpy as np

    array = np.zeros((len(rows), columns), dtype=bool)
    for index, row in enumerate(rows):
        array[index, row] = True
    return array


def xcover_all(columns, rows):
    """xcover lists its covers (a generator): the count is the number it yields."""
    import xcover

    return lambda: sum(1 for _ in xcover.covers(rows, primary=list(range(columns))))


def xcover_zdd_count(columns, rows, *, memo):
    """xcover's ZDD mode yields nodes (index, item, lo, hi); 0 is the empty family, 1 the
    family of the empty set, the last node the root: count its sets bottom up."""
    import xcover

    array = dense(columns, rows)

    def count():
        sizes = {0: 0, 1: 1}
        node = 1
        for node, _, lo, hi in xcover.covers_bool_zdd(array, use_memo_cache=memo):
            sizes[node] = sizes[lo] + sizes[hi]
        return sizes[node] if len(sizes) > 2 else 0

    return count


def exact_cover_all(columns, rows):
    import exact_cover

    array = dense(columns, rows)
    return lambda: len(exact_cover.get_all_solutions(array))


def exact_cover_count(columns, rows):
    import exact_cover

    array = dense(columns, rows)
    return lambda: int(exact_cover.get_solution_count(array))


def _flat(columns, rows):
    flat = [0] * (len(rows) * columns)
    for index, row in enumerate(rows):
        for column in row:
            flat[index * columns + column] = 1
    return flat


def dxz_all(columns, rows):
    import dxz

    flat = _flat(columns, rows)
    return lambda: len(dxz.dxz_solve(len(rows), columns, flat, 0))


def dxz_counter(columns, rows):
    import dxz

    flat = _flat(columns, rows)
    return lambda: int(dxz.dxz_count(len(rows), columns, flat))


def measure(entries, expected, repeats):
    """Time every tool of one task, round robin (run 1 of each tool, then run 2, ...), so
    that a change in the load of a shared machine falls on all tools alike."""
    runs, notes = {}, {}
    times: dict[str, list[float]] = {name: [] for name, _ in entries}
    for name, make in entries:
        try:
            runs[name] = make()
        except ImportError as exc:
            notes[name] = f"not installed ({exc.name})"
    for _ in range(repeats):
        for name, run in runs.items():
            if name in notes:
                continue
            started = time.perf_counter()
            count = run()
            times[name].append(time.perf_counter() - started)
            if count != expected:
                notes[name] = f"WRONG COUNT {count} (expected {expected})"
            if name.startswith("polytile") and name not in notes:
                notes[name + " detail"] = polytile_note()
    for name, _ in entries:
        if name in notes:
            yield name, None, notes[name]
        else:
            runs_text = ", ".join(f"{t:.3f}" for t in times[name])
            detail = f"; {notes[name + ' detail']}" if name + " detail" in notes else ""
            yield name, statistics.median(times[name]), f"count {expected}, runs {runs_text}{detail}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-slow", action="store_true", help="skip exact-cover's 6x10 listing (the slowest)")
    parser.add_argument("--only", choices=sorted(EXPECTED), action="append", help="run this task (repeatable)")
    parser.add_argument("--skip-split", action="store_true", help="leave out the checkerboard split runs")
    parser.add_argument(
        "--zdd-without-memo",
        action="store_true",
        help="also time xcover's ZDD count without its memo cache (minutes on 8x8)",
    )
    arguments = parser.parse_args()
    has_split = importlib.util.find_spec("polytile_checkerboard") is not None and not arguments.skip_split

    pentominoes = [api.family("pentominoes")]
    dominoes = [api.piece("D", ["##"], unlimited=True)]
    plan_6x10 = api.plan((10, 6), pentominoes, backend="exactcover")
    plan_8x8 = api.plan((8, 8), dominoes, backend="exactcover")
    full = matrix(plan_6x10)
    quadrant = matrix(plan_6x10, x_in_one_quadrant(10, 6))
    board = matrix(plan_8x8)
    long = matrix(api.plan((12, 5), pentominoes, backend="exactcover"))
    ring = matrix(api.plan(RING, pentominoes, backend="exactcover"))

    tasks = {
        "6x10 all": [
            ("polytile exactcover (1 core)", polytile_run((10, 6), pentominoes, "all")),
            ("xcover", lambda: xcover_all(*full)),
            ("dxz", lambda: dxz_all(*full)),
            ("exact-cover", lambda: exact_cover_all(*full)),
        ],
        "6x10 count": [
            ("polytile exactcover (1 core)", polytile_run((10, 6), pentominoes, "count")),
            ("xcover", lambda: xcover_all(*full)),
            ("dxz (dxz_count)", lambda: dxz_counter(*full)),
        ],
        "6x10 distinct": [
            ("polytile exactcover (1 core)", polytile_run((10, 6), pentominoes, "all", distinct=True)),
            ("xcover (X in a quadrant)", lambda: xcover_all(*quadrant)),
            ("dxz (X in a quadrant)", lambda: dxz_all(*quadrant)),
            ("exact-cover (X in a quadrant)", lambda: exact_cover_all(*quadrant)),
        ],
        "5x12 all": [
            ("polytile exactcover (1 core)", polytile_run((12, 5), pentominoes, "all")),
            ("xcover", lambda: xcover_all(*long)),
            ("dxz", lambda: dxz_all(*long)),
        ],
        "8x8 minus centre all": [
            ("polytile exactcover (1 core)", polytile_run(RING, pentominoes, "all")),
            ("xcover", lambda: xcover_all(*ring)),
            ("dxz", lambda: dxz_all(*ring)),
        ],
        "8x8 dominoes count": [
            ("polytile exactcover (1 core)", polytile_run((8, 8), dominoes, "count")),
            ("dxz (dxz_count)", lambda: dxz_counter(*board)),
            ("exact-cover (get_solution_count)", lambda: exact_cover_count(*board)),
            ("xcover (ZDD, memo cache)", lambda: xcover_zdd_count(board[0], board[1], memo=True)),
        ],
    }
    for name in PAPER_SOURCES:
        tasks[f"{name} count"] = [("polytile exactcover (1 core)", polytile_paper(name))]
    if has_split:
        tasks["6x10 all"].insert(
            1,
            (
                "polytile exactcover + checkerboard, 2 jobs",
                polytile_run((10, 6), pentominoes, "all", split="checkerboard", jobs=2),
            ),
        )
        tasks["8x8 dominoes count"].insert(
            1,
            (
                "polytile exactcover + checkerboard, 2 jobs",
                polytile_run((8, 8), dominoes, "count", split="checkerboard", jobs=2),
            ),
        )
    if arguments.zdd_without_memo:
        tasks["8x8 dominoes count"].append(("xcover (ZDD)", lambda: xcover_zdd_count(board[0], board[1], memo=False)))
    if arguments.skip_slow:
        tasks["6x10 all"] = [task for task in tasks["6x10 all"] if task[0] != "exact-cover"]

    if arguments.only:
        tasks = {name: tasks[name] for name in arguments.only}
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, median of {arguments.repeats}, "
        f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}"
    )
    for task, entries in tasks.items():
        print(f"\n## {task} (expected {EXPECTED[task]:,})")
        baseline = None
        for name, median, note in measure(entries, EXPECTED[task], arguments.repeats):
            if median is None:
                print(f"| {name} | — | — | {note} |", flush=True)
                continue
            baseline = baseline or median
            print(f"| {name} | {median:.3f} s | {median / baseline:.2f}× | {note} |", flush=True)
        print(f"(load average {' '.join(f'{load:.2f}' for load in os.getloadavg())})")


if __name__ == "__main__":
    main()
