"""Every phase holds the time limit and the stop event, and SIGTERM is Ctrl-C (issue 30).

The phases that once ran on past ``time_limit`` (the symmetries of a 60×60 board, a
tree split asked for a million jobs, the variant-count equations of a large board)
now end within about a second of it; a family too large to build is refused at once;
SIGTERM writes what was found, marked interrupted, with exit code 130 and no
temporary file left behind.  The fuzz test draws large and degenerate problems with a
fresh seed each run (printed on failure).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from polytile_tree import Brancher

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.model.symmetry import may_have_symmetries
from polytile_core.model.zero_one import BuildStopped, build_limits
from polytile_core.output.resultfile import remove_stale_temporaries
from polytile_core.output.results import Termination
from polytile_core.solve.run import run

ROOT = Path(__file__).resolve().parents[2]
# Seconds a run may take past its limit or its stop on a loaded two-core CI machine.
SLACK = 1.5


def timed(plan, stop: threading.Event | None = None):
    started = time.perf_counter()
    result = run(plan, stop=stop)
    return result, time.perf_counter() - started


def test_the_symmetries_of_a_60x60_board_hold_the_time_limit():
    plan = api.plan((60, 60), [api.family("pentominoes", unlimited=True)], mode="count", time_limit=2)
    result, seconds = timed(plan)
    assert result.termination == Termination.TIME_LIMIT
    assert seconds < 2 + SLACK, seconds


def test_a_tree_split_for_a_million_jobs_holds_the_time_limit_and_a_stop():
    plan = api.plan(
        (10, 6), [api.family("pentominoes")], split="tree", mode="count", backend="exactcover", jobs=10**6, time_limit=1
    )
    result, seconds = timed(plan)
    assert result.termination in (Termination.TIME_LIMIT, Termination.COMPLETED)
    assert seconds < 1 + SLACK, seconds
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    unlimited = api.plan(
        (10, 6), [api.family("pentominoes")], split="tree", mode="count", backend="exactcover", jobs=10**6
    )
    result, seconds = timed(unlimited, stop)
    assert seconds < 0.5 + SLACK, seconds


def test_a_family_too_large_to_build_is_refused_at_once():
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"1,903,890 fixed pieces") as raised:
        api.plan((13, 13), [api.family("n-ominoes", n=13, kind="fixed", unlimited=True)], time_limit=20)
    assert raised.value.path == "pieces[0].n"
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("side", [30, 100])
def test_analyze_ends_within_seconds_on_large_boards(tmp_path, side):
    pipeline = tmp_path / "large.toml"
    pipeline.write_text(
        f'[region]\nwidth = {side}\nheight = {side}\n\n[[pieces]]\nfamily = "pentominoes"\nunlimited = true\n'
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "polytile_core.cli.main", "analyze", str(pipeline)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert time.perf_counter() - started < 10
    if side == 100:
        assert "too many to analyse" in done.stdout


# A listing of 287,263 tilings that takes about half a minute on two cores (a 9×9 board
# with three holes and six kinds of piece, each a given number of times).
LONG_LISTING = ROOT / "benchmarks" / "pipelines" / "nine-e1.toml"


def _listing_command(tmp_path: Path) -> tuple[list[str], Path]:
    pipeline = tmp_path / "long.toml"
    pipeline.write_text(LONG_LISTING.read_text().replace('mode = "count"', 'mode = "all"'))
    output = tmp_path / "all.jsonl"
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(pipeline), "-o", str(output), "--quiet"]
    return command, output


def _when_writing(tmp_path: Path, seconds: float = 30.0) -> None:
    """Wait until a listing's temporary file holds more than its header line."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if any(path.stat().st_size > 10_000 for path in tmp_path.iterdir() if path.suffix == ".tmp"):
            return
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_writes_every_tiling_counted_and_leaves_no_temporary_file(tmp_path, signum):
    """A listing ended by SIGTERM (or SIGINT, as Ctrl-C sends it) while it writes its
    tilings writes exactly as many as its closing count, exit code 130."""
    command, output = _listing_command(tmp_path)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _when_writing(tmp_path)
    time.sleep(1)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    end = lines[-1]
    assert end["line"] == "end" and end["termination"] == "interrupted"
    solutions = sum(line["line"] == "solution" for line in lines)
    assert end["count"] == end["solutions_written"] == solutions > 0
    assert [path.name for path in tmp_path.iterdir() if path.suffix == ".tmp"] == []


SPLIT_ON_PROCESSES = """
[region]
width = 10
height = 6

[[pieces]]
family = "pentominoes"

[solve]
mode = "all"
backend = "cpsat"
executor = "process"
jobs = 2

[split]
method = "tree"
"""


def _two_workers_solve(pid: int, seconds: float = 2.0, within: float = 60.0) -> bool:
    """Whether, within ``within`` s, two processes under ``pid`` have each used ``seconds``
    of CPU: its pool's workers, past their imports and into their parts (a fixed wait was
    too short on a loaded machine, and the parts had found nothing yet)."""
    run, deadline = psutil.Process(pid), time.monotonic() + within
    while time.monotonic() < deadline:
        busy = 0
        for child in run.children(recursive=True):
            try:
                busy += sum(child.cpu_times()[:2]) >= seconds
            except psutil.NoSuchProcess:
                pass
        if busy >= 2:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_whole_process_group_keeps_what_the_parts_found(tmp_path, signum):
    """A terminal's Ctrl-C is SIGINT to the run's whole process group, its process pool's
    workers too; ``timeout`` and batch systems send SIGTERM the same way, to the pool's
    forkserver too.  They leave it to the run, which asks their parts to stop and writes
    what they found (none of it was written before; with SIGTERM the run failed).  No
    process is left but zombies that init has yet to reap."""
    pipeline, output = tmp_path / "split.toml", tmp_path / "all.jsonl"
    pipeline.write_text(SPLIT_ON_PROCESSES)
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(pipeline), "-q", "-o", str(output)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True)
    if not _two_workers_solve(process.pid):  # the parts are running, each has found tilings
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("the run's workers did not get to their parts within 60 s")
    os.killpg(process.pid, signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    end = lines[-1]
    assert end["termination"] == "interrupted", end.get("message")
    solutions = [line for line in lines if line["line"] == "solution"]
    assert end["count"] == end["solutions_written"] == len(solutions) > 0
    assert len({json.dumps(line["placements"]) for line in solutions}) == len(solutions)
    ends = time.monotonic() + 5
    while _living_in_group(process.pid) and time.monotonic() < ends:
        time.sleep(0.1)
    assert not _living_in_group(process.pid)


def _living_in_group(group: int) -> list[int]:
    """The processes of process group ``group`` that are not zombies, from /proc."""
    living = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if entry.name.isdigit() and fields[0] != "Z" and int(fields[2]) == group:
            living.append(int(entry.name))
    return living


def test_a_temporary_file_of_a_killed_run_is_removed_by_the_next_run(tmp_path):
    target = tmp_path / "all.jsonl"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".all.jsonl.{dead.pid}.abc123.tmp"
    stale.write_text("half a run")
    ours = tmp_path / f".all.jsonl.{os.getpid()}.def456.tmp"
    ours.write_text("a run still going")
    assert remove_stale_temporaries(target) == [stale]
    assert not stale.exists() and ours.exists()


def _large_or_degenerate(rng: random.Random) -> dict:
    """A problem that is large, thin, holed or has no tiling, with random copies and modes."""
    width, height = rng.choice([(rng.randint(40, 300), rng.randint(40, 300)), (1, rng.randint(50, 5000))])
    holes = [(rng.randrange(width), rng.randrange(height)) for _ in range(rng.randint(0, 30))]
    rows = [["#"] * width for _ in range(height)]
    for x, y in holes:
        rows[y][x] = "."
    family = rng.choice(["pentominoes", "tetrominoes", "dominoes", "trominoes"])
    copies = rng.choice([{"unlimited": True}, {"min": 1}, {"count": rng.randint(1, 50)}, {}])
    kind = rng.choice(["free", "one-sided", "fixed"])
    return {
        "region": ["".join(row) for row in rows],
        "piece": api.family(family, kind=kind, **copies),
        "solve": {"mode": rng.choice(["one", "all", "count"]), "time_limit": 1, "keep": 2},
    }


@pytest.mark.parametrize("number", range(4))
def test_large_and_degenerate_problems_end_by_their_time_limit(number):
    seed = random.SystemRandom().randrange(2**32)
    problem = _large_or_degenerate(random.Random(seed))
    try:
        plan = api.plan(problem["region"], [problem["piece"]], **problem["solve"])
    except InputError:
        return  # refused at once, with a message: that holds the limit too
    where = f"seed {seed}: {problem['piece']}, {len(problem['region'][0])}x{len(problem['region'])}, {problem['solve']}"
    started = time.perf_counter()
    try:
        result, seconds = timed(plan)
    except InputError as refusal:  # a whole model too large, refused when the run needs it: at once
        assert time.perf_counter() - started < 1 + SLACK and refusal.path == "region", where
        return
    assert seconds < 1 + SLACK, where + f": {seconds:.2f} s"
    assert result.termination in (Termination.COMPLETED, Termination.TIME_LIMIT), where


def test_the_steps_that_prepare_a_large_board_look_at_the_clock():
    """Steps between a large board's model and its search stop at the run's deadline on
    their own: the tree split's reading of the rows (2.3 s on 100×100 with unlimited
    pentominoes, where a count under ``time_limit = 30`` ended 0.4 s late) and the check
    whether the placements' cells have a symmetry.  Called with the deadline passed, each
    stops at once."""
    model = api.plan((30, 30), [api.family("pentominoes", unlimited=True)], mode="count").build()
    with build_limits(time.monotonic() - 1, threading.Event()):
        with pytest.raises(BuildStopped):
            Brancher(model)
        with pytest.raises(BuildStopped):
            may_have_symmetries(model)
