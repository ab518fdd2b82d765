"""How long a search would take, found before making it: a short dancing-links search,
then Knuth's estimate of the whole search tree (TAOCP 7.2.2), so that the counter and a
probe of the default route decide how to run a long search without making it twice."""

from __future__ import annotations

import time

import attrs

from polytile_core.plugin import Termination
from polytile_exactcover._dlx import Search
from polytile_exactcover.cover import CoverProblem
from polytile_exactcover.outcome import Limits, SearchReport
from polytile_exactcover.search import PROBE_NODES

# A count whose estimate is at most this many nodes (the probe's tree nearly done) resumes
# the probe, within ``RESUME_NODES`` more nodes (the estimate is often low by 2–5 times),
# where the frontier's layout alone would take milliseconds of Python (measured: a 7×8
# board with 9 tilings, 21,400 nodes in all, 7 ms by search; its layout 6 ms).
SHORT_SEARCH_NODES = 2 * PROBE_NODES
RESUME_NODES = 4 * PROBE_NODES
# Random dives for Knuth's estimate of the search (each a few microseconds on a board of
# a hundred cells), and the most time they may take.
ESTIMATE_DIVES = 1_000
ESTIMATE_SECONDS = 0.1
# A probe lists a problem whole only when its listing would take at most this long by the
# estimate (which is often low by 2–5 times), else it leaves the listing to the split.
SHORT_LISTING = 0.5
# What a listed solution costs the run beyond the search (made, passed on and written):
# 5×15 with L-trominoes, 76,800 tilings, is listed in 3.2 s and counted in 0.03 s.
SECONDS_PER_SOLUTION = 40e-6


@attrs.frozen
class Estimate:
    """The short search's answer when it finished (``finished``), else the estimated
    seconds of the whole search and the solutions it would find."""

    finished: SearchReport | None
    seconds: float = 0.0
    solutions: float = 0.0


def estimated_search(
    problem: CoverProblem, limits: Limits, *, finish_short: bool = False, seconds: float = ESTIMATE_SECONDS
) -> Estimate:
    """A count by dancing links if it ends within ``PROBE_NODES`` nodes; else the time per
    node it measured times Knuth's estimate of the nodes, and its solutions per node times
    that estimate (its dives take at most ``seconds``).  With ``finish_short`` (a count), a search estimated at most
    ``SHORT_SEARCH_NODES`` is resumed where the probe stopped, and counted if it ends
    within ``RESUME_NODES`` more."""
    probe = Search(problem.n_items, problem.options, problem.groups)
    started = time.monotonic()
    status, count = limits.run(probe, None, 0, limits.left(), PROBE_NODES)
    if status != "node_limit":
        return Estimate(SearchReport(Termination(status), count, "dlx", {"kernel": "dlx"}))
    per_node = max(time.monotonic() - started, 1e-6) / PROBE_NODES
    nodes = _estimated_nodes(probe, limits, seconds)
    if finish_short and nodes <= SHORT_SEARCH_NODES and not limits.reason():
        status, total = limits.resume(probe, None, 0, limits.left(), RESUME_NODES)
        if status != "node_limit":
            return Estimate(SearchReport(Termination(status), total, "dlx", {"kernel": "dlx"}))
        nodes = max(nodes, PROBE_NODES + RESUME_NODES)  # the estimate was low: it is at least that
    return Estimate(None, nodes * per_node, nodes * count / PROBE_NODES)


def _estimated_nodes(probe: Search, limits: Limits, seconds: float) -> float:
    """Knuth's estimate of the nodes a search of ``probe`` visits: the mean of up to
    ``ESTIMATE_DIVES`` random dives, in batches doubling from one, while the run goes on
    and for at most ``seconds`` (a dive into a large region is long: one per
    level of a tree thousands of pieces deep, each reading every item left).  A batch is
    no longer than the dives measured so far say fit in the time left, so the estimate
    ends within about one dive of its time, and of the run's limit."""
    total, dives, batch = 0.0, 0, 1
    started = time.monotonic()
    while batch > 0 and not limits.reason():
        total += probe.estimate(batch, dives) * batch
        dives += batch
        spent = time.monotonic() - started
        left = seconds - spent
        if limits.deadline is not None:
            left = min(left, limits.deadline - time.monotonic())
        fits = int(left * dives / max(spent, 1e-9))
        batch = min(2 * batch, ESTIMATE_DIVES - dives, fits)
    return total / max(dives, 1)
