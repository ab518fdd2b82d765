"""Solve the parts of a split through an executor, a bounded number at a time.

The loop is deliberately plain: pull a part from the (lazy, possibly astronomic)
iterator, submit it, collect whatever finished, repeat.  At most ``2 × jobs`` parts are
in flight, so memory does not grow with the number of parts.  Each part has a stable
``key`` (from the decomposer), which is what a report or a checkpoint refers to.

Counts add up because a split partitions the solutions.  In mode ``one`` the first
part with a tiling ends the run: queued parts are cancelled and a process pool's
workers are killed (a running solver cannot be asked to stop across processes).
A part that fails is reported with its key and makes the run an ``error``: a total
with a missing part would be wrong, so none is claimed.

A part with ``fixed`` variables (the tree split) is sent as its model's key and the
indices (``polytile_core.solve.parcels``), once the workers hold the model (``_Submitter``).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import socket
import threading
import time
import uuid
from typing import Protocol, cast

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.contracts import BackendResult, SolveSettings
from polytile_core.model.parts import Part
from polytile_core.model.zero_one import BuildStopped, Model
from polytile_core.output.results import Found, PlacedPiece, Solution, SubproblemReport, Termination
from polytile_core.solve.collect import Collector, solution_of
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.parcels import ModelNeeded, ModelParcel, forget, model_of
from polytile_core.solve.state import RunState

log = logging.getLogger("polytile")

# Parts reports kept in a Result; a huge split keeps the first ones (and says so).
MAX_REPORTS = 1000
# Parts in flight per job: enough to keep every worker busy while results come back.
IN_FLIGHT_PER_JOB = 2
# Jobs that parts are kept in flight for, however many a run asks for.
MOST_WORKERS = 4096


class PartLog(Protocol):
    """What a split run asks of ``plan.checkpoint`` (``solve.checkpoint.Checkpoint``)."""

    replayed: int

    def replay(self, part: Part) -> PartOutcome | None: ...

    def record(self, part: Part, outcome: PartOutcome) -> None: ...


@attrs.frozen
class PartOutcome:
    """What a worker sends back for one part."""

    answer: BackendResult
    solutions: list[list[int]]
    seconds: float
    # Of ``seconds``, the time spent making the part's model from the cached whole one.
    prepare_seconds: float = 0.0
    worker: str = ""  # host and process that solved it


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def solve_part(
    factory, backend_options, model: Model, settings: SolveSettings, keep: int | None, stop=None
) -> PartOutcome:
    """Solve one part (runs in a worker: a thread or another process).

    ``keep`` caps the solutions sent back (``None``: all of them, 0: none, for counting).
    ``stop`` is an event the worker can see (thread executors); process workers are
    stopped by killing them instead.
    """
    started = time.perf_counter()
    solutions: list[list[int]] = []

    def on_solution(ones: list[int]) -> None:
        if keep is None or len(solutions) < keep:
            solutions.append(list(ones))

    answer = factory(backend_options).solve(model, settings, on_solution, stop or threading.Event())
    return PartOutcome(answer, solutions, time.perf_counter() - started)


def solve_fixed_part(
    factory,
    backend_options,
    parcel: ModelParcel,
    fixed: tuple[int, ...],
    settings: SolveSettings,
    keep: int | None,
    stop=None,
) -> PartOutcome | ModelNeeded:
    """Solve the whole model of ``parcel`` with the ``fixed`` variables pinned to 1 (in a worker).

    ``prepare_seconds`` is what the part costs beyond the backend's solve: finding the
    model and pinning the variables.
    """
    started = time.perf_counter()
    whole = model_of(parcel)
    if whole is None:
        return ModelNeeded(worker_name())
    model = whole.pinned(fixed)
    prepared = time.perf_counter()
    outcome = solve_part(factory, backend_options, model, settings, keep, stop)
    return attrs.evolve(
        outcome, seconds=time.perf_counter() - started, prepare_seconds=prepared - started, worker=worker_name()
    )


def whole_solution(part: Part, ones: list[int], pieces: dict[int, PlacedPiece] | None = None) -> Solution:
    """The solution of the whole problem that a part's solution stands for: the part's
    pieces laid down at each of its ``copies`` offsets.  ``pieces``: as for ``solution_of``."""
    solution = solution_of(part.model, ones, pieces, part.key)
    if part.copies != ((0, 0),):
        placed = tuple(
            PlacedPiece(piece.piece, tuple((x + dx, y + dy) for x, y in piece.cells))
            for dx, dy in part.copies
            for piece in solution.placements
        )
        solution = attrs.evolve(solution, placements=placed)
    return solution


def _halt(executor: concurrent.futures.Executor) -> None:
    """Cancel queued parts and make running ones stop now."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()


class _SplitRun:
    """The state of one split run: running totals and the reports of finished parts."""

    def __init__(self, plan: Plan, collector: Collector, run_state: RunState, stop: threading.Event):
        self.plan = plan
        self.stop = stop
        self.collector = collector
        self.run_state = run_state
        self.mode = plan.settings.mode
        self.count = 0
        self.found_any = False
        self.errors: list[SubproblemReport] = []
        self.reports: list[SubproblemReport] = []
        self.reports_dropped = 0
        self.removed = 0
        self.cut_short = False  # some part hit the time limit or was stopped
        self.seconds: list[float] = []
        self.feasible_seconds: list[float] = []
        # The placed pieces of the model that parts with fixed variables share (the whole one).
        self.shared_pieces: dict[int, PlacedPiece] = {}

    def keep_for_part(self) -> int | None:
        if self.mode == "count":
            return 0
        if self.mode == "all":
            return None  # every one: keep bounds what the collector holds, never what reaches the stream
        return 1

    def report(self, report: SubproblemReport, *, done: bool = True) -> None:
        self.run_state.parts_done += done
        if report.error is not None:
            self.errors.append(report)
        elif len(self.reports) < MAX_REPORTS:
            self.reports.append(report)
        else:
            self.reports_dropped += 1

    def removed_before_search(self, part: Part) -> None:
        self.removed += 1
        self.report(
            SubproblemReport(part.key, Termination.COMPLETED, Found.INFEASIBLE, 0 if self.mode != "one" else None)
        )

    def finished(self, part: Part, outcome: PartOutcome) -> bool:
        """Take a part's answer: its solutions to the collector, its count to the total.
        In mode all, a stop while its solutions are handed on ends the handing there (a
        large part could take seconds): then only those handed on are counted, the part
        is cut short, and False is returned (it is not recorded in a checkpoint)."""
        answer = outcome.answer
        # A part searched for one member of each orbit stands for its images too (mode one
        # needs only the solution found).
        images = part.images if part.images and self.mode != "one" else ((),)
        pieces = self.shared_pieces if part.fixed is not None else None
        handed = 0
        whole = True
        for ones in outcome.solutions:
            if self.mode == "all" and self.stop.is_set():
                whole = False
                break
            for image in images:
                self.collector.add(whole_solution(part, sorted(image[var] for var in ones) if image else ones, pieces))
            handed += len(images)
        count = answer.count
        if self.mode in ("all", "count") and count is None:
            count = len(outcome.solutions)
        if count and part.images:
            count *= len(part.images)
        termination = answer.termination
        if not whole:
            count, termination = handed, Termination.INTERRUPTED
        if count:
            self.count += count
            self.run_state.counted = self.count
        self.seconds.append(outcome.seconds)
        has_solution = answer.found in (Found.FEASIBLE, Found.OPTIMAL)
        if has_solution:
            self.found_any = True
            self.feasible_seconds.append(outcome.seconds)
        if termination in (Termination.TIME_LIMIT, Termination.INTERRUPTED):
            self.cut_short = True
        error = f"backend error: {answer.raw_status}" if termination == Termination.ERROR else None
        self.report(SubproblemReport(part.key, termination, answer.found, count, outcome.seconds, error))
        return whole

    def stopped(self, part: Part, why: Termination, seconds: float) -> None:
        """A part still running when the run ended (another part found a tiling, or time ran
        out), ``seconds`` after it was handed to the executor."""
        self.report(SubproblemReport(part.key, why, Found.NONE, None, seconds), done=False)

    def failed(self, part: Part, error: BaseException) -> None:
        message = f"{type(error).__name__}: {error}".rstrip(": ")
        self.report(SubproblemReport(part.key, Termination.ERROR, Found.NONE, None, 0.0, message))


class _Submitter:
    """Submits parts to the executor.  A part with fixed variables carries its model until
    a worker is known to hold it, then travels without it; a worker that lacks it answers
    ``ModelNeeded`` and gets the part again with the model.  So the model travels a few
    times per worker (``details["models_sent"]``), however many parts there are."""

    def __init__(self, plan, executor, stop_event, *, local: bool):
        self.plan = plan
        self.executor = executor
        self.stop_event = stop_event
        self.local = local  # threads of this process: they find the model in its cache
        self.parcels: dict[int, ModelParcel] = {}  # id(whole model) -> its parcel
        self.holders: set[str] = set()  # workers known to hold the model
        self.models_sent = 0

    def answered(self, outcome) -> None:
        """Note which worker holds the model (or, from ``ModelNeeded``, does not)."""
        if isinstance(outcome, ModelNeeded):
            self.holders.discard(outcome.worker)
        elif outcome.worker:
            self.holders.add(outcome.worker)

    def submit(self, part: Part, settings: SolveSettings, keep: int | None, *, with_model: bool = False):
        plan = self.plan
        if part.fixed is None:
            return self.executor.submit(
                solve_part, plan.backend.provides, plan.backend_options, part.model, settings, keep, self.stop_event
            )
        parcel = self.parcels.get(id(part.model))
        if parcel is None:
            parcel = self.parcels[id(part.model)] = ModelParcel(uuid.uuid4().hex, part.model)
            model_of(parcel)  # workers in this process (threads) find it at once
        if with_model or (not self.local and not self.holders):
            self.models_sent += 1
        else:
            parcel = ModelParcel(parcel.key)
        return self.executor.submit(
            solve_fixed_part,
            plan.backend.provides,
            plan.backend_options,
            parcel,
            part.fixed,
            settings,
            keep,
            self.stop_event,
        )

    def close(self) -> None:
        for parcel in self.parcels.values():
            forget(parcel.key)


def solve_split(plan: Plan, model: Model, collector: Collector, stop: threading.Event, run_state: RunState) -> Outcome:
    """Split the plan's problem with its decomposer and solve the parts through its executor."""
    assert plan.split is not None and plan.backend is not None, "a split run has its split and backend"
    split = plan.split.provides.split(plan.tiling_problem(), model, plan.build, plan.split_options, jobs=plan.jobs)
    run_state.parts_total = split.total
    log.info("split %s: %s parts on %d jobs", plan.split.name, "?" if split.total is None else split.total, plan.jobs)
    # Parts that are subtrees of one search are counted by search (SolveSettings.subtree).
    settings = attrs.evolve(plan.settings, subtree=plan.split.capabilities.subtrees)
    details: dict = {"split": plan.split.name, **{f"split_{key}": value for key, value in split.summary.items()}}
    if split.total is not None:
        details["subproblems"] = split.total
    if split.impossible:
        details["certificate"] = details["split"]  # the decomposer's proof, said in the message
        return Outcome(
            termination=Termination.COMPLETED,
            found=Found.INFEASIBLE,
            raw_status="no subproblem",
            count=0 if settings.mode in ("all", "count") else None,
            message=split.impossible,
            details=details,
        )

    state = _SplitRun(plan, collector, run_state, stop)
    checkpoint = cast(PartLog | None, plan.checkpoint)
    started = time.perf_counter()
    deadline = None if settings.time_limit is None else started + settings.time_limit
    registration, options, why = plan.parts_executor()
    details["executor"] = registration.name if why is None else f"{registration.name} ({why})"
    executor = registration.provides(plan.jobs, options)
    # Workers in this process can watch an event; other processes are killed instead.
    halt = threading.Event()
    shared_stop = halt if isinstance(executor, concurrent.futures.ThreadPoolExecutor) else None
    submitter = _Submitter(plan, executor, shared_stop, local=shared_stop is not None)
    prepare_seconds: list[float] = []
    limit = max(1, min(plan.jobs, MOST_WORKERS) * IN_FLIGHT_PER_JOB)
    in_flight: dict[concurrent.futures.Future, tuple[Part, float]] = {}  # with when it was handed over
    parts = iter(split.parts)
    exhausted = False
    timed_out = False
    making_stopped = False
    try:
        while True:
            if stop.is_set() or (deadline is not None and time.perf_counter() >= deadline):
                timed_out = not stop.is_set()
                break
            while not exhausted and len(in_flight) < limit and not halt.is_set():
                try:
                    part = next(parts, None)
                except BuildStopped:  # making the part's model met the time limit or the stop
                    timed_out, making_stopped = not stop.is_set(), True
                    break
                if part is None:
                    exhausted = True
                    break
                if part.details.get("empty"):
                    state.removed_before_search(part)
                    continue
                recorded = checkpoint.replay(part) if checkpoint is not None else None
                if recorded is not None:
                    state.finished(part, recorded)
                    continue
                future = submitter.submit(part, _part_settings(settings, deadline), state.keep_for_part())
                in_flight[future] = (part, time.perf_counter())
            if not in_flight or making_stopped:
                break
            done, _ = concurrent.futures.wait(in_flight, timeout=0.1, return_when=concurrent.futures.FIRST_COMPLETED)
            broken = False
            for future in done:
                part, handed_over = in_flight.pop(future)
                try:
                    outcome = future.result()
                    if part.fixed is not None:
                        submitter.answered(outcome)
                    if isinstance(outcome, ModelNeeded):
                        again = submitter.submit(
                            part, _part_settings(settings, deadline), state.keep_for_part(), with_model=True
                        )
                        in_flight[again] = (part, handed_over)
                        continue
                    whole = state.finished(part, outcome)
                    if part.fixed is not None:
                        prepare_seconds.append(outcome.prepare_seconds)
                    if checkpoint is not None and whole:
                        checkpoint.record(part, outcome)
                except concurrent.futures.BrokenExecutor as exc:
                    state.failed(part, exc)
                    broken = True
                except Exception as exc:  # a part that fails is reported, never dropped
                    state.failed(part, exc)
            if broken or (settings.mode == "one" and state.found_any):
                break
    finally:
        if in_flight or not exhausted:
            halt.set()
            for part, handed_over in in_flight.values():
                if state.errors:
                    state.failed(part, RuntimeError("not finished: the run stopped after a failed part"))
                else:
                    why = Termination.TIME_LIMIT if timed_out else Termination.INTERRUPTED
                    state.stopped(part, why, time.perf_counter() - handed_over)
            _halt(executor)
        else:
            executor.shutdown(wait=True)
        submitter.close()
    if submitter.parcels:
        details["models_sent"] = submitter.models_sent
    if prepare_seconds:
        details["part_prepare_seconds_max"] = max(prepare_seconds)
        details["part_prepare_seconds_mean"] = sum(prepare_seconds) / len(prepare_seconds)
    if checkpoint is not None:
        details["parts_from_checkpoint"] = checkpoint.replayed
    return _result(plan, state, details, timed_out, exhausted and not in_flight)


def _part_settings(settings: SolveSettings, deadline: float | None) -> SolveSettings:
    """A part's settings: what is left of the run's time limit."""
    remaining = None if deadline is None else max(0.01, deadline - time.perf_counter())
    return attrs.evolve(settings, time_limit=remaining)


def _result(plan: Plan, state: _SplitRun, details: dict, timed_out: bool, all_done: bool) -> Outcome:
    mode = plan.settings.mode
    log.info("split done: parts solved %d, removed before search %d", len(state.seconds), state.removed)
    details["parts_solved"] = len(state.seconds)
    details["parts_removed_before_search"] = state.removed
    if state.seconds:
        details["part_seconds_max"] = max(state.seconds)
        details["part_seconds_sum"] = sum(state.seconds)
    if state.feasible_seconds:
        details["feasible_part_seconds_min"] = min(state.feasible_seconds)
    if state.reports_dropped:
        details["subproblem_reports"] = f"first {len(state.reports)} kept, {state.reports_dropped} more not kept"
    reports = tuple(state.errors + state.reports)
    if state.errors:
        first = state.errors[0]
        message = f"part {first.key!r} failed ({first.error}); the answer is incomplete"
        if len(state.errors) > 1:
            message += f" ({len(state.errors)} parts failed)"
        found = Found.FEASIBLE if state.found_any else Found.NONE
        return Outcome(Termination.ERROR, found, "part failed", message=message, subproblems=reports, details=details)
    if mode == "one" and state.found_any:
        return Outcome(Termination.COMPLETED, Found.FEASIBLE, "solution found", subproblems=reports, details=details)
    complete = all_done and not state.cut_short
    if complete:
        termination = Termination.COMPLETED
        found = Found.FEASIBLE if state.found_any else Found.INFEASIBLE
    else:
        stopped = state.stop.is_set()
        termination = (
            Termination.TIME_LIMIT if not stopped and (timed_out or state.cut_short) else Termination.INTERRUPTED
        )
        found = Found.FEASIBLE if state.found_any else Found.NONE
    count = state.count if mode in ("all", "count") else None
    return Outcome(
        termination,
        found,
        "all parts solved" if complete else "parts left",
        count,
        subproblems=reports,
        details=details,
    )


def speedup_measures(unsplit_seconds: float, reports: tuple[SubproblemReport, ...]) -> dict[str, float]:
    """The paper's measures against a known unsplit time T_full.

    ``T_full / max_i T_i`` (all solutions: the slowest part bounds a parallel run),
    ``T_full / min_i T_i`` over parts that found a tiling (one solution), and the
    serial overhead ``sum_i T_i / T_full``.
    """
    times = [report.seconds for report in reports if report.error is None and report.seconds > 0]
    feasible = [
        report.seconds for report in reports if report.found in (Found.FEASIBLE, Found.OPTIMAL) and report.seconds > 0
    ]
    measures: dict[str, float] = {"unsplit_seconds": unsplit_seconds}
    if times:
        measures["speedup_all"] = unsplit_seconds / max(times)
        measures["serial_overhead"] = sum(times) / unsplit_seconds
    if feasible:
        measures["speedup_one"] = unsplit_seconds / min(feasible)
    return measures
