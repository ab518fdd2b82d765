"""SCIP and CP-SAT agree on every instance of the conformance battery: same count, same tilings."""

import pytest

import polytile_cpsat
import polytile_scip
from polytile_core.testing import INSTANCES, fresh_host, solve_with


def backend(name, plugin):
    registration = fresh_host(plugin).get("backends", name)
    return registration.provides(None)


@pytest.mark.parametrize("instance", INSTANCES, ids=[instance.name for instance in INSTANCES])
def test_scip_and_cpsat_agree(instance):
    model = instance.model()
    scip, cpsat = backend("scip", polytile_scip), backend("cpsat", polytile_cpsat)
    scip_count = solve_with(scip, model, "count")[0]
    cpsat_count = solve_with(cpsat, model, "count")[0]
    assert scip_count.count == cpsat_count.count == instance.count
    _, scip_tilings, _ = solve_with(scip, model, "all")
    _, cpsat_tilings, _ = solve_with(cpsat, model, "all")
    assert {tuple(t) for t in scip_tilings} == {tuple(t) for t in cpsat_tilings}
