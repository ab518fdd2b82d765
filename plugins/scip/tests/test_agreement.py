"""SCIP and CP-SAT agree on every instance of the conformance battery: same count, same tilings."""

import polytile_cpsat
import polytile_scip
import pytest

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


@pytest.mark.slow
@pytest.mark.parametrize("width, height, expected", [(6, 6, 6728), (12, 5, 8544)])
def test_larger_counts_agree_with_oeis(width, height, expected):
    """6×6 dominoes (OEIS A004003) and 5×12 L-trominoes (OEIS A084478), both SCIP ways and CP-SAT."""
    from polytile_core.plugin import PieceType, Region
    from polytile_core.testing import build_tiling

    shape = ((0, 0), (1, 0)) if width == height else ((0, 0), (0, 1), (1, 1))
    model = build_tiling((PieceType("P", shape, "free", 0, None),), Region.rectangle(width, height))
    ways = [
        ("scip", polytile_scip, {"counting": "scip"}),
        ("scip", polytile_scip, {"counting": "nogood"}),
        ("cpsat", polytile_cpsat, None),
    ]
    for name, plugin, options in ways:
        registration = fresh_host(plugin).get("backends", name)
        backend_options = registration.options(**options) if options else None
        assert solve_with(registration.provides(backend_options), model, "count")[0].count == expected
