"""SCIP against the backend conformance suite, with each way it can count."""

import polytile_scip

from polytile_core.testing import BackendConformance


class TestScipConformance(BackendConformance):
    backend_name = "scip"
    plugin = polytile_scip


class TestScipOwnEnumeratorConformance(BackendConformance):
    backend_name = "scip"
    plugin = polytile_scip
    options = {"counting": "nogood"}
