"""The conformance kits check what a plugin declares, fail in bounded time with a message
that says what was compared, and hold for the plugins in this repository."""

from __future__ import annotations

import inspect
import threading
import time
import unittest

import pytest

from polytile_core.plugin import (
    BackendCapabilities,
    BackendFactory,
    BackendResult,
    BuildModel,
    Decomposer,
    DecomposerCapabilities,
    Found,
    InputError,
    Model,
    OnSolution,
    Part,
    Register,
    SolveSettings,
    Split,
    Termination,
    TilingProblem,
    hookimpl,
)
from polytile_core.testing import INSTANCES, BackendConformance, CheckTimedOut, DecomposerConformance, ReferenceBackend


class OnlyOne:
    """A backend that finds one tiling (by the reference search) and does nothing else."""

    def __init__(self, options: object = None) -> None:
        self.search = ReferenceBackend()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        if settings.mode != "one":
            raise InputError(f"only mode one, got {settings.mode}")
        return self.search.solve(model, settings, on_solution, stop)


class Deaf:
    """A backend that counts by the reference search but hears no time limit: it sleeps
    two seconds first, whatever it was told."""

    def __init__(self, options: object = None) -> None:
        self.search = ReferenceBackend()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        time.sleep(2)
        return BackendResult(Termination.COMPLETED, Found.FEASIBLE, "deaf", count=1)


class Plugins:
    @hookimpl
    def polytile_register_backends(self, register: Register[BackendFactory]) -> None:
        register("only-one", OnlyOne, capabilities=BackendCapabilities(modes={"one"}))
        register("deaf", Deaf, capabilities=BackendCapabilities(modes={"count"}))


def run_kit(kit: BackendConformance) -> dict[str, str]:
    """Every check of the kit, for every instance it is parametrised with: name -> passed,
    skipped (with the reason) or the failure's message."""
    outcomes = {}
    for name, check in inspect.getmembers(kit, predicate=inspect.ismethod):
        if not name.startswith("test_"):
            continue
        parameters = inspect.signature(check).parameters
        cases = [{}]
        if "instance" in parameters:
            cases = [{"instance": instance} for instance in INSTANCES]
        elif "impossible" in parameters:
            impossible = [instance for instance in INSTANCES if instance.count == 0]
            cases = [{"impossible": i, "mode": mode} for i in impossible for mode in ("one", "count")]
        for case in cases:
            label = name + "".join(f"[{getattr(value, 'name', value)}]" for value in case.values())
            try:
                check(**case)
                outcomes[label] = "passed"
            except unittest.SkipTest as skip:
                outcomes[label] = f"skipped: {skip}"
            except AssertionError as failure:
                outcomes[label] = f"failed: {failure}"
    return outcomes


def test_a_backend_that_declares_only_one_passes_the_kit():
    class Kit(BackendConformance):
        backend_name = "only-one"
        plugin = Plugins()

    outcomes = run_kit(Kit())
    failed = {name: outcome for name, outcome in outcomes.items() if outcome.startswith("failed")}
    assert failed == {}
    passed = [name for name, outcome in outcomes.items() if outcome == "passed"]
    assert passed and all(name.startswith(("test_find_one", "test_infeasible_is_proved")) for name in passed)
    assert outcomes["test_counts_match_known_results[4x4 dominoes]"] == (
        "skipped: only-one does not declare mode count (its modes: one)"
    )


def test_a_backend_that_ignores_the_time_limit_fails_the_kit_within_its_timeout():
    class Kit(BackendConformance):
        backend_name = "deaf"
        plugin = Plugins()
        slack = 1.0

    started = time.perf_counter()
    with pytest.raises(CheckTimedOut) as failure:
        Kit().test_time_limit_is_reported_not_a_wrong_count()
    assert time.perf_counter() - started < 2.5
    assert str(failure.value) == (
        "the backend's solve in mode count with a time limit of 0.5 s did not end within the check's 1.5 s"
    )


def test_a_failed_check_says_what_it_compared():
    class Kit(BackendConformance):
        backend_name = "deaf"
        plugin = Plugins()

    wrong = next(instance for instance in INSTANCES if instance.count not in (0, 1))
    with pytest.raises(AssertionError) as failure:
        Kit().test_counts_match_known_results(wrong)
    message = str(failure.value)
    assert message.startswith(f"{wrong.name} counted ({wrong.source}; raw status 'deaf'): expected ")
    assert f"{wrong.count}" in message and "got (<Termination.COMPLETED" in message


class Unbroken:
    """Counts by the reference search and claims its raw count is the count up to
    symmetry too: declaring ``distinct_in_search`` wrongly."""

    def __init__(self, options: object = None) -> None:
        self.search = ReferenceBackend()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        result = self.search.solve(model, settings, on_solution, stop)
        return BackendResult(
            termination=result.termination,
            found=result.found,
            raw_status="unbroken",
            count=result.count,
            distinct_count=result.count,
        )


class Declared:
    @hookimpl
    def polytile_register_backends(self, register: Register[BackendFactory]) -> None:
        register("plain", ReferenceBackend, capabilities=BackendCapabilities(modes={"count"}, accepts=()))
        register("unbroken", Unbroken, capabilities=BackendCapabilities(modes={"count"}, distinct_in_search=True))


def test_a_backend_is_checked_only_on_models_whose_features_it_accepts():
    class Kit(BackendConformance):
        backend_name = "plain"
        plugin = Declared()

    outcomes = run_kit(Kit())
    assert outcomes["test_counts_match_known_results[4x4 dominoes]"] == "passed"
    assert outcomes["test_counts_match_known_results[2x4, two L-tetrominoes]"] == (
        "skipped: plain does not accept count rows, which this model has"
    )


def test_a_wrong_count_up_to_symmetry_fails_the_kit():
    class Kit(BackendConformance):
        backend_name = "unbroken"
        plugin = Declared()

    outcomes = run_kit(Kit())
    # 2×4 with two L-tetrominoes: 2 tilings, mirror images of each other (oracles.md).
    assert outcomes["test_counts_up_to_symmetry_in_the_search[2x4, two L-tetrominoes]"] == (
        "failed: 2x4, two L-tetrominoes counted and counted up to symmetry "
        "(docs/oracles.md: Garvie & Burkardt 2022; the brute force): expected (2, 1), got (2, 2)"
    )


class Twice:
    """A wrong split: the whole problem as two parts, so every tiling comes twice."""

    def split(
        self, problem: TilingProblem, model: Model, build: BuildModel, options: object, /, *, jobs: int = 1
    ) -> Split:
        return Split(iter([Part("a", model), Part("b", model)]), 2)


class Hasty:
    """A wrong split: it says no region can be tiled."""

    def split(
        self, problem: TilingProblem, model: Model, build: BuildModel, options: object, /, *, jobs: int = 1
    ) -> Split:
        return Split(iter(()), 0, impossible="no tiling, surely")


class WrongSplits:
    @hookimpl
    def polytile_register_decomposers(self, register: Register[Decomposer]) -> None:
        register("twice", Twice(), capabilities=DecomposerCapabilities())
        register("hasty", Hasty(), capabilities=DecomposerCapabilities())


@pytest.mark.parametrize("name, check", [("twice", "partition"), ("hasty", "certificate")])
def test_the_decomposer_kit_catches_a_wrong_split(name, check):
    class Kit(DecomposerConformance):
        decomposer_name = name
        plugin = WrongSplits()
        area = 8  # small regions: most have a tiling

    kit = Kit()
    test = kit.test_the_parts_partition_the_tilings if check == "partition" else kit.test_a_certificate_is_never_wrong
    with pytest.raises(AssertionError, match="seed [0-9]+ \\(polytile_core.testing.random_instance\\)"):
        for _ in range(5):  # a draw of regions none of which has a tiling would not tell
            test()
