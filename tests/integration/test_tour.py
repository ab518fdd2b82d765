"""docs/tour.ipynb runs in a Jupyter kernel, and what it shows are real pictures.

Needs the ``notebook`` extra (nbclient, ipykernel), which setup.sh installs."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

TOUR = Path(__file__).parents[2] / "docs" / "tour.ipynb"


def _outputs(cell) -> dict:
    """Every mime type the cell displayed, joined."""
    found: dict[str, str] = {}
    for output in cell.outputs:
        for mime, text in output.get("data", {}).items():
            found[mime] = found.get(mime, "") + text
        if output.get("name") == "stdout":
            found["stdout"] = found.get("stdout", "") + output["text"]
    return found


def _cell(notebook, source_start: str):
    return next(cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.startswith(source_start))


def _shown(notebook) -> list[list[str]]:
    """Per code cell, the kinds of output it shows."""
    return [sorted(_outputs(cell)) for cell in notebook.cells if cell.cell_type == "code"]


def test_the_tour_runs_and_its_results_draw_themselves():
    committed = nbformat.read(TOUR, as_version=4)
    notebook = nbformat.read(TOUR, as_version=4)
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(TOUR.parent)}}
    ).execute()
    # Committed with its outputs (so it shows pictures when browsed), and they are what
    # it shows today: re-save it with the command in docs/guide.md (Embedding) otherwise.
    assert _shown(committed) == _shown(notebook) and all(_shown(committed))

    shown = _outputs(_cell(notebook, "result  #"))
    svg = shown["image/svg+xml"]
    # The 6×10 tiling: 60 cells, each covered by one of 12 placed pieces.
    assert svg.startswith("<svg") and svg.count('class="piece"') == 60
    assert len(set(re.findall(r'data-placement="(\d+)"', svg))) == 12
    assert sorted(set(re.findall(r'data-piece="(\w)"', svg))) == sorted("FILNPTUVWXYZ")
    assert sorted(set(re.findall(r'data-cell="(\d+),(\d+)"', svg))) == sorted(
        (str(x), str(y)) for x in range(10) for y in range(6)
    )
    # The status is in the short text; the picture is stored once, as SVG, not also as HTML.
    assert shown["text/plain"].startswith("Result: completed, feasible (cpsat)") and "text/html" not in shown

    assert _outputs(_cell(notebook, 'api.family("pentominoes")'))["image/svg+xml"].count('class="piece"') == 60
    # 72 tilings of 5×6 with L-trominoes (OEIS A084478): 8 drawn, the rest counted.
    gallery = _outputs(_cell(notebook, "every = "))["image/svg+xml"]
    assert gallery.count('class="piece"') == 8 * 30 and "8 of 72 solutions shown" in gallery
    fence = _outputs(_cell(notebook, "fence = "))
    assert fence["stdout"].startswith("optimal") and 'class="interior"' in fence["image/svg+xml"]
