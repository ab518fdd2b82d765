"""The conformance kits: the checks every backend and every decomposer must pass.

Subclass one in a plugin's tests (pytest collects the subclass):

- ``BackendConformance``: ``backend_name``, ``plugin`` and optionally ``options``.  It
  reads the capabilities the backend declared when it registered and checks what they
  promise: a mode it does not declare is skipped (with the reason), and a mode it
  declares must work.  An instance whose model has a feature the backend does not
  ``accept`` is skipped too; ``distinct_in_search`` is checked against the brute force's
  count up to symmetry.  A backend registered without capabilities is checked as a
  tiling backend: modes one, all and count.
- ``DecomposerConformance``: ``decomposer_name``, ``plugin`` and optionally ``options``.
  On random small regions (a fresh seed each run, printed on failure) it checks that the
  parts partition the tilings the brute force lists (each one in exactly one part) and
  that a proof that there is none (``Split.impossible``, ``Part.empty``) is never wrong.

Every check runs under a timeout (``check_seconds``): a backend that does not return in
time fails with a message saying so, instead of hanging the test run.  A failed check
says what it compared.
"""

from __future__ import annotations

import random
import threading
import time
import unittest
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import attrs

from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import Pipeline
from polytile_core.convert import structure
from polytile_core.host.capabilities import BackendCapabilities, model_features
from polytile_core.host.contracts import Backend, BackendResult, Mode, SolveSettings
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination
from polytile_core.solve.run import run
from polytile_core.testing.brute import (
    count_pictures_brute_force,
    placement_problems,
    tiling_problems,
    tilings_brute_force,
)
from polytile_core.testing.instances import (
    INSTANCES,
    LARGE,
    Instance,
    fresh_host,
    optimisation_instance,
    reference_optimum,
)
from polytile_core.testing.random_instances import cells_of_table, pieces_of_table, random_instance
from polytile_core.testing.reference import REFERENCE_PLUGIN

# Modes a backend registered without capabilities is checked in.
TILING_MODES = frozenset({"one", "all", "count"})

T = TypeVar("T")


class CheckTimedOut(AssertionError):
    """A check did not end within its timeout."""


def within(seconds: float, what: str, call: Callable[[], T], stop: threading.Event | None = None) -> T:
    """``call()`` in a thread of its own, waited for ``seconds`` at most: past that,
    ``stop`` is set and the check fails saying ``what`` did not end (the thread is left
    to end by itself; it is a daemon, so it never keeps the test run alive)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the checking thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="polytile-kit-check", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        if stop is not None:
            stop.set()
        raise CheckTimedOut(f"{what} did not end within the check's {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def expect(got: object, expected: object, what: str) -> None:
    """Fail, saying what was compared, unless ``got == expected``."""
    if got != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {got!r}")


def solve_with(
    backend: Backend,
    model: Model,
    mode: Mode,
    *,
    time_limit: float | None = None,
    stop_after: int | None = None,
    timeout: float = 60.0,
    distinct: bool = False,
) -> tuple[BackendResult, list[list[int]], float]:
    """Solve and collect what was streamed; ``stop_after`` sets the stop event once that
    many solutions have arrived.  The backend has ``timeout`` seconds to return (beyond
    that the check fails, ``CheckTimedOut``).  ``distinct`` asks for the count up to the
    model's symmetries too.  Returns (BackendResult, streamed solutions, seconds)."""
    stop = threading.Event()
    streamed: list[list[int]] = []

    def on_solution(ones: list[int]) -> None:
        streamed.append(sorted(ones))
        if stop_after is not None and len(streamed) >= stop_after:
            stop.set()

    limit = f" with a time limit of {time_limit:g} s" if time_limit is not None else ""
    started = time.perf_counter()
    result = within(
        timeout,
        f"the backend's solve in mode {mode}{limit}",
        lambda: backend.solve(
            model, SolveSettings(mode=mode, time_limit=time_limit, distinct=distinct), on_solution, stop
        ),
        stop,
    )
    return result, streamed, time.perf_counter() - started


def _skip(reason: str) -> NoReturn:
    """Skip the check (pytest reports unittest's skip as its own; no pytest import here)."""
    raise unittest.SkipTest(reason)


class BackendConformance:
    """Checks every backend must pass, for what it declares.  Subclass it::

        class TestMyBackend(BackendConformance):
            backend_name = "mine"
            plugin = polytile_mine          # the module your entry point names
            options = {"some_option": 1}    # as in [options.mine], optional

    Counts come from ``INSTANCES`` (published results or the independent brute force).
    """

    backend_name: str = ""
    plugin: object = None
    options: dict[str, Any] = {}
    # Seconds a backend may take beyond a time limit or after the stop event.
    slack: float = 5.0
    # Seconds any one solve of a check may take before the check fails.
    check_seconds: float = 60.0

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """One test per instance (pytest calls this for a class's own tests), so a failure
        names the instance."""
        choices = {
            "instance": INSTANCES,
            "impossible": tuple(instance for instance in INSTANCES if instance.count == 0),
            "mode": ("one", "count"),
        }
        for name, values in choices.items():
            if name in metafunc.fixturenames:
                metafunc.parametrize(name, values, ids=[getattr(value, "name", value) for value in values])

    def make_backend(self) -> Backend:
        registration = fresh_host(self.plugin).get("backends", self.backend_name)
        options: object = None
        if registration.options is not None:
            options = structure(dict(self.options), registration.options, path=f"options.{self.backend_name}")
        backend: Backend = registration.provides(options)
        return backend

    def declared(self) -> BackendCapabilities | None:
        """What the backend declared when it registered (None: nothing)."""
        capabilities: BackendCapabilities | None = (
            fresh_host(self.plugin).get("backends", self.backend_name).capabilities
        )
        return capabilities

    def requires(self, mode: str, model: Model | None = None) -> None:
        """Skip the check unless the backend declares ``mode`` and accepts every feature
        of ``model`` (``BackendCapabilities.accepts``)."""
        capabilities = self.declared()
        modes = TILING_MODES if capabilities is None else capabilities.modes
        if mode not in modes:
            _skip(f"{self.backend_name} does not declare mode {mode} (its modes: {', '.join(sorted(modes))})")
        refused = set() if capabilities is None or model is None else model_features(model) - capabilities.accepts
        if refused:
            _skip(f"{self.backend_name} does not accept {', '.join(sorted(refused))}, which this model has")

    def long_problem(self) -> tuple[Model, int | None]:
        """A model this backend takes well over a second to count or list, and its count
        (None: not known; a count that long is seldom published): ``LARGE`` (8×8
        dominoes), unless the backend counts that at once (override it)."""
        return LARGE.model(), LARGE.count

    def solve(self, model: Model, mode: Mode, **limits: Any) -> tuple[BackendResult, list[list[int]], float]:
        return solve_with(self.make_backend(), model, mode, timeout=self.check_seconds, **limits)

    def test_find_one_gives_a_valid_tiling(self, instance: Instance) -> None:
        model = instance.model()
        self.requires("one", model)
        result, streamed, _ = self.solve(model, "one")
        if instance.count == 0:
            expect((result.termination, result.found), (Termination.COMPLETED, Found.INFEASIBLE), instance.name)
            expect(streamed, [], f"{instance.name}: solutions streamed for a problem with none")
            return
        expect((result.termination, result.found), (Termination.COMPLETED, Found.FEASIBLE), instance.name)
        assert streamed, f"{instance.name}: no solution streamed ({result.raw_status})"
        expect(tiling_problems(instance, model, streamed[-1]), [], f"{instance.name}: faults of the tiling")

    def test_counts_match_known_results(self, instance: Instance) -> None:
        model = instance.model()
        self.requires("count", model)
        result, _, _ = self.solve(model, "count")
        expected_found = Found.FEASIBLE if instance.count else Found.INFEASIBLE
        expect(
            (result.termination, result.found, result.count),
            (Termination.COMPLETED, expected_found, instance.count),
            f"{instance.name} counted ({instance.source}; raw status {result.raw_status!r})",
        )

    def test_enumeration_streams_every_tiling_once(self, instance: Instance) -> None:
        model = instance.model()
        self.requires("all", model)
        result, streamed, _ = self.solve(model, "all")
        expect(result.termination, Termination.COMPLETED, f"{instance.name} listed")
        expect(len(streamed), instance.count, f"{instance.name}: tilings streamed ({instance.source})")
        expect(len({tuple(ones) for ones in streamed}), len(streamed), f"{instance.name}: distinct tilings streamed")
        for ones in streamed:
            expect(tiling_problems(instance, model, ones), [], f"{instance.name}: faults of a streamed tiling")
        assert result.count in (None, instance.count), (
            f"{instance.name}: count {result.count}, {instance.count} streamed"
        )

    def test_stop_ends_enumeration_soon(self) -> None:
        self.requires("all")
        result, streamed, seconds = self.solve(LARGE.model(), "all", stop_after=3)
        expect(result.termination, Termination.INTERRUPTED, f"{LARGE.name} listed, stopped after 3 tilings")
        assert 3 <= len(streamed) < LARGE.count, f"{len(streamed)} tilings streamed before the stop took"
        assert seconds < self.slack, f"the stop took {seconds:.2f} s (at most {self.slack:g} s)"

    def test_infeasible_is_proved(self, impossible: Instance, mode: Mode) -> None:
        model = impossible.model()
        self.requires(mode, model)
        result, streamed, _ = self.solve(model, mode)
        expect((result.termination, result.found), (Termination.COMPLETED, Found.INFEASIBLE), impossible.name)
        assert result.count in ((0,) if mode == "count" else (None, 0)), f"{impossible.name}: count {result.count}"
        expect(streamed, [], f"{impossible.name}: solutions streamed for a problem with none")

    def test_time_limit_is_reported_not_a_wrong_count(self) -> None:
        """A count (or listing) of ``long_problem`` under a 0.5 s limit: the backend must
        say it ran out of time, within the limit and ``slack``."""
        capabilities = self.declared()
        modes = TILING_MODES if capabilities is None else capabilities.modes
        mode: Mode | None = "count" if "count" in modes else "all" if "all" in modes else None
        if mode is None:
            _skip(f"{self.backend_name} declares neither count nor all, which take long enough to limit")
        limit = 0.5
        model, total = self.long_problem()
        result, streamed, seconds = solve_with(
            self.make_backend(), model, mode, time_limit=limit, timeout=limit + self.slack
        )
        size = "a problem of unknown count" if total is None else f"a problem of {total:,} tilings"
        expect(result.termination, Termination.TIME_LIMIT, f"{size} in mode {mode} under {limit} s")
        assert result.found in (Found.FEASIBLE, Found.NONE), f"found {result.found} under a time limit"
        if total is not None:
            assert result.count is None or result.count < total, f"count {result.count} under a time limit"
        assert seconds < limit + self.slack, f"returned after {seconds:.2f} s under a {limit} s limit"

    def test_counts_up_to_symmetry_in_the_search(self, instance: Instance) -> None:
        """A backend that declares ``distinct_in_search`` counts up to the model's
        symmetries itself: its count up to symmetry is the brute force's."""
        capabilities = self.declared()
        if capabilities is None or not capabilities.distinct_in_search:
            _skip(f"{self.backend_name} does not declare distinct_in_search")
        model = instance.model()
        self.requires("count", model)
        model.symmetries = placement_symmetries(model, instance.region, instance.pieces)
        result, _, _ = self.solve(model, "count", distinct=True)
        expect(
            (result.count, result.distinct_count),
            (instance.count, count_pictures_brute_force(instance.region.cells, instance.pieces)),
            f"{instance.name} counted and counted up to symmetry ({instance.source}; the brute force)",
        )

    def test_optimises_to_the_reference_optimum(self) -> None:
        model, description = optimisation_instance()
        self.requires("optimize", model)
        optimum = reference_optimum()
        result, streamed, _ = self.solve(model, "optimize")
        expect((result.termination, result.found), (Termination.COMPLETED, Found.OPTIMAL), description)
        expect(result.objective, optimum, f"{description}: objective")
        assert result.bound is not None and abs(result.bound - optimum) < 1e-6, f"{description}: bound {result.bound}"
        assert streamed, f"{description}: no solution streamed"
        expect(model.objective_value(streamed[-1]), optimum, f"{description}: the streamed solution's objective")
        expect(model.check(streamed[-1]), [], f"{description}: rows the streamed solution breaks")


@attrs.frozen
class _Drawn:
    """A random small instance and the seed it was drawn with."""

    seed: int
    table: dict[str, Any]

    def where(self) -> str:
        return f"seed {self.seed} (polytile_core.testing.random_instance)"


class DecomposerConformance:
    """Checks every decomposer must pass.  Subclass it::

        class TestMySplit(DecomposerConformance):
            decomposer_name = "mine"
            plugin = polytile_mine          # the module your entry point names
            options = {"some_option": 1}    # as in [options.mine], optional

    Each check draws ``instances`` random regions of ``area`` cells or so (a fresh seed
    each run), lists their tilings by the brute force, and runs the split with the
    reference backend (``polytile_core.testing.REFERENCE_PLUGIN``) on ``jobs`` threads.
    """

    decomposer_name: str = ""
    plugin: object = None
    options: dict[str, Any] = {}
    instances: int = 6
    area: int = 12
    jobs: int = 2
    check_seconds: float = 60.0

    def draw(self) -> list[_Drawn]:
        seeds = [random.SystemRandom().randrange(2**32) for _ in range(self.instances)]
        return [_Drawn(seed, random_instance(random.Random(seed), self.area)) for seed in seeds]

    def modes(self) -> frozenset[str]:
        registration = fresh_host(self.plugin).get("decomposers", self.decomposer_name)
        modes: frozenset[str] = frozenset(registration.capabilities.modes)
        return modes

    def run_split(self, drawn: _Drawn, mode: str) -> Any:
        """The drawn instance solved through the split, every tiling streamed."""
        host = fresh_host(self.plugin, REFERENCE_PLUGIN)
        data = {
            **drawn.table,
            "split": {"method": self.decomposer_name},
            "solve": {"mode": mode, "backend": "reference", "jobs": self.jobs, "executor": "thread"},
            "options": {self.decomposer_name: dict(self.options)} if self.options else {},
        }
        plan = make_plan(structure(data, Pipeline), host)
        streamed: list[Any] = []
        result = within(
            self.check_seconds,
            f"the {self.decomposer_name} split in mode {mode} ({drawn.where()})",
            lambda: run(plan, on_solution=streamed.append),
        )
        return result, streamed

    def test_the_parts_partition_the_tilings(self) -> None:
        """Every tiling the brute force lists is found in exactly one part, and no other."""
        if "all" not in self.modes():
            _skip(f"the {self.decomposer_name} split does not list tilings (mode all)")
        for drawn in self.draw():
            truth = {
                frozenset((name, frozenset(cells)) for name, cells in tiling)
                for tiling in tilings_brute_force(cells_of_table(drawn.table), pieces_of_table(drawn.table))
            }
            result, streamed = self.run_split(drawn, "all")
            found = [frozenset((p.piece, frozenset(p.cells)) for p in solution.placements) for solution in streamed]
            expect(result.termination, Termination.COMPLETED, f"{drawn.where()}: the split run ({result.message})")
            expect(len(found), len(truth), f"{drawn.where()}: tilings listed through the parts (brute force)")
            expect(len(set(found)), len(found), f"{drawn.where()}: tilings listed once each")
            expect(set(found), truth, f"{drawn.where()}: the tilings")
            expect(result.count, len(truth), f"{drawn.where()}: the count the parts add up to")

    def test_a_certificate_is_never_wrong(self) -> None:
        """A split that says there is no tiling (or a part it removes before search) is
        right: the brute force finds none (or the rest of the parts find them all)."""
        mode = "count" if "count" in self.modes() else "one"
        for drawn in self.draw():
            cells, pieces = cells_of_table(drawn.table), pieces_of_table(drawn.table)
            tilings = list(tilings_brute_force(cells, pieces))
            result, streamed = self.run_split(drawn, mode)
            if result.found == Found.INFEASIBLE:
                expect(len(tilings), 0, f"{drawn.where()}: tilings of a region the split proved has none")
            if mode == "count":
                expect(result.count, len(tilings), f"{drawn.where()}: the count the parts add up to")
            elif tilings:
                expect(result.found, Found.FEASIBLE, f"{drawn.where()}: a tiling found through the parts")
                placed = [(p.piece, p.cells) for p in streamed[0].placements]
                expect(placement_problems(cells, pieces, placed), [], f"{drawn.where()}: faults of the tiling")
