"""The core's own plugin: the classic piece families, the ``tiling`` model builder,
the text renderer and the local executors.  It is registered like any other plugin,
so it doubles as the smallest example of one."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
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
    each cell covered exactly once, each piece used within its multiplicity."""
    model = Model(name="tiling")
    covering: dict[tuple[int, int], list[int]] = {cell: [] for cell in sorted(region.cells)}
    for piece in pieces:
        variables = []
        for number, placed in enumerate(placements(piece.orientations(), region)):
            var = model.add_variable(f"{piece.name}#{number}", placement=Placement(piece.name, placed))
            variables.append(var)
            for cell in placed:
                covering[cell].append(var)
        terms = [(var, 1) for var in variables]
        if piece.exact:
            model.add_constraint(terms, "==", piece.minimum, f"piece {piece.name}")
        else:
            if piece.minimum > 0:
                model.add_constraint(terms, ">=", piece.minimum, f"piece {piece.name} min")
            if piece.maximum is not None:
                model.add_constraint(terms, "<=", piece.maximum, f"piece {piece.name} max")
    for (x, y), variables in covering.items():
        model.add_constraint([(var, 1) for var in variables], "==", 1, f"cell {x},{y}")
    return model


@hookimpl
def polytile_register_builders(register):
    register("tiling", build_tiling, help="cover every cell of the region exactly once (Garvie & Burkardt 2020)")


def render_text(result, path: Path, options=None) -> None:
    from polytile_core.picture import ascii_picture

    from polytile_core.resultfile import write_atomically

    pictures = [ascii_picture(solution, result.region) for solution in result.solutions]
    write_atomically(Path(path), "\n\n".join(pictures) + "\n", replace=True)


@hookimpl
def polytile_register_renderers(register):
    register("txt", render_text, help="ASCII pictures, a letter per piece")


def _process_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    """Workers from a forkserver (never fork: the run has threads), each ending when the run does."""
    from polytile_core.orphans import exit_with_parent

    return concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("forkserver"),
        initializer=exit_with_parent, initargs=(os.getpid(),),
    )


def _thread_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=jobs)


@hookimpl
def polytile_register_executors(register):
    register("process", _process_pool, help="a local process pool (--jobs processes); the default")
    register("thread", _thread_pool, help="a local thread pool, for backends that release the GIL")
