"""CP-SAT against the backend conformance suite of polytile_core.testing, and the
parameters counting needs."""

import threading

import polytile_cpsat
import pytest
from polytile_cpsat import CpsatBackend, CpsatOptions
from polytile_cpsat.backend import _Callback

from polytile_core.plugin import Found, InputError
from polytile_core.testing import INSTANCES, BackendConformance, solve_with


class TestCpsatConformance(BackendConformance):
    backend_name = "cpsat"
    plugin = polytile_cpsat


@pytest.mark.parametrize("mode", ["count", "all"])
@pytest.mark.parametrize("parameter", [("num_workers", 4), ("keep_all_feasible_solutions_in_presolve", False)])
def test_a_parameter_that_would_break_counting_is_refused(mode, parameter):
    # Each of these made 4×4 dominoes count 22 or 1 instead of 36 (issue 23).
    name, value = parameter
    instance = next(i for i in INSTANCES if i.name == "4x4 dominoes")
    backend = CpsatBackend(CpsatOptions(parameters={name: value}))
    with pytest.raises(InputError) as error:
        solve_with(backend, instance.model(), mode)
    assert error.value.path == f"options.cpsat.parameters.{name}"
    result, _, _ = solve_with(backend, instance.model(), "one")
    assert result.found == Found.FEASIBLE


class _TwoWorkersAtOnce(_Callback):
    """CP-SAT's callback, called as two workers that each found a tiling before the stop
    took hold would call it (its values and stop are stand-ins)."""

    def BooleanValue(self, var) -> bool:  # noqa: N802 (CP-SAT's name)
        return True

    def StopSearch(self) -> None:  # noqa: N802
        self.stops += 1


def test_mode_one_hands_on_one_tiling_however_many_workers_find_one():
    """Asked for one tiling, CP-SAT's workers can each report one (or the same one
    again) before the stop takes hold: a split's part once handed the same tiling on
    twice (test_parallel's time-limit test).  The second report is dropped."""
    streamed: list[list[int]] = []
    callback = _TwoWorkersAtOnce([(0, None), (3, None)], streamed.append, threading.Event(), True, False)
    callback.stops = 0
    callback.on_solution_callback()
    callback.on_solution_callback()
    assert streamed == [[0, 3]] and callback.count == 1 and callback.stops == 2
    listing = _TwoWorkersAtOnce([(0, None)], streamed.append, threading.Event(), False, False)
    listing.stops = 0
    listing.on_solution_callback()
    listing.on_solution_callback()
    assert len(streamed) == 3 and listing.count == 2 and listing.stops == 0  # a listing hands on each
