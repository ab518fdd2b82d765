"""The milp backend: the neutral model as sparse matrices for ``scipy.optimize.milp``."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array, vstack

from polytile_core.plugin import BackendResult, Found, Model, OnSolution, SolveSettings, Termination
from polytile_milp import MilpOptions


class MilpBackend:
    def __init__(self, options: MilpOptions | None = None):
        self.options = options or MilpOptions()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        deadline = None if settings.time_limit is None else time.monotonic() + settings.time_limit
        if model.num_variables == 0:  # milp needs at least one variable; decide it here
            if model.check([]):
                return BackendResult(Termination.COMPLETED, Found.INFEASIBLE, "no variables", _count(settings, 0))
            on_solution([])
            return BackendResult(Termination.COMPLETED, Found.FEASIBLE, "no variables", _count(settings, 1))
        rows, lower, upper = _rows(model)
        cost = np.zeros(model.num_variables)
        if model.objective is not None and settings.mode in ("one", "optimize"):
            for var, coefficient in model.objective.items():
                cost[var] = -coefficient if model.maximize else coefficient
        count = 0
        while True:
            answer = self._solve_once(cost, rows, lower, upper, deadline, stop)
            if answer is None:
                cut_short = Termination.INTERRUPTED if stop.is_set() else Termination.TIME_LIMIT
                found = Found.FEASIBLE if count else Found.NONE
                return BackendResult(cut_short, found, "stopped between time slices", _count(settings, count))
            if answer.status == 2:  # infeasible: no (further) solution
                if settings.mode in ("all", "count"):
                    found = Found.FEASIBLE if count else Found.INFEASIBLE
                    return BackendResult(Termination.COMPLETED, found, f"exhausted after {count + 1} solves", count)
                return BackendResult(Termination.COMPLETED, Found.INFEASIBLE, answer.message)
            if answer.status != 0:
                return BackendResult(Termination.ERROR, Found.NONE, answer.message)
            ones = [var for var in model.decision if answer.x[var] > 0.5]
            count += 1
            on_solution(ones)
            if settings.mode not in ("all", "count"):
                value = None if model.objective is None else model.objective_value(ones)
                found = Found.FEASIBLE if model.objective is None else Found.OPTIMAL
                return BackendResult(Termination.COMPLETED, found, answer.message, None, value, value)
            rows, lower, upper = _with_no_good_cut(model, rows, lower, upper, ones)

    def _solve_once(
        self, cost: Any, rows: Any, lower: Any, upper: Any, deadline: float | None, stop: threading.Event
    ) -> Any:
        """One solve in doubling time slices, so a stop request is seen between slices."""
        slice_seconds = self.options.first_slice
        while not stop.is_set():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            limit = slice_seconds if remaining is None else min(slice_seconds, remaining)
            answer = milp(
                cost,
                constraints=LinearConstraint(rows, lower, upper),
                integrality=np.ones(len(cost)),
                bounds=Bounds(0, 1),
                options={"time_limit": limit},
            )
            if answer.status != 1:  # 1 = a limit was reached before the end
                return answer
            slice_seconds *= 2
        return None


def _count(settings: SolveSettings, number: int) -> int | None:
    return number if settings.mode in ("all", "count") else None


def _rows(model: Model) -> tuple[Any, Any, Any]:
    entries = [(row, var, coefficient) for row, c in enumerate(model.constraints) for var, coefficient in c.terms]
    row_index, column_index, values = zip(*entries, strict=True) if entries else ((), (), ())
    matrix = coo_array((values, (row_index, column_index)), shape=(len(model.constraints), model.num_variables)).tocsr()
    lower = np.array([c.rhs if c.sense in ("==", ">=") else -np.inf for c in model.constraints], dtype=float)
    upper = np.array([c.rhs if c.sense in ("==", "<=") else np.inf for c in model.constraints], dtype=float)
    return matrix, lower, upper


def _with_no_good_cut(model: Model, rows: Any, lower: Any, upper: Any, ones: list[int]) -> tuple[Any, Any, Any]:
    """Forbid this assignment of the decision variables: sum(ones) - sum(zeros) <= |ones| - 1."""

    chosen = set(ones)
    cut = np.zeros((1, model.num_variables))
    for var in model.decision:
        cut[0, var] = 1 if var in chosen else -1
    return vstack([rows, cut]).tocsr(), np.append(lower, -np.inf), np.append(upper, len(chosen) - 1)
