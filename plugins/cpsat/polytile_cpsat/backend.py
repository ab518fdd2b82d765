"""The CP-SAT backend: the neutral model as a CpModel, solved with callbacks that stream."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from ortools.sat.python import cp_model

from polytile_core.plugin import (
    BackendResult,
    Found,
    InputError,
    Model,
    OnSolution,
    SolveSettings,
    Termination,
    progress_reporter,
    relay_stop,
)
from polytile_cpsat import CpsatOptions

# Listing and counting with ``enumerate_all_solutions``: one worker (several find the same
# solution more than once), and a presolve that keeps every feasible solution (CP-SAT
# sets this itself when it is unset; a user's ``false`` would count the presolved model).
_COUNTING_PARAMETERS: dict[str, bool | int] = {"num_workers": 1, "keep_all_feasible_solutions_in_presolve": True}


class _Callback(cp_model.CpSolverSolutionCallback):
    def __init__(
        self,
        decision: list[tuple[int, cp_model.IntVar]],
        on_solution: OnSolution,
        stop: threading.Event,
        stop_after_first: bool,
        optimising: bool,
    ) -> None:
        super().__init__()
        # Called from CP-SAT's own threads: the run's reporter is taken here, in the calling one.
        self.report = progress_reporter() if optimising else None
        self.decision = decision
        self.on_solution = on_solution
        self.stop = stop
        self.stop_after_first = stop_after_first
        self.count = 0

    def on_solution_callback(self) -> None:
        if self.stop_after_first and self.count:
            # Asked for one: another worker's tiling (or the same one, found again)
            # came before the stop took hold.  One tiling is handed on, once.
            self.StopSearch()
            return
        self.count += 1
        ones = [index for index, var in self.decision if self.BooleanValue(var)]
        self.on_solution(ones)
        if self.report is not None:
            self.report(best=self.ObjectiveValue(), bound=self.BestObjectiveBound(), stage=None)
        if self.stop.is_set() or self.stop_after_first:
            self.StopSearch()


# Rows translated between two looks at the clock and the stop event.
CHECK_EVERY = 1024


def _translate(
    model: Model, deadline: float | None, stop: threading.Event
) -> tuple[cp_model.CpModel, list[cp_model.IntVar]] | None:
    """The model as a CpModel and its variables, or None when the deadline passes or
    ``stop`` is set first.  Each row is one weighted sum, built in C++, not in Python."""

    def out_of_time() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() >= deadline)

    cp = cp_model.CpModel()
    xs: list[cp_model.IntVar] = []
    for start in range(0, model.num_variables, CHECK_EVERY * 16):
        if out_of_time():
            return None
        xs.extend(cp.new_bool_var(label) for label in model.labels[start : start + CHECK_EVERY * 16])
    for number, constraint in enumerate(model.constraints):
        if number % CHECK_EVERY == 0 and out_of_time():
            return None
        expression = cp_model.LinearExpr.weighted_sum(
            [xs[var] for var, _ in constraint.terms], [coefficient for _, coefficient in constraint.terms]
        )
        low = constraint.rhs if constraint.sense in ("==", ">=") else cp_model.INT_MIN
        high = constraint.rhs if constraint.sense in ("==", "<=") else cp_model.INT_MAX
        cp.add_linear_constraint(expression, low, high)
    return cp, xs


class CpsatBackend:
    def __init__(self, options: CpsatOptions | None = None) -> None:
        self.options = options or CpsatOptions()

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        # The time limit covers translating the model too: a 600,000-variable model takes seconds.
        deadline = None if settings.time_limit is None else time.monotonic() + settings.time_limit
        translated = _translate(model, deadline, stop)
        if translated is None:
            termination = Termination.INTERRUPTED if stop.is_set() else Termination.TIME_LIMIT
            return BackendResult(
                termination=termination, found=Found.NONE, raw_status="stopped while translating the model"
            )
        cp, xs = translated
        enumerate_all = settings.mode in ("all", "count")
        if model.objective is not None and not enumerate_all:
            objective = cp_model.LinearExpr.weighted_sum(
                [xs[var] for var in model.objective], list(model.objective.values())
            )
            if model.maximize:
                cp.maximize(objective)
            else:
                cp.minimize(objective)

        solver = cp_model.CpSolver()
        params = solver.parameters
        params.catch_sigint_signal = False
        params.log_search_progress = self.options.log
        if deadline is not None:
            params.max_time_in_seconds = max(deadline - time.monotonic(), 0.001)
        if settings.seed is not None:
            params.random_seed = settings.seed
        if enumerate_all:
            params.enumerate_all_solutions = True
            for name, needed in _COUNTING_PARAMETERS.items():
                setattr(params, name, needed)
        elif settings.workers:
            params.num_workers = settings.workers
        for name, value in self.options.parameters.items():  # checked when the options were read
            if enumerate_all and name in _COUNTING_PARAMETERS and value != _COUNTING_PARAMETERS[name]:
                raise InputError(
                    f"modes all and count need {name} = {json.dumps(_COUNTING_PARAMETERS[name])} to count every tiling "
                    "exactly once (docs/counting.md); leave it out",
                    path=f"options.cpsat.parameters.{name}",
                )
            setattr(params, name, value)

        callback = _Callback(
            [(index, xs[index]) for index in model.decision],
            on_solution,
            stop,
            stop_after_first=settings.mode == "one" and model.objective is None,
            optimising=model.objective is not None,
        )
        with relay_stop(stop, solver.StopSearch):
            status = solver.Solve(cp, callback)
        return self._result(solver, status, callback.count, settings, model, stop.is_set())

    @staticmethod
    def _result(
        solver: cp_model.CpSolver, status: Any, seen: int, settings: SolveSettings, model: Model, stopped: bool
    ) -> BackendResult:
        raw = solver.StatusName(status)
        cut_short = Termination.INTERRUPTED if stopped else Termination.TIME_LIMIT
        count = seen if settings.mode in ("all", "count") else None
        objective = bound = None
        if model.objective is not None and settings.mode in ("one", "optimize") and seen:
            objective, bound = solver.ObjectiveValue(), solver.BestObjectiveBound()
        if status == cp_model.OPTIMAL:
            if settings.mode in ("all", "count"):
                found = Found.FEASIBLE if seen else Found.INFEASIBLE
                return BackendResult(termination=Termination.COMPLETED, found=found, raw_status=raw, count=count)
            # CP-SAT says OPTIMAL for a feasibility model once one solution is found.
            found = Found.FEASIBLE if model.objective is None else Found.OPTIMAL
            return BackendResult(
                termination=Termination.COMPLETED,
                found=found,
                raw_status=raw,
                count=count,
                objective=objective,
                bound=bound,
            )
        if status == cp_model.FEASIBLE:
            if settings.mode == "one" and model.objective is None:
                return BackendResult(
                    termination=Termination.COMPLETED, found=Found.FEASIBLE, raw_status=raw, count=count
                )
            return BackendResult(
                termination=cut_short,
                found=Found.FEASIBLE,
                raw_status=raw,
                count=count,
                objective=objective,
                bound=bound,
            )
        if status == cp_model.INFEASIBLE:
            return BackendResult(
                termination=Termination.COMPLETED,
                found=Found.INFEASIBLE,
                raw_status=raw,
                count=0 if count is not None else None,
            )
        if status == cp_model.MODEL_INVALID:
            return BackendResult(termination=Termination.ERROR, found=Found.NONE, raw_status=raw, count=count)
        return BackendResult(
            termination=cut_short,
            found=Found.FEASIBLE if seen else Found.NONE,
            raw_status=raw,
            count=count,
            objective=objective,
            bound=bound,
        )
