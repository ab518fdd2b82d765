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
EXAMPLES = Path(__file__).parents[2] / "examples"
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


def test_a_large_result_has_a_short_repr():
    # 9,356 tilings of 6×10 by the twelve pentominoes (Haselgrove 1960; ../shared/oracles.md).
    result = api.solve(api.load(EXAMPLES / "pentomino-6x10.toml", mode="all", backend="exactcover"))
    assert result.count == len(result.solutions) == 9356
    shown = repr(result)
    assert len(shown) < 2000 and shown.endswith("… and 9,355 more")
    assert shown.startswith("Result: completed, feasible (exactcover) · 9,356 solutions")


def test_a_result_saves_and_reads_back_in_every_format(tmp_path):
    result = api.solve(api.plan((6, 5), [L_TROMINO], mode="all"))
    for name in ("all.json", "all.toml", "all.jsonl"):
        result.save(tmp_path / name)
        assert api.read_result(tmp_path / name) == result, name
    with pytest.raises(InputError, match="exists already"):
        result.save(tmp_path / "all.json")


def test_load_checks_the_file_and_the_keywords(tmp_path):
    assert api.load(EXAMPLES / "pentomino-6x10.toml", mode="count").settings.mode == "count"
    with pytest.raises(InputError, match=r"pentomino-6x10.toml: solve.mode: expected one of"):
        api.load(EXAMPLES / "pentomino-6x10.toml", mode="fast")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"nope.toml: no such file"):
        api.load(tmp_path / "nope.toml")


def test_render_draws_a_result_into_a_file(tmp_path):
    result = api.solve(api.plan((6, 5), [L_TROMINO], mode="all", keep=3))
    picture = api.render(result, tmp_path / "three.svg", limit=2)
    assert picture.read_text().count('class="piece"') == 2 * 30
    assert api.render(result, tmp_path / "first.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(InputError, match="exists already"):
        api.render(result, tmp_path / "three.svg")
    with pytest.raises(InputError, match="no render format called 'gif'"):
        api.render(result, tmp_path / "x.gif")


def test_the_route_and_the_split_are_logged(caplog):
    caplog.set_level("INFO", logger="polytile")
    api.solve(api.plan((6, 5), [L_TROMINO], mode="count"))
    api.solve(api.plan((6, 5), [L_TROMINO], mode="count", backend="cpsat", split="checkerboard", jobs=1))
    messages = [record.getMessage() for record in caplog.records if record.name == "polytile"]
    assert any(message.startswith("auto chose ") for message in messages)
    assert any(message.startswith("split checkerboard: ") for message in messages)
    assert any(message.startswith("split done: ") for message in messages)
