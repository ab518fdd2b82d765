"""Bad input, thrown at random: every input ends in a result or one clear error.

Hypothesis writes random text, random TOML and pipeline-shaped tables with wrong
types, odd numbers and unknown names, and feeds them to the loader and to the CLI.
The contract: a Plan or a ``Result``, or one ``InputError`` (exit code 2 and a single
line on stderr) — never a traceback and never a hang (every solve has a small time
limit, and an alarm turns a hang into a failure).
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polytile_core.cli.main import main
from polytile_core.config.pipeline import load_plan, make_plan, read_pipeline
from polytile_core.config.schema import Pipeline
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.registry import Host

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
HOST = Host()


class Hang(Exception):
    pass


@contextlib.contextmanager
def no_hang(seconds: int):
    """Fail instead of waiting forever: SIGALRM raises in the main thread."""

    def alarm(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# Hypothesis runs many examples per test: their files go here, removed when the run ends.
SCRATCH = tempfile.TemporaryDirectory(prefix="polytile-fuzz-")


def write(text: str) -> Path:
    path = Path(tempfile.mkdtemp(dir=SCRATCH.name)) / "pipeline.toml"
    path.write_text(text, encoding="utf-8")
    return path


def as_toml(table: dict) -> str:
    """A table as TOML; keys whose value is None are left out (TOML has no null)."""

    def prune(value):
        if isinstance(value, dict):
            return {key: prune(item) for key, item in value.items() if item is not None}
        if isinstance(value, list):
            return [prune(item) for item in value if item is not None]
        return value

    return tomli_w.dumps(prune(table))


# ---- strategies -------------------------------------------------------------------

odd_ints = st.integers(-3, 8) | st.sampled_from([0, -1, 10**6, 2**31, 2**63 - 1, -(2**63)])
odd_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -1.0, 1e-9, 0.5])
junk = st.one_of(
    st.text(max_size=6),
    st.booleans(),
    odd_floats,
    st.lists(st.integers(-2, 2), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
picture = st.lists(st.text(alphabet="#.#. x\t", max_size=6), max_size=6)
cells = st.lists(st.lists(st.integers(-3, 3), max_size=3), max_size=6)

FAMILIES = ["monomino", "dominoes", "trominoes", "tetrominoes", "pentominoes", "n-ominoes", "no-such-family"]


def region_tables(size: st.SearchStrategy[int]):
    return (
        st.none()
        | junk
        | st.fixed_dictionaries(
            {},
            optional={"width": size | junk, "height": size | junk, "rows": picture | junk, "depth": junk},
        )
    )


def piece_tables(size: st.SearchStrategy[int]):
    return st.fixed_dictionaries(
        {},
        optional={
            "family": st.sampled_from(FAMILIES) | junk,
            "n": st.integers(-1, 5) | junk,  # n-ominoes grow exponentially: keep n small
            "shape": picture | junk,
            "cells": cells | junk,
            "name": st.text(max_size=3) | junk,
            "kind": st.sampled_from(["free", "one-sided", "fixed", "bent"]) | junk,
            "count": size | junk,
            "min": size,
            "max": size,
            "unlimited": st.booleans() | junk,
            "colour": junk,
        },
    )


solve_tables = (
    st.none()
    | junk
    | st.fixed_dictionaries(
        {},
        optional={
            "mode": st.sampled_from(["one", "all", "count", "many"]) | junk,
            "backend": st.sampled_from(["cpsat", "exactcover", "no-such-backend"]) | junk,
            "time_limit": odd_floats | odd_ints | junk,
            "workers": odd_ints | junk,
            "seed": odd_ints | junk,
            "distinct": st.booleans() | junk,
            "keep": odd_ints | junk,
            "jobs": st.integers(-1, 2) | junk,
            "executor": st.sampled_from(["thread", "process", "no-such-executor"]) | junk,
            "speed": junk,
        },
    )
)

option_tables = (
    st.none()
    | junk
    | st.dictionaries(
        st.sampled_from(["cpsat", "exactcover", "checkerboard", "enclose", "dask", "no-such-plugin"]),
        st.dictionaries(
            st.sampled_from(
                [
                    "log",
                    "parameters",
                    "order",
                    "seed",
                    "neighbours",
                    "score",
                    "width",
                    "height",
                    "scheduler",
                    "connect_timeout",
                    "nonsense",
                ]
            ),
            junk | odd_ints | st.dictionaries(st.sampled_from(["num_workers", "zzz"]), junk | odd_ints, max_size=2),
            max_size=2,
        )
        | junk,
        max_size=2,
    )
)


def pipeline_tables(size: st.SearchStrategy[int]):
    return st.fixed_dictionaries(
        {},
        optional={
            "problem": st.sampled_from(["tiling", "tiling", "enclose", "no-such-problem"]) | junk,
            "region": region_tables(size),
            "pieces": st.lists(piece_tables(size), max_size=3) | junk,
            "solve": solve_tables,
            "split": st.none()
            | junk
            | st.fixed_dictionaries({"method": st.sampled_from(["checkerboard", "nope"]) | junk}),
            "options": option_tables,
        },
    )


def plausible_pipelines():
    """Right types, random values: most of these load, and many have tilings to find."""
    small = st.integers(0, 6)
    region = st.fixed_dictionaries({"width": small, "height": small}) | st.fixed_dictionaries(
        {"rows": st.lists(st.text(alphabet="####.", min_size=1, max_size=5), min_size=1, max_size=5)}
    )
    source = st.one_of(
        st.fixed_dictionaries({"family": st.sampled_from(FAMILIES[:4])}),
        st.fixed_dictionaries({"family": st.just("n-ominoes"), "n": st.integers(1, 4)}),
        st.fixed_dictionaries(
            {"shape": st.lists(st.text(alphabet="#.", min_size=1, max_size=3), min_size=1, max_size=3)}
        ),
        st.fixed_dictionaries(
            {"cells": st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=1, max_size=4)}
        ),
    )
    multiplicity = st.one_of(
        st.just({"unlimited": True}),
        st.just({"unlimited": True}),
        st.just({}),
        st.fixed_dictionaries({"count": st.integers(0, 4)}),
        st.fixed_dictionaries({}, optional={"min": st.integers(0, 3), "max": st.integers(0, 6)}),
        st.just({"unlimited": True}),
    )
    piece = st.tuples(source, multiplicity, st.sampled_from(["free", "one-sided", "fixed"])).map(
        lambda parts: {**parts[0], **parts[1], "kind": parts[2]}
    )
    solve = st.fixed_dictionaries(
        {"mode": st.sampled_from(["one", "all", "count"]), "backend": st.sampled_from(["cpsat", "exactcover"])},
        optional={
            "distinct": st.booleans(),
            "keep": st.integers(0, 3),
            "jobs": st.integers(1, 2),
            "seed": st.integers(0, 9),
        },
    )
    split = st.none() | st.just({"method": "checkerboard"})
    return st.fixed_dictionaries(
        {
            "problem": st.sampled_from(["tiling"] * 5 + ["enclose"]),
            "region": region,
            "pieces": st.lists(piece, min_size=1, max_size=1) | st.lists(piece, min_size=2, max_size=2),
            "solve": solve,
            "split": split,
        }
    ).map(
        lambda table: {
            key: value for key, value in table.items() if not (key == "region" and table["problem"] == "enclose")
        }
    )


toml_scalars = st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), odd_floats, st.text(max_size=8))
toml_tables = st.dictionaries(
    st.sampled_from(["problem", "region", "pieces", "solve", "split", "options", "x"]),
    st.recursive(
        toml_scalars,
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
        max_leaves=10,
    ),
    max_size=5,
)

# ---- the loader -------------------------------------------------------------------


@settings(FUZZ, max_examples=60)
@given(st.text(max_size=200) | st.binary(max_size=100).map(lambda raw: raw.decode("latin-1")))
def test_any_text_is_a_pipeline_or_one_input_error(text):
    path = write(text)
    try:
        read_pipeline(path)
    except InputError as exc:
        assert "\n" not in str(exc).strip() or "TOML" in str(exc)


@settings(FUZZ, max_examples=60)
@given(toml_tables)
def test_any_toml_table_structures_or_fails_with_a_key_path(table):
    try:
        structure(table, Pipeline)
    except InputError as exc:
        assert exc.message


@settings(FUZZ, max_examples=100)
@given(pipeline_tables(odd_ints))
def test_pipeline_shaped_tables_plan_or_fail_cleanly(table):
    """The whole loader, with huge and negative sizes too: a Plan or one InputError."""
    with no_hang(20):
        try:
            pipeline = structure(table, Pipeline)
            plan = make_plan(pipeline, HOST)
        except InputError as exc:
            assert exc.message and "\n" not in exc.message
            return
    assert plan.jobs >= 1
    assert plan.settings.time_limit is None or plan.settings.time_limit > 0


def test_load_plan_names_the_file_in_every_error():
    path = write('[region]\nwidth = "ten"\nheight = 6\n[[pieces]]\nfamily = "pentominoes"\n')
    with pytest.raises(InputError) as caught:
        load_plan(path, HOST)
    assert str(caught.value) == f'{path}: region.width: expected an integer, got "ten"'


# ---- the CLI, in process ----------------------------------------------------------


def run_cli(arguments: list[str], seconds: int = 30) -> tuple[int, str]:
    """``polytile`` in this process: its exit code and what it wrote to stderr."""
    errors, output = io.StringIO(), io.StringIO()
    with no_hang(seconds), contextlib.redirect_stderr(errors), contextlib.redirect_stdout(output):
        try:
            code = main(arguments)
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
    return code, errors.getvalue()


def assert_clean(code: int, stderr: str) -> None:
    if code == 0:
        return
    assert code == 2, f"exit code {code}, stderr: {stderr}"
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polytile: error: "), stderr


@settings(FUZZ, max_examples=30)
@given(plausible_pipelines() | pipeline_tables(st.integers(-1, 5)))
def test_cli_solves_small_random_pipelines_or_says_why_not(table):
    """Small sizes, so that what loads also solves: within a 1 s limit, on threads."""
    path = write(as_toml(table))
    code, stderr = run_cli(["solve", str(path), "-q", "--time-limit", "1", "--executor", "thread"])
    assert_clean(code, stderr)
    code, stderr = run_cli(["validate", str(path)])
    assert_clean(code, stderr)


A_RESULT = {
    "termination": "completed",
    "found": "feasible",
    "mode": "one",
    "backend": "cpsat",
    "solutions": [{"placements": [["D", [0, 0, 1, 0]]]}],
    "region": [[0, 0], [1, 0]],
}
placed_pieces = st.tuples(junk | st.just("D"), st.lists(odd_ints, max_size=5) | junk).map(list) | junk
solutions = st.fixed_dictionaries(
    {}, optional={"placements": st.lists(placed_pieces, max_size=2) | junk, "objective": junk, "interior": junk}
)
result_tables = st.fixed_dictionaries(
    {},
    optional={
        **{key: junk | st.just(value) for key, value in A_RESULT.items()},
        "solutions": st.lists(solutions, max_size=2) | junk,
        "region": cells | junk,
        "count": odd_ints | junk,
        "subproblems": junk,
    },
)


@settings(FUZZ, max_examples=40)
@given(result_tables | st.just(A_RESULT))
def test_render_reads_any_result_file_or_says_why_not(table):
    folder = Path(tempfile.mkdtemp(dir=SCRATCH.name))
    (folder / "result.json").write_text(json.dumps(table), encoding="utf-8")
    code, stderr = run_cli(["render", str(folder / "result.json"), "-o", str(folder / "picture.txt")])
    assert_clean(code, stderr)


GOOD = '[region]\nwidth = 4\nheight = 3\n[[pieces]]\nfamily = "trominoes"\nunlimited = true\n'


@pytest.mark.parametrize(
    "flags",
    [
        ["--jobs", "0"],
        ["--jobs", "-3"],
        ["--time-limit", "nan"],
        ["--time-limit", "-1"],
        ["--time-limit", "0"],
        ["--backend", "no-such-backend"],
        ["--executor", "no-such-executor"],
        ["--mode", "many"],
        ["--no-such-flag"],
    ],
)
def test_cli_refuses_bad_flags_with_exit_code_2(flags):
    code, stderr = run_cli(["solve", str(write(GOOD)), "-q", *flags])
    assert code == 2, stderr
    assert "Traceback" not in stderr


def test_cli_refuses_a_missing_and_an_unreadable_file(tmp_path):
    for path in (tmp_path / "missing.toml", tmp_path):
        code, stderr = run_cli(["solve", str(path)])
        assert code == 2
        assert stderr.count("\n") == 1 and str(path) in stderr


def test_cli_output_into_a_missing_directory_is_an_input_error(tmp_path):
    code, stderr = run_cli(["solve", str(write(GOOD)), "-q", "-o", str(tmp_path / "no" / "such" / "dir.json")])
    assert_clean(code, stderr)
    assert code == 2


# ---- the CLI, as a real program ---------------------------------------------------


@pytest.mark.parametrize(
    "text, flags, wanted",
    [
        pytest.param("[region\n", [], 2, marks=pytest.mark.slow),
        pytest.param(
            '[region]\nwidth = 100000000\nheight = 1000000\n[[pieces]]\nfamily = "dominoes"\nunlimited = true\n',
            [],
            2,
            marks=pytest.mark.slow,
        ),
        pytest.param("[solve]\nseed = 99999999999999\n" + GOOD, ["--mode", "count"], 2, marks=pytest.mark.slow),
        (GOOD, ["--mode", "count", "--time-limit", "5"], 0),
    ],
    ids=["broken-toml", "huge-region", "huge-seed", "good"],
)
def test_real_polytile_process_ends_in_a_result_or_one_line(text, flags, wanted):
    path = write(text)
    done = subprocess.run(
        [sys.executable, "-m", "polytile_core.cli.main", "solve", str(path), "-q", *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == wanted, done.stderr
    if wanted == 2:
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("polytile: error: "), done.stderr
    else:
        assert done.stderr == ""
