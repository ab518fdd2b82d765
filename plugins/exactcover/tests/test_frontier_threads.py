"""The frontier scan on several threads (``Frontier.run(budget, time_limit, threads)``)
counts what one thread counts, and stops as one thread stops: at its budget, at a cancel,
at its time limit."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import polytile_exactcover
import tomli_w
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import frontier, layout
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import enumerate_covers

from polytile_core.testing import api, build_tiling, fresh_host, random_instance

HOST = fresh_host(polytile_exactcover)


def scans(seed: int, number: int, folder: Path):
    """``number`` random instances the scan can lay out, with their layouts."""
    rng = random.Random(seed)
    found = []
    while len(found) < number:
        pipeline = folder / "pipeline.toml"
        pipeline.write_text(tomli_w.dumps(random_instance(rng, rng.choice((12, 20, 30)))))
        plan = api.load(pipeline)
        if plan.tiling_problem().area_problem():
            continue
        problem = cover_problem(build_tiling(plan.pieces, plan.region))
        scan = layout(problem)
        if not isinstance(scan, str):
            found.append((problem, scan))
    return found


def test_threads_count_what_one_thread_counts(tmp_path):
    seed = random.SystemRandom().randrange(2**32)
    for problem, scan in scans(seed, 25, tmp_path):
        one = frontier(scan).run(1 << 40, 0.0)
        assert one[0] == "completed", seed
        by_search = enumerate_covers(problem, None, Limits(threading.Event(), None)).count
        for threads in (2, 3):
            # The peak may differ by a few states: a state first reached without a new
            # piece is kept unchecked, reached first by a new piece it may be dropped for
            # a closed pocket, and the threads' order of arrival differs.
            status, count, _, _ = frontier(scan).run(1 << 40, 0.0, threads)
            assert (status, count) == ("completed", one[1]), (seed, threads)
        assert one[1] == by_search, seed


def large_scan():
    """A scan of some hundred thousand states a layer: 9×9 less three cells, six pieces."""
    rows = ["#########"] * 9
    rows[2] = "##.######"
    rows[5] = "#####.###"
    rows[7] = "#######.#"
    pieces = [
        api.piece("L5", ["####", "#..."], count=4),
        api.piece("T4", ["###", ".#."], count=5),
        api.piece("V3", ["##", "#."], count=6),
        api.piece("P5", ["##", "##", "#."], count=3),
        api.piece("I3", ["###"], count=3),
        api.piece("S4", [".##", "##."], count=2),
    ]
    plan = api.plan(rows, pieces, host=HOST)
    return layout(cover_problem(build_tiling(plan.pieces, plan.region)))


def test_threads_stop_at_the_budget_the_clock_and_a_cancel():
    scan = large_scan()
    assert frontier(scan).run(1_000, 0.0, 2)[0] == "budget"
    started = time.monotonic()
    assert frontier(scan).run(1 << 40, 0.05, 2)[0] == "time_limit"
    assert time.monotonic() - started < 2
    kernel = frontier(scan)
    threading.Timer(0.05, kernel.cancel).start()
    started = time.monotonic()
    assert kernel.run(1 << 40, 0.0, 2)[0] == "interrupted"
    assert time.monotonic() - started < 2
