"""Bad input of issue 30, each through a real ``polytile`` process: one line naming the
file (and the key path, the solution or the flag), exit code 2, no traceback, and no
file left behind.

The processes start together (a module fixture) and each test reads its own answer, so
the file costs the time of a few process starts, not one per case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from polytile_core.testing import TWO_L_TETROMINOES

CLI = [sys.executable, "-m", "polytile_core.cli.main"]

# The two tilings of 2×4 by L-tetrominoes, written by hand (the oracle: Garvie & Burkardt 2022).
FIRST = [["L", [0, 0, 1, 0, 2, 0, 0, 1]], ["L", [3, 0, 1, 1, 2, 1, 3, 1]]]
SECOND = [["L", [0, 0, 0, 1, 1, 1, 2, 1]], ["L", [1, 0, 2, 0, 3, 0, 3, 1]]]
REGION = [[x, y] for x in range(4) for y in range(2)]


def result_file(solutions, region=REGION) -> str:
    table = {"termination": "completed", "found": "feasible", "mode": "all", "backend": "hand"}
    return json.dumps({**table, "region": region, "solutions": [{"placements": p} for p in solutions]})


ENCLOSE = 'problem = "enclose"\n[[pieces]]\nfamily = "tetrominoes"\n'
# A split run, so that it may take a checkpoint.
SPLIT = TWO_L_TETROMINOES + '[split]\nmethod = "checkerboard"\n[solve]\nmode = "count"\n'
SCRIPT = """
import sys

from polytile_core import api
from polytile_core.errors import InputError


def count():
    plan = api.plan((4, 2), [api.piece("L", ["#.", "#.", "##"], count=2)], mode="count",
                    split="checkerboard", jobs=2, executor="process", backend="exactcover")
    try:
        print(api.solve(plan).count)
    except InputError as exc:
        print(f"polytile: error: {exc}", file=sys.stderr)
        sys.exit(2)

"""
UNGUARDED = SCRIPT + "count()\n"
GUARDED = SCRIPT + 'if __name__ == "__main__":\n    count()\n'


@attrs.frozen
class Case:
    files: dict[str, str]
    arguments: list[str]
    expected: str  # the whole error line after "polytile: error: "
    command: list[str] = CLI
    whole: bool = True  # False: the line starts with ``expected`` (the rest is the renderer's layout)

    def start(self, folder: Path) -> subprocess.Popen:
        folder.mkdir()
        for name, text in self.files.items():
            (folder / name).write_text(text, encoding="utf-8")
        return subprocess.Popen(
            [*self.command, *self.arguments], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )


def solve(text: str, *flags: str) -> tuple[dict[str, str], list[str]]:
    return {"p.toml": text}, ["solve", "p.toml", *flags]


def render(text: str, picture: str = "x.svg", *flags: str) -> tuple[dict[str, str], list[str]]:
    return {"r.json": text}, ["render", "r.json", "-o", picture, *flags]


TOO_LARGE = "more than the 10000 an enclosure board may have (its grid model needs over 130 variables a cell)"
CASES = {
    # Item 5: the enclosure board's size, checked with its key path.
    "enclosure board 400x300": Case(
        *solve(ENCLOSE + "[options.enclose]\nwidth = 400\nheight = 300\n"),
        f"p.toml: options.enclose.width: a 400×300 board has 120000 cells, {TOO_LARGE}",
    ),
    "enclosure board 100000x100000, validate": Case(
        {"p.toml": ENCLOSE + "[options.enclose]\nwidth = 100000\nheight = 100000\n"},
        ["validate", "p.toml"],
        f"p.toml: options.enclose.width: a 100000×100000 board has 10000000000 cells, {TOO_LARGE}",
    ),
    "enclosure region 101x100": Case(
        *solve(ENCLOSE + "[region]\nwidth = 101\nheight = 100\n"),
        f"p.toml: region: the [region] has 10100 cells, {TOO_LARGE}",
    ),
    "enclosure pieces too many for any board": Case(
        *solve('problem = "enclose"\n[[pieces]]\nfamily = "pentominoes"\ncount = 40\n'),
        "p.toml: pieces: the pieces hold 2400 cells, so a board sized from them has at least 361201 cells, "
        f"{TOO_LARGE}; give a smaller board as options.enclose.width and height",
    ),
    # Item 6: render checks before it draws.
    "render overlap": Case(
        *render(result_file([FIRST, [FIRST[0], ["L", [0, 0, 1, 1, 2, 1, 3, 1]]]])),
        "r.json: solutions[1]: cell [0, 0] is covered by two pieces, L and L",
    ),
    "render cell outside the region": Case(
        *render(result_file([[FIRST[0], ["L", [3, 0, 1, 1, 2, 1, 4, 1]]]])),
        "r.json: solutions[0]: piece L covers cell [4, 1], which is not in the region",
    ),
    "render region not covered": Case(
        *render(result_file([FIRST[:1]])), "r.json: solutions[0]: cell [3, 0] of the region is covered by no piece"
    ),
    "render a cell twice in a piece": Case(
        *render(result_file([[["L", [0, 0, 1, 0, 2, 0, 0, 0]], FIRST[1]]])),
        "r.json: solutions[0]: cell [0, 0] is listed twice in piece L",
    ),
    "render a piece of another shape": Case(
        *render(result_file([SECOND, [["L", [0, 0, 1, 0, 2, 0, 3, 0]], ["L", [0, 1, 1, 1, 2, 1, 3, 1]]]])),
        "r.json: solutions[1]: piece L at cell [0, 0] does not have the shape L has in solutions[0] "
        "(##/#./#. there, #### here)",
    ),
    "render a piece in two bits": Case(
        *render(result_file([[["L", [0, 0, 1, 0, 2, 0, 3, 1]], ["L", [3, 0, 1, 1, 2, 1, 0, 1]]]])),
        "r.json: solutions[0]: piece L is not one piece: cell [3, 1] is not joined to the rest",
    ),
    "render a coordinate of 10**12": Case(
        *render(result_file([[["O", [0, 0]], ["O", [10**12, 0]]]], region=[]), picture="x.txt"),
        "r.json: solutions[0]: the cells span 1000000000001 × 1, more than the 4,000,000 cells a picture may show",
    ),
    "render a region coordinate of 10**12": Case(
        *render(result_file([], region=[[0, 0], [0, 10**12]])),
        "r.json: region: the cells span 1 × 1000000000001, more than the 4,000,000 cells a picture may show",
    ),
    "render a picture too large for its cell size": Case(
        *render(result_file([], region=[[x, y] for x in range(60) for y in range(60)]), "x.svg", "--cell-size", "200"),
        "x.svg: options.render: the picture would be ",
        whole=False,
    ),
    # Item 7.
    "result and picture the same file": Case(
        *solve(TWO_L_TETROMINOES, "-o", "same.txt", "--render", "same.txt"),
        "same.txt: --render names the same file as -o; give each its own file",
    ),
    "result and checkpoint the same file": Case(
        *solve(SPLIT, "--checkpoint", "F.json", "-o", "F.json"),
        "F.json: --checkpoint names the same file as -o; give each its own file",
    ),
    "checkpoint refused after a bad picture": Case(
        *solve(SPLIT, "--checkpoint", "c.jsonl", "--render", "x.pdf"),
        "p.toml: no render format called 'pdf' is installed (installed: png, svg, txt)",
    ),
    "result over the pipeline": Case(
        *solve(TWO_L_TETROMINOES, "-o", "p.toml", "--force"),
        "p.toml: -o names the same file as the pipeline; give each its own file",
    ),
    "unknown result suffix": Case(
        *solve(TWO_L_TETROMINOES, "-o", "x.xml"), "x.xml: a result file is .json, .toml or .jsonl (got .xml)"
    ),
    "a classic family with another size": Case(
        *solve('[region]\nwidth = 10\nheight = 6\n[[pieces]]\nfamily = "pentominoes"\nn = 6\n'),
        "p.toml: pieces[0].n: every piece of the pentominoes family has 5 cells, not 6; leave n out, "
        'or ask for family = "n-ominoes" with n = 6',
    ),
    "a repeated cell": Case(
        *solve('[region]\nwidth = 2\nheight = 1\n[[pieces]]\nname = "D"\ncells = [[0, 0], [1, 0], [0, 0]]\n'),
        "p.toml: pieces[0].cells[2]: cell [0, 0] is given twice (also as cells[0])",
    ),
    "process executor from a script without the __main__ test": Case(
        {"s.py": UNGUARDED},
        ["s.py"],
        "s.py: the process executor's workers import this script again, so its top-level code would run in each "
        'of them and none could start: put the work under `if __name__ == "__main__":` (README, "Embedding in '
        'Python"), or use executor = "thread"',
        command=[sys.executable],
    ),
}


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    """Every case's folder, exit code, output and errors; the processes run side by side."""
    root = tmp_path_factory.mktemp("refusals")
    cases = {**CASES, "guarded": Case({"s.py": GUARDED}, ["s.py"], "", command=[sys.executable])}
    folders = {name: root / f"case{number}" for number, name in enumerate(cases)}
    processes = {name: case.start(folders[name]) for name, case in cases.items()}
    found = {}
    for name, process in processes.items():
        out, err = process.communicate(timeout=300)
        found[name] = (folders[name], process.returncode, out, err)
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2_and_leaves_nothing(answers, name):
    folder, code, _, err = answers[name]
    assert "Traceback" not in err, err
    lines = err.replace(f"{folder}/", "").splitlines()  # (a script is named by its whole path)
    assert len(lines) == 1
    assert lines[0].startswith(f"polytile: error: {CASES[name].expected}")
    if CASES[name].whole:
        assert lines[0] == f"polytile: error: {CASES[name].expected}"
    assert code == 2
    # Nothing but the files the case wrote: no result, picture, checkpoint or temporary file.
    assert sorted(path.name for path in folder.iterdir()) == sorted(CASES[name].files)


def test_the_hand_written_tilings_render_and_a_guarded_script_runs_on_processes(answers, tmp_path):
    """The controls: the files the render cases edit draw fine, and the script with the
    ``__main__`` test counts the 2 tilings on a process pool."""
    (tmp_path / "r.json").write_text(result_file([FIRST, SECOND]), encoding="utf-8")
    drawn = subprocess.run([*CLI, "render", "r.json", "-o", "x.txt"], cwd=tmp_path, capture_output=True, text=True)
    assert drawn.returncode == 0, drawn.stderr
    _, code, out, err = answers["guarded"]
    assert (code, out) == (0, "2\n"), err
