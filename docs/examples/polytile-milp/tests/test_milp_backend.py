"""The example plugin tested the way a third-party author would test theirs."""

from importlib.metadata import entry_points

import polytile_milp

from polytile_core.testing import BackendConformance, Host


def test_found_through_its_entry_point():
    assert "milp" in {entry.name for entry in entry_points(group="polytile")}
    registration = Host().get("backends", "milp")
    assert (registration.plugin, registration.provides) == ("milp", polytile_milp.make_backend)


class TestMilpConformance(BackendConformance):
    backend_name = "milp"
    plugin = polytile_milp
    options = {"first_slice": 0.5}
