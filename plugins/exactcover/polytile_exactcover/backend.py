"""The exactcover backend: reads the model as an exact cover and picks the search, the
count or the search up to symmetry that the mode and the options ask for."""

from __future__ import annotations

import threading
from collections.abc import Callable

import attrs

from polytile_core.plugin import (
    BackendResult,
    Found,
    InputError,
    LineSink,
    Model,
    OnSolution,
    SolveSettings,
    Termination,
)
from polytile_exactcover.count import count_covers
from polytile_exactcover.cover import CoverProblem, cover_problem, pinned_problem
from polytile_exactcover.listing import list_covers
from polytile_exactcover.options import ExactCoverOptions
from polytile_exactcover.outcome import Limits, SearchReport
from polytile_exactcover.search import Listing, enumerate_covers, short_search
from polytile_exactcover.symmetric import (
    Images,
    images_of,
    list_all,
    may_search_by_images,
    search_by_images,
    solve_distinct,
)

# The counters that fill a table of the whole problem (``BackendResult.work`` "table").
TABLES = {"frontier", "memo"}


class ExactCoverBackend:
    """Exact cover by dancing links; counts by memo; symmetry broken in the search."""

    def __init__(self, options: ExactCoverOptions | None = None) -> None:
        self.options = options or ExactCoverOptions()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        if settings.mode == "optimize":
            raise InputError("the exactcover backend does not optimise (use cpsat or scip)", path="solve.backend")
        limits = Limits(stop, settings.time_limit)  # from now: reading the cover takes seconds on large boards
        pins = model.pinned_on()
        if pins is not None and not settings.distinct:
            # A part of the tree split: made from the whole model's cover, read once.
            problem = pinned_problem(pins)
            if problem is None:
                return _pins_clash(settings)
        else:
            problem = cover_problem(model)
        report = _reporter(model, on_solution)
        distinct: int | None = None
        if settings.distinct and settings.mode in ("all", "count"):
            outcome, distinct = solve_distinct(model, problem, settings.mode, report, limits, self.options)
        elif settings.mode == "count" and settings.probe and self.options.counter == "search":
            # A probe wants no long search (the run splits it instead): a short one only.
            outcome = short_search(problem, limits)
        elif settings.mode == "count" and settings.subtree and self.options.counter == "auto":
            # A subtree of a search: count it by search, as the whole problem's search would.
            outcome = enumerate_covers(problem, None, limits, kernel=self.options.kernel)
            outcome.details["counter"] = "search: the model is a subtree of a search"
        elif settings.mode == "all":
            # A search, with the anchor on one placement per orbit and the images made, or
            # the table of a long one.  A probe lists only what it can list fast; a long
            # search is left to the split at once.
            # A listing to .jsonl: the kernel makes the lines, of the decision variables only.
            listed = Listing(on_solution, _decision(model)) if isinstance(on_solution, LineSink) else report
            outcome = list_covers(
                model, problem, listed, limits, self.options, probe=settings.probe, threads=settings.workers or 1
            )
        elif settings.mode == "count" and self.options.counter == "search":
            outcome = list_all(model, problem, None, limits, self.options)
        elif settings.mode == "count":
            by_images = _ImageSearch(model, problem, self.options, limits)
            outcome = count_covers(
                problem, self.options, limits, by_images, search=not settings.probe, threads=settings.workers or 1
            )
        else:
            outcome = enumerate_covers(problem, report, limits, limit=1, kernel=self.options.kernel)
        # A search that stopped at its solution limit (mode one) has done what it was asked.
        done = Termination.COMPLETED if outcome.status == Termination.SOLUTION_LIMIT else outcome.status
        if outcome.count:
            found = Found.FEASIBLE
        else:
            found = Found.INFEASIBLE if done == Termination.COMPLETED else Found.NONE
        return BackendResult(
            termination=done,
            found=found,
            raw_status=f"{outcome.how}: {outcome.status.value}",
            count=outcome.count if settings.mode in ("all", "count") else None,
            distinct_count=distinct if outcome.status == Termination.COMPLETED else None,
            details={f"exactcover_{key}": value for key, value in outcome.details.items()},
            work="table" if TABLES & set(outcome.how.split("+")) else "search",
        )


@attrs.define
class _ImageSearch:
    """``count.ImageSearch`` for ``model``: each question answered once, when first asked."""

    model: Model
    problem: CoverProblem
    options: ExactCoverOptions
    limits: Limits
    _possible: bool | None = None
    _looked: bool = False
    _images: Images | None = None

    def possible(self) -> bool:
        if self._possible is None:
            self._possible = may_search_by_images(self.model, self.options)
        return self._possible

    def __call__(self) -> Callable[[], SearchReport] | None:
        if not self._looked:
            self._images, self._looked = images_of(self.model, self.problem, self.options), True
        images = self._images
        if images is None:
            return None
        return lambda: search_by_images(images, self.problem, None, self.limits, self.options)


def _decision(model: Model) -> frozenset[int] | None:
    """The model's decision variables, None when they are all of its variables."""
    return None if len(model.decision) == model.num_variables else frozenset(model.decision)


def _reporter(model: Model, on_solution: OnSolution) -> OnSolution:
    """``on_solution`` given only the model's decision variables of each solution."""
    decision = _decision(model)
    if decision is None:
        return on_solution
    return lambda ones: on_solution([var for var in ones if var in decision])


def _pins_clash(settings: SolveSettings) -> BackendResult:
    """The answer for a part whose pinned variables rule each other out: no tiling."""
    return BackendResult(
        termination=Termination.COMPLETED,
        found=Found.INFEASIBLE,
        raw_status="pinned variables clash",
        count=0 if settings.mode in ("all", "count") else None,
        work="search",
    )
