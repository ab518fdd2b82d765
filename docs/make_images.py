"""Make the pictures in docs/images/ from real solves.

    .venv/bin/python docs/make_images.py            # every picture
    .venv/bin/python docs/make_images.py fence      # the pictures whose name contains "fence"

Each picture is made with the two commands the guide shows, ``polytile solve PIPELINE -o
RESULT.json`` and ``polytile render RESULT.json -o PICTURE``, so the pictures stay true
to the code.  Solvers with several threads may find a different tiling on each run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from polytile_core.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
EXAMPLES = ROOT / "examples"

SPLIT_2X4 = """
# Two L-tetrominoes in 2×4, split by the checkerboard colouring (Garvie & Burkardt 2022)
[region]
rows = ["####", "####"]
[[pieces]]
name = "L"
shape = ["#.", "#.", "##"]
count = 2
[solve]
mode = "all"
[split]
method = "checkerboard"
"""

GALLERY_6X10 = """
# All 9,356 tilings of 6×10 by the twelve pentominoes; the result keeps the first eight.
[region]
width = 10
height = 6
[[pieces]]
family = "pentominoes"
[solve]
mode = "all"
backend = "exactcover"
keep = 8
"""

FENCE = """
# The five free tetrominoes fencing in the largest area (9 cells, classic rule). CP-SAT
# finds the 9 within seconds; proving no fence does better takes longer than the 30 s given.
problem = "enclose"
[[pieces]]
family = "tetrominoes"
[options.enclose]
width = 8
height = 8
"""

# picture name → (an example file or a pipeline's text, `polytile solve` flags, `polytile render` flags)
PICTURES = {
    "pentomino-6x10.png": (EXAMPLES / "pentomino-6x10.toml", [], ["--cell-size", "32"]),
    "pentomino-6x10-checkerboard.png": (EXAMPLES / "pentomino-6x10.toml", [], ["--cell-size", "32", "--checkerboard"]),
    "scott-8x8.png": (EXAMPLES / "pentomino-8x8-minus-centre.toml", [], ["--cell-size", "32"]),
    "pentomino-6x10-gallery.png": (GALLERY_6X10, [], ["--columns", "4", "--cell-size", "16"]),
    "l-tetromino-2x4-parts.png": (SPLIT_2X4, [], ["--cell-size", "32"]),
    "tetromino-fence.png": (FENCE, ["--time-limit", "30"], ["--cell-size", "32"]),
}


def make(name: str, source: Path | str, solve_flags: list[str], render_flags: list[str], work: Path) -> None:
    stem = Path(name).stem
    pipeline = source if isinstance(source, Path) else work / f"{stem}.toml"
    if not isinstance(source, Path):
        pipeline.write_text(source, encoding="utf-8")
    result = work / f"{stem}.json"
    steps = (
        ["solve", str(pipeline), "-q", "-o", str(result), *solve_flags],
        ["render", str(result), "-o", str(IMAGES / name), "--force", *render_flags],
    )
    for step in steps:
        print("polytile", " ".join(step), flush=True)
        if main(step) != 0:
            raise SystemExit(f"failed: polytile {' '.join(step)}")


def run(wanted: list[str]) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for name, (source, solve_flags, render_flags) in PICTURES.items():
            if not wanted or any(word in name for word in wanted):
                make(name, source, solve_flags, render_flags, Path(folder))


if __name__ == "__main__":
    run(sys.argv[1:])
