"""Listing from the frontier scan's table (``_frontier.c``, "Listing from the table";
``listing.py``) against the search kernels: the same tilings, each once, on random
instances nobody tuned for (a fresh seed per run, printed on failure)."""

from __future__ import annotations

import random
import threading
import time

import pytest
from polytile_exactcover import estimate, listing
from polytile_exactcover.backend import ExactCoverBackend
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.frontier import frontier, layout
from polytile_exactcover.options import ExactCoverOptions
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import Listing, enumerate_covers

from polytile_core.plugin import LineSink, Region, SolutionLines, SolveSettings
from polytile_core.testing import api, build_tiling, cells_of_table, pieces_of_table, random_instance


def _instances(count: int, areas=(12, 16, 20, 24, 30)):
    """(where: seed and number, model, problem, its layout, region cells) of random
    instances the table can lay out."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for number in range(count):
        table = random_instance(rng, rng.choice(areas))
        model = build_tiling(pieces_of_table(table), Region(cells_of_table(table)))
        problem = cover_problem(model)
        plan = layout(problem)
        if not isinstance(plan, str):
            yield f"seed {seed}, instance {number}", model, problem, plan, sorted(cells_of_table(table))


def _appender(into: list, made=lambda *given: given):
    """A callback that appends ``made(*its arguments)`` to ``into``."""
    return lambda *given: into.append(made(*given))


def _table_solutions(problem, plan, limit=0, budget=1 << 40, threads=1):
    """(status, count, states, the solutions as sorted variables, threads that walked)."""
    found: list[tuple[int, ...]] = []
    variables = problem.variables
    status, count, states, _, walked = frontier(plan).list(
        lambda chosen: found.append(tuple(sorted(variables[k] for k in chosen))),
        limit,
        0,
        budget,
        plan.numbers,
        0,
        threads,
    )
    return status, count, states, found, walked


def _l_tetrominoes_8x8():
    """8×8 with L-tetrominoes without limit: a board whose table has layers of hundreds
    of live states, so that two threads share its walk."""
    table = {"pieces": [{"name": "L", "shape": ["###", "#.."], "unlimited": True}]}
    model = build_tiling(pieces_of_table(table), Region(frozenset((r, c) for r in range(8) for c in range(8))))
    problem = cover_problem(model)
    region = sorted((r, c) for r in range(8) for c in range(8))
    return "8×8 with L-tetrominoes", model, problem, layout(problem), region


@pytest.mark.parametrize("threads", [1, 2])
def test_the_table_lists_what_the_search_lists(threads):
    """Every tiling once, as dancing links lists them, and each one a tiling of its
    region cell by cell; on two threads too (with a board whose walk is shared)."""
    shared = 0
    boards = [*_instances(40), *([_l_tetrominoes_8x8()] if threads > 1 else [])]
    for where, model, problem, plan, region in boards:
        status, count, _, found, walked = _table_solutions(problem, plan, threads=threads)
        shared += walked > 1
        searched: list[list[int]] = []
        enumerate_covers(problem, searched.append, Limits(threading.Event(), None), kernel="dlx")
        assert status == "completed", where
        assert count == len(found) == len(set(found)), where
        assert sorted(found) == sorted(tuple(ones) for ones in searched), where
        for ones in found:  # each cell of the region covered once
            covered = sorted(cell for var in ones for cell in model.placements[var].cells)
            assert covered == region, where
    assert threads == 1 or shared > 0, "no board shared its walk"


def test_a_table_past_its_budget_lists_nothing():
    """The budget holds before anything is listed, so the caller can search instead."""
    for where, _, problem, plan, _ in _instances(20):
        whole = _table_solutions(problem, plan)
        if whole[2] < 10:
            continue
        status, count, states, found, _ = _table_solutions(problem, plan, budget=whole[2] // 2)
        assert (status, count, found) == ("budget", 0, []), where
        assert states <= whole[2], where


@pytest.mark.parametrize("threads", [1, 2])
def test_a_listing_stops_at_its_solution_limit(threads):
    for where, _, problem, plan, _ in _instances(20, (20, 30, 40)):
        every = _table_solutions(problem, plan)[3]
        if len(every) < 3:
            continue
        status, count, _, found, _ = _table_solutions(problem, plan, limit=2, threads=threads)
        assert (status, count, len(found)) == ("solution_limit", 2, 2), where
        assert set(found) <= set(every), where


@pytest.mark.parametrize("threads", [1, 2])
def test_the_table_makes_the_lines_python_makes(threads):
    """A line request (a listing to .jsonl): the kernel's lines, as ``SolutionLines``
    makes them of the same solutions (in the same order on one thread), and the first
    ``firsts`` of them as variables, however many threads walk."""
    for where, model, problem, plan, _ in [*_instances(12, (16, 30, 40, 50)), _l_tetrominoes_8x8()]:
        taken: list[tuple[bytes, int, list[list[int]]]] = []
        firsts = random.choice([0, 3, 200])
        sink = LineSink(SolutionLines(model.placements), None, (), firsts, _appender(taken))
        status, count, _, _, _ = frontier(plan).list(
            Listing(sink).request(problem.variables), 0, 0, 1 << 40, plan.numbers, 0, threads
        )
        found = _table_solutions(problem, plan)[3]
        lines = SolutionLines(model.placements)
        text = b"".join(batch[0] for batch in taken)
        kept = [ones for batch in taken for ones in batch[2]]
        assert status == "completed" and count == len(found) == sum(batch[1] for batch in taken), where
        if threads == 1:
            assert text == lines.lines([list(ones) for ones in found], None), where
            assert kept == [list(ones) for ones in found[:firsts]], where
        else:
            assert sorted(text.splitlines()) == sorted(lines.lines([list(ones) for ones in found], None).splitlines())
            assert len(kept) == min(firsts, len(found)) and {tuple(ones) for ones in kept} <= set(found), where
        assert sink.firsts == firsts - len(kept), where


def test_a_walker_walks_on_while_the_other_hands_on():
    """On two threads, a walker whose lines are ready while the other hands its own on (a
    slow sink: a slow disk) keeps them and walks on, so the write and the walk overlap:
    batches grow past one handover's 1,024 solutions, and every line still arrives once."""
    where, model, problem, plan, _ = _l_tetrominoes_8x8()
    taken: list[tuple[bytes, int, list[list[int]]]] = []

    def slow(*given):
        taken.append(given)
        time.sleep(0.002)

    sink = LineSink(SolutionLines(model.placements), None, (), 5, slow)
    status, count, _, _, walked = frontier(plan).list(
        Listing(sink).request(problem.variables), 0, 0, 1 << 40, plan.numbers, 0, 2
    )
    found = _table_solutions(problem, plan)[3]
    expected = SolutionLines(model.placements).lines([list(ones) for ones in found], None).splitlines()
    assert status == "completed" and walked == 2, where
    assert count == len(found) == sum(batch[1] for batch in taken), where
    assert sorted(b"".join(batch[0] for batch in taken).splitlines()) == sorted(expected), where
    assert max(batch[1] for batch in taken) > 1024, "no walker walked on while the other handed on"
    assert sum(len(batch[2]) for batch in taken) == 5 and sink.firsts == 0, where


def test_a_stopped_listing_ends_soon():
    """A cancel from another thread ends a long listing (48 million domino tilings of
    8×8 would take minutes) within a second."""
    model = build_tiling(
        pieces_of_table({"pieces": [{"name": "D", "shape": ["##"], "unlimited": True}]}),
        Region(frozenset((r, c) for r in range(8) for c in range(10))),
    )
    problem = cover_problem(model)
    plan = layout(problem)
    assert not isinstance(plan, str)
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    status, count, *_ = Limits(stop, None).list(frontier(plan), lambda chosen: None, 0, 0, 1 << 40, plan.numbers, 0, 2)
    assert status == "interrupted" and 0 < count < 1_031_151_241  # Kasteleyn's count of 8×10


@pytest.mark.parametrize("forced", [True, False])
def test_the_backend_lists_from_the_table_when_the_search_is_long(forced, monkeypatch):
    """``counter = "frontier"`` lists from the table; on auto, so does a search estimated
    long (here: any, its probe cut to 3 nodes).  The tilings are those dancing links
    lists through the same backend."""
    monkeypatch.setattr(listing, "TABLE_AFTER", 0.0)
    monkeypatch.setattr(estimate, "PROBE_NODES", 3)
    table = ExactCoverBackend(ExactCoverOptions(counter="frontier" if forced else "auto"))
    search = ExactCoverBackend(ExactCoverOptions(kernel="dlx"))
    for where, model, problem, *_ in _instances(10):
        found: list[tuple[int, ...]] = []
        result = table.solve(model, SolveSettings(mode="all"), _appender(found, tuple), threading.Event())
        searched: list[tuple[int, ...]] = []
        search.solve(model, SolveSettings(mode="all"), _appender(searched, tuple), threading.Event())
        assert sorted(found) == sorted(searched), where
        assert result.count == len(found), where
        short = estimate.estimated_search(problem, Limits(threading.Event(), None)).finished is not None
        assert result.details["exactcover_kernel"] == ("dlx" if short and not forced else "frontier"), where


@pytest.mark.parametrize("images_at_most", [0, listing.IMAGES_AT_MOST])
def test_a_listing_of_a_large_model_searches_without_images(images_at_most, monkeypatch):
    """A model of more placements than ``IMAGES_AT_MOST`` is listed plainly (finding its
    symmetries would hold its first tiling back); the same 9,356 tilings of 6×10 by the
    12 pentominoes (oracles.md) either way, each once."""
    monkeypatch.setattr(listing, "IMAGES_AT_MOST", images_at_most)
    plan = api.plan((10, 6), [api.family("pentominoes")], backend="exactcover")
    found: list[tuple[int, ...]] = []
    result = ExactCoverBackend().solve(
        build_tiling(plan.pieces, plan.region), SolveSettings(mode="all"), _appender(found, tuple), threading.Event()
    )
    assert result.count == len(found) == len(set(found)) == 9356
    assert ("exactcover_images" in result.details) == (images_at_most > 0)
