"""Solve the parts of a split through an executor, a bounded number at a time.

The loop is deliberately plain: pull a part from the (lazy, possibly astronomic)
iterator, submit it, collect whatever finished, repeat.  At most ``2 × jobs`` parts are
in flight, so memory does not grow with the number of parts.  Each part has a stable
``key`` (from the decomposer), which is what a report or a checkpoint refers to.

Counts add up because a split partitions the solutions.  In mode ``one`` the first
part with a tiling ends the run: queued parts are cancelled and a process pool's
workers are killed.  A run stopped or out of time asks its running parts to stop (on
threads they see the run's stop; a pool that ``StopsItsParts`` is asked) and takes back
what they found, for up to ``GRACE`` seconds, before it kills what is left.
A part that fails is reported with its key and makes the run an ``error``: a total
with a missing part would be wrong, so none is claimed.

A part with ``fixed`` variables (the tree split) is sent as its model's key and the
indices (``polytile_core.solve.parcels``), once the workers hold the model (``_Submitter``).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
import uuid

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.contracts import SolveSettings, StopsItsParts
from polytile_core.model.parts import Part, Split
from polytile_core.model.zero_one import BuildStopped, Model
from polytile_core.output.results import Found, PlacedPiece, Solution, SubproblemReport, Termination
from polytile_core.solve.collect import solution_of
from polytile_core.solve.context import RunContext
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.parcels import ModelNeeded, ModelParcel, forget, model_of
from polytile_core.solve.workers import Lines, PartOutcome, solve_fixed_part, solve_part

log = logging.getLogger("polytile")

# Parts reports kept in a Result; a huge split keeps the first ones (and says so).
MAX_REPORTS = 1000
# Parts in flight per job: enough to keep every worker busy while results come back.
IN_FLIGHT_PER_JOB = 2
# Jobs that parts are kept in flight for, however many a run asks for.
MOST_WORKERS = 4096
# A part's solutions are handed on in batches of this many (their lines written at once);
# a stop is seen between two batches.
HANDED_AT_ONCE = 4096
# When the run ends by its time limit or a stop, the seconds it waits for the parts still
# running to hand back what they found: parts on threads see the stop, a process pool's
# are asked (``StopsItsParts``), and every part's own time limit is the run's deadline
# (``workers.solve_part``'s ``sent_at``), so a part elsewhere (Dask) stops by it too.  A
# part that has not answered by then is stopped (killed, on processes) and its solutions
# are lost; the result says the run was cut short.
GRACE = 0.5
# How long the parts on a process pool may all stay unanswered while one of its workers
# is dead.  The pool notices a worker that dies and fails its parts at once, unless the
# worker died while it sent its answer: then the pool waits for the rest of that message
# for ever, and so would the run.  After this long it fails the parts in flight instead.
LOST_WORKER_SECONDS = 2.0


def solve_split(plan: Plan, model: Model, context: RunContext) -> Outcome:
    """Split the plan's problem with its decomposer and solve the parts through its executor."""
    assert plan.split is not None and plan.backend is not None, "a split run has its split and backend"
    split = plan.split.provides.split(plan.tiling_problem(), model, plan.build, plan.split.options, jobs=plan.jobs)
    context.state.parts_total = split.total
    log.info("split %s: %s parts on %d jobs", plan.split.name, "?" if split.total is None else split.total, plan.jobs)
    details: dict = {"split": plan.split.name, **{f"split_{key}": value for key, value in split.summary.items()}}
    if split.total is not None:
        details["subproblems"] = split.total
    if split.impossible:
        details["certificate"] = details["split"]  # the decomposer's proof, said in the message
        return Outcome(
            termination=Termination.COMPLETED,
            found=Found.INFEASIBLE,
            raw_status="no subproblem",
            count=0 if plan.settings.mode in ("all", "count") else None,
            message=split.impossible,
            details=details,
        )
    return SplitRunner(plan, context, details).run(split)


class SplitRunner:
    """One split run: hands the parts to the executor, a bounded number at a time, takes
    their answers back (solutions to the collector, counts to the total, each finished
    part to the checkpoint) and says what the parts came to."""

    def __init__(self, plan: Plan, context: RunContext, details: dict):
        assert plan.split is not None
        self.plan = plan
        self.context = context
        self.details = details
        self.mode = plan.settings.mode
        # Parts that are subtrees of one search are counted by search (SolveSettings.subtree).
        self.settings = attrs.evolve(plan.settings, subtree=plan.split.capabilities.subtrees)
        self.count = 0
        self.found_any = False
        self.errors: list[SubproblemReport] = []
        self.reports: list[SubproblemReport] = []
        self.reports_dropped = 0
        self.removed = 0
        self.cut_short = False  # some part hit the time limit or was stopped
        self.timed_out = False
        self.seconds: list[float] = []
        self.feasible_seconds: list[float] = []
        self.prepare_seconds: list[float] = []
        # The placed pieces of the model that parts with fixed variables share (the whole one).
        self.shared_pieces: dict[int, PlacedPiece] = {}
        # Parts handed to the executor, with when each was handed over.
        self.in_flight: dict[concurrent.futures.Future, tuple[Part, float]] = {}
        # When a dead worker was first seen with no part answering since (``_take_back``):
        # while set, the pool is halted at the end, never joined.
        self.lost_since: float | None = None

    def run(self, split: Split) -> Outcome:
        plan, context = self.plan, self.context
        runner, why = plan.parts_executor()
        self.details["executor"] = runner.name if why is None else f"{runner.name} ({why})"
        executor = runner.provides(plan.jobs, runner.options)
        # Workers in this process watch an event; a pool that stops its parts is asked.
        halt = threading.Event()
        shared_stop = halt if isinstance(executor, concurrent.futures.ThreadPoolExecutor) else None
        asked = isinstance(executor, StopsItsParts)
        submitter = _Submitter(plan, executor, shared_stop, local=shared_stop is not None)
        limit = max(1, min(plan.jobs, MOST_WORKERS) * IN_FLIGHT_PER_JOB)
        parts = iter(split.parts)
        exhausted = False
        making_stopped = False
        try:
            while True:
                if context.ended():
                    self.timed_out = not context.stop.is_set()
                    break
                while not exhausted and len(self.in_flight) < limit and not halt.is_set():
                    try:
                        part = next(parts, None)
                    except BuildStopped:  # making the part's model met the time limit or the stop
                        self.timed_out, making_stopped = not context.stop.is_set(), True
                        break
                    if part is None:
                        exhausted = True
                        break
                    self._hand_out(part, submitter)
                if not self.in_flight or making_stopped:
                    break
                if self._take_back(submitter) or (self.mode == "one" and self.found_any):
                    break
        finally:
            if self.in_flight or not exhausted or self.lost_since is not None:  # a lost pool is halted, not joined
                halt.set()
                if asked:
                    executor.stop_parts()
                if not self.errors and not (self.mode == "one" and self.found_any):
                    # Only parts that stop by themselves answer: on threads, asked, or at the deadline.
                    self._take_back_stopping(submitter, running=shared_stop is not None or asked or self.timed_out)
                for part, handed_over in self.in_flight.values():
                    if self.errors:
                        self.failed(part, RuntimeError("not finished: the run stopped after a failed part"))
                    else:
                        self.stopped(part, time.perf_counter() - handed_over)
                _halt(executor)
            else:
                executor.shutdown(wait=True)
            submitter.close()
        if submitter.parcels:
            self.details["models_sent"] = submitter.models_sent
        return self._outcome(all_done=exhausted and not self.in_flight)

    def _hand_out(self, part: Part, submitter: _Submitter) -> None:
        """A part the decomposer proved empty is solved; one the checkpoint holds is taken
        from it; any other goes to the executor."""
        if part.empty is not None:
            self.removed_before_search(part)
            return
        checkpoint = self.context.checkpoint
        recorded = checkpoint.replay(part) if checkpoint is not None else None
        if recorded is not None:
            self.finished(part, recorded)
            return
        lines = self.lines_for(part)
        future = submitter.submit(part, self._part_settings(), self.keep_for_part(lines), lines)
        self.in_flight[future] = (part, time.perf_counter())

    def _take_back_stopping(self, submitter: _Submitter, *, running: bool) -> None:
        """As the run ends: parts still queued are cancelled; with ``running``, what the
        running ones found is taken back as they stop, for up to ``GRACE`` seconds.  (Only
        a local pool's futures say whether their part has started: a Dask future would
        cancel a running part and what it found, so there every part gets the grace.)"""
        local = isinstance(
            submitter.executor, (concurrent.futures.ThreadPoolExecutor, concurrent.futures.ProcessPoolExecutor)
        )
        for future in list(self.in_flight) if local else []:
            if future.cancel():
                part, handed_over = self.in_flight.pop(future)
                self.stopped(part, time.perf_counter() - handed_over)
        ends = time.monotonic() + GRACE
        while running and self.in_flight and time.monotonic() < ends:
            if self._take_back(submitter, again=False):
                break

    def _take_back(self, submitter: _Submitter, *, again: bool = True) -> bool:
        """Take what the parts that finished in the last moment found; True: the executor
        broke.  ``again``: a worker that lacks the model gets the part again with it."""
        done, _ = concurrent.futures.wait(self.in_flight, timeout=0.1, return_when=concurrent.futures.FIRST_COMPLETED)
        if not done:
            return self._gave_up_on_a_lost_worker(submitter.executor)
        self.lost_since = None
        broken = False
        for future in done:
            part, handed_over = self.in_flight.pop(future)
            try:
                outcome = future.result()
                if part.fixed is not None:
                    submitter.answered(outcome)
                if isinstance(outcome, ModelNeeded) and not again:
                    self.stopped(part, 0.0)
                    continue
                if isinstance(outcome, ModelNeeded):
                    lines = self.lines_for(part)
                    resent = submitter.submit(
                        part, self._part_settings(), self.keep_for_part(lines), lines, with_model=True
                    )
                    self.in_flight[resent] = (part, handed_over)
                    continue
                whole = self.finished(part, outcome)
                if part.fixed is not None:
                    self.prepare_seconds.append(outcome.prepare_seconds)
                if self.context.checkpoint is not None and whole:
                    self.context.checkpoint.record(part, outcome)
            except concurrent.futures.BrokenExecutor as exc:
                self.failed(part, exc)
                broken = True
            except Exception as exc:  # a part that fails is reported, never dropped
                self.failed(part, exc)
        return broken

    def _gave_up_on_a_lost_worker(self, executor: concurrent.futures.Executor) -> bool:
        """Whether a process pool's worker has been dead for ``LOST_WORKER_SECONDS`` with
        no part answering: then every part in flight is failed, as the pool would have
        failed them, and True is returned (the executor broke)."""
        processes = list((getattr(executor, "_processes", None) or {}).values())
        if not any(process.exitcode is not None for process in processes):
            self.lost_since = None
            return False
        now = time.monotonic()
        self.lost_since = self.lost_since or now
        if now - self.lost_since < LOST_WORKER_SECONDS:
            return False
        lost = concurrent.futures.BrokenExecutor(
            "a worker process died while it sent a part's answer; the pool cannot answer any more"
        )
        for part, _ in self.in_flight.values():
            self.failed(part, lost)
        self.in_flight.clear()
        return True

    def _part_settings(self) -> SolveSettings:
        """A part's settings: what is left of the run's time limit."""
        return attrs.evolve(self.settings, time_limit=self.context.deadline.left())

    def lines_for(self, part: Part) -> Lines | None:
        """A listing to .jsonl has its workers make the lines: a listing of millions is
        bound by making them, and the split's own thread has the parts to hand out and
        the file to write (workers that are processes or machines also share the work;
        threads share the GIL).  Not when the collector must
        see each solution (it ranks or filters them, or keeps them all), when a checkpoint
        records them, or when a part stands for copies of its pieces (made here)."""
        collector = self.context.collector
        if self.mode != "all" or collector.keep is None or self.context.checkpoint is not None:
            return None
        if part.copies != ((0, 0),) or not collector.takes_lines(part.model):
            return None
        return Lines(part.key, part.images)

    def keep_for_part(self, lines: Lines | None) -> int | None:
        """The solutions a part sends back; with ``lines`` (``lines_for``), only the first."""
        if self.mode == "count":
            return 0
        if self.mode == "all":
            if lines is not None:
                return self.context.collector.keep  # the others reach the stream as lines
            return None  # every one: keep bounds what the collector holds, never what reaches the stream
        return 1

    def report(self, report: SubproblemReport, *, done: bool = True) -> None:
        self.context.state.parts_done += done
        if report.error is not None:
            self.errors.append(report)
        elif len(self.reports) < MAX_REPORTS:
            self.reports.append(report)
        else:
            self.reports_dropped += 1

    def removed_before_search(self, part: Part) -> None:
        self.removed += 1
        count = 0 if self.mode != "one" else None
        self.report(
            SubproblemReport(Termination.COMPLETED, Found.INFEASIBLE, "removed before search", count, key=part.key)
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
        solutions = outcome.solutions
        if outcome.lines is not None:  # made by the worker, with the first of its solutions
            self.context.collector.add_lines(part.model, solutions, outcome.lines, outcome.lines_count, part.key)
            handed, solutions = outcome.lines_count, []
        for start in range(0, len(solutions), HANDED_AT_ONCE):
            if self.mode == "all" and self.context.stop.is_set():
                whole = False
                break
            batch = solutions[start : start + HANDED_AT_ONCE]
            for image in images:
                chosen = [sorted(map(image.__getitem__, ones)) for ones in batch] if image else batch
                if part.copies == ((0, 0),):
                    self.context.collector.add_many(part.model, chosen, {} if pieces is None else pieces, part.key)
                else:
                    for ones in chosen:
                        self.context.collector.add(whole_solution(part, ones, pieces))
            handed += len(batch) * len(images)
        count = answer.count
        if self.mode in ("all", "count") and count is None:
            count = len(outcome.solutions) if outcome.lines is None else outcome.lines_count // len(images)
        if count and part.images:
            count *= len(part.images)
        termination = answer.termination
        if not whole:
            count, termination = handed, Termination.INTERRUPTED
        if count:
            self.count += count
            self.context.state.counted = self.count
        self.seconds.append(outcome.seconds)
        if answer.found in (Found.FEASIBLE, Found.OPTIMAL):
            self.found_any = True
            self.feasible_seconds.append(outcome.seconds)
        if termination in (Termination.TIME_LIMIT, Termination.INTERRUPTED):
            self.cut_short = True
        error = f"backend error: {answer.raw_status}" if termination == Termination.ERROR else None
        self.report(
            SubproblemReport(
                termination, answer.found, answer.raw_status, count, key=part.key, seconds=outcome.seconds, error=error
            )
        )
        return whole

    def stopped(self, part: Part, seconds: float) -> None:
        """A part still running when the run ended (another part found a tiling, or time ran
        out), ``seconds`` after it was handed to the executor."""
        why = Termination.TIME_LIMIT if self.timed_out else Termination.INTERRUPTED
        self.report(SubproblemReport(why, Found.NONE, "stopped", key=part.key, seconds=seconds), done=False)

    def failed(self, part: Part, error: BaseException) -> None:
        message = f"{type(error).__name__}: {error}".rstrip(": ")
        self.report(SubproblemReport(Termination.ERROR, Found.NONE, "failed", key=part.key, error=message))

    def _outcome(self, *, all_done: bool) -> Outcome:
        mode, details = self.mode, self.details
        log.info("split done: parts solved %d, removed before search %d", len(self.seconds), self.removed)
        details["parts_solved"] = len(self.seconds)
        details["parts_removed_before_search"] = self.removed
        if self.seconds:
            details["part_seconds_max"] = max(self.seconds)
            details["part_seconds_sum"] = sum(self.seconds)
        if self.feasible_seconds:
            details["feasible_part_seconds_min"] = min(self.feasible_seconds)
        if self.prepare_seconds:
            details["part_prepare_seconds_max"] = max(self.prepare_seconds)
            details["part_prepare_seconds_mean"] = sum(self.prepare_seconds) / len(self.prepare_seconds)
        if self.context.checkpoint is not None:
            details["parts_from_checkpoint"] = self.context.checkpoint.replayed
        if self.reports_dropped:
            details["subproblem_reports"] = f"first {len(self.reports)} kept, {self.reports_dropped} more not kept"
        reports = tuple(self.errors + self.reports)
        if self.errors:
            first = self.errors[0]
            message = f"part {first.key!r} failed ({first.error}); the answer is incomplete"
            if len(self.errors) > 1:
                message += f" ({len(self.errors)} parts failed)"
            found = Found.FEASIBLE if self.found_any else Found.NONE
            return Outcome(
                Termination.ERROR, found, "part failed", message=message, subproblems=reports, details=details
            )
        if mode == "one" and self.found_any:
            return Outcome(
                Termination.COMPLETED, Found.FEASIBLE, "solution found", subproblems=reports, details=details
            )
        complete = all_done and not self.cut_short
        if complete:
            termination = Termination.COMPLETED
            found = Found.FEASIBLE if self.found_any else Found.INFEASIBLE
        else:
            stopped = self.context.stop.is_set()
            timed = not stopped and (self.timed_out or self.cut_short)
            termination = Termination.TIME_LIMIT if timed else Termination.INTERRUPTED
            found = Found.FEASIBLE if self.found_any else Found.NONE
        count = self.count if mode in ("all", "count") else None
        status = "all parts solved" if complete else "parts left"
        return Outcome(termination, found, status, count, subproblems=reports, details=details)


class _Submitter:
    """Submits parts to the executor.  A part with fixed variables carries its model until
    a worker is known to hold it, then travels without it; a worker that lacks it answers
    ``ModelNeeded`` and gets the part again with the model.  So the model travels a few
    times per worker (``details["models_sent"]``), however many parts there are."""

    def __init__(
        self, plan: Plan, executor: concurrent.futures.Executor, stop_event: threading.Event | None, *, local: bool
    ):
        self.plan = plan
        self.executor = executor
        self.stop_event = stop_event
        self.local = local  # threads of this process: they find the model in its cache
        self.parcels: dict[int, ModelParcel] = {}  # id(whole model) -> its parcel
        self.holders: set[str] = set()  # workers known to hold the model
        self.models_sent = 0

    def answered(self, outcome: PartOutcome | ModelNeeded) -> None:
        """Note which worker holds the model (or, from ``ModelNeeded``, does not)."""
        if isinstance(outcome, ModelNeeded):
            self.holders.discard(outcome.worker)
        elif outcome.worker:
            self.holders.add(outcome.worker)

    def submit(
        self, part: Part, settings: SolveSettings, keep: int | None, lines: Lines | None, *, with_model: bool = False
    ) -> concurrent.futures.Future:
        plan = self.plan
        assert plan.backend is not None, "a split run has its backend"
        if part.fixed is None:
            return self.executor.submit(
                solve_part,
                plan.backend.provides,
                plan.backend.options,
                part.model,
                settings,
                keep,
                self.stop_event,
                lines,
                time.time(),
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
            plan.backend.options,
            parcel,
            part.fixed,
            settings,
            keep,
            self.stop_event,
            lines,
            time.time(),
        )

    def close(self) -> None:
        for parcel in self.parcels.values():
            forget(parcel.key)


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
    manager = getattr(executor, "_executor_manager_thread", None)  # shutdown forgets it
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    if manager is not None:
        _not_waited_for_at_exit(manager)


def _not_waited_for_at_exit(manager: threading.Thread) -> None:
    """Leave a killed process pool's manager thread out of what Python waits for at exit.

    A worker killed while it sends its part (a listing's lines, megabytes) leaves half a
    message in the pool's result pipe: the manager thread then waits for the rest for
    ever, and ``concurrent.futures`` joins that thread when Python exits, so the run
    ended but the process never did (seen with ``executor = "process"`` and a time limit:
    3 runs in 6).  The thread is a daemon (started from the run's own daemon thread) and
    holds nothing of the result; only the exit's join is dropped.  Private to CPython's
    ``concurrent.futures.process`` (3.11 to 3.13), hence looked up with care."""
    from concurrent.futures import process

    waited = getattr(process, "_threads_wakeups", None)
    if manager.daemon and waited is not None:
        waited.pop(manager, None)


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
