"""The core's own plugin: the classic piece families, the ``tiling`` model builder,
the text renderer and the local executors.  It is registered like any other plugin,
so it doubles as the smallest example of one."""

from __future__ import annotations

import ast
import concurrent.futures
import ctypes
import multiprocessing
import multiprocessing.context
import os
import sys
from multiprocessing import forkserver
from pathlib import Path

from polytile_core import hookimpl
from polytile_core.errors import InputError
from polytile_core.host.contracts import Builder, ExecutorFactory, Family, Register, Renderer
from polytile_core.host.orphans import start_worker
from polytile_core.model.geometry import Cells, Kind, cells_from_rows
from polytile_core.model.tiling import build_tiling
from polytile_core.output.picture import ascii_picture
from polytile_core.output.resultfile import write_atomically
from polytile_core.output.results import Result

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


def _family(family: str, pictures: dict[str, list[str]]) -> Family:
    pieces = [(name, cells_from_rows(rows)) for name, rows in pictures.items()]
    size = len(pieces[0][1])

    def make(n: int | None = None, kind: Kind = "free") -> list[tuple[str, Cells]]:
        # A size that is not the family's own is a mistake to name, not to ignore.
        if n is not None and n != size:
            raise ValueError(
                f"every piece of the {family} family has {size} cell{'s' * (size != 1)}, not {n}; leave n out, "
                f'or ask for family = "n-ominoes" with n = {n}'
            )
        return list(pieces)

    return make


@hookimpl
def polytile_register_families(register: Register[Family]) -> None:
    for name, pictures in CLASSIC_FAMILIES.items():
        register(name, _family(name, pictures), help=f"the classic {name}, named {' '.join(pictures)}")


@hookimpl
def polytile_register_builders(register: Register[Builder]) -> None:
    register("tiling", build_tiling, help="cover every cell of the region exactly once (Garvie & Burkardt 2020)")


def render_text(result: Result, path: Path, options: None = None) -> None:
    pictures = [ascii_picture(solution, result.region) for solution in result.solutions]
    write_atomically(Path(path), "\n\n".join(pictures) + "\n", replace=True)


@hookimpl
def polytile_register_renderers(register: Register[Renderer]) -> None:
    register("txt", render_text, help="ASCII pictures, a letter per piece")


def _process_pool(jobs: int, options: None = None) -> concurrent.futures.Executor:
    """Workers from a forkserver (never fork: the run has threads), each ending when the run
    does, and stopping its part when the run asks."""
    script = unguarded_main_script()
    if script is not None:
        raise InputError(
            "the process executor's workers import this script again, so its top-level code would run in "
            'each of them and none could start: put the work under `if __name__ == "__main__":` '
            '(README, "Embedding in Python"), or use executor = "thread"',
            source=script,
        )
    return _PartsPool(jobs)


class _WorkerProcess(multiprocessing.context.ForkServerProcess):
    """A pool's worker ignores SIGTERM (``orphans.start_worker``), so ending it takes
    SIGKILL: a broken pool ends its other workers with ``terminate()``, and would wait
    for them for ever."""

    def terminate(self) -> None:
        self.kill()


class _WorkerContext(multiprocessing.context.ForkServerContext):
    Process = _WorkerProcess


class _PartsPool(concurrent.futures.ProcessPoolExecutor):
    """A process pool whose workers read one flag in shared memory (``orphans.start_worker``):
    a run that ends early asks its running parts to stop (``contracts.StopsItsParts``) and
    takes back what they found, where it used to kill them and lose it."""

    def __init__(self, jobs: int):
        context = _WorkerContext()
        # Read only when the forkserver starts: the first pool of the process starts it.
        context.set_forkserver_preload(_preload_with_ours())
        self._parts_stop = context.RawValue(ctypes.c_bool, False)
        super().__init__(
            max_workers=jobs,
            mp_context=context,
            initializer=start_worker,
            initargs=(os.getpid(), self._parts_stop),
        )

    def stop_parts(self) -> None:
        self._parts_stop.value = True


PRELOAD = "polytile_core.host.forkserver_preload"


def _preload_with_ours() -> list[str]:
    """The modules the process's forkserver would preload (Python's default,
    ``__main__``, or an embedding program's own, from ``set_forkserver_preload``), and
    ours: setting the list replaces it.  Python keeps it in the forkserver singleton;
    where it does not, none are known."""
    modules = getattr(forkserver._forkserver, "_preload_modules", None)
    known = [name for name in modules if isinstance(name, str)] if isinstance(modules, list) else []
    return known if PRELOAD in known else [*known, PRELOAD]


def unguarded_main_script() -> str | None:
    """The main script, when a forkserver's workers would import it again (as spawn's
    do) and it has no ``if __name__ == "__main__":`` test: the run it starts at the top
    level would start again in each worker, and every worker would die (BrokenProcessPool)."""
    main = sys.modules.get("__main__")
    path: str | None = getattr(main, "__file__", None)
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if path is None or (name is not None and name.split(".")[-1] == "__main__"):
        return None  # an interactive session, or a package's __main__, which workers do not import
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
                isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
            ):
                return None
    return path


def _thread_pool(jobs: int, options: None = None) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=jobs)


@hookimpl
def polytile_register_executors(register: Register[ExecutorFactory]) -> None:
    register("process", _process_pool, help="a local process pool (--jobs processes)")
    register("thread", _thread_pool, help="a local thread pool, for backends that release the GIL")
