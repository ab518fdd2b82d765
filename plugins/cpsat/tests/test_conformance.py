"""CP-SAT against the backend conformance suite of polytile_core.testing."""

import polytile_cpsat

from polytile_core.testing import BackendConformance


class TestCpsatConformance(BackendConformance):
    backend_name = "cpsat"
    plugin = polytile_cpsat
