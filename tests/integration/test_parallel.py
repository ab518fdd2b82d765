"""Split runs: counts add up to oracle counts, a failed part is never a wrong total,
mode one stops the other parts, the time limit covers the whole run."""

import multiprocessing.connection
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import polytile_checkerboard
import polytile_cpsat
import pytest
from polytile_cpsat import CpsatBackend

from polytile_core import hookimpl
from polytile_core.cli.commands.solve import STREAMED_KEEP, header_of
from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import PieceSpec, Pipeline, RegionSpec, SolveSpec, SplitSpec
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.output.reading import read_result
from polytile_core.output.resultfile import ResultLines
from polytile_core.output.results import Found, SubproblemReport, Termination
from polytile_core.solve import split
from polytile_core.solve.run import run
from polytile_core.testing import count_tilings_brute_force

L4 = ["#.", "#.", "##"]


def part_key_of(model) -> str:
    """The variant counts of a part model, from its count rows ("L:a=1 L:b=1")."""
    return " ".join(f"{c.name.split()[1]}={c.rhs}" for c in model.constraints if c.name.startswith("variant "))


@attrs.frozen
class InjectedOptions:
    fail: str = ""  # parts (by variant counts, substring) that raise
    fast: str = ""  # parts solved at once; every other part sleeps (when slow is set)
    slow: bool = False
    pid_dir: str = ""
    found_then_slow: bool = False  # each part finds one tiling, then sleeps until stopped
    ballast: str = ""  # a folder: the first part to claim it dies half-way through sending its answer


class InjectingBackend:
    """CP-SAT, except that chosen parts raise or sleep until stopped (or their time limit)."""

    def __init__(self, options=None):
        self.options = options or InjectedOptions()

    def solve(self, model, settings, on_solution, stop):
        key = part_key_of(model)
        if self.options.pid_dir:
            Path(self.options.pid_dir, str(os.getpid())).touch()
        if self.options.fail and self.options.fail in key:
            raise RuntimeError("the solver crashed")
        if self.options.ballast:
            answer = CpsatBackend().solve(model, settings, on_solution, stop)
            if _claimed(Path(self.options.ballast)):
                multiprocessing.connection.Connection._send = _dies_halfway  # type: ignore[method-assign]
                return attrs.evolve(answer, details={"ballast": b"x" * 4_000_000})
            return answer
        if self.options.found_then_slow:
            found: list[list[int]] = []  # its count is what it handed on (CP-SAT may call one tiling optimal)

            def handed(ones: list[int]) -> None:
                found.append(ones)
                on_solution(ones)

            answer = CpsatBackend().solve(model, attrs.evolve(settings, mode="one"), handed, stop)
            _sleep(settings, stop)
            return attrs.evolve(answer, termination=Termination.TIME_LIMIT, count=len(found))
        if self.options.slow and not (self.options.fast and self.options.fast in key):
            _sleep(settings, stop)
            from polytile_core.host.contracts import BackendResult

            return BackendResult(Termination.TIME_LIMIT, Found.NONE, "slept")
        return CpsatBackend().solve(model, settings, on_solution, stop)


def _claimed(folder: Path) -> bool:
    """Whether this process is the first to claim ``folder``."""
    try:
        os.close(os.open(folder / "sender", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def _dies_halfway(connection, buffer) -> None:
    """In place of ``Connection._send`` in a worker: a long message (the answer) is cut off
    half-way by the worker's death, as a kill at that moment would cut it; shorter ones go."""
    view = memoryview(buffer)
    cut = len(view) // 2 if len(view) > 1_000_000 else len(view)
    sent = 0
    while sent < cut:
        sent += os.write(connection.fileno(), view[sent:cut])
    if cut < len(view):
        os.kill(os.getpid(), signal.SIGKILL)


def _sleep(settings, stop) -> None:
    """Until the part's time limit (or 120 s) or the stop."""
    ends = time.monotonic() + (settings.time_limit or 120)
    while time.monotonic() < ends and not stop.wait(0.05):
        pass


class InjectingPlugin:
    @hookimpl
    def polytile_register_backends(self, register):
        register("test", InjectingBackend, options=InjectedOptions, help="CP-SAT with injected failures")


HOST = Host(autoload=False, plugins=[polytile_checkerboard, polytile_cpsat, InjectingPlugin()])


def plan(
    pieces,
    width=None,
    height=None,
    rows=None,
    mode="count",
    backend="cpsat",
    executor="process",
    jobs=2,
    time_limit=None,
    order="balanced",
    test=None,
    host=HOST,
):
    options = {"checkerboard": {"order": order}}
    if test:
        options["test"] = test
    pipeline = Pipeline(
        region=RegionSpec(rows=rows, width=width, height=height),
        pieces=pieces,
        solve=SolveSpec(mode=mode, backend=backend, executor=executor, jobs=jobs, time_limit=time_limit),
        split=SplitSpec(method="checkerboard"),
        options=options,
    )
    return make_plan(pipeline, host)


def brute(width, height, rows, kind, copies):
    piece = PieceType("L", cells_from_rows(rows), kind, copies, copies)
    return count_tilings_brute_force(Region.rectangle(width, height).cells, [piece])


@pytest.mark.parametrize("executor", ["process", "thread"])
@pytest.mark.parametrize(
    "case, expected",
    [
        (dict(width=4, height=2, pieces=[PieceSpec(name="L", shape=L4, count=2)]), 2),  # oracles.md
        (dict(rows=["##.", "###", "###"], pieces=[PieceSpec(name="D", shape=["##"], unlimited=True)]), 4),
        (dict(width=6, height=5, pieces=[PieceSpec(name="L", shape=["#.", "##"], unlimited=True)]), 72),
        (dict(width=4, height=4, pieces=[PieceSpec(name="L", shape=L4, count=4)]), brute(4, 4, L4, "free", 4)),
        (
            dict(width=6, height=4, pieces=[PieceSpec(name="L", shape=L4, count=6, kind="one-sided")]),
            brute(6, 4, L4, "one-sided", 6),
        ),
    ],
)
def test_counts_of_the_parts_add_up_to_the_unsplit_count(case, expected, executor):
    result = run(plan(executor=executor, **case))
    assert (result.termination, result.count) == (Termination.COMPLETED, expected)
    assert sum(report.count for report in result.subproblems) == expected
    assert len(result.subproblems) == result.details["subproblems"]
    assert len({report.key for report in result.subproblems}) == len(result.subproblems)


def test_all_mode_streams_every_tiling_of_every_part():
    seen = []
    result = run(plan([PieceSpec(name="L", shape=L4, count=4)], 4, 4, mode="all"), on_solution=seen.append)
    expected = brute(4, 4, L4, "free", 4)
    assert result.count == len(seen) == len(result.solutions) == expected
    assert len({tuple(sorted(p.cells for p in s.placements)) for s in seen}) == expected


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_a_failed_part_makes_the_run_an_error_never_a_total(executor):
    result = run(
        plan(
            [PieceSpec(name="L", shape=L4, count=2)],
            4,
            2,
            executor=executor,
            backend="test",
            test={"fail": "L:a=1 L:b=1"},
        )
    )
    assert result.termination == Termination.ERROR
    assert result.count is None
    assert "L:a=1 L:b=1" in result.message and "the solver crashed" in result.message
    failed = [report for report in result.subproblems if report.error]
    assert [report.key for report in failed] == ["L:a=1 L:b=1"]


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_the_first_tiling_stops_the_other_parts(executor, tmp_path):
    started = time.perf_counter()
    result = run(
        plan(
            [PieceSpec(name="L", shape=L4, count=2)],
            4,
            2,
            mode="one",
            executor=executor,
            jobs=3,
            backend="test",
            order="lexicographic",
            test={"slow": True, "fast": "L:a=2", "pid_dir": str(tmp_path)},
        )
    )
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.FEASIBLE)
    assert time.perf_counter() - started < 30  # the other parts would sleep 120 s
    if executor == "process":
        time.sleep(0.5)
        for pid in (int(path.name) for path in tmp_path.iterdir()):
            assert not _running(pid)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in state


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_the_time_limit_covers_the_whole_run(executor):
    started = time.perf_counter()
    result = run(
        plan(
            [PieceSpec(name="L", shape=L4, count=4)],
            4,
            4,
            executor=executor,
            backend="test",
            time_limit=2,
            test={"slow": True},
        )
    )
    assert time.perf_counter() - started < 30
    assert result.termination == Termination.TIME_LIMIT
    assert result.found == Found.NONE


def test_reports_of_a_huge_split_are_capped_and_say_so(monkeypatch):
    monkeypatch.setattr(split, "MAX_REPORTS", 2)
    result = run(plan([PieceSpec(name="L", shape=L4, count=4)], 4, 4, executor="thread"))
    assert len(result.subproblems) == 2
    assert "first 2 kept" in result.details["subproblem_reports"]
    assert result.count == brute(4, 4, L4, "free", 4)


def test_speedup_measures_follow_the_paper():
    reports = (
        SubproblemReport(Termination.COMPLETED, Found.FEASIBLE, count=1, key="a", seconds=2.0),
        SubproblemReport(Termination.COMPLETED, Found.INFEASIBLE, count=0, key="b", seconds=4.0),
        SubproblemReport(Termination.COMPLETED, Found.FEASIBLE, count=3, key="c", seconds=1.0),
    )
    measures = split.speedup_measures(8.0, reports)
    assert measures["speedup_all"] == 2.0  # 8 / max(2, 4, 1)
    assert measures["speedup_one"] == 8.0  # 8 / fastest part with a tiling
    assert measures["serial_overhead"] == 7.0 / 8.0


@pytest.mark.slow
@pytest.mark.parametrize(
    "case, expected",
    [
        (dict(rows=["########."] + ["#########"] * 8, pieces=[PieceSpec(name="L", shape=L4, count=20)]), 1_709_594),
        (dict(width=10, height=6, pieces=[PieceSpec(family="pentominoes")]), 9_356),
    ],
)
def test_split_counts_add_up_with_the_exact_cover_backend(case, expected):
    """oracles.md counts, summed over the subproblems by another backend."""
    exactcover = pytest.importorskip("polytile_exactcover")
    host = Host(autoload=False, plugins=[polytile_checkerboard, polytile_cpsat, exactcover])
    result = run(plan(backend="exactcover", host=host, **case))
    assert (result.termination, result.count) == (Termination.COMPLETED, expected)
    assert sum(report.count for report in result.subproblems) == expected


@pytest.mark.parametrize("backend, expected", [("exactcover", "thread"), ("cpsat", "process")])
def test_the_default_executor_takes_threads_only_for_a_backend_that_searches_outside_the_gil(backend, expected):
    """exactcover declares ``releases_gil`` (its kernels are C that lets go of the GIL), so
    its parts share one process; CP-SAT's go to a process pool.  The result says which."""
    exactcover = pytest.importorskip("polytile_exactcover")
    host = Host(autoload=False, plugins=[polytile_checkerboard, polytile_cpsat, exactcover])
    pieces = [PieceSpec(name="L", shape=L4, count=4)]
    result = run(plan(backend=backend, executor="auto", host=host, width=4, height=4, pieces=pieces))
    assert (result.termination, result.count) == (Termination.COMPLETED, brute(4, 4, L4, "free", 4))
    assert result.details["executor"].startswith(f"{expected} (auto: ")
    named = run(plan(backend=backend, executor="process", host=host, width=4, height=4, pieces=pieces))
    assert named.details["executor"] == "process"


HALTED_MID_SEND = """
import concurrent.futures, multiprocessing, os, sys, threading, time
from polytile_core.solve import split

def big(marker):
    open(marker, "w").close()
    return b"x" * 300_000_000  # its send through the pool's pipe takes a while

def main():
    if sys.argv[2] == "unmended":
        split._not_waited_for_at_exit = lambda manager: None
    def work():  # as a run does it: the pool started from a daemon thread
        pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"))
        pool.submit(big, sys.argv[1])
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.001)
        time.sleep(0.4)  # the worker is sending its answer now
        split._halt(pool)
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join()

if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("variant", ["mended", pytest.param("unmended", marks=pytest.mark.slow)])
def test_a_pool_halted_while_a_worker_sends_lets_python_exit(tmp_path, variant):
    """A worker killed in the middle of sending its answer left half a message in the
    pool's pipe, and Python's exit waited for the rest for ever (a listing on processes
    under a time limit hung in 3 runs of 6).  ``unmended`` (slow) shows the test can fail:
    without the mend the script does not end."""
    script = tmp_path / "halt.py"
    script.write_text(HALTED_MID_SEND)
    command = [sys.executable, str(script), str(tmp_path / "sending"), variant]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=40)
    except subprocess.TimeoutExpired:
        assert variant == "unmended", "Python's exit waited for the halted pool"
        return
    assert variant == "mended", "the unmended script ended: the test no longer catches the hang"
    assert done.returncode == 0, done.stderr[-2000:]


SIGTERM_IN_WORKERS = """
import multiprocessing, signal
from polytile_core.host.builtin import _process_pool

def sigterm():
    return signal.getsignal(signal.SIGTERM)

if __name__ == "__main__":
    with _process_pool(1) as ours:  # starts the forkserver, which ignores SIGTERM
        print(ours.submit(sigterm).result() == signal.SIG_IGN)
    with multiprocessing.get_context("forkserver").Pool(1) as theirs:  # the same forkserver
        print(theirs.apply(sigterm) == signal.SIG_DFL)
"""


def test_polytile_s_workers_ignore_sigterm_and_another_pool_s_workers_do_not(tmp_path):
    """polytile's pool workers leave SIGTERM to the run, and so does the forkserver they
    come from (it preloads ``host/forkserver_preload.py``); another pool of the same
    process, started from the same forkserver, gets the default back."""
    script = tmp_path / "sigterm.py"
    script.write_text(SIGTERM_IN_WORKERS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]


EMBEDDED_PRELOAD = """
import multiprocessing, signal, sys
from polytile_core.host.builtin import _process_pool

def state():
    return "embedded" in sys.modules, signal.getsignal(signal.SIGTERM) == signal.SIG_IGN

if __name__ == "__main__":
    multiprocessing.set_forkserver_preload(["embedded"])  # the embedding program's own
    with _process_pool(1) as ours:
        print(*ours.submit(state).result())
"""


def test_an_embedding_program_s_forkserver_preload_is_kept(tmp_path):
    """A program that embeds polytile may have named modules for the forkserver to
    preload; polytile's pool adds its own to that list (it replaced the list, and the
    program's workers came up without its modules)."""
    (tmp_path / "embedded.py").write_text("LOADED = True\n")
    script = tmp_path / "embedding.py"
    script.write_text(EMBEDDED_PRELOAD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]


LOST_MID_SEND = """
import sys
sys.path.insert(0, sys.argv[1])
from test_parallel import L4, PieceSpec, plan, run

if __name__ == "__main__":
    result = run(plan([PieceSpec(name="L", shape=L4, count=4)], 4, 4, backend="test", test={"ballast": sys.argv[2]}))
    print(result.termination.value, result.message)
"""


def test_a_worker_killed_while_it_sends_fails_its_run_instead_of_hanging_it(tmp_path):
    """A worker that dies half-way through sending its answer, in a run with no time limit:
    the pool waits for the rest of that message for ever, and the run waited with it.
    Now the parts in flight fail after ``split.LOST_WORKER_SECONDS`` and the run ends.
    The worker cuts its own message off (a kill timed from outside landed in the send on a
    quiet machine, and before it on a busy one)."""
    script = tmp_path / "lost.py"
    script.write_text(LOST_MID_SEND)
    command = [sys.executable, str(script), str(Path(__file__).parent), str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)  # a hang fails here
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("error part"), done.stdout
    assert "worker process died while it sent" in done.stdout, done.stdout


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_a_split_ended_by_its_time_limit_keeps_what_its_running_parts_found(executor):
    """Each part finds a tiling, then runs past the run's deadline: the run hands on what
    the running parts found, each tiling once (it dropped them all: a listing of 6×10
    pentominoes by CP-SAT on two jobs wrote nothing in 8 s, on one job 217 tilings)."""
    started = time.perf_counter()
    streamed = []
    result = run(
        plan(
            [PieceSpec(name="L", shape=L4, count=4)],
            4,
            4,
            mode="all",
            executor=executor,
            backend="test",
            time_limit=3,
            test={"found_then_slow": True},
        ),
        on_solution=streamed.append,
    )
    assert time.perf_counter() - started < 3 + split.GRACE + 5
    assert result.termination == Termination.TIME_LIMIT
    assert result.count == len(streamed) > 0
    region = set(Region.rectangle(4, 4).cells)
    tilings = set()
    for solution in streamed:
        cells = [cell for placed in solution.placements for cell in placed.cells]
        assert len(cells) == len(region) and set(cells) == region
        tilings.add(frozenset(tuple(placed.cells) for placed in solution.placements))
    assert len(tilings) == len(streamed)


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_a_stopped_split_keeps_what_its_running_parts_found(executor, tmp_path):
    """A stop (a Ctrl-C) while each running part has found a tiling and searches on: the
    run asks the parts to stop and writes what they found to its .jsonl file, as the
    command line does, each tiling once.  A process pool's parts were killed instead: a
    listing of 6×10 pentominoes by CP-SAT on two jobs, stopped after 6 s, wrote nothing."""
    listing = plan(
        [PieceSpec(name="L", shape=L4, count=4)],
        4,
        4,
        mode="all",
        executor=executor,
        backend="test",
        test={"found_then_slow": True},
    )
    listing = attrs.evolve(listing, keep=STREAMED_KEEP)  # as the command line streams to .jsonl
    path = tmp_path / "stopped.jsonl"
    lines = ResultLines(path, header_of(listing))
    stop = threading.Event()
    threading.Timer(3, stop.set).start()
    started = time.perf_counter()
    result = run(listing, on_solution=lines.add, on_line=lines.add_lines, stop=stop)
    lines.finish(result)
    assert time.perf_counter() - started < 3 + split.GRACE + 5
    written = read_result(path)
    assert written.termination == Termination.INTERRUPTED
    assert written.count == len(written.solutions) > 0
    region = set(Region.rectangle(4, 4).cells)
    tilings = set()
    for solution in written.solutions:
        cells = [cell for placed in solution.placements for cell in placed.cells]
        assert len(cells) == len(region) and set(cells) == region
        tilings.add(frozenset(tuple(placed.cells) for placed in solution.placements))
    assert len(tilings) == len(written.solutions)
