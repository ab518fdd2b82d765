"""Result files: the compact JSON, and the streamed JSON Lines a listing writes as it goes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import attrs
import jsonschema
import pytest
import tomli_w

from polytile_core import api
from polytile_core.cli.commands import render as render_command
from polytile_core.cli.commands import solve as solve_command
from polytile_core.cli.main import main
from polytile_core.model.geometry import Region
from polytile_core.model.tiling import build_tiling
from polytile_core.output.reading import read_result
from polytile_core.output.resultfile import (
    ResultJson,
    SolutionLines,
    header_of_result,
    solution_data,
    write_result,
)
from polytile_core.solve import workers
from polytile_core.solve.collect import solution_of
from polytile_core.solve.run import run
from polytile_core.testing.brute import tilings_brute_force
from polytile_core.testing.random_instances import cells_of_table, pieces_of_table, random_instance

ROOT = Path(__file__).parents[2]
# 5×6 with L-trominoes: 72 tilings (OEIS A084478, docs/oracles.md).
L_TROMINOES = """
[region]
width = 6
height = 5
[[pieces]]
name = "L"
shape = ["#.", "##"]
unlimited = true
[solve]
backend = "exactcover"
mode = "all"
"""
BOARD = sorted((x, y) for x in range(6) for y in range(5))


def tilings(solutions):
    """Each tiling as a set of placements, checked to cover the board once."""
    found = set()
    for solution in solutions:
        assert sorted(cell for placed in solution.placements for cell in placed.cells) == BOARD
        found.add(frozenset((placed.piece, tuple(sorted(placed.cells))) for placed in solution.placements))
    return found


@pytest.fixture
def pipeline(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text(L_TROMINOES)
    return path


def test_a_listing_streams_every_tiling_to_jsonl_and_keeps_only_a_few(tmp_path, pipeline, monkeypatch):
    kept = []

    def watched_run(plan, **keywords):
        result = run(plan, **keywords)
        kept.append(len(result.solutions))
        return result

    monkeypatch.setattr(solve_command, "run", watched_run)
    out = tmp_path / "all.jsonl"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) == 0
    assert kept == [solve_command.STREAMED_KEEP]  # the run held 12 of the 72 in memory
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["line"] for line in lines] == ["header"] + ["solution"] * 72 + ["end"]
    assert lines[0]["backend"] == "exactcover" and lines[0]["mode"] == "all"
    assert lines[-1]["count"] == lines[-1]["solutions_written"] == 72
    schema = json.loads((ROOT / "schemas" / "result-lines.schema.json").read_text())
    for line in lines:
        jsonschema.validate(line, schema)
    result = read_result(out)
    assert result.count == 72 and len(tilings(result.solutions)) == 72
    assert not [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_jsonl_listing_holds_every_tiling_once_on_random_instances(tmp_path, jobs):
    """A listing to .jsonl writes its tilings as lines made straight from the search's
    variables (``SolutionLines``): every tiling of the independent brute force, once,
    covering the region, on one job (the whole search) and two (the split's parts)."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for number in range(4):
        table = random_instance(rng, rng.choice([16, 20, 24, 30]))
        table["solve"] = {"mode": "all", "jobs": jobs}
        pipeline = tmp_path / f"{number}.toml"
        pipeline.write_text(tomli_w.dumps(table))
        out = tmp_path / f"{number}.jsonl"
        assert main(["solve", str(pipeline), "-q", "-o", str(out)]) in (0, 1), f"seed {seed}"
        region = sorted(cells_of_table(table))
        listed = []
        for solution in read_result(out).solutions:
            assert sorted(cell for placed in solution.placements for cell in placed.cells) == region, f"seed {seed}"
            listed.append(frozenset((placed.piece, frozenset(placed.cells)) for placed in solution.placements))
        expected = set(tilings_brute_force(region, pieces_of_table(table)))
        assert len(listed) == len(set(listed)) == len(expected), f"seed {seed}, instance {number}"
        assert set(listed) == expected, f"seed {seed}, instance {number}"


# Per route: [solve], [split] and [options] of its pipelines.
ROUTES = {
    "default, one job": ({"jobs": 1}, None, None),
    "tree split on threads": ({"jobs": 2}, {"method": "tree"}, None),
    "tree split on processes": ({"jobs": 2, "executor": "process"}, {"method": "tree"}, None),
    "frontier table, two jobs": ({"jobs": 2}, None, {"exactcover": {"counter": "frontier"}}),
}


@pytest.mark.slow
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_jsonl_listings_match_cp_sat_on_random_instances(tmp_path, route):
    """A listing to .jsonl, with no backend named (exactcover's kernels write the lines:
    under the anchor's images on one job, a tree part's images on a split, the walk of
    the frontier's table on two threads) against
    CP-SAT's listing of the same instance, made in Python: every tiling covers the region
    cell by cell, none twice, the same set, and the closing count is the lines written."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    solve, split, options = ROUTES[route]
    checked = 0
    for number in range(25):
        table = random_instance(rng, rng.choice([20, 30, 40, 50]))
        table["solve"] = {"mode": "all", **solve}
        if split is not None:
            table["split"] = split
        if options is not None:
            table["options"] = options
        pipeline = tmp_path / f"{number}.toml"
        pipeline.write_text(tomli_w.dumps(table))
        where = f"seed {seed}, instance {number}"
        counted = api.solve(api.load(pipeline, mode="count"))
        if counted.count is None or counted.count > 3000:  # CP-SAT lists a few thousand in seconds
            continue
        out = tmp_path / f"{number}.jsonl"
        assert main(["solve", str(pipeline), "-q", "-o", str(out)]) in (0, 1), where
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[-1]["count"] == lines[-1]["solutions_written"] == counted.count, where
        region = sorted(cells_of_table(table))
        listed = []
        for solution in read_result(out).solutions:
            assert sorted(cell for placed in solution.placements for cell in placed.cells) == region, where
            listed.append(frozenset((placed.piece, frozenset(placed.cells)) for placed in solution.placements))
        second = api.solve(api.load(pipeline, mode="all", backend="cpsat", jobs=1))
        expected = {
            frozenset((placed.piece, frozenset(placed.cells)) for placed in solution.placements)
            for solution in second.solutions
        }
        assert len(listed) == len(set(listed)) == len(expected) == counted.count, where
        assert set(listed) == expected, where
        checked += bool(expected)
    assert checked >= 5, f"seed {seed}: only {checked} instances with tilings were listed"


@pytest.mark.parametrize("executor", ["process", "thread"])
def test_a_split_listing_s_lines_are_made_by_its_workers_each_tiling_once(tmp_path, executor, monkeypatch):
    """On a split, each part's worker makes its tilings' lines (the main process only
    writes them; exactcover's kernel makes them in C), and the file holds every tiling of
    the brute force once."""
    made = []

    class Watched(workers.LineSink):
        def take(self, text, count, firsts):
            assert text.count(b"\n") == count
            made.append(count)
            super().take(text, count, firsts)

    monkeypatch.setattr(workers, "LineSink", Watched)  # seen in this process's threads
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    table = random_instance(rng, rng.choice([24, 30]))
    table["solve"] = {"mode": "all", "jobs": 2, "backend": "exactcover", "executor": executor}
    table["split"] = {"method": "tree"}
    pipeline = tmp_path / "split.toml"
    pipeline.write_text(tomli_w.dumps(table))
    out = tmp_path / "split.jsonl"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) in (0, 1), f"seed {seed}"
    listed = [
        frozenset((placed.piece, frozenset(placed.cells)) for placed in solution.placements)
        for solution in read_result(out).solutions
    ]
    expected = set(tilings_brute_force(sorted(cells_of_table(table)), pieces_of_table(table)))
    assert len(listed) == len(set(listed)) and set(listed) == expected, f"seed {seed}"
    if executor == "thread" and expected:
        assert sum(made) == len(expected), f"seed {seed}: the workers made {sum(made)} lines"


def test_a_line_made_from_the_variables_is_the_solution_s_line():
    """``SolutionLines`` writes what ``solution_data`` says a solution is, byte for byte."""
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for _ in range(5):
        table = random_instance(rng, rng.choice([20, 40]))
        model = build_tiling(pieces_of_table(table), Region(cells_of_table(table)))
        lines = SolutionLines(model.placements)
        for _ in range(10):
            ones = sorted(rng.sample(range(model.num_variables), min(6, model.num_variables)))
            part = rng.choice([None, "3", 'a "b"'])
            data = {"line": "solution", **solution_data(solution_of(model, ones, {}, part))}
            expected = json.dumps(data, separators=(",", ":")) + "\n"
            assert lines.lines([ones], part) == expected.encode(), f"seed {seed}"


def test_render_draws_from_jsonl(tmp_path, pipeline):
    out = tmp_path / "all.jsonl"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) == 0
    assert main(["render", str(out), "-o", str(tmp_path / "all.txt")]) == 0
    pictures = (tmp_path / "all.txt").read_text().strip().split("\n\n")
    assert len(pictures) == 72 and all(len(picture.splitlines()) == 5 for picture in pictures)
    assert main(["render", str(out), "-o", str(tmp_path / "all.svg"), "--limit", "3"]) == 0
    svg = (tmp_path / "all.svg").read_text()
    assert svg.count('class="piece"') == 3 * 30 and "3 of 72 solutions shown" in svg


def test_a_gallery_reads_no_more_solutions_than_it_draws(tmp_path, pipeline, monkeypatch):
    out = tmp_path / "all.jsonl"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) == 0
    first = read_result(out, keep=3)
    assert first.count == 72 and first.solutions == read_result(out).solutions[:3]
    kept = []

    def watched_read(path, *, keep=None):
        result = read_result(path, keep=keep)
        kept.append(len(result.solutions))
        return result

    monkeypatch.setattr(render_command, "read_result", watched_read)
    assert main(["render", str(out), "-o", str(tmp_path / "all.svg"), "--limit", "3"]) == 0
    assert main(["render", str(out), "-o", str(tmp_path / "all.txt")]) == 0  # a text picture draws them all
    assert kept == [3, 72]


def test_json_and_jsonl_hold_the_same_tilings(tmp_path, pipeline):
    assert main(["solve", str(pipeline), "-q", "-o", str(tmp_path / "all.json")]) == 0
    assert main(["solve", str(pipeline), "-q", "-o", str(tmp_path / "all.jsonl")]) == 0
    whole, streamed = read_result(tmp_path / "all.json"), read_result(tmp_path / "all.jsonl")
    assert tilings(whole.solutions) == tilings(streamed.solutions)
    # A tiling of 10 pieces takes one line of about 230 bytes, not a table per cell.
    text = (tmp_path / "all.json").read_text()
    assert len(text) < 72 * 250 + 2000


def test_a_json_listing_is_written_as_its_tilings_come_and_keeps_only_a_few(tmp_path, pipeline, monkeypatch):
    """A listing to .json holds no more tilings in memory than one to .jsonl (it held
    them all: 15 million tilings took 14 GB); the file still holds every one, in the
    same text as ``write_result`` makes of a Result holding them all."""
    kept = []

    def watched_run(plan, **keywords):
        result = run(plan, **keywords)
        kept.append(result)
        return result

    monkeypatch.setattr(solve_command, "run", watched_run)
    out = tmp_path / "all.json"
    assert main(["solve", str(pipeline), "-q", "-o", str(out)]) == 0
    assert [len(result.solutions) for result in kept] == [solve_command.STREAMED_KEEP]
    written = read_result(out)
    assert written.count == 72 and len(written.solutions) == 72 and len(tilings(written.solutions)) == 72
    whole = attrs.evolve(kept[0], solutions=written.solutions)
    write_result(whole, tmp_path / "whole.json")
    assert out.read_bytes() == (tmp_path / "whole.json").read_bytes()
    assert not [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


def test_a_streamed_json_file_is_the_text_of_its_result(tmp_path):
    """``ResultJson`` makes, from solutions handed one by one, the text ``write_result``
    makes of the Result holding them: parts, objectives and no solutions at all too."""
    result = api.solve(api.plan((4, 3), [api.piece("L", ["#.", "##"], unlimited=True)], mode="all", jobs=1))
    assert len(result.solutions) > 3
    parts = [attrs.evolve(solution, part="a=1") for solution in result.solutions[:3]]
    scored = [attrs.evolve(solution, objective=7) for solution in result.solutions[:2]]
    for solutions in (result.solutions, (), parts, scored):
        every = attrs.evolve(result, solutions=tuple(solutions))
        write_result(every, tmp_path / "whole.json", replace=True)
        streamed = ResultJson(tmp_path / "streamed.json", header_of_result(every), replace=True)
        for solution in solutions:
            streamed.add(solution)
        streamed.finish(attrs.evolve(every, solutions=()))
        assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "whole.json").read_bytes()


def test_a_result_reads_back_as_it_was_written(tmp_path):
    result = api.solve(
        api.plan(
            ["###", "#.#", "###"], [api.piece("L", ["##", "#."], count=2), api.piece("I", ["##"])], backend="cpsat"
        )
    )
    for name in ("r.json", "r.toml"):
        write_result(result, tmp_path / name)
        assert read_result(tmp_path / name) == result


@pytest.mark.parametrize(
    "lines, expected",
    [
        ([], "no closing line"),
        (['{"line": "solution", "placements": []}'], "starts with its header line"),
        (
            ["HEADER", '{"line": "solution", "placements": [["L", [0, 0, 1]]]}', "END"],
            "line 2.placements[0]: expected x and y",
        ),
        (["HEADER", '{"line": "solution", "placements": []}'], "no closing line"),
        (["HEADER", "END", "END"], "line 3: nothing may follow the closing line"),
        (["HEADER", "{not json"], "line 2: not JSON"),
        (
            ["HEADER", '{"line": "solution", "placements": []}', "END"],
            "the closing line says 0 solutions, the file holds 1",
        ),
    ],
)
def test_a_broken_jsonl_file_is_refused_in_one_line(tmp_path, capsys, lines, expected):
    header = '{"line": "header", "problem": "tiling", "mode": "all", "backend": "cpsat", "pieces": ["L"]}'
    end = (
        '{"line": "end", "termination": "completed", "found": "feasible", "mode": "all", "backend": "cpsat",'
        ' "solutions_written": 0}'
    )
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(line.replace("HEADER", header).replace("END", end) + "\n" for line in lines))
    assert main(["render", str(path), "-o", str(tmp_path / "out.txt")]) == 2
    error = capsys.readouterr().err
    assert expected in error and error.count("\n") == 1
