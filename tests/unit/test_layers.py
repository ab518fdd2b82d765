"""The core's rooms import one way only: a room may use the rooms below it, never one
above (docs/architecture.md).  An import tucked into a function to dodge a cycle counts
too, and is refused: it hides the cycle instead of removing it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "polytile_core"
# Lowest first.  The ground floor (errors, the converter, the hookimpl marker, the version) is for all.
LAYERS = ["", "model", "output", "host", "config", "plugin", "solve", "api", "cli", "testing"]
GROUND = {"", "errors", "convert", "hookimpl", "__version__"}


def room(module: str) -> str:
    """``polytile_core.solve.run`` → ``solve``; ``polytile_core.errors`` → ``errors``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def level(name: str) -> int:
    return 0 if name in GROUND else LAYERS.index(name)


def core_imports(path: Path):
    """(imported module, line, inside a function) for every import of the core in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    nested = {id(child) for function in functions for child in ast.walk(function)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("polytile_core"):
            names = [
                f"{node.module}.{alias.name}" if node.module == "polytile_core" else node.module for alias in node.names
            ]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name.startswith("polytile_core")]
        else:
            continue
        for name in names:
            yield name, node.lineno, id(node) in nested


MODULES = sorted(CORE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(("polytile_core", *(part for part in parts if part != "__init__")))


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(CORE)))
def test_a_room_imports_only_rooms_below_it(path):
    here = room(module_name(path))
    for name, line, in_function in core_imports(path):
        target = room(name)
        assert not in_function, f"{path.name}:{line} imports {name} inside a function"
        assert level(target) <= level(here), f"{path.name}:{line}: {here or 'ground'} imports {name}, a room above it"


ROOT = CORE.parent
# A plugin's own code (not its tests) in the repository, and the examples of the docs.
PLUGIN_CODE = sorted(
    path
    for folder in (ROOT / "plugins", ROOT / "docs" / "examples")
    for path in folder.rglob("*.py")
    if not {"tests", "build"} & set(path.relative_to(folder).parts) and not path.name.startswith("test_")
)


@pytest.mark.parametrize("path", PLUGIN_CODE, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_plugin_imports_the_core_only_through_its_facade(path):
    """``polytile_core.plugin`` is the plugin author's door; the rooms behind it may move."""
    for name, line, _ in core_imports(path):
        assert name.startswith("polytile_core.plugin"), f"{path.name}:{line} imports {name}: use polytile_core.plugin"


PLUGIN_TESTS = sorted(
    path
    for folder in (ROOT / "plugins", ROOT / "docs" / "examples")
    for path in folder.rglob("*.py")
    if "tests" in path.relative_to(folder).parts and "build" not in path.relative_to(folder).parts
)


@pytest.mark.parametrize("path", PLUGIN_TESTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_plugins_tests_import_the_core_only_through_the_facade_and_the_kits(path):
    """A plugin's tests use what a plugin author has: ``polytile_core.plugin`` and ``polytile_core.testing``."""
    for name, line, _ in core_imports(path):
        allowed = name.startswith(("polytile_core.plugin", "polytile_core.testing"))
        assert allowed, f"{path.name}:{line} imports {name}: use polytile_core.plugin or polytile_core.testing"


def test_every_room_is_listed():
    rooms = {room(module_name(path)) for path in MODULES}
    assert rooms <= set(LAYERS) | GROUND, "a new room needs its place in LAYERS"


def test_no_step_of_a_run_calls_back_into_the_run():
    """``solve/run.py`` calls each step of a run in its module (docs/architecture.md);
    a step that imported ``run`` back would make the flow go both ways."""
    for path in sorted((CORE / "solve").glob("*.py")):
        if path.name != "run.py":
            for name, line, _ in core_imports(path):
                assert name != "polytile_core.solve.run", f"{path.name}:{line} imports the run it is a step of"
