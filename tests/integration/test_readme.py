"""The README's shell blocks run, in order, in a fresh copy of the repository, so the
README cannot rot.

The first block is setup (``bash setup.sh`` and the test suite): it is not run again;
the copy reuses this checkout's ``.venv`` through a symbolic link.  The Usage block is
fast and runs by default; every block in order, the enclosure's 20 s included, is slow.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
COPIED = ("examples", "schemas", "docs", "README.md", "pyproject.toml")


def shell_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def fresh_copy(folder: Path) -> Path:
    """The repository's files a newcomer has, with this checkout's environment."""
    copy = folder / "polytile"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy(source, copy / name)
    (copy / ".venv").symlink_to(Path(sys.prefix))
    return copy


def run_block(block: str, where: Path) -> None:
    done = subprocess.run(["bash", "-e", "-c", block], cwd=where, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"this README block failed:\n{block}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert not (where / "-").exists(), "-o - wrote a file named '-'"


def test_the_first_block_is_setup_and_the_rest_use_the_environment():
    setup, *rest = shell_blocks()
    assert "bash setup.sh" in setup
    for block in rest:
        for line in block.splitlines():
            command = line.split("#")[0].strip()
            if command:
                assert command.startswith(".venv/bin/"), f"one style: .venv/bin/ throughout, not {line!r}"


def test_the_usage_block_runs_in_a_fresh_copy(tmp_path):
    copy = fresh_copy(tmp_path)
    usage = shell_blocks()[1]
    run_block(usage, copy)
    assert (copy / "tiling.png").read_bytes().startswith(b"\x89PNG")
    assert (copy / "result.svg").read_text().startswith("<svg")


@pytest.mark.slow
def test_every_block_runs_in_order_in_a_fresh_copy(tmp_path):
    copy = fresh_copy(tmp_path)
    for block in shell_blocks()[1:]:
        run_block(block, copy)
    assert (copy / "fence.png").exists() and (copy / "all-6x10.jsonl").exists()
