"""The frontier scan (``Frontier.run(budget, time_limit, threads, meet)``: a forward and a
backward scan joined where they meet, on one thread or two) counts what the search
counts, wherever the two sides meet, and stops at its budget, at a cancel, at its time
limit, at an overflow."""

from __future__ import annotations

import random
import threading
import time
from math import comb
from pathlib import Path

import polytile_exactcover
import tomli_w
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import frontier, layout
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import enumerate_covers

from polytile_core.testing import api, build_tiling, fresh_host, random_instance

HOST = fresh_host(polytile_exactcover)


def scans(seed: int, number: int, folder: Path, areas=(12, 20, 30), wanted=lambda table: True):
    """``number`` random instances (of the ``areas``, and ``wanted``) the scan can lay
    out, with their layouts."""
    rng = random.Random(seed)
    found = []
    while len(found) < number:
        table = random_instance(rng, rng.choice(areas))
        if not wanted(table):
            continue
        pipeline = folder / "pipeline.toml"
        pipeline.write_text(tomli_w.dumps(table))
        plan = api.load(pipeline)
        if plan.tiling_problem().area_problem():
            continue
        problem = cover_problem(build_tiling(plan.pieces, plan.region))
        scan = layout(problem)
        if not isinstance(scan, str):
            found.append((problem, scan))
    return found


def test_one_and_two_threads_count_what_the_search_counts(tmp_path):
    """On random instances (pieces used once, exactly k times, within a range or
    unlimited), on one thread and two, meeting where the sides balance and at every
    cell: at 0 the backward scan counts alone, at the last the forward scan."""
    seed = random.SystemRandom().randrange(2**32)
    for problem, scan in scans(seed, 25, tmp_path):
        by_search = enumerate_covers(problem, None, Limits(threading.Event(), None)).count
        for threads in (1, 2):
            for meet in (-1, *range(scan.n_cells + 1)):
                status, count, _, _ = frontier(scan).run(1 << 40, 0.0, threads, meet)
                assert (status, count) == ("completed", by_search), (seed, threads, meet)
            # A backward side past its budget gives way: the forward side scans on to
            # its last whole layer (one instance in five or so is drawn where the
            # backward scan alone peaks higher than the forward one).
            forward = frontier(scan).run(1 << 40, 0.0, threads, scan.n_cells)
            backward = frontier(scan).run(1 << 40, 0.0, threads, 0)
            if backward[2] > forward[2]:
                given_way = frontier(scan).run(forward[2], 0.0, threads, 0)
                assert given_way[:2] == ("completed", by_search), (seed, threads)


def strip(length: int):
    """1×length with unlimited monominoes and dominoes: Fibonacci(length + 1) tilings."""
    plan = api.plan(
        ["#" * length], [api.piece("M", ["#"], unlimited=True), api.piece("D", ["##"], unlimited=True)], host=HOST
    )
    return layout(cover_problem(build_tiling(plan.pieces, plan.region)))


def test_two_threads_join_pieces_counted_past_a_byte():
    """1×100 with at least 64 monominoes and unlimited dominoes (the join's totals do not
    fit a byte each): the sum over the number of dominoes d of C(100 - d, d)."""
    plan = api.plan(["#" * 100], [api.piece("M", ["#"], min=64), api.piece("D", ["##"], unlimited=True)], host=HOST)
    scan = layout(cover_problem(build_tiling(plan.pieces, plan.region)))
    expected = sum(comb(100 - d, d) for d in range(19))  # 100 - 2d >= 64 monominoes
    for threads in (1, 2):
        for meet in (-1, 0, 30, 70, 100):
            assert frontier(scan).run(1 << 40, 0.0, threads, meet)[:2] == ("completed", expected), (threads, meet)


def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def test_two_threads_count_past_64_bits_and_stop_at_128():
    """Counts past 2^64 are exact; past 2^128 the scan says "overflow", whether a side's
    table or the join's product passes it."""
    fits, too_many = strip(180), strip(190)
    assert fibonacci(181) < 2**128 < fibonacci(191)
    for threads in (1, 2):
        for meet in (-1, 0, 90, 180):
            assert frontier(fits).run(1 << 40, 0.0, threads, meet)[:2] == ("completed", fibonacci(181)), meet
            assert frontier(too_many).run(1 << 40, 0.0, threads, meet)[0] == "overflow", meet


def test_a_side_helps_with_the_other_sides_last_step():
    """16×16 with dominoes (OEIS A004003: 2,444,888,770,250,892,795,802,079,170,816 tilings):
    layers of some 13,000 states, more than a thread takes at a time (``CHUNK``), so the
    side that is done first helps with the other side's last step, into a table of its
    own that the join takes as part of that side's layer; meeting near the middle the
    forward side helps the backward one, meeting near the end the backward side helps the
    forward one (both seen by a count of the states each helper added, when written)."""
    plan = api.plan(["#" * 16] * 16, [api.piece("D", ["##"], unlimited=True)], host=HOST)
    scan = layout(cover_problem(build_tiling(plan.pieces, plan.region)))
    for threads in (1, 2):
        for meet in (-1, 30, 100, 128, 156, 200, 220, 230):
            found = frontier(scan).run(1 << 40, 0.0, threads, meet)[:2]
            assert found == ("completed", 2_444_888_770_250_892_795_802_079_170_816), (threads, meet)


def large_scan():
    """A large scan: 9×9 less three cells, six pieces, no tiling, and layers of up to 60
    million states (19 GB on one thread, measured 2026-11-28): run it only with a budget,
    a clock or a cancel."""
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


def test_one_and_two_threads_stop_at_the_budget_the_clock_and_a_cancel():
    scan = large_scan()
    for threads in (1, 2):
        assert frontier(scan).run(1_000, 0.0, threads)[0] == "budget"
        started = time.monotonic()
        assert frontier(scan).run(1 << 40, 0.05, threads)[0] == "time_limit"
        assert time.monotonic() - started < 2
        kernel = frontier(scan)
        threading.Timer(0.05, kernel.cancel).start()
        started = time.monotonic()
        assert kernel.run(1 << 40, 0.0, threads)[0] == "interrupted"
        assert time.monotonic() - started < 2


def counted(table) -> bool:
    """A piece counted exactly (two copies or more) and one within a range, as in issue
    29's 7×14 board: a window's backward states differ in their totals (what is asked of
    the window is asked once for them all), and the join meets only the states whose
    exact totals add up."""
    exact = any(piece.get("count", 0) >= 2 for piece in table["pieces"])
    ranged = any("min" in piece or "max" in piece for piece in table["pieces"])
    return exact and ranged


def test_one_and_two_threads_count_counted_pieces_where_they_meet(tmp_path):
    """Pieces counted exactly and within a range: one thread and two, meeting where they
    choose and at every cell, count what the search counts."""
    seed = random.SystemRandom().randrange(2**32)
    for problem, scan in scans(seed, 12, tmp_path, areas=(36,), wanted=counted):
        by_search = enumerate_covers(problem, None, Limits(threading.Event(), None)).count
        for threads in (1, 2):
            for meet in (-1, *range(scan.n_cells + 1)):
                found = frontier(scan).run(1 << 40, 0.0, threads, meet)[:2]
                assert found == ("completed", by_search), (seed, threads, meet)


def test_more_options_at_a_cell_than_moves_kept_per_window():
    """1×12 with 65 kinds of monomino (unlimited), one more used exactly twice, and
    unlimited dominoes: more than 63 options start at a cell, past the moves the
    backward scan keeps per window.  With d dominoes, the 12 - 2d monominoes are two of
    the counted kind and 65 choices each for the rest, among 12 - d pieces in a row."""
    pieces = [api.piece(f"M{k}", ["#"], unlimited=True) for k in range(65)]
    pieces += [api.piece("X", ["#"], count=2), api.piece("D", ["##"], unlimited=True)]
    plan = api.plan(["#" * 12], pieces, host=HOST)
    scan = layout(cover_problem(build_tiling(plan.pieces, plan.region)))
    starts = [option[0] for option in scan.options]
    assert max(starts.count(cell) for cell in set(starts)) > 63
    expected = sum(comb(12 - d, d) * comb(12 - 2 * d, 2) * 65 ** (10 - 2 * d) for d in range(6))
    for threads in (1, 2):
        for meet in (-1, *range(13)):
            assert frontier(scan).run(1 << 40, 0.0, threads, meet)[:2] == ("completed", expected), (threads, meet)
