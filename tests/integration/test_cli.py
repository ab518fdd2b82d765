"""The command line: bad input is one clear line and exit code 2, never a traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from polytile_core.cli.main import main
from polytile_core.testing import TWO_L_TETROMINOES

EXAMPLES = Path(__file__).parents[2] / "examples"


def polytile(*arguments, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "polytile_core.cli.main", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def write(tmp_path, text, name="pipeline.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = TWO_L_TETROMINOES

BAD_INPUTS = {
    "malformed TOML": ("[region\nwidth = 3", "not valid TOML"),
    "unknown key": (GOOD + "[solve]\nspeed = 3\n", "solve: unknown key speed"),
    "piece not connected": (
        '[region]\nwidth = 2\nheight = 2\n[[pieces]]\nname = "Q"\nshape = ["#.", ".#"]\n',
        "pieces[0]: piece 'Q' is not connected",
    ),
    "unknown plugin": (GOOD + '[solve]\nbackend = "gurobi"\n', "no backend called 'gurobi' is installed (installed: "),
    "wrong type with its key path": (
        GOOD.replace("count = 2", 'count = "two"'),
        'pieces[0].count: expected an integer, got "two"',
    ),
    "bad mode": (GOOD + '[solve]\nmode = "fast"\n', "solve.mode: expected one of 'one', 'all', 'count', got \"fast\""),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, case):
    text, expected = BAD_INPUTS[case]
    path = write(tmp_path, text)
    completed = polytile("solve", str(path))
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert completed.stderr.startswith(f"polytile: error: {path}: ")
    assert expected in completed.stderr


AREA_CASES = {
    "pieces too large": (
        '[region]\nwidth = 2\nheight = 2\n[[pieces]]\nfamily = "tetrominoes"\n',
        "the pieces cover at least 20 cells but the region has only 4",
    ),
    "pieces too few": (
        '[region]\nwidth = 3\nheight = 3\n[[pieces]]\nname = "D"\nshape = ["##"]\nmax = 4\n',
        "the pieces cover at most 8 cells but the region has 9",
    ),
}


@pytest.mark.parametrize("mode", ["one", "count", "all"])
@pytest.mark.parametrize("case", sorted(AREA_CASES))
def test_an_area_the_pieces_cannot_fill_is_a_proof_not_an_error(tmp_path, capsys, case, mode):
    text, sentence = AREA_CASES[case]
    out = tmp_path / "result.json"
    assert main(["solve", str(write(tmp_path, text)), "--mode", mode, "-o", str(out)]) == 0
    assert f"impossible by area: {sentence}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert (data["termination"], data["found"], data["count"]) == (
        "completed",
        "proved_infeasible",
        None if mode == "one" else 0,
    )
    assert data["details"]["certificate"] == "area"
    assert data["message"] == f"impossible by area: {sentence}"


def test_a_missing_file_is_named(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: no such file" in capsys.readouterr().err


def test_solve_writes_json_and_refuses_to_overwrite(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    out = tmp_path / "result.json"
    assert main(["solve", str(path), "--mode", "all", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert (data["termination"], data["found"], data["count"]) == ("completed", "feasible", 2)
    assert [len(s["placements"]) for s in data["solutions"]] == [2, 2]
    # each placed piece as [name, [x0, y0, ..., x3, y3]]
    assert all(len(cells) == 8 for s in data["solutions"] for _, cells in s["placements"])
    before = out.read_text()
    assert main(["solve", str(path), "-o", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert out.read_text() == before


def test_json_on_stdout_stays_clean(tmp_path):
    completed = polytile("solve", str(write(tmp_path, GOOD)), "--mode", "count", "-o", "-")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["count"] == 2


def test_toml_output(tmp_path):
    import tomllib

    out = tmp_path / "result.toml"
    assert main(["solve", str(write(tmp_path, GOOD)), "--mode", "count", "-q", "-o", str(out)]) == 0
    assert tomllib.loads(out.read_text())["count"] == 2


def test_the_demo_prints_a_tiling():
    completed = polytile("solve", str(EXAMPLES / "pentomino-6x10.toml"))
    assert completed.returncode == 0, completed.stderr
    picture = [line for line in completed.stdout.splitlines() if len(line) == 10 and line.isalpha()]
    assert len(picture) == 6


def test_validate_reports_the_model_size(tmp_path, capsys):
    assert main(["validate", str(write(tmp_path, GOOD))]) == 0
    assert "ok — tiling" in capsys.readouterr().out


def test_every_example_validates_in_one_call(capsys):
    examples = sorted(EXAMPLES.rglob("*.toml"))
    assert main(["validate", *map(str, examples)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.count(": ok — ") == len(examples)


def test_validate_reports_what_is_proved_without_search_and_goes_on_past_a_bad_file(tmp_path, capsys):
    # Twelve pentominoes cover 60 cells, not 25; the one-sided tetrominoes' T has parity ±2
    # on a 4×5 board of parity 0 while the other four have parity 0 (the classic argument).
    by_area = write(tmp_path, '[region]\nwidth = 5\nheight = 5\n[[pieces]]\nfamily = "pentominoes"\n', "area.toml")
    by_parity = write(tmp_path, '[region]\nwidth = 4\nheight = 5\n[[pieces]]\nfamily = "tetrominoes"\n', "parity.toml")
    bad = write(tmp_path, GOOD.replace("width = 4", "width = 0"), "bad.toml")
    assert main(["validate", str(by_area), str(bad), str(by_parity), str(write(tmp_path, GOOD))]) == 2
    shown = capsys.readouterr()
    assert "no tiling: impossible by area: the pieces cover at least 60 cells but the region has only 25" in shown.out
    assert "(the region has 13 black and 12 white cells)" in shown.out
    assert "no tiling: impossible by checkerboard colouring" in shown.out
    assert "area: the pieces can cover the region's 8 cells (4 black and 4 white cells)" in shown.out
    assert shown.err.count("\n") == 1 and f"{bad}: region" in shown.err


def test_version(capsys):
    from importlib.metadata import version

    import polytile_core

    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"polytile {version('polytile')}\n" == f"polytile {polytile_core.__version__}\n"


def test_dash_means_stdout_for_every_command_that_writes_a_file(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    pipeline = write(tmp_path, GOOD)
    assert main(["export", str(pipeline), "--format", "lp", "-o", "-"]) == 0
    exported = capfd.readouterr().out
    assert exported.startswith("\\ polytile model") and "wrote" not in exported
    assert main(["solve", str(pipeline), "--mode", "all", "-q", "-o", "result.json"]) == 0
    assert main(["render", "result.json", "-o", "-", "--format", "svg"]) == 0
    drawn = capfd.readouterr().out
    assert drawn.startswith("<svg") and drawn.count('class="piece"') == 16
    assert main(["pieces", "4", "-o", "-", "--format", "svg"]) == 0
    assert capfd.readouterr().out.count('class="piece"') == 5 * 4
    assert main(["export", str(pipeline), "-o", "-"]) == 2
    assert "--format" in capfd.readouterr().err
    assert not (tmp_path / "-").exists()


def test_pieces_draws_a_picture_file(tmp_path, capsys):
    picture = tmp_path / "pentominoes.svg"
    assert main(["pieces", "5", "-o", str(picture)]) == 0
    svg = picture.read_text()
    # The 12 free pentominoes (OEIS A000105), 5 cells each.
    assert svg.count('class="piece"') == 60
    assert main(["pieces", "5", "-o", str(picture)]) == 2  # never over a file without --force
    assert "exists already" in capsys.readouterr().err


def test_a_backend_named_on_the_command_line_is_reported_so(tmp_path, capsys):
    pipeline = write(tmp_path, GOOD)
    assert main(["solve", str(pipeline), "--backend", "cpsat"]) == 0
    assert "route: cpsat (named on the command line)" in capsys.readouterr().out
    named = write(tmp_path, GOOD + '[solve]\nbackend = "cpsat"\n', "named.toml")
    assert main(["solve", str(named)]) == 0
    assert "route: cpsat (named in the pipeline)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--backend", "cpsta", "--backend cpsta: no backend called 'cpsta' is installed"),
        ("--executor", "pool", "--executor pool: no executor called 'pool' is installed"),
        ("--jobs", "0", "--jobs 0: expected 1 or more, got 0"),
        ("--time-limit", "-1", "--time-limit -1.0: expected a positive number of seconds"),
    ],
)
def test_a_bad_option_is_blamed_not_the_pipeline_file(tmp_path, capsys, option, value, expected):
    assert main(["solve", str(write(tmp_path, GOOD)), option, value]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"polytile: error: {expected}") and "pipeline.toml" not in error


def test_an_unknown_family_names_its_key(tmp_path, capsys):
    path = write(tmp_path, '[region]\nwidth = 5\nheight = 1\n[[pieces]]\nfamily = "pentominos"\n')
    assert main(["solve", str(path)]) == 2
    assert f"{path}: pieces[0].family: no piece family called 'pentominos' is installed" in capsys.readouterr().err


def test_with_the_core_alone_auto_says_to_install_a_backend(tmp_path, capsys):
    assert main(["--no-autoload", "solve", str(write(tmp_path, GOOD))]) == 2
    assert "solve.backend: no backend plugin is installed; install one" in capsys.readouterr().err


def test_a_disconnected_region_is_allowed_and_reported(tmp_path, capsys):
    two_parts = '[region]\nrows = ["##.##"]\n[[pieces]]\nname = "D"\nshape = ["##"]\ncount = 2\n'
    path = write(tmp_path, two_parts)
    assert main(["validate", str(path)]) == 0
    assert "a region of 4 cells in 2 separate parts" in capsys.readouterr().out
    assert main(["solve", str(path), "--mode", "count"]) == 0
    assert "solutions: 1" in capsys.readouterr().out


def test_a_run_that_ends_in_an_error_exits_with_1(tmp_path, monkeypatch):
    from polytile_core.cli.commands import solve as solve_command
    from polytile_core.output.results import Found, Result, Termination

    failed = Result(termination=Termination.ERROR, found=Found.NONE, mode="count", backend="cpsat")
    monkeypatch.setattr(solve_command, "run", lambda plan, **_: failed)
    assert main(["solve", str(write(tmp_path, GOOD)), "-q"]) == 1


def test_result_files_get_the_usual_permissions(tmp_path):
    import os
    import stat

    out = tmp_path / "result.json"
    assert main(["solve", str(write(tmp_path, GOOD)), "-q", "-o", str(out)]) == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_a_closed_pipe_is_not_a_traceback(tmp_path):
    shell = f"{sys.executable} -m polytile_core.cli.main solve {write(tmp_path, GOOD)} --mode all -o - | head -c 10"
    completed = subprocess.run(["bash", "-c", "set -o pipefail; " + shell], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in completed.stderr and "BrokenPipe" not in completed.stderr


def test_a_large_tiling_is_summed_up_without_its_picture(tmp_path, capsys):
    """A terminal gets the picture of a small tiling, and a line instead of a 300×300 one."""
    pieces = '[[pieces]]\nname = "D"\nshape = ["##"]\nunlimited = true\n'
    for side, drawn in ((6, True), (300, False)):
        out = tmp_path / f"{side}.json"
        assert (
            main(
                [
                    "solve",
                    str(write(tmp_path, f"[region]\nwidth = {side}\nheight = {side}\n\n{pieces}")),
                    "-o",
                    str(out),
                ]
            )
            == 0
        )
        printed = capsys.readouterr().out
        assert (f"the {side}×{side} picture is not printed" not in printed) == drawn
        assert max(len(line) for line in printed.splitlines()) < 200
