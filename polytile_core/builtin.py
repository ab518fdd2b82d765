"""The core's own plugin: the classic piece families, the ``tiling`` model builder,
the text renderer and the local executors.  It is registered like any other plugin,
so it doubles as the smallest example of one."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

from polytile_core import hookimpl
from polytile_core.geometry import Region, cells_from_rows, placements
from polytile_core.model import Model, Placement
from polytile_core.problem import PieceType

# The usual letter names; shapes as ASCII rows.
CLASSIC_FAMILIES = {
    "monomino": {"O": ["#"]},
    "dominoes": {"D": ["##"]},
    "trominoes": {"I": ["###"], "L": ["##", "#."]},
    "tetrominoes": {"I": ["####"], "O": ["##", "##"], "T": ["###", ".#."], "S": [".##", "##."], "L": ["###", "#.."]},
    "pentominoes": {
        "F": [".##", "##.", ".#."],
        "I": ["#####"],
        "L": ["####", "#..."],
        "N": ["##..", ".###"],
        "P": ["##", "##", "#."],
        "T": ["###", ".#.", ".#."],
        "U": ["#.#", "###"],
        "V": ["#..", "#..", "###"],
        "W": ["#..", "##.", ".##"],
        "X": [".#.", "###", ".#."],
        "Y": [".#..", "####"],
        "Z": ["##.", ".#.", ".##"],
    },
}


def _family(pictures):
    def make(n=None, kind="free"):
        return [(name, cells_from_rows(rows)) for name, rows in pictures.items()]

    return make


@hookimpl
def polytile_register_families(register):
    for name, pictures in CLASSIC_FAMILIES.items():
        register(name, _family(pictures), help=f"the classic {name}, named {' '.join(pictures)}")


def build_tiling(pieces: tuple[PieceType, ...], region: Region, options=None) -> Model:
    """The exact-cover ILP of Garvie & Burkardt (2020): one 0-1 variable per placement,
    each cell covered exactly once, each piece used within its multiplicity.

    Lean on memory (a 100×100 board with unlimited pentominoes has 632,000 placements):
    placements share the region's cell tuples, and each variable's ``(var, 1)`` term is
    one tuple shared by its piece row and its cell rows."""
    model = Model(name="tiling")
    shared_cell = {cell: cell for cell in region.cells}
    covering: dict[tuple[int, int], list[tuple[int, int]]] = {cell: [] for cell in sorted(region.cells)}
    for piece in pieces:
        terms: list[tuple[int, int]] = []
        for shape in piece.orientations():  # one at a time: ``add_variable`` checks the run's clock between them
            for placed in placements([shape], region):
                cells = tuple(shared_cell[cell] for cell in placed)
                label = f"{piece.name}#{len(terms)}"
                term = (model.add_variable(label, placement=Placement(piece.name, cells)), 1)
                terms.append(term)
                for cell in cells:
                    covering[cell].append(term)
        if piece.exact:
            model.add_constraint(terms, "==", piece.minimum, f"piece {piece.name}")
        else:
            if piece.minimum > 0:
                model.add_constraint(terms, ">=", piece.minimum, f"piece {piece.name} min")
            if piece.maximum is not None:
                model.add_constraint(terms, "<=", piece.maximum, f"piece {piece.name} max")
    for (x, y), terms in covering.items():
        model.add_constraint(terms, "==", 1, f"cell {x},{y}")
    return model


@hookimpl
def polytile_register_builders(register):
    register("tiling", build_tiling, help="cover every cell of the region exactly once (Garvie & Burkardt 2020)")


def render_text(result, path: Path, options=None) -> None:
    from polytile_core.picture import ascii_picture

    pictures = [ascii_picture(solution, result.region) for solution in result.solutions]
    Path(path).write_text("\n\n".join(pictures) + "\n", encoding="utf-8")


@hookimpl
def polytile_register_renderers(register):
    register("txt", render_text, help="ASCII pictures, a letter per piece")


def _process_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    return concurrent.futures.ProcessPoolExecutor(max_workers=jobs)


def _thread_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=jobs)


@hookimpl
def polytile_register_executors(register):
    register("process", _process_pool, help="a local process pool (--jobs processes); the default")
    register("thread", _thread_pool, help="a local thread pool, for backends that release the GIL")
