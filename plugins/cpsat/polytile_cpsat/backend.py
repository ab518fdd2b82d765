"""The CP-SAT backend: the neutral model as a CpModel, solved with callbacks that stream."""

from __future__ import annotations

import threading

from ortools.sat.python import cp_model

from polytile_core.host.contracts import BackendResult, SolveSettings, relay_stop
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination
from polytile_cpsat import CpsatOptions


class _Callback(cp_model.CpSolverSolutionCallback):
    def __init__(self, decision, on_solution, stop: threading.Event, stop_after_first: bool):
        super().__init__()
        self.decision = decision
        self.on_solution = on_solution
        self.stop = stop
        self.stop_after_first = stop_after_first
        self.count = 0

    def on_solution_callback(self):
        self.count += 1
        ones = [index for index, var in self.decision if self.BooleanValue(var)]
        self.on_solution(ones)
        if self.stop.is_set() or self.stop_after_first:
            self.StopSearch()


class CpsatBackend:
    def __init__(self, options: CpsatOptions | None = None):
        self.options = options or CpsatOptions()

    def solve(self, model: Model, settings: SolveSettings, on_solution, stop: threading.Event) -> BackendResult:
        cp = cp_model.CpModel()
        xs = [cp.NewBoolVar(label) for label in model.labels]
        for constraint in model.constraints:
            expression = sum(coefficient * xs[var] for var, coefficient in constraint.terms)
            if constraint.sense == "==":
                cp.Add(expression == constraint.rhs)
            elif constraint.sense == "<=":
                cp.Add(expression <= constraint.rhs)
            else:
                cp.Add(expression >= constraint.rhs)
        enumerate_all = settings.mode in ("all", "count")
        if model.objective is not None and not enumerate_all:
            objective = sum(coefficient * xs[var] for var, coefficient in model.objective.items())
            cp.Maximize(objective) if model.maximize else cp.Minimize(objective)

        solver = cp_model.CpSolver()
        params = solver.parameters
        params.catch_sigint_signal = False
        params.log_search_progress = self.options.log
        if settings.time_limit is not None:
            params.max_time_in_seconds = settings.time_limit
        if settings.seed is not None:
            params.random_seed = settings.seed
        if enumerate_all:
            params.enumerate_all_solutions = True
            params.num_workers = 1
        elif settings.workers:
            params.num_workers = settings.workers
        for name, value in self.options.parameters.items():  # checked when the options were read
            setattr(params, name, value)

        callback = _Callback(
            [(index, xs[index]) for index in model.decision],
            on_solution,
            stop,
            stop_after_first=settings.mode == "one" and model.objective is None,
        )
        with relay_stop(stop, solver.StopSearch):
            status = solver.Solve(cp, callback)
        return self._result(solver, status, callback.count, settings, model, stop.is_set())

    @staticmethod
    def _result(solver, status, seen, settings, model, stopped) -> BackendResult:
        raw = solver.StatusName(status)
        cut_short = Termination.INTERRUPTED if stopped else Termination.TIME_LIMIT
        count = seen if settings.mode in ("all", "count") else None
        objective = bound = None
        if model.objective is not None and settings.mode in ("one", "optimize") and seen:
            objective, bound = solver.ObjectiveValue(), solver.BestObjectiveBound()
        if status == cp_model.OPTIMAL:
            if settings.mode in ("all", "count"):
                found = Found.FEASIBLE if seen else Found.INFEASIBLE
                return BackendResult(Termination.COMPLETED, found, raw, count)
            if model.objective is None:
                # CP-SAT says OPTIMAL for a feasibility model once one solution is found.
                return BackendResult(Termination.COMPLETED, Found.FEASIBLE, raw, count, objective, bound)
            return BackendResult(Termination.COMPLETED, Found.OPTIMAL, raw, count, objective, bound)
        if status == cp_model.FEASIBLE:
            if settings.mode == "one" and model.objective is None:
                return BackendResult(Termination.COMPLETED, Found.FEASIBLE, raw, count)
            return BackendResult(cut_short, Found.FEASIBLE, raw, count, objective, bound)
        if status == cp_model.INFEASIBLE:
            return BackendResult(Termination.COMPLETED, Found.INFEASIBLE, raw, 0 if count is not None else None)
        if status == cp_model.MODEL_INVALID:
            return BackendResult(Termination.ERROR, Found.NONE, raw, count)
        return BackendResult(cut_short, Found.FEASIBLE if seen else Found.NONE, raw, count, objective, bound)
