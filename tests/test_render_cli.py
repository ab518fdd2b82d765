"""``polytile render`` and ``polytile solve --render``: pictures from result files.

The commands run in this process (``main``), so every plugin is imported once for the
whole file; paths are absolute.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from polytile_core.cli.main import main

EXAMPLES = Path(__file__).parent.parent / "examples"
SVG = "{http://www.w3.org/2000/svg}"

pytest.importorskip("polytile_render", reason="the render plugin (plugins/render) is not installed")


def polytile(capsys, *arguments):
    """Exit code and stderr of one command."""
    capsys.readouterr()
    code = main([str(argument) for argument in arguments])
    return code, capsys.readouterr().err


def drawn_cells(path):
    """The ``x,y`` of every cell rectangle in an SVG, in drawing order."""
    return [rect.get("data-cell") for rect in ET.parse(path).getroot().iter(f"{SVG}rect") if rect.get("data-cell")]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Both tilings of 2×4 by two L-tetrominoes (Garvie & Burkardt 2022), as JSON and TOML."""
    folder = tmp_path_factory.mktemp("results")
    for name in ("result.json", "result.toml"):
        assert main(["solve", str(EXAMPLES / "l-tetromino-2x4.toml"), "-q", "-o", str(folder / name)]) == 0
    return folder


@pytest.mark.parametrize("result_file", ["result.json", "result.toml"])
def test_render_draws_a_gallery_of_every_solution(results, tmp_path, capsys, result_file):
    code, stderr = polytile(capsys, "render", results / result_file, "-o", tmp_path / "both.svg")
    assert code == 0, stderr
    # Two tilings (the oracle for 2×4), every cell of the 2×4 drawn once in each picture.
    assert sorted(drawn_cells(tmp_path / "both.svg")) == sorted([f"{x},{y}" for x in range(4) for y in range(2)] * 2)
    texts = [text.text for text in ET.parse(tmp_path / "both.svg").getroot().iter(f"{SVG}text")]
    assert texts == ["#1", "#2"]


def test_render_never_replaces_a_file_without_force(results, tmp_path, capsys):
    picture = tmp_path / "picture.svg"
    picture.write_text("keep me")
    code, stderr = polytile(capsys, "render", results / "result.json", "-o", picture)
    assert code == 2
    assert stderr.strip().endswith("the file exists already; choose another name or pass --force")
    assert picture.read_text() == "keep me"
    code, _ = polytile(capsys, "render", results / "result.json", "-o", picture, "--force")
    assert code == 0 and picture.read_text().startswith("<svg")
    assert [p.name for p in tmp_path.iterdir()] == ["picture.svg"]  # no temporary file left behind


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["x.pdf"], "no render format called 'pdf' is installed"),
        (["x"], "needs an extension"),
        (["x.svg", "--cell-size", "2"], "cell_size"),
        (["x.txt", "--columns", "2"], "render format 'txt' takes no options"),
        (["missing/x.svg"], "missing: no such directory"),
    ],
)
def test_bad_render_requests_are_one_line_and_exit_code_2(results, tmp_path, capsys, arguments, message):
    picture, *flags = arguments
    code, stderr = polytile(capsys, "render", results / "result.json", "-o", tmp_path / picture, *flags)
    assert code == 2
    assert len(stderr.strip().splitlines()) == 1 and message in stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_or_broken_result_file_is_one_line(tmp_path, capsys):
    (tmp_path / "broken.json").write_text("{not json")
    for name in ("missing.json", "broken.json"):
        code, stderr = polytile(capsys, "render", tmp_path / name, "-o", tmp_path / "x.svg")
        assert code == 2 and len(stderr.strip().splitlines()) == 1, stderr


def test_solve_render_writes_a_png_of_the_cell_size_asked_for(tmp_path, capsys):
    image_module = pytest.importorskip("PIL.Image")
    pipeline = tmp_path / "pipeline.toml"
    pipeline.write_text(
        (EXAMPLES / "pentomino-6x10.toml").read_text() + "\n[options.render]\ncell_size = 30\ncheckerboard = true\n"
    )
    code, stderr = polytile(capsys, "solve", pipeline, "--render", tmp_path / "tiling.png", "-q")
    assert code == 0, stderr
    # 10 × 6 cells of 30 pixels, and a margin of half a cell all round.
    assert image_module.open(tmp_path / "tiling.png").size == (10 * 30 + 30, 6 * 30 + 30)


def test_solve_checks_the_picture_before_solving(tmp_path, capsys):
    pipeline = tmp_path / "pipeline.toml"
    pipeline.write_text((EXAMPLES / "pentomino-6x10.toml").read_text() + "\n[options.render]\ncell_size = 2\n")
    code, stderr = polytile(
        capsys, "solve", pipeline, "--render", tmp_path / "tiling.svg", "-o", tmp_path / "result.json"
    )
    assert code == 2
    assert "pipeline.toml: options.render" in stderr and "cell_size" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipeline.toml"]  # nothing solved, nothing written


def test_solve_refuses_an_existing_result_file_before_solving(tmp_path, capsys):
    existing = tmp_path / "result.json"
    existing.write_text("{}")
    code, stderr = polytile(
        capsys, "solve", EXAMPLES / "pentomino-6x10.toml", "-o", existing, "--render", tmp_path / "x.svg"
    )
    assert code == 2 and "result.json: the file exists already" in stderr
    assert existing.read_text() == "{}" and not (tmp_path / "x.svg").exists()
