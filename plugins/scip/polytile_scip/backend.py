"""The SCIP backend: the neutral model as a PySCIPOpt model, with an enumerating
constraint handler and a watcher that interrupts SCIP on request."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pyscipopt
from pyscipopt import SCIP_EVENTTYPE, SCIP_RESULT, SCIP_STAGE

from polytile_core.plugin import (
    BackendResult,
    Found,
    InputError,
    Model,
    OnSolution,
    SolveSettings,
    Termination,
    relay_stop,
)
from polytile_scip import ScipOptions

# Below every built-in SCIP constraint handler (countsols, the lowest, uses -9,999,999):
# the enumerator sees only solutions every real constraint has accepted.
_ENFORCE_LAST = -10_000_000

# What counting and listing need on top of SCIP's own counting settings
# (``setParamsCountsols``), each checked by the cross-check in tests/integration/test_crosscheck.py
# and explained in docs/counting.md.  A one-to-one map between original and presolved
# solutions: no dual reductions (they drop solutions "dominated" by others), no restarts,
# no symmetry handling, no component presolving.  And no probing in presolving: when
# probing fixes the last variables it leaves set-partitioning rows on no variable
# behind, and SCIP's counting mode then counts the one assignment left twice.
_COUNTING_PARAMETERS: dict[str, bool | int] = {
    "misc/allowstrongdualreds": False,
    "misc/allowweakdualreds": False,
    "presolving/maxrestarts": 0,
    "misc/usesymmetry": 0,
    "constraints/components/maxprerounds": 0,
    "propagating/probing/maxprerounds": 0,
}

# SCIP statuses that mean "a limit stopped the search" (the run did not complete).
_LIMIT_STATUSES = {
    "timelimit": Termination.TIME_LIMIT,
    "sollimit": Termination.SOLUTION_LIMIT,
    "bestsollimit": Termination.SOLUTION_LIMIT,
    "nodelimit": Termination.INTERRUPTED,
    "totalnodelimit": Termination.INTERRUPTED,
    "stallnodelimit": Termination.INTERRUPTED,
    "restartlimit": Termination.INTERRUPTED,
    "memlimit": Termination.ERROR,
}


class _Enumerator(pyscipopt.Conshdlr):
    """Reports every solution once: at a node where every variable is fixed it records the
    assignment and cuts the node off; elsewhere it branches on an unfixed variable.

    It rejects every solution in ``conscheck``, so SCIP never stops at a first solution
    and the branching tree is searched to the end.  The leaves of a branching tree have
    disjoint domains, so no solution is reported twice (provided presolving keeps a
    one-to-one map between original and presolved solutions: ``_COUNTING_PARAMETERS``).
    """

    def __init__(self, model: Model, xs: list[pyscipopt.Variable], on_found: OnSolution, stop: threading.Event) -> None:
        self.neutral = model
        self.xs = xs
        self.decision = [(index, xs[index]) for index in model.decision]
        self.on_found = on_found
        self.stop = stop
        # With auxiliary variables two leaves may share their decision variables.
        self.seen: set[tuple[int, ...]] | None = set() if len(set(model.decision)) != model.num_variables else None
        self.count = 0
        self.error: BaseException | None = None
        self.presolved_solution_recorded = False
        self.active: list[pyscipopt.Variable] = []

    def conscheck(
        self,
        constraints: Any,
        solution: Any,
        checkintegrality: bool,
        checklprows: bool,
        printreason: bool,
        completely: bool,
    ) -> dict[str, Any]:
        # When presolving fixes every variable there is no tree: the one candidate left
        # is only ever checked, never enforced, so it is recorded here.
        if self.model.getStage() != SCIP_STAGE.SOLVING and self.model.getNVars(transformed=True) == 0:
            every_one = {index for index, var in enumerate(self.xs) if self.model.getSolVal(solution, var) > 0.5}
            if not self.presolved_solution_recorded and not self.neutral.check(every_one):
                self.presolved_solution_recorded = True
                self._record(tuple(index for index, _ in self.decision if index in every_one))
        return {"result": SCIP_RESULT.INFEASIBLE}

    def consinitsol(self, constraints: Any) -> None:
        # Presolving is over and restarts are off, so the active variables stay these.
        self.active = self.model.getVars(transformed=True)

    def consenfolp(self, constraints: Any, nusefulconss: int, solinfeasible: bool) -> dict[str, Any]:
        return self._enforce(solinfeasible)

    def consenfops(
        self, constraints: Any, nusefulconss: int, solinfeasible: bool, objinfeasible: bool
    ) -> dict[str, Any]:
        return self._enforce(solinfeasible)

    def conslock(self, constraint: Any, locktype: Any, nlockspos: int, nlocksneg: int) -> None:
        pass

    def _enforce(self, solinfeasible: bool) -> dict[str, Any]:
        if solinfeasible:  # another handler has work to do on this node first
            return {"result": SCIP_RESULT.FEASIBLE}
        if self.stop.is_set() or self.error is not None:
            self.model.interruptSolve()
            return {"result": SCIP_RESULT.CUTOFF}
        for var in self.active:
            if var.getLbLocal() < var.getUbLocal() - 0.5:
                self.model.branchVar(var)
                return {"result": SCIP_RESULT.BRANCHED}
        ones = tuple(index for index, var in self.decision if self.model.getSolVal(None, var) > 0.5)
        if self.seen is not None:
            if ones in self.seen:
                return {"result": SCIP_RESULT.CUTOFF}
            self.seen.add(ones)
        self._record(ones)
        return {"result": SCIP_RESULT.CUTOFF}

    def _record(self, ones: tuple[int, ...]) -> None:
        self.count += 1
        try:
            self.on_found(list(ones))
        except BaseException as exc:  # raised again after SCIP has unwound
            self.error = exc
            self.model.interruptSolve()


class _Watch(pyscipopt.Eventhdlr):
    """Checks the stop event at every node and streams each new incumbent (find one,
    optimise).  Counting mode holds the GIL, so this is what stops it promptly."""

    def __init__(
        self,
        stop: threading.Event,
        decision: list[tuple[int, pyscipopt.Variable]],
        on_found: OnSolution | None = None,
    ) -> None:
        self.stop = stop
        self.decision = decision
        self.on_found = on_found
        self.error: BaseException | None = None

    def eventinit(self) -> None:
        self.model.catchEvent(SCIP_EVENTTYPE.NODEFOCUSED, self)
        if self.on_found is not None:
            self.model.catchEvent(SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexit(self) -> None:
        self.model.dropEvent(SCIP_EVENTTYPE.NODEFOCUSED, self)
        if self.on_found is not None:
            self.model.dropEvent(SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexec(self, event: Any) -> None:
        on_found = self.on_found
        if on_found is not None and event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND and self.error is None:
            best = self.model.getBestSol()
            try:
                on_found([index for index, var in self.decision if self.model.getSolVal(best, var) > 0.5])
            except BaseException as exc:
                self.error = exc
                self.model.interruptSolve()
        if self.stop.is_set():
            self.model.interruptSolve()


def build_scip(model: Model, *, log: bool = False) -> tuple[pyscipopt.Model, list[pyscipopt.Variable]]:
    """The SCIP model of a neutral model (binary variables, linear rows, no objective)."""
    scip = pyscipopt.Model(model.name)
    if not log:
        scip.hideOutput()
    xs = [scip.addVar(name=f"x{index}", vtype="B") for index in range(model.num_variables)]
    for constraint in model.constraints:
        expression = pyscipopt.quicksum(coefficient * xs[var] for var, coefficient in constraint.terms)
        if constraint.sense == "==":
            row = expression == constraint.rhs
        elif constraint.sense == "<=":
            row = expression <= constraint.rhs
        else:
            row = expression >= constraint.rhs
        scip.addCons(row, name=constraint.name)
    return scip, xs


class ScipBackend:
    def __init__(self, options: ScipOptions | None = None) -> None:
        self.options = options or ScipOptions()

    def counting_method(self, model: Model, settings: SolveSettings) -> str:
        """How this solve enumerates: 'scip' (SCIP's counting mode), 'nogood' (our
        enumerator) or 'search' (a plain solve, for find one and optimise)."""
        if settings.mode == "all":
            return "nogood"
        if settings.mode != "count":
            return "search"
        every_variable_decides = len(set(model.decision)) == model.num_variables
        if self.options.counting == "scip":
            if not every_variable_decides:
                raise InputError(
                    "SCIP's counting mode counts assignments of every variable, but this model has "
                    "auxiliary variables; use counting = 'nogood' or 'auto'",
                    path="options.scip.counting",
                )
            return "scip"
        if self.options.counting == "nogood" or not every_variable_decides:
            return "nogood"
        return "scip"

    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        # The time limit covers building SCIP's model too (seconds on a large board).
        deadline = None if settings.time_limit is None else time.monotonic() + settings.time_limit
        method = self.counting_method(model, settings)
        scip, xs = build_scip(model, log=self.options.log)
        decision = [(index, xs[index]) for index in model.decision]
        if model.objective is not None and method == "search":
            scip.setObjective(
                pyscipopt.quicksum(coefficient * xs[var] for var, coefficient in model.objective.items()),
                "maximize" if model.maximize else "minimize",
            )
        if method == "search" and self.options.emphasis != "default":
            scip.setEmphasis(getattr(pyscipopt.SCIP_PARAMEMPHASIS, self.options.emphasis.upper()))
        scip.setBoolParam("misc/catchctrlc", False)
        if deadline is not None:
            scip.setRealParam("limits/time", max(deadline - time.monotonic(), 0.001))
        if settings.seed is not None:
            scip.setIntParam("randomization/randomseedshift", settings.seed)
        if method != "search":
            scip.setParamsCountsols()
            for name, value in _COUNTING_PARAMETERS.items():
                scip.setParam(name, value)
        self._set_user_parameters(scip, counting=method != "search")

        watch = _Watch(stop, decision, on_solution if method == "search" else None)
        scip.includeEventhdlr(watch, "polytile_watch", "stop on request; stream incumbents")
        enumerator = None
        if method == "nogood":
            enumerator = _Enumerator(model, xs, on_solution, stop)
            scip.includeConshdlr(
                enumerator,
                "polytile_enumerate",
                "report every solution once",
                enfopriority=_ENFORCE_LAST,
                chckpriority=_ENFORCE_LAST,
                needscons=False,
            )
        if stop.is_set():
            return BackendResult(termination=Termination.INTERRUPTED, found=Found.NONE, raw_status="not started")

        # Presolving and long LPs raise no node events; SCIP runs without the GIL here.
        with relay_stop(stop, scip.interruptSolve):
            if method == "scip":
                scip.count()
            else:
                scip.optimizeNogil()
        for handler in (watch, enumerator):
            if handler is not None and handler.error is not None:
                raise handler.error
        if method == "scip":
            return self._listed(scip, "count", scip.getNCountedSols(), stop)
        if method == "nogood":
            assert enumerator is not None  # installed above for this method
            return self._listed(scip, "enumerate", enumerator.count, stop)
        return self._searched(scip, model, stop)

    def _set_user_parameters(self, scip: pyscipopt.Model, counting: bool) -> None:
        for name, value in self.options.parameters.items():
            if counting and name in _COUNTING_PARAMETERS and value != _COUNTING_PARAMETERS[name]:
                raise InputError(
                    f"modes all and count need {name} = {json.dumps(_COUNTING_PARAMETERS[name])} to count every tiling "
                    "exactly once (docs/counting.md); leave it out",
                    path=f"options.scip.parameters.{name}",
                )
            scip.setParam(name, value)  # a name and type checked when the options were made

    @staticmethod
    def _cut_short(raw: str, stop: threading.Event) -> Termination | None:
        """Why the search stopped early, or None when it completed."""
        if raw == "userinterrupt" or (stop.is_set() and raw not in ("optimal", "infeasible")):
            return Termination.INTERRUPTED
        return _LIMIT_STATUSES.get(raw)

    def _listed(self, scip: pyscipopt.Model, how: str, count: int, stop: threading.Event) -> BackendResult:
        """The result of a counting or enumerating solve that saw ``count`` solutions;
        unless a limit or a stop cut it short, that is every solution."""
        raw = scip.getStatus()
        cut_short = self._cut_short(raw, stop)
        if cut_short is not None:
            return BackendResult(
                termination=cut_short,
                found=Found.FEASIBLE if count else Found.NONE,
                raw_status=f"{how}: {raw}",
                count=count,
            )
        return BackendResult(
            termination=Termination.COMPLETED,
            found=Found.FEASIBLE if count else Found.INFEASIBLE,
            raw_status=f"{how}: {raw}",
            count=count,
        )

    def _searched(self, scip: pyscipopt.Model, model: Model, stop: threading.Event) -> BackendResult:
        raw = scip.getStatus()
        has_solution = scip.getNSols() > 0
        objective = bound = None
        if model.objective is not None and has_solution:
            objective, bound = scip.getObjVal(), scip.getDualbound()
        cut_short = self._cut_short(raw, stop)
        if raw == "infeasible":
            return BackendResult(termination=Termination.COMPLETED, found=Found.INFEASIBLE, raw_status=raw)
        if cut_short is not None:
            found = Found.FEASIBLE if has_solution else Found.NONE
            return BackendResult(termination=cut_short, found=found, raw_status=raw, objective=objective, bound=bound)
        if raw in ("optimal", "gaplimit") and has_solution:
            proved = raw == "optimal" and model.objective is not None
            return BackendResult(
                termination=Termination.COMPLETED,
                found=Found.OPTIMAL if proved else Found.FEASIBLE,
                raw_status=raw,
                objective=objective,
                bound=bound,
            )
        return BackendResult(
            termination=Termination.ERROR,
            found=Found.FEASIBLE if has_solution else Found.NONE,
            raw_status=raw,
            objective=objective,
            bound=bound,
        )
