"""Limits that hold: the time limit covers building the model and the backend's own
translation of it, and abandoning a run returns what was streamed without waiting."""

from __future__ import annotations

import threading
import time

import pytest
from polytile_exactcover.cover import cover_problem

from polytile_core import api, hookimpl
from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.host.contracts import BackendResult, SolveSettings
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.model.tiling import build_tiling
from polytile_core.model.zero_one import BuildStopped, build_limits
from polytile_core.output.results import Found, Termination
from polytile_core.solve.run import run
from polytile_core.testing import fresh_host

PENTOMINOES = tuple(
    PieceType(name, cells_from_rows(rows), "free", 0, None) for name, rows in CLASSIC_FAMILIES["pentominoes"].items()
)
BOARD = Region.rectangle(20, 20)  # 17,000 placements: built in well under a second


@pytest.mark.parametrize("stopped, reason", [(False, "time_limit"), (True, "interrupted")])
def test_the_builder_stops_at_the_deadline_or_when_stopped(stopped, reason):
    stop = threading.Event()
    if stopped:
        stop.set()
    deadline = None if stopped else time.monotonic()  # already past
    with build_limits(deadline, stop), pytest.raises(BuildStopped) as raised:
        build_tiling(PENTOMINOES, BOARD)
    assert raised.value.reason == reason


def test_the_builder_stops_part_way_when_time_runs_out():
    """A deadline that falls during the build stops it there, not at the end."""
    # The quickest of three builds: one can stall for a collection of the whole suite's
    # heap, and a fresh clone's CI then saw a quarter of it outlast a whole build.
    times = []
    for _ in range(3):
        started = time.monotonic()
        whole = build_tiling(PENTOMINOES, BOARD)
        times.append(time.monotonic() - started)
    full_build = min(times)
    with build_limits(time.monotonic() + full_build / 4, threading.Event()), pytest.raises(BuildStopped):
        build_tiling(PENTOMINOES, BOARD)
    assert whole.num_variables


def test_a_run_whose_time_runs_out_while_building_reports_time_limit():
    plan = api.plan((30, 30), [api.family("pentominoes", unlimited=True)], backend="cpsat", time_limit=1e-6)
    result = run(plan)
    assert (result.termination, result.found, result.raw_status) == (Termination.TIME_LIMIT, Found.NONE, "not solved")
    assert "building the model" in result.message
    assert result.region and not result.solutions


def test_the_limit_counts_from_when_the_command_started():
    """The command line passes its own start: time spent loading plugins and the pipeline
    is taken from the limit, so a 2 s limit begun 5 s ago is already past."""
    plan = api.plan((30, 30), [api.family("pentominoes", unlimited=True)], time_limit=2)
    before = time.monotonic()
    result = run(plan, started=before - 5)
    assert result.termination == Termination.TIME_LIMIT
    assert time.monotonic() - before < 1


def test_the_scan_order_of_a_large_board_stops_at_the_deadline():
    """The order the kernels fill cells in is found before the search, and on a board of
    thousands of cells it takes seconds: it too ends at the run's deadline."""
    problem = cover_problem(build_tiling(PENTOMINOES, Region.rectangle(40, 40)))
    with build_limits(time.monotonic(), threading.Event()), pytest.raises(BuildStopped):
        _ = problem.order


def test_cpsat_stops_translating_the_model_at_the_deadline():
    from polytile_cpsat import CpsatBackend

    model = build_tiling(PENTOMINOES, BOARD)
    answer = CpsatBackend().solve(
        model, SolveSettings(mode="one", time_limit=1e-9), lambda ones: None, threading.Event()
    )
    assert (answer.termination, answer.found) == (Termination.TIME_LIMIT, Found.NONE)
    assert answer.raw_status == "stopped while translating the model"


class _Stubborn:
    """A backend that sends three solutions, then ignores ``stop`` until released."""

    def __init__(self):
        self.sent = threading.Event()
        self.release = threading.Event()

    def solve(self, model, settings, on_solution, stop):
        for var in model.decision[:3]:
            on_solution([var])
        self.sent.set()
        self.release.wait(30)
        return BackendResult(Termination.COMPLETED, Found.FEASIBLE, "done", count=3)


def test_abandoning_returns_the_streamed_solutions_without_waiting():
    backend = _Stubborn()

    class Plugin:
        @hookimpl
        def polytile_register_backends(self, register):
            register("stubborn", lambda options: backend)

    plan = api.plan(
        (3, 1), [api.piece("M", ["#"], unlimited=True)], backend="stubborn", mode="all", host=fresh_host(Plugin())
    )
    stop, abandon = threading.Event(), threading.Event()

    def press_twice():
        backend.sent.wait(30)
        stop.set()
        abandon.set()

    threading.Thread(target=press_twice, daemon=True).start()
    try:
        result = run(plan, stop=stop, abandon=abandon)
    finally:
        backend.release.set()
    assert (result.termination, result.found, result.raw_status) == (
        Termination.INTERRUPTED,
        Found.FEASIBLE,
        "abandoned",
    )
    assert result.count == 3 and len(result.solutions) == 3
