"""Every solution a route finds reaches the stream exactly once (issue 30).

``keep`` bounds what a run holds in memory, never what it passes on: on every route
(whole, probed, split by the tree or the checkerboard, on threads or processes, listing
up to symmetry) the solutions streamed to ``on_solution``, to a ``.jsonl`` file and to
``api.stream`` are the run's count, each once.  Counts come from ``../shared/oracles.md``
(6×10: 9,356) or from the independent brute force of ``polytile_core.testing``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import tomli_w

from polytile_core import api
from polytile_core.config.pipeline import make_plan
from polytile_core.config.schema import Pipeline
from polytile_core.convert import structure
from polytile_core.host.registry import Host
from polytile_core.output.results import Termination
from polytile_core.solve.run import run
from polytile_core.testing import cells_of_table, pieces_of_table, random_pipeline, tilings_brute_force

ROOT = Path(__file__).resolve().parents[2]
PENTOMINOES_6X10 = 9356  # ../shared/oracles.md (Haselgrove 1960)
HOST = Host()

# The routes a listing can take, as pipeline keys (no backend: the default route).
ROUTES = {
    "default": {"solve": {}},
    "default, one job": {"solve": {"jobs": 1}},
    "exactcover whole": {"solve": {"backend": "exactcover"}},
    "tree, one job": {"solve": {"backend": "exactcover", "jobs": 1}, "split": {"method": "tree"}},
    "tree, two threads": {
        "solve": {"backend": "exactcover", "jobs": 2, "executor": "thread"},
        "split": {"method": "tree"},
    },
}
# 6×10 is split by the checkerboard into many slow parts: checked in the slow suite.
CHECKERBOARD = {
    "solve": {"backend": "exactcover", "jobs": 2, "executor": "thread"},
    "split": {"method": "checkerboard"},
}


def tiling_of(solution) -> frozenset:
    return frozenset((placed.piece, frozenset(map(tuple, placed.cells))) for placed in solution.placements)


def cover_problems(tiling: frozenset, region: set) -> list[str]:
    """Cell by cell: the pieces cover the region, each cell once, and nothing else."""
    seen: set = set()
    problems = []
    for name, cells in tiling:
        if cells & seen:
            problems.append(f"{name} overlaps at {sorted(cells & seen)[0]}")
        seen |= cells
    if seen != region:
        problems.append(f"covers {len(seen)} cells of {len(region)}, {len(seen - region)} outside")
    return problems


def listed(table: dict, keep: int | None = None) -> tuple[list[frozenset], object]:
    """Run a listing of ``table``; what reached ``on_solution``, and the Result."""
    streamed: list[frozenset] = []
    lock = threading.Lock()

    def on_solution(solution) -> None:
        with lock:
            streamed.append(tiling_of(solution))

    data = {**table, "solve": {"mode": "all", **table.get("solve", {})}}
    if keep is not None:
        data["solve"]["keep"] = keep
    return streamed, run(make_plan(structure(data, Pipeline), HOST), on_solution=on_solution)


SIX_BY_TEN = {"region": {"width": 10, "height": 6}, "pieces": [{"family": "pentominoes"}]}


@pytest.mark.parametrize("route", [*sorted(ROUTES), pytest.param("checkerboard, two threads", marks=pytest.mark.slow)])
def test_every_route_streams_all_9356_tilings_of_6x10_once(route):
    streamed, result = listed({**SIX_BY_TEN, **ROUTES.get(route, CHECKERBOARD)}, keep=5)
    assert result.termination == Termination.COMPLETED
    assert result.count == PENTOMINOES_6X10
    assert len(streamed) == PENTOMINOES_6X10 and len(set(streamed)) == PENTOMINOES_6X10
    region = {(x, y) for x in range(10) for y in range(6)}
    for tiling in streamed[::97]:
        assert not cover_problems(tiling, region)
    assert len(result.solutions) == 5  # keep bounds what is held, not what is passed on


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["process", "thread"])
@pytest.mark.parametrize("split", ["tree", "checkerboard"])
def test_split_listings_on_processes_and_threads_stream_everything(split, executor):
    keys = {"solve": {"backend": "exactcover", "jobs": 2, "executor": executor}, "split": {"method": split}}
    streamed, result = listed({**SIX_BY_TEN, **keys}, keep=0)
    assert (result.count, len(streamed), len(set(streamed))) == (PENTOMINOES_6X10,) * 3


def test_the_command_line_writes_every_tiling_to_jsonl(tmp_path):
    output = tmp_path / "all.jsonl"
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(ROOT / "examples/pentomino-6x10.toml")]
    done = subprocess.run([*command, "--mode", "all", "-o", str(output), "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    solutions = [line for line in lines if line["line"] == "solution"]
    end = lines[-1]
    assert end["line"] == "end" and end["termination"] == "completed"
    assert end["count"] == end["solutions_written"] == len(solutions) == PENTOMINOES_6X10
    region = {(x, y) for x in range(10) for y in range(6)}
    tilings = {
        frozenset((name, frozenset(zip(xy[::2], xy[1::2], strict=True))) for name, xy in line["placements"])
        for line in solutions
    }
    assert len(tilings) == PENTOMINOES_6X10
    assert all(not cover_problems(tiling, region) for tiling in tilings)


def test_api_stream_with_keep_zero_on_two_jobs_yields_every_tiling():
    plan = api.plan((10, 6), [api.family("pentominoes")], mode="all", keep=0, jobs=2)
    with api.stream(plan) as solutions:
        tilings = [tiling_of(solution) for solution in solutions]
    assert len(tilings) == len(set(tilings)) == PENTOMINOES_6X10
    assert solutions.result is not None and solutions.result.count == PENTOMINOES_6X10


def test_an_interrupted_listing_streamed_exactly_what_it_counts():
    """9×9 minus a corner with L-tetrominoes has 1,709,594 tilings: stopped after a moment,
    the count it reports is the number of tilings it passed on, each once."""
    table = {
        "region": {"rows": ["#" * 9] * 8 + ["#" * 8 + "."]},
        "pieces": [{"name": "L", "shape": ["#.", "#.", "##"], "count": 20}],
    }
    for keys in ({"solve": {}}, {"solve": {"backend": "exactcover", "jobs": 2}, "split": {"method": "tree"}}):
        streamed: list[frozenset] = []
        stop = threading.Event()
        data = {**table, **keys, "solve": {"mode": "all", "keep": 3, **keys["solve"]}}
        timer = threading.Timer(0.7, stop.set)
        timer.start()
        result = run(make_plan(structure(data, Pipeline), HOST), on_solution=streamed.append, stop=stop)
        timer.cancel()
        assert result.termination == Termination.INTERRUPTED, keys
        assert result.count == len(streamed), keys
        assert len({tiling_of(solution) for solution in streamed}) == len(streamed), keys


def random_tables(count: int) -> list[tuple[int, dict]]:
    seed = int(os.environ.get("POLYTILE_SEED", random.SystemRandom().randrange(2**32)))
    rng = random.Random(seed)
    return [(seed, random_pipeline(rng.randrange(2**32))) for _ in range(count)]


@pytest.mark.parametrize("number", range(6))
def test_random_listings_stream_every_tiling_once_on_every_route(number):
    """Fresh examples each run (the seed is printed on failure; POLYTILE_SEED repeats it)."""
    ((seed, table),) = random_tables(1)
    region = set(cells_of_table(table))
    truth = set(tilings_brute_force(region, pieces_of_table(table)))
    for route, keys in {**ROUTES, "checkerboard, two threads": CHECKERBOARD}.items():
        streamed, result = listed({**table, **keys}, keep=1)
        where = f"seed {seed}, route {route!r}\n{tomli_w.dumps(table)}"
        assert result.termination == Termination.COMPLETED, where
        assert result.count == len(streamed) == len(set(streamed)) == len(truth), where
        assert set(streamed) == truth, where
    with api.stream(make_plan(structure({**table, "solve": {"mode": "all", "keep": 0}}, Pipeline), HOST)) as stream:
        assert {tiling_of(solution) for solution in stream} == truth, f"seed {seed}: api.stream"
