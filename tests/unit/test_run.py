"""The run: each option is checked once when the plan is made, and a model that claims
symmetries it does not have is an error, not a wrong count."""

import subprocess
import sys
import threading
import time

import pytest

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.host import contracts
from polytile_core.model.zero_one import BuildStopped
from polytile_core.output.results import Found, Termination
from polytile_core.solve import distinct
from polytile_core.solve.collect import Collector
from polytile_core.solve.context import Deadline, RunContext
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.state import RunState

L_TETROMINO = api.piece("L", ["#.", "#.", "##"], count=2)


def test_a_symmetry_the_model_does_not_have_is_an_input_error():
    plan = api.plan((4, 2), [L_TETROMINO], mode="count", backend="cpsat", distinct=True)
    model = plan.build()
    swapped = list(range(model.num_variables))
    swapped[0], swapped[1] = swapped[1], swapped[0]  # no symmetry: it moves one piece only
    model.symmetries = [tuple(range(model.num_variables)), tuple(swapped)]
    counted = Outcome(Termination.COMPLETED, Found.FEASIBLE, count=2)
    with pytest.raises(InputError, match="cannot count up to symmetry") as error:
        distinct.with_distinct(
            plan, model, counted, RunContext(threading.Event(), Deadline(), Collector(0, None), RunState())
        )
    assert error.value.path == "solve.distinct"


def test_a_bad_cpsat_parameter_is_one_error_when_the_plan_is_made():
    options = {"cpsat": {"parameters": {"linearisation_level": 2}}}  # misspelt
    with pytest.raises(InputError) as error:
        api.plan((4, 2), [L_TETROMINO], mode="count", backend="cpsat", split="checkerboard", jobs=2, options=options)
    assert error.value.path == "options.cpsat.parameters.linearisation_level"
    assert "not a CP-SAT parameter" in error.value.message


def test_the_stop_relay_halts_a_solve_soon_after_its_stop_also_after_its_thread_ended(monkeypatch):
    """The relay wakes for no new solve; it halts each one within about its interval of the
    stop being set, and its thread, ended after being idle, starts again for the next."""
    monkeypatch.setattr(contracts, "RELAY_IDLE", 0.1)
    for _ in range(2):
        stop, halted = threading.Event(), threading.Event()
        with contracts.relay_stop(stop, halted.set):
            assert not halted.wait(0.15)  # no stop, no halt
            stop.set()
            assert halted.wait(1.0)
        time.sleep(0.4)  # idle past RELAY_IDLE: the thread ends
        assert contracts._relay._thread is None


def test_a_thread_that_waits_relays_the_stops_and_hands_what_is_left_to_the_relay_thread():
    """A run's calling thread relays its solves' stops as it waits, so a run of two
    milliseconds starts no relay thread; a solve still watched when it stops waiting (an
    abandoned run's) goes to the relay's thread."""
    relay = contracts._StopRelay()
    stop, halted, done = threading.Event(), threading.Event(), threading.Event()
    left, left_halted = threading.Event(), threading.Event()
    with relay.serving() as wait:
        relay.watch(stop, halted.set, contracts.RELAY_POLL)
        assert relay._thread is None
        threading.Timer(0.1, stop.set).start()
        assert not wait(done, 0.5)
        assert halted.is_set()
        relay.watch(left, left_halted.set, contracts.RELAY_POLL)
    assert relay._thread is not None and relay._thread.is_alive()
    left.set()
    assert left_halted.wait(1.0)
    done.set()
    with relay.serving() as wait:
        assert wait(done, 10.0)  # at once


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the start time is read from /proc")
def test_the_command_s_clock_starts_when_its_process_started():
    """The command line's time limit counts from the process's start: a process that
    spent half a second before asking sees that half second as gone."""
    code = (
        "import time; time.sleep(0.5)\n"
        "from polytile_core.cli.main import process_started\n"
        "print(time.monotonic() - process_started())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 0.5 <= float(done.stdout) < 30


def test_a_limit_reached_in_a_backend_s_preparation_is_no_build_stopped_before_the_search(monkeypatch):
    """A limit the backend meets while it prepares its search (here: its translation of
    the model, at once) ends the run with that limit, and says so; a limit met in the
    build says the search did not begin."""
    import polytile_exactcover.backend

    def out_of_time(*_args, **_kwargs):
        raise BuildStopped("time_limit")

    monkeypatch.setattr(polytile_exactcover.backend, "cover_problem", out_of_time)
    result = api.solve(api.plan((4, 2), [L_TETROMINO], mode="count", backend="exactcover"))
    assert (result.termination, result.found, result.count) == (Termination.TIME_LIMIT, Found.NONE, None)
    assert result.message == "the time limit ran out while the search was prepared or made"
    monkeypatch.undo()
    many = api.piece("L", ["#.", "#.", "##"], unlimited=True)
    unbuilt = api.solve(api.plan((40, 40), [many], mode="count", backend="exactcover", time_limit=1e-9))
    assert unbuilt.termination == Termination.TIME_LIMIT
    assert unbuilt.message == "the time limit ran out before the search began (while building the model)"
