"""The core's own plugin: the classic piece families, the ``tiling`` model builder,
the text renderer and the local executors.  It is registered like any other plugin,
so it doubles as the smallest example of one."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from pathlib import Path

from polytile_core import hookimpl
from polytile_core.host.orphans import exit_with_parent
from polytile_core.model.geometry import cells_from_rows
from polytile_core.model.tiling import build_tiling
from polytile_core.output.picture import ascii_picture
from polytile_core.output.resultfile import write_atomically

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


@hookimpl
def polytile_register_builders(register):
    register("tiling", build_tiling, help="cover every cell of the region exactly once (Garvie & Burkardt 2020)")


def render_text(result, path: Path, options=None) -> None:
    pictures = [ascii_picture(solution, result.region) for solution in result.solutions]
    write_atomically(Path(path), "\n\n".join(pictures) + "\n", replace=True)


@hookimpl
def polytile_register_renderers(register):
    register("txt", render_text, help="ASCII pictures, a letter per piece")


def _process_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    """Workers from a forkserver (never fork: the run has threads), each ending when the run does."""
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context("forkserver"),
        initializer=exit_with_parent,
        initargs=(os.getpid(),),
    )


def _thread_pool(jobs: int, options=None) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=jobs)


@hookimpl
def polytile_register_executors(register):
    register("process", _process_pool, help="a local process pool (--jobs processes)")
    register("thread", _thread_pool, help="a local thread pool, for backends that release the GIL")
