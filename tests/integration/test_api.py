"""The embedding API: plans in code, typed results, streamed solutions, threads."""

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from polytile_core import api
from polytile_core.errors import InputError
from polytile_core.host.registry import Host
from polytile_core.output.results import Found, Termination

README = Path(__file__).parents[2] / "README.md"
L_TROMINO = api.piece("L", ["#.", "##"], unlimited=True)


def test_the_readme_example_runs():
    (code,) = re.findall(r"## Embedding in Python.*?```python\n(.*?)```", README.read_text(), re.S)
    assert len(code.strip().splitlines()) < 15
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr


def test_solve_gives_a_typed_result():
    result = api.solve(api.plan((6, 5), [L_TROMINO], mode="count"))
    assert (result.termination, result.found, result.count) == (Termination.COMPLETED, Found.FEASIBLE, 72)


def test_plans_are_checked_like_files():
    with pytest.raises(InputError, match=r"solve.mode: expected one of"):
        api.plan((6, 5), [L_TROMINO], mode="fast")


@pytest.mark.parametrize("mode", ["one", "count", "all"])
def test_an_area_the_pieces_cannot_fill_is_proved_infeasible(mode):
    result = api.solve(api.plan((2, 2), [api.family("pentominoes")], mode=mode, distinct=mode != "one"))
    assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
    assert (result.count, result.distinct_count) == ((None, None) if mode == "one" else (0, 0))
    assert result.details["certificate"] == "area"
    assert result.message == "impossible by area: the pieces cover at least 60 cells but the region has only 4"


def test_a_stream_yields_solutions_and_stops_when_closed():
    with api.stream(api.plan((6, 5), [L_TROMINO], mode="all")) as solutions:
        first = next(iter(solutions))
    assert sum(len(placed.cells) for placed in first.placements) == 30
    assert solutions.result.termination == Termination.INTERRUPTED


def test_a_stream_runs_to_the_end():
    solutions = api.stream(api.plan((6, 5), [L_TROMINO], mode="all"))
    assert sum(1 for _ in solutions) == 72
    assert solutions.result.count == 72


def test_threads_with_separate_hosts():
    counts = {}

    def count(width):
        result = api.solve(api.plan((width, 2), [api.piece("D", ["##"], unlimited=True)], mode="count", host=Host()))
        counts[width] = result.count

    threads = [threading.Thread(target=count, args=(width,)) for width in (4, 5, 6, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts == {4: 5, 5: 8, 6: 13, 7: 21}  # Fibonacci F(n+1), oracles.md
