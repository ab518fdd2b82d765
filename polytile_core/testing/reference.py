"""An exhaustive search over any 0-1 model: small enough to read and trust, for tiny
models only; a stand-in backend for tests of pipelines and a second opinion on optima."""

from __future__ import annotations

import threading
import time

from polytile_core import hookimpl
from polytile_core.host.contracts import BackendFactory, BackendResult, OnSolution, Register, SolveSettings
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination


class _Interrupted(Exception):
    pass


class ReferenceBackend:
    """Exhaustive depth-first search over a 0-1 model with bound propagation.

    Small enough to read and trust, slow on anything but tiny models (and recursive: one
    level per branching, so at most about 900 variables).  Optimises by looking at every
    solution.  Reports solutions projected on the decision variables,
    each once.
    """

    def __init__(self, options: object = None) -> None:
        self.options = options

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        deadline = None if settings.time_limit is None else time.monotonic() + settings.time_limit
        rows = [(list(c.terms), c.sense, c.rhs) for c in model.constraints]
        rows_of: list[list[int]] = [[] for _ in range(model.num_variables)]
        for number, (terms, _, _) in enumerate(rows):
            for var, _ in terms:
                rows_of[var].append(number)
        value: list[int | None] = [None] * model.num_variables
        seen: set[tuple[int, ...]] = set()
        best: dict = {"value": None}
        stop_at_first = settings.mode in ("one", "optimize") and model.objective is None
        enumerate_all = settings.mode in ("all", "count")

        def activity_bounds(terms: list[tuple[int, int]]) -> tuple[int, int]:
            low = high = 0
            for var, coefficient in terms:
                fixed = value[var]
                if fixed is None:
                    low += min(coefficient, 0)
                    high += max(coefficient, 0)
                else:
                    low += coefficient * fixed
                    high += coefficient * fixed
            return low, high

        def propagate(trail: list[int], queue: list[int]) -> bool:
            """Fix what the rows in ``queue`` (and rows they touch) force; False on a contradiction."""
            while queue:
                terms, sense, rhs = rows[queue.pop()]
                low, high = activity_bounds(terms)
                if (sense != ">=" and low > rhs) or (sense != "<=" and high < rhs):
                    return False
                for var, coefficient in terms:
                    if value[var] is not None or coefficient == 0:
                        continue
                    # Setting var to the value that raises the activity by |coefficient|:
                    raise_to = 1 if coefficient > 0 else 0
                    if sense != ">=" and low + abs(coefficient) > rhs:
                        value[var] = 1 - raise_to
                    elif sense != "<=" and high - abs(coefficient) < rhs:
                        value[var] = raise_to
                    else:
                        continue
                    trail.append(var)
                    queue.extend(rows_of[var])
                    break
            return True

        def report() -> None:
            ones = tuple(var for var in model.decision if value[var] == 1)
            if ones in seen:
                return
            seen.add(ones)
            if enumerate_all:
                on_solution(list(ones))
                return
            objective = model.objective_value(ones)
            if best["value"] is None or (
                objective is not None and (objective > best["value"] if model.maximize else objective < best["value"])
            ):
                best["value"] = objective if objective is not None else 0
                on_solution(list(ones))
            if stop_at_first:
                raise _Interrupted

        def search() -> None:
            if stop.is_set() or (deadline is not None and time.monotonic() > deadline):
                raise _Interrupted
            free = next((var for var in range(model.num_variables) if value[var] is None), None)
            if free is None:
                report()
                return
            for choice in (1, 0):
                trail = [free]
                value[free] = choice
                if propagate(trail, list(rows_of[free])):
                    search()
                for var in trail:
                    value[var] = None

        completed = True
        try:
            if propagate([], list(range(len(rows)))):
                search()
        except _Interrupted:
            completed = stop_at_first and not stop.is_set() and bool(seen)
        found_any = bool(seen)
        count = len(seen) if enumerate_all else None
        if not completed:
            cut_short = Termination.INTERRUPTED if stop.is_set() else Termination.TIME_LIMIT
            return BackendResult(cut_short, Found.FEASIBLE if found_any else Found.NONE, "stopped", count)
        if not found_any:
            return BackendResult(Termination.COMPLETED, Found.INFEASIBLE, "exhausted", count)
        if model.objective is not None and not enumerate_all:
            optimum = float(best["value"])
            return BackendResult(Termination.COMPLETED, Found.OPTIMAL, "exhausted", None, optimum, optimum)
        return BackendResult(Termination.COMPLETED, Found.FEASIBLE, "exhausted", count)


class _ReferencePlugin:
    @hookimpl
    def polytile_register_backends(self, register: Register[BackendFactory]) -> None:
        register("reference", ReferenceBackend, help="exhaustive search for tiny models (polytile_core.testing)")


REFERENCE_PLUGIN = _ReferencePlugin()
