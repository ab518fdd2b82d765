"""Race several ways to the same answer in separate processes; the first answer wins.

Each entrant runs ``target(*args)`` in a fresh interpreter of its own
(``python -m polytile_core.solve.racers``, started like multiprocessing's spawn, never forked
from this process, and never re-importing the caller's main script, so an embedding
program needs no ``__main__`` guard).  The first return value that ``is_answer``
accepts wins, and every other process is killed at once: a solver deep in C cannot
be asked to stop across processes.

No process outlives the race.  The caller kills them when the race ends, however it
ends (an answer, ``stop``, the deadline, Ctrl-C: the racers run in a session of their
own, so a terminal's Ctrl-C reaches only the caller, who then kills them).  And a
racer's standard input is its *lifeline*: the caller never closes it, so when the
caller dies, even by SIGKILL, the racer reads end-of-file and exits at once.
"""

from __future__ import annotations

import multiprocessing.connection
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

import attrs

# Seconds between looks at ``stop`` and the deadline while waiting for an answer.
POLL = 0.05


@attrs.frozen
class Entrant:
    """One way to the answer: a name for reports and a picklable call."""

    name: str
    target: Callable[..., Any]
    args: tuple = ()


@attrs.frozen
class Lap:
    """How one entrant's race ended: ``won``, ``stopped`` (another won, or the race was
    stopped), ``finished`` (returned something that was not an answer) or ``error``."""

    name: str
    seconds: float
    outcome: str
    value: Any = None
    error: str | None = None


@attrs.define
class _Racer:
    entrant: Entrant
    process: subprocess.Popen
    lifeline: IO[bytes]  # the racer's standard input
    answer: IO[bytes]  # its standard output
    started: float


def _start(entrant: Entrant) -> _Racer:
    process = subprocess.Popen(
        [sys.executable, "-m", "polytile_core.solve.racers"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # A racer says what went wrong in its answer; what else it would print (a solver's
        # log, Python's complaints while it is killed) would only clutter the caller's terminal.
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    call = pickle.dumps((entrant.target, entrant.args))
    try:
        process.stdin.write(pickle.dumps((sys.path, call)))
        process.stdin.flush()  # stdin stays open: it is the racer's lifeline
    except BrokenPipeError:
        pass  # the racer died at once; its missing answer is reported as its lap
    return _Racer(entrant, process, process.stdin, process.stdout, time.perf_counter())


def race(
    entrants: Sequence[Entrant],
    is_answer: Callable[[Any], bool],
    stop: threading.Event,
    deadline: float | None = None,
    here: Sequence[Entrant] = (),
) -> tuple[Lap | None, list[Lap]]:
    """Run every entrant at once; return the winning lap (``None`` when none answered
    before ``stop`` or the ``deadline``, a ``time.perf_counter()`` value) and every lap,
    in the entrants' order, then those of ``here``: calls made in this process, one
    after the other in a thread of their own while the racers run (what they need may
    already be here, such as a model).  They cannot be stopped, so they must be bounded;
    the race does not wait for them once it has a winner.  Racers are read as they finish."""
    racers: list[_Racer] = []
    laps: dict[int, Lap] = {}
    winner: Lap | None = None
    extra: list[Lap] = []
    here_done = threading.Event()
    try:
        for entrant in entrants:
            racers.append(_start(entrant))
        if here:
            threading.Thread(
                target=_run_here, args=(here, extra, here_done), name="polytile-race-here", daemon=True
            ).start()
        else:
            here_done.set()
        waiting: dict[Any, int] = {racer.answer: index for index, racer in enumerate(racers)}
        checked = 0  # laps of ``extra`` already looked at
        while (waiting or not here_done.is_set()) and winner is None and not stop.is_set():
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if waiting:
                ready_ones = multiprocessing.connection.wait(list(waiting), timeout=POLL)
            else:
                here_done.wait(POLL)
                ready_ones = []
            for ready in ready_ones:  # two can finish within one wait: the first read wins
                index = waiting.pop(ready)
                lap = _lap(racers[index])
                if winner is None and lap.outcome == "finished" and is_answer(lap.value):
                    lap = attrs.evolve(lap, outcome="won")
                    winner = lap
                laps[index] = lap
            for number in range(checked, len(extra)):
                lap = extra[number]
                if winner is None and lap.outcome == "finished" and is_answer(lap.value):
                    winner = extra[number] = attrs.evolve(lap, outcome="won")
            checked = len(extra)
    finally:
        now = time.perf_counter()
        for racer in racers:
            if racer.process.poll() is None:
                racer.process.kill()
        for index, racer in enumerate(racers):
            racer.process.wait()
            racer.lifeline.close()
            racer.answer.close()
            if index not in laps:
                laps[index] = Lap(racer.entrant.name, now - racer.started, "stopped")
    ran_here = list(extra)
    ran_here += [Lap(entrant.name, 0.0, "stopped") for entrant in here[len(ran_here) :]]
    return winner, [laps[index] for index in range(len(racers))] + ran_here


def _run_here(here: Sequence[Entrant], laps: list[Lap], done: threading.Event) -> None:
    """Make the calls of ``here`` one after the other, appending a lap for each."""
    try:
        for entrant in here:
            started = time.perf_counter()
            try:
                value = entrant.target(*entrant.args)
            except Exception as exc:  # reported as this entrant's lap, like a racer's error
                error = f"{type(exc).__name__}: {exc}"
                laps.append(Lap(entrant.name, time.perf_counter() - started, "error", error=error))
                continue
            laps.append(Lap(entrant.name, time.perf_counter() - started, "finished", value))
    finally:
        done.set()


def _lap(racer: _Racer) -> Lap:
    """Read what a racer sent (it writes once, then exits)."""
    data = racer.answer.read()
    seconds = time.perf_counter() - racer.started
    try:
        kind, value = pickle.loads(data)
    except Exception:  # nothing, or a torn message: the racer died on the way
        code = racer.process.wait()
        return Lap(
            racer.entrant.name, seconds, "error", error=f"the process ended without an answer (exit code {code})"
        )
    if kind == "error":
        return Lap(racer.entrant.name, seconds, "error", error=value)
    return Lap(racer.entrant.name, seconds, "finished", value)


def _exit_when_orphaned(lifeline: IO[bytes]) -> None:
    """End this racer as soon as the caller's end of the lifeline is closed."""
    try:
        while lifeline.read(1 << 16):
            pass
    except OSError:
        pass
    os._exit(1)


def _serve() -> None:
    """The body of a racing process: read the call, run it, send back the value or the error."""
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a solver's log must not mix into the answer
    lifeline = sys.stdin.buffer
    path, call = pickle.load(lifeline)
    sys.path[:] = path
    threading.Thread(target=_exit_when_orphaned, args=(lifeline,), name="polytile-lifeline", daemon=True).start()
    try:
        target, args = pickle.loads(call)
        message = ("value", target(*args))
    except BaseException as exc:  # sent to the caller, who reports it as this entrant's lap
        message = ("error", f"{type(exc).__name__}: {exc}".rstrip(": "))
    answer.write(pickle.dumps(message))
    answer.close()
    os._exit(0)


if __name__ == "__main__":
    _serve()
