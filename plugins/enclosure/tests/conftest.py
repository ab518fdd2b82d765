"""Shared by the enclosure tests: one plugin host, and running a pipeline given as text."""

import textwrap

import pytest

from polytile_core.testing import Host, load_plan, run


@pytest.fixture(scope="module")
def host():
    return Host()


@pytest.fixture
def solve(tmp_path, host):
    """``solve(body)``: run ``problem = "enclose"`` plus the body through the pipeline."""

    def solve_body(body: str):
        path = tmp_path / "pipeline.toml"
        path.write_text('problem = "enclose"\n' + textwrap.dedent(body), encoding="utf-8")
        return run(load_plan(path, host))

    return solve_body
