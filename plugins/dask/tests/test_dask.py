"""The dask executor on a real cluster on 127.0.0.1: a scheduler and two worker processes.

Counts come from docs/oracles.md: 2×4 with two L-tetrominoes has 2 tilings
(Garvie & Burkardt 2022, three checkerboard parts); 9×9 minus a corner with 20
L-tetrominoes has 1,709,594.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import cloudpickle
import dask
import pytest
from distributed import Client
from polytile_cpsat import CpsatBackend
from polytile_dask import DaskOptions, dask_executor, local_cluster

from polytile_core.plugin import InputError, Termination, hookimpl
from polytile_core.testing import Host, load_plan, main, run

L_TETROMINOES_2X4 = """
[region]
width = 4
height = 2

[[pieces]]
shape = ["###", "#.."]
name = "L"
count = 2

[solve]
mode = "count"

[split]
method = "checkerboard"
"""

L_TETROMINOES_9X9 = """
[region]
rows = ["########.", "#########", "#########", "#########", "#########", "#########", "#########", "#########", "#########"]

[[pieces]]
shape = ["###", "#.."]
name = "L"
count = 20

[solve]
mode = "count"
backend = "exactcover"

[split]
method = "checkerboard"
"""


@pytest.fixture(scope="module")
def shared_cluster():
    """A scheduler in this process and two single-thread worker processes (each with a nanny
    that restarts it).  A task may lose its worker once and is rerun; twice, and it fails."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        local = local_cluster(2)
    client = Client(local)
    yield local, client
    client.close()
    local.close()


@pytest.fixture
def cluster(shared_cluster):
    """The shared cluster with both workers up (a killed one is back after its nanny restarts it)."""
    shared_cluster[1].wait_for_workers(2, timeout=120)
    return shared_cluster


def pipeline(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pipeline.toml"
    path.write_text(text, encoding="utf-8")
    return path


def on_cluster(plan, address: str):
    options = attrs.evolve(plan.executor.options, scheduler=address)
    return attrs.evolve(plan, executor=attrs.evolve(plan.executor, options=options))


def cli(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(arguments)
    return code, out.getvalue(), err.getvalue()


def run_in_thread(plan, host_timeout: float = 240):
    """Start ``run(plan)`` in a thread; the returned function waits for its Result."""
    box: dict = {}

    def work():
        try:
            box["result"] = run(plan)
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def wait():
        thread.join(host_timeout)
        assert not thread.is_alive(), "the run did not end"
        if "error" in box:
            raise box["error"]
        return box["result"]

    return thread, wait


def test_cli_counts_on_a_scheduler_by_address(cluster, tmp_path):
    local, _ = cluster
    path = pipeline(tmp_path, L_TETROMINOES_2X4)
    code, out, err = cli(["solve", str(path), "--scheduler", local.scheduler_address, "--jobs", "2", "-q", "-o", "-"])
    assert code == 0, err
    result = json.loads(out)
    assert result["termination"] == "completed"
    assert result["count"] == 2
    assert sorted(part["key"] for part in result["subproblems"]) == ["L:a=0 L:b=2", "L:a=1 L:b=1", "L:a=2 L:b=0"]


def test_a_checkpointed_cluster_run_resumes_to_the_same_count(cluster, tmp_path):
    """The checkpoint is written by the machine running polytile, whatever the executor."""
    local, _ = cluster
    path, checkpoint = pipeline(tmp_path, L_TETROMINOES_2X4), tmp_path / "run.ckpt"
    command = [
        "solve",
        str(path),
        "--scheduler",
        local.scheduler_address,
        "--checkpoint",
        str(checkpoint),
        "-q",
        "-o",
        "-",
    ]
    code, _, err = cli(command)
    assert code == 0, err
    lines = checkpoint.read_text().splitlines(keepends=True)
    assert len(lines) == 4  # the header and three parts
    checkpoint.write_text("".join(lines[:2]))  # as if the run had stopped after one part
    code, out, err = cli([*command, "--resume"])
    assert code == 0, err
    result = json.loads(out)
    assert result["count"] == 2 and result["termination"] == "completed"
    assert result["details"]["parts_from_checkpoint"] == 1
    assert len(checkpoint.read_text().splitlines()) == 4


def test_a_worker_killed_holding_parts_loses_none(cluster, tmp_path):
    """Freeze one worker so that parts it is given cannot finish, kill it once it holds
    some, and check that every part is counted exactly once on the other worker."""
    local, client = cluster
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    os.kill(pids[victim], signal.SIGSTOP)
    try:
        plan = on_cluster(
            load_plan(pipeline(tmp_path, L_TETROMINOES_2X4), Host(), {"executor": "dask", "jobs": 2}),
            local.scheduler_address,
        )
        thread, wait = run_in_thread(plan)
        held = wait_for_parts_on(client, victim, thread)
        os.kill(pids[victim], signal.SIGKILL)
    except BaseException:
        os.kill(pids[victim], signal.SIGKILL)
        raise
    result = wait()
    assert held, "the frozen worker was given no part"
    assert result.termination == Termination.COMPLETED
    assert result.count == 2
    keys = [part.key for part in result.subproblems]
    assert sorted(keys) == ["L:a=0 L:b=2", "L:a=1 L:b=1", "L:a=2 L:b=0"]


def wait_for_parts_on(client, worker: str, thread: threading.Thread, timeout: float = 120) -> tuple:
    """The tasks the scheduler has given ``worker``, once there are some."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and thread.is_alive():
        held = tuple(client.processing().get(worker, ()))
        if held:
            return held
        time.sleep(0.05)
    return ()


@pytest.mark.slow
def test_killing_a_busy_worker_mid_run_keeps_the_exact_count(cluster, tmp_path):
    """The 9×9 instance (21 parts, seconds each): SIGKILL a worker while it is solving."""
    local, client = cluster
    pids = client.run(os.getpid)
    plan = on_cluster(
        load_plan(pipeline(tmp_path, L_TETROMINOES_9X9), Host(), {"executor": "dask", "jobs": 2}),
        local.scheduler_address,
    )
    thread, wait = run_in_thread(plan, host_timeout=600)
    victim = sorted(pids)[1]
    held = wait_for_parts_on(client, victim, thread)
    time.sleep(1.0)  # let it get into the search
    held = tuple(client.processing().get(victim, ())) or held
    os.kill(pids[victim], signal.SIGKILL)
    result = wait()
    assert held
    assert result.termination == Termination.COMPLETED
    assert result.count == 1_709_594
    keys = [part.key for part in result.subproblems]
    assert len(keys) == len(set(keys)) == 21


class WorkerKiller(CpsatBackend):
    """A backend whose worker process dies on one part (the one using L:b twice)."""

    def solve(self, model, settings, on_solution, stop):
        if any(c.name == "variant L:b" and c.rhs == 2 for c in model.constraints):
            os._exit(3)
        return super().solve(model, settings, on_solution, stop)


class WorkerKillerPlugin:
    @staticmethod
    @hookimpl
    def polytile_register_backends(register):
        register("worker-killer", WorkerKiller, help="dies on one part")


@pytest.mark.slow  # two worker restarts: about 20 s
def test_a_part_that_kills_its_worker_every_time_is_reported_by_key(cluster, tmp_path):
    local, _ = cluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this file
    try:
        host = Host(plugins=[WorkerKillerPlugin])
        plan = load_plan(pipeline(tmp_path, L_TETROMINOES_2X4), host, {"executor": "dask", "backend": "worker-killer"})
        result = run(on_cluster(plan, local.scheduler_address))
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert result.termination == Termination.ERROR
    assert result.count is None
    assert "L:a=0 L:b=2" in result.message and "incomplete" in result.message
    failed = [part for part in result.subproblems if part.error]
    assert [part.key for part in failed] == ["L:a=0 L:b=2"]
    assert "KilledWorker" in failed[0].error


def test_an_unreachable_scheduler_is_one_input_error(tmp_path):
    path = pipeline(tmp_path, L_TETROMINOES_2X4 + "\n[options.dask]\nconnect_timeout = 1\n")
    code, _, err = cli(["solve", str(path), "--scheduler", "tcp://127.0.0.1:9", "-q"])
    assert code == 2
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err


@pytest.mark.parametrize(
    "content, message",
    [(None, "no scheduler file appeared at"), ("not json", "cannot reach the Dask scheduler")],
    ids=["missing", "garbage"],
)
def test_a_bad_scheduler_file_is_one_input_error(tmp_path, content, message):
    address_file = tmp_path / "scheduler.json"
    if content is not None:
        address_file.write_text(content)
    options = f'\n[options.dask]\nscheduler_file = "{address_file}"\nconnect_timeout = 0.5\n'
    code, _, err = cli(["solve", str(pipeline(tmp_path, L_TETROMINOES_2X4 + options)), "--executor", "dask", "-q"])
    assert code == 2
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--scheduler", "127.0.0.1:8786"], "expected an address such as tcp://HOST:8786"),
        (["--scheduler", "tcp://127.0.0.1:8786", "--executor", "thread"], "takes no scheduler option"),
    ],
)
def test_bad_scheduler_flags_are_one_input_error(tmp_path, flags, message):
    code, _, err = cli(["solve", str(pipeline(tmp_path, L_TETROMINOES_2X4)), "-q", *flags])
    assert code == 2
    assert err.count("\n") == 1 and message in err


def test_options_are_checked():
    with pytest.raises(InputError, match="scheduler or scheduler_file"):
        dask_executor(1, DaskOptions(scheduler="tcp://127.0.0.1:1", scheduler_file="x.json"))


@pytest.mark.slow
def test_without_an_address_a_local_cluster_is_started_and_closed(tmp_path):
    path = pipeline(tmp_path, L_TETROMINOES_2X4)
    code, out, err = cli(["solve", str(path), "--executor", "dask", "--jobs", "2", "-q", "-o", "-"])
    assert code == 0, err
    assert '"count": 2' in out


@pytest.mark.slow
def test_losing_the_scheduler_ends_the_run_as_an_error_naming_parts(tmp_path):
    """Real `dask scheduler` and `dask worker` programs, found through a scheduler file.
    The worker is frozen so no part can finish, then the scheduler is killed: the run
    must end (no hang), as an error, with no total."""
    dask_program = str(Path(sys.executable).with_name("dask"))
    address_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        [
            dask_program,
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(address_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [
            dask_program,
            "worker",
            "--scheduler-file",
            str(address_file),
            "--no-nanny",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        with Client(scheduler_file=str(address_file), timeout=120) as watcher:
            watcher.wait_for_workers(1, timeout=120)
        os.kill(worker.pid, signal.SIGSTOP)
        path = pipeline(tmp_path, L_TETROMINOES_2X4 + f'\n[options.dask]\nscheduler_file = "{address_file}"\n')
        plan = load_plan(path, Host(), {"executor": "dask"})
        thread, wait = run_in_thread(plan, host_timeout=180)
        time.sleep(3)
        assert thread.is_alive()  # waiting for the frozen worker
        scheduler.kill()
        result = wait()
    finally:
        for process in (scheduler, worker):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    assert result.termination == Termination.ERROR
    assert result.count is None
    assert "incomplete" in result.message
    assert any("Dask" in (part.error or "") for part in result.subproblems)


@pytest.mark.slow  # a local cluster started by the command, then a long search: about 15 s
def test_ctrl_c_with_a_local_cluster_is_one_line_and_the_result_is_saved(tmp_path):
    """Ctrl-C in a terminal signals the whole process group, the workers too: they leave it
    to the run, which saves what it found and says so in one line (no worker tracebacks)."""
    psutil = pytest.importorskip("psutil")
    path = pipeline(tmp_path, L_TETROMINOES_9X9 + '\n[options.exactcover]\ncounter = "search"\n')
    out = tmp_path / "out.json"
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(path), "--executor", "dask"]
    command += ["--jobs", "2", "-o", str(out)]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until both workers are searching (started and preloaded)
            workers = [
                p for p in psutil.Process(process.pid).children(recursive=True) if "spawn" in " ".join(p.cmdline())
            ]
            if len(workers) == 2 and all(sum(w.cpu_times()[:2]) > 2 for w in workers):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the local cluster's workers never got busy")
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert len(err.splitlines()) == 1 and "interrupted" in err, err
    assert json.loads(out.read_text(encoding="utf-8"))["termination"] == "interrupted"


PENTOMINOES_6X10_LISTED_BY_CPSAT = """
[region]
width = 10
height = 6

[[pieces]]
family = "pentominoes"

[solve]
mode = "all"
backend = "cpsat"
time_limit = 15

[split]
method = "tree"
"""


def test_a_run_ended_by_its_time_limit_keeps_what_the_running_parts_found(cluster, tmp_path):
    """Parts still running at the deadline stop by their own time limit and hand on what
    they found (a Dask future would cancel a running part: none was kept before)."""
    local, _ = cluster
    plan = on_cluster(
        load_plan(pipeline(tmp_path, PENTOMINOES_6X10_LISTED_BY_CPSAT), Host(), {"executor": "dask", "jobs": 2}),
        local.scheduler_address,
    )
    streamed = []
    result = run(plan, on_solution=streamed.append)
    assert result.termination == Termination.TIME_LIMIT
    assert result.count == len(streamed) > 0
    region = {(x, y) for x in range(10) for y in range(6)}
    tilings = set()
    for solution in streamed:
        cells = [cell for placed in solution.placements for cell in placed.cells]
        assert len(cells) == 60 and set(cells) == region
        tilings.add(frozenset(tuple(placed.cells) for placed in solution.placements))
    assert len(tilings) == len(streamed)
