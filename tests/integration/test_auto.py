"""backend = "auto": the choice reads only declared capabilities, a race finds one tiling
and leaves no process behind, explicit choices are obeyed, counts stay exact."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import attrs
import psutil
import pytest

from polytile_core import api, hookimpl
from polytile_core.cli.main import main
from polytile_core.config.pipeline import load_plan, make_plan, read_pipeline
from polytile_core.config.schema import SolveSpec
from polytile_core.errors import InputError
from polytile_core.host.capabilities import BackendCapabilities, model_features
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Region
from polytile_core.output.results import Found, Termination
from polytile_core.solve import run as run_module
from polytile_core.solve.route import choose
from polytile_core.solve.run import run
from polytile_core.testing import (
    build_tiling,
    cells_of_table,
    count_tilings_brute_force,
    pieces_of_table,
    placement_problems,
    random_instance,
)

ROOT = Path(__file__).parents[2]
PAPER = ROOT / "examples" / "paper"
L_2X4 = ["####", "####"]
L_PIECE = api.piece("L", ["#.", "#.", "##"], count=2)


def paper_plan(name: str, host: Host, **solve):
    """A paper instance as a new user would run it: no backend, no split, no jobs."""
    pipeline = read_pipeline(PAPER / f"{name}.toml")
    solve = {"mode": pipeline.solve.mode, **solve}
    return make_plan(attrs.evolve(pipeline, split=None, solve=SolveSpec(**solve)), host)


def check_tiling(plan, result) -> None:
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.FEASIBLE), result.message
    [solution] = result.solutions
    placed = [(piece.piece, piece.cells) for piece in solution.placements]
    assert placement_problems(plan.region.cells, plan.pieces, placed) == []


# --------------------------------------------------------------------------- the choice


def test_every_installed_backend_and_split_declares_its_capabilities():
    host = Host()
    assert all(reg.capabilities is not None for reg in host.registry["backends"].values())
    assert host.get("decomposers", "blocks").capabilities.one_solution_only
    assert "count rows" in host.get("decomposers", "checkerboard").capabilities.part_features


def test_the_chooser_names_no_plugin():
    host = Host()
    names = set(host.registry["backends"]) | set(host.registry["decomposers"])
    for module in ("solve/route.py", "solve/race.py", "host/capabilities.py", "solve/run.py"):
        text = (ROOT / "polytile_core" / module).read_text()
        assert [name for name in names if f'"{name}"' in text or f"'{name}'" in text] == [], module


def test_model_features_tell_a_cover_from_a_general_model():
    host = Host()
    tiling = api.plan(L_2X4, [L_PIECE], host=host).build()
    assert model_features(tiling) == {"count rows"}
    # 8 cells: one or two L with unlimited dominoes (two L alone would be narrowed to "== 2").
    ranged_pieces = [api.piece("L", ["#.", "#.", "##"], min=1, max=3), api.piece("D", ["##"], unlimited=True)]
    ranged = api.plan(L_2X4, ranged_pieces, host=host).build()
    assert model_features(ranged) == {"ranges"}
    fence = api.plan(None, [api.family("tetrominoes")], problem="enclose", host=host).build()
    assert {"objective", "general rows"} <= model_features(fence)


def test_the_features_a_tiling_builder_states_are_those_its_rows_have():
    """``build_tiling`` states its model's features (a count of a few milliseconds is
    mostly such fixed costs); they must be what reading the rows gives, on random
    instances (fresh seed), and are read again once the model gains a row."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for _ in range(40):
        table = random_instance(rng, rng.choice([12, 20, 30, 40]))
        model = build_tiling(pieces_of_table(table), Region(cells_of_table(table)))
        assert model.stated_features is not None
        read = model_features(attrs.evolve(model, stated_features=None))
        assert model_features(model) == read, f"seed {seed}: {table}"
    model.add_constraint([(0, 2)], "<=", 2, "a weighted row")
    assert "weights" in model_features(model)


def test_auto_counts_with_the_counter_that_fits_and_says_so():
    result = api.solve(api.plan(L_2X4, [L_PIECE], mode="count"))
    assert result.count == 2  # docs/oracles.md: Garvie & Burkardt 2022, intro
    route = result.details["route"]
    assert route["backend"] == result.backend
    assert Host().get("backends", result.backend).capabilities.counts_without_listing
    assert route["how"].startswith("chosen by auto")


def test_an_optimisation_takes_its_problems_own_backend_else_an_ilp_backend_that_optimises():
    host = Host()
    plan = api.plan(None, [api.family("tetrominoes")], problem="enclose", host=host)
    # The enclose builder declares its problem's own backend: auto takes it.
    assert plan.candidates is None and plan.backend_why == "the enclose problem's own backend"
    assert plan.backend.registration is host.get("backends", plan.backend.name)
    # Without that declaration auto chooses by capabilities: an ILP backend that optimises.
    candidates = api.plan(L_2X4, [L_PIECE], host=host).candidates
    routing = choose(attrs.evolve(plan, backend=None, candidates=candidates), model_features(plan.build()))
    assert not routing.race
    [route] = routing.routes
    assert route.split is None and route.backend.capabilities.optimises
    assert "exactcover: not ranked for mode optimize" in routing.passed_over


def test_a_third_party_backend_joins_the_choice_by_declaring_capabilities():
    polytile_milp = pytest.importorskip("polytile_milp")
    alone = Host(autoload=False, plugins=[polytile_milp])
    result = api.solve(api.plan(L_2X4, [L_PIECE], mode="count", host=alone))
    assert (result.backend, result.count) == ("milp", 2)
    assert result.details["route"]["name"] == "milp"


class _Undeclared:
    @hookimpl
    def polytile_register_backends(self, register):
        register("undeclared", lambda options=None: None, help="declares nothing")


def test_a_backend_without_capabilities_is_never_chosen():
    host = Host(autoload=False, plugins=[_Undeclared()])
    with pytest.raises(InputError, match="auto found no backend.*name one with solve.backend"):
        api.solve(api.plan(L_2X4, [L_PIECE], host=host))


class _Misdeclared:
    @hookimpl
    def polytile_register_backends(self, register):
        register("odd", lambda options=None: None, capabilities={"modes": ["one"]})


class _MisdeclaredBuilder:
    @hookimpl
    def polytile_register_builders(self, register):
        register("odd", lambda pieces, region, options=None: None, capabilities=BackendCapabilities(modes={"one"}))


class _CalledAuto:
    @hookimpl
    def polytile_register_backends(self, register):
        register("auto", lambda options=None: None, capabilities=BackendCapabilities(modes={"one"}))


class _ExecutorCalledAuto:
    @hookimpl
    def polytile_register_executors(self, register):
        register("auto", lambda jobs, options=None: None)


def test_capabilities_of_the_wrong_type_or_a_backend_or_executor_called_auto_are_refused():
    with pytest.raises(InputError, match="expected a BackendCapabilities"):
        Host(autoload=False, plugins=[_Misdeclared()])
    with pytest.raises(InputError, match="problem kind 'odd' as BackendCapabilities; expected a BuilderCapabilities"):
        Host(autoload=False, plugins=[_MisdeclaredBuilder()])
    with pytest.raises(InputError, match="registers backend 'auto', a name polytile keeps for itself"):
        Host(autoload=False, plugins=[_CalledAuto()])
    with pytest.raises(InputError, match="registers executor 'auto', a name polytile keeps for itself"):
        Host(autoload=False, plugins=[_ExecutorCalledAuto()])
    with pytest.raises(ValueError, match="unknown mode"):
        BackendCapabilities(modes={"some"})


def test_jobs_default_to_the_usable_cores_for_auto_only():
    cores = len(os.sched_getaffinity(0))
    assert api.plan(L_2X4, [L_PIECE]).jobs == cores
    assert api.plan(L_2X4, [L_PIECE], jobs=1).jobs == 1
    assert api.plan(L_2X4, [L_PIECE], backend="cpsat").jobs == 1


def test_explain_prints_the_routes_without_solving(capsys):
    assert main(["solve", "--explain", str(ROOT / "examples" / "pentomino-6x10.toml"), "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "a race of 4 routes" in printed and "1. exactcover" in printed
    assert "blocks + exactcover" in printed and "status:" not in printed


# --------------------------------------------------------------------------- explicit choices


def test_a_named_backend_never_runs_another(monkeypatch):
    exactcover = pytest.importorskip("polytile_exactcover")

    def refuse(*args, **kwargs):
        raise AssertionError("exact cover ran although cpsat was named")

    monkeypatch.setattr(exactcover.ExactCoverBackend, "solve", refuse)
    host = Host()
    for mode in ("one", "count"):
        result = api.solve(api.plan(L_2X4, [L_PIECE], mode=mode, backend="cpsat", host=host))
        assert result.backend == "cpsat" and result.found == Found.FEASIBLE
        assert result.details["route"] == {
            "name": "cpsat",
            "backend": "cpsat",
            "why": "named in the pipeline",
            "options": {"cpsat": {"log": False, "parameters": {}}},
            "how": "named in the pipeline",
        }
    # The same refusal shows that auto does use exact cover here, so the check can fail.
    with pytest.raises(AssertionError, match="exact cover ran"):
        api.solve(api.plan(L_2X4, [L_PIECE], mode="count", host=host))


# --------------------------------------------------------------------------- the race


def _no_head_start(monkeypatch):
    """Make every model count as large, so the race starts at once."""
    monkeypatch.setattr(run_module, "SMALL_MODEL", 0.0)


def test_a_small_problem_is_answered_in_process_before_any_race():
    before = psutil.Process().children(recursive=True)
    result = api.solve(api.plan((10, 6), [api.family("pentominoes")]))
    assert result.found == Found.FEASIBLE
    assert "head start" in result.details["route"]["how"]
    assert psutil.Process().children(recursive=True) == before


def test_a_race_won_early_leaves_no_process_behind(monkeypatch):
    _no_head_start(monkeypatch)
    plan = api.plan((10, 6), [api.family("pentominoes")], jobs=2)
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    result = api.solve(plan)
    assert {child.pid for child in psutil.Process().children(recursive=True)} == before
    check_tiling(plan, result)
    route = result.details["route"]
    assert route["how"].startswith("won a race of 4")  # a large model: one route per job, and two certificates
    outcomes = sorted(lap["outcome"] for lap in route["race"])
    assert outcomes.count("won") == 1, route["race"]


def _racers(process: psutil.Process, timeout: float = 60) -> list[psutil.Process]:
    """The race's processes under ``process``, once they are running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        racers = [
            child
            for child in process.children(recursive=True)
            if "polytile_core.solve.race" in " ".join(child.cmdline())
        ]
        if racers:
            return racers
        time.sleep(0.05)
    raise AssertionError("no race started")


def _gone(processes: list[psutil.Process], timeout: float) -> bool:
    _, alive = psutil.wait_procs(processes, timeout=timeout)
    return not alive


# 30x40 with 20 of each pentomino (2020 fig12): its model takes over a second to build,
# so the race starts at once and the racers are still at work when the signal comes.
BIG = """
[region]
width = 30
height = 40
[[pieces]]
family = "pentominoes"
count = 20
"""


def _start_racing_cli(tmp_path) -> tuple[subprocess.Popen, list[psutil.Process]]:
    pipeline = tmp_path / "big.toml"
    pipeline.write_text(BIG)
    command = [
        sys.executable,
        "-m",
        "polytile_core.cli.main",
        "solve",
        str(pipeline),
        "--jobs",
        "2",
        "-o",
        str(tmp_path / "result.json"),
    ]
    cli = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return cli, _racers(psutil.Process(cli.pid))


def test_ctrl_c_during_a_race_leaves_no_process_behind(tmp_path):
    cli, racers = _start_racing_cli(tmp_path)
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=60)
    assert _gone(racers, timeout=10)
    assert cli.returncode in (0, 130), err  # 0: a racer had won just before the signal


def test_racers_end_when_their_parent_is_killed(tmp_path):
    cli, racers = _start_racing_cli(tmp_path)
    cli.kill()  # SIGKILL: no chance to clean up; the racers notice their lifeline close
    cli.wait()
    assert _gone(racers, timeout=10)


# --------------------------------------------------------------------------- the must-show instances

FAST_PAPER = ["gb2022-fig06", "gb2020-fig10a"]  # in the head start; won by a race (no whole-problem route finds it)
ALL_PAPER = sorted(path.stem for path in PAPER.glob("*.toml"))


@pytest.mark.parametrize("name", FAST_PAPER)
def test_one_tiling_of_a_paper_instance_with_no_backend_and_no_split(name):
    host = Host()
    plan = paper_plan(name, host, time_limit=60)
    check_tiling(plan, run(plan))


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_PAPER)
def test_one_tiling_of_every_paper_instance_with_no_backend_and_no_split(name):
    host = Host()
    plan = paper_plan(name, host, time_limit=60)
    check_tiling(plan, run(plan))


# Counts from docs/oracles.md: fig09a is 5x18 with L-trominoes (OEIS A084478, n = 6),
# fig09b the 6x10 pentominoes, 2022 fig02 9x9 minus a corner with 20 L-tetrominoes.
KNOWN_COUNTS = {"gb2020-fig09a": 1_168_512, "gb2020-fig09b": 9_356, "gb2022-fig02": 1_709_594}


@pytest.mark.parametrize(
    ("name", "count"),
    # Listing the 9,356 tilings of 6x10 takes exact cover about 10 s: left to the slow run.
    [
        pytest.param(name, count, marks=[pytest.mark.slow] if name == "gb2020-fig09b" else [])
        for name, count in KNOWN_COUNTS.items()
    ],
)
def test_counts_of_paper_instances_are_exact_with_no_backend(name, count):
    result = run(paper_plan(name, Host(), mode="count"))
    assert (result.termination, result.count) == (Termination.COMPLETED, count)


def test_the_8x8_dominoes_count_is_exact_with_no_backend():
    plan = load_plan(ROOT / "examples" / "dominoes-8x8-count.toml", Host())
    assert plan.backend is None  # the example names no backend
    assert run(plan).count == 12_988_816  # docs/oracles.md: OEIS A004003


def test_a_parity_certificate_races_for_a_problem_with_no_tiling(monkeypatch):
    _no_head_start(monkeypatch)
    # docs/oracles.md: the 5 free tetrominoes tile no rectangle (the T has parity 2).
    plan = api.plan((5, 4), [api.family("tetrominoes")], jobs=1)
    result = api.solve(plan)
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
    laps = {lap["route"]: lap["outcome"] for lap in result.details["route"]["race"]}
    assert "checkerboard certificate" in laps  # with one job the checkerboard split is no route, so it races alone
    assert "won" in laps.values()


def test_distinct_keeps_working_with_no_backend():
    result = api.solve(api.plan(L_2X4, [L_PIECE], mode="count", distinct=True))
    assert (result.count, result.distinct_count) == (2, 1)  # docs/oracles.md: 2x4, 2 L-tetrominoes


def test_a_streamed_result_file_of_an_auto_run_names_the_backend_that_answered(tmp_path):
    pipeline = tmp_path / "l.toml"
    pipeline.write_text((ROOT / "examples" / "l-tetromino-2x4.toml").read_text())
    out = tmp_path / "all.jsonl"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["backend"] == "auto" and lines[-1]["backend"] == "exactcover"
    assert lines[-1]["count"] == 2  # docs/oracles.md: Garvie & Burkardt 2022, intro


def test_a_three_colouring_certificate_proves_what_the_checkerboard_cannot(monkeypatch):
    _no_head_start(monkeypatch)
    # Golomb (1954): straight trominoes tile an 8x8 board less one cell only for the four
    # cells the (x + y) and (x - y) mod 3 colourings both allow; a corner is not one.
    # The brute force is the independent check, and the certificate never claims falsely.
    straight = api.piece("I3", ["###"], unlimited=True)
    for hole, tilings in (((0, 0), 0), ((2, 2), None)):
        rows = ["".join("." if (x, y) == hole else "#" for x in range(8)) for y in range(8)]
        plan = api.plan(rows, [straight], jobs=1)
        result = api.solve(plan)
        if tilings == 0:
            assert count_tilings_brute_force(plan.region.cells, plan.pieces) == 0
            assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
            assert "3-colouring" in result.message
            assert result.details["route"]["name"] == "colours certificate"
        else:
            assert result.found == Found.FEASIBLE
            check_tiling(plan, result)
