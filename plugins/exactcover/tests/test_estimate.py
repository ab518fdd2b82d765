"""Knuth's estimate of the search tree (``Search.estimate``), which the count on auto uses
to give the frontier scan its share of time.  The estimate of a random dive is unbiased:
its mean is the number of nodes of the tree, which the search's own node counter gives
(the search does not count a solution as a node; a dive does)."""

from __future__ import annotations

import random
import threading
import time

import polytile_exactcover
import pytest
from polytile_exactcover._dlx import Search
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.estimate import ESTIMATE_DIVES, ESTIMATE_SECONDS, _estimated_nodes
from polytile_exactcover.outcome import Limits

from polytile_core.testing import api, build_tiling, fresh_host

HOST = fresh_host(polytile_exactcover)
SHAPES = {"D": ["##"], "L3": ["#.", "##"], "I3": ["###"], "T4": ["###", ".#."]}


def nodes_of(search: Search) -> tuple[int, int]:
    """(nodes the full search visits, solutions): the node limit that first lets it finish."""
    low, high = 1, 2
    while search.run(None, 0, 0.0, high)[0] == "node_limit":
        low, high = high, 2 * high
    while low < high:
        middle = (low + high) // 2
        if search.run(None, 0, 0.0, middle)[0] == "node_limit":
            low = middle + 1
        else:
            high = middle
    status, solutions = search.run(None, 0, 0.0, 0)
    assert status == "completed"
    return high - 1, solutions


def test_the_mean_of_many_dives_is_the_size_of_the_tree():
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    checked = 0
    while checked < 6:
        width, height = rng.randint(3, 5), rng.randint(3, 4)
        names = rng.sample(sorted(SHAPES), rng.randint(1, 3))
        pieces = [api.piece(name, SHAPES[name], unlimited=True) for name in names]
        plan = api.plan((width, height), pieces, backend="exactcover", host=HOST)
        problem = cover_problem(build_tiling(plan.pieces, plan.region))
        search = Search(problem.n_items, problem.options, problem.groups)
        nodes, solutions = nodes_of(search)
        if nodes < 2:
            continue
        estimate = search.estimate(40_000, rng.randrange(2**32))
        assert abs(estimate - (nodes + solutions)) <= 0.1 * (nodes + solutions), (seed, width, height, names)
        checked += 1


def test_a_search_is_left_as_it_was_after_its_dives():
    plan = api.plan((4, 4), [api.piece("L3", SHAPES["L3"], unlimited=True), api.piece("D", ["##"], max=2)], host=HOST)
    problem = cover_problem(build_tiling(plan.pieces, plan.region))
    search = Search(problem.n_items, problem.options, problem.groups)
    before = search.run(None, 0, 0.0)
    search.estimate(500, 7)
    assert search.run(None, 0, 0.0) == before


class SlowDives:
    """A search whose dives take 20 ms each, as on a board of thousands of cells."""

    def __init__(self) -> None:
        self.dives = 0

    def estimate(self, dives: int, seed: int) -> float:
        time.sleep(0.02 * dives)
        self.dives += dives
        return 1000.0


def test_the_estimate_of_a_long_dive_stops_within_its_time():
    slow = SlowDives()
    started = time.monotonic()
    assert _estimated_nodes(slow, Limits(threading.Event(), None), ESTIMATE_SECONDS) == 1000.0  # type: ignore[arg-type]
    assert time.monotonic() - started < ESTIMATE_SECONDS + 0.5
    assert 1 <= slow.dives < ESTIMATE_DIVES


def listing(into: list[list[int]]):
    return lambda chosen: into.append(sorted(chosen))


def test_a_search_resumed_after_its_node_limit_finds_what_one_run_finds():
    """Stopped every few nodes, with dives between (as the count's probe makes them), and
    resumed each time: the same solutions in the same order as one run, none twice."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for _ in range(12):
        width, height = rng.randint(3, 6), rng.randint(3, 5)
        names = rng.sample(sorted(SHAPES), rng.randint(1, 3))
        pieces = [
            api.piece(name, SHAPES[name], **rng.choice([{"unlimited": True}, {"max": rng.randint(1, 4)}]))
            for name in names
        ]
        plan = api.plan((width, height), pieces, host=HOST)
        problem = cover_problem(build_tiling(plan.pieces, plan.region))
        search = Search(problem.n_items, problem.options, problem.groups)
        whole: list[list[int]] = []
        assert search.run(listing(whole), 0, 0.0)[0] == "completed"
        step = rng.randint(1, 50)
        in_steps: list[list[int]] = []
        status, count = search.run(listing(in_steps), 0, 0.0, step)
        while status == "node_limit":
            search.estimate(rng.randint(0, 5), rng.randrange(2**32))
            status, count = search.resume(listing(in_steps), 0, 0.0, step)
        assert status == "completed", seed
        assert in_steps == whole and count == len(whole), (seed, width, height, names, step)


def test_only_a_search_stopped_by_its_node_limit_resumes():
    plan = api.plan((4, 4), [api.piece("L3", SHAPES["L3"], unlimited=True)], host=HOST)
    problem = cover_problem(build_tiling(plan.pieces, plan.region))
    search = Search(problem.n_items, problem.options, problem.groups)
    with pytest.raises(RuntimeError, match="node limit"):
        search.resume(None, 0, 0.0)
    search.run(None, 0, 0.0)
    with pytest.raises(RuntimeError, match="node limit"):
        search.resume(None, 0, 0.0)


def test_a_count_estimated_short_resumes_its_probe(monkeypatch):
    """The count on auto with a probe of 30 nodes: estimated short, the probe is resumed and
    counts by itself (what the frontier scan counts); given too few more nodes, it steps
    to the frontier, which counts the same."""
    from polytile_exactcover import estimate
    from polytile_exactcover.count import count_covers
    from polytile_exactcover.options import ExactCoverOptions

    monkeypatch.setattr(estimate, "PROBE_NODES", 30)
    monkeypatch.setattr(estimate, "SHORT_SEARCH_NODES", 10**9)
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    resumed = 0
    for _ in range(10):
        width, height = rng.randint(4, 6), rng.randint(3, 5)
        names = rng.sample(sorted(SHAPES), rng.randint(1, 3))
        pieces = [api.piece(name, SHAPES[name], unlimited=True) for name in names]
        plan = api.plan((width, height), pieces, host=HOST)
        problem = cover_problem(build_tiling(plan.pieces, plan.region))
        limits = Limits(threading.Event(), None)
        expected = count_covers(problem, ExactCoverOptions(counter="frontier"), limits)
        assert expected.how == "frontier", seed
        for more, kernel in ((10**9, "dlx"), (1, None)):
            monkeypatch.setattr(estimate, "RESUME_NODES", more)
            counted = count_covers(problem, ExactCoverOptions(), limits)
            assert counted.count == expected.count, (seed, width, height, names, more)
            if kernel == "dlx" and counted.details.get("counter_fallback", "").startswith("dlx: not done"):
                raise AssertionError(f"not resumed: {counted.details} (seed {seed})")
            resumed += kernel == "dlx" and counted.how == "dlx" and expected.count > 0
    assert resumed, seed
