"""CP-SAT against the backend conformance suite of polytile_core.testing, and the
parameters counting needs."""

import polytile_cpsat
import pytest
from polytile_cpsat import CpsatBackend, CpsatOptions

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
