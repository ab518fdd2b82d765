"""Resumable split runs (``--checkpoint`` / ``--resume``) and parts that fail.

Counts come from docs/oracles.md: 2×4 with two L-tetrominoes has 2 tilings in
three checkerboard parts (Garvie & Burkardt 2022); 9×9 minus a corner with 20
L-tetrominoes has 1,709,594 in 21 parts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polytile_cpsat import CpsatBackend

from polytile_core import hookimpl
from polytile_core.cli.main import main
from polytile_core.config.pipeline import load_plan
from polytile_core.host.registry import Host
from polytile_core.output.results import Termination
from polytile_core.solve.checkpoint import Checkpoint
from polytile_core.solve.run import run

L_2X4 = """
[region]
width = 4
height = 2

[[pieces]]
shape = ["###", "#.."]
name = "L"
count = 2

[solve]
mode = "count"
executor = "thread"

[split]
method = "checkerboard"
"""

L_9X9 = """
[region]
rows = ["########.", "#########", "#########", "#########", "#########", "#########", "#########", "#########", "#########"]

[[pieces]]
shape = ["###", "#.."]
name = "L"
count = 20

[solve]
mode = "count"
backend = "exactcover"

[split]
method = "checkerboard"
"""

# Hypothesis runs many examples per test: their files go here, removed when the run ends.
SCRATCH = tempfile.TemporaryDirectory(prefix="polytile-resume-")
KEYS_2X4 = ["L:a=0 L:b=2", "L:a=1 L:b=1", "L:a=2 L:b=0"]


def write(tmp_path: Path, text: str, name: str = "pipeline.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def cli(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(arguments)
    return code, out.getvalue(), err.getvalue()


def records(checkpoint: Path) -> list[dict]:
    return [json.loads(line) for line in checkpoint.read_text().splitlines()[1:]]


def test_a_run_cut_off_mid_write_resumes_to_the_exact_count(tmp_path):
    """What a kill leaves: the header, one part, and half of the next line."""
    pipeline, checkpoint = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    code, out, err = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "-q", "-o", "-"])
    assert code == 0, err
    assert json.loads(out)["count"] == 2
    lines = checkpoint.read_text().splitlines(keepends=True)
    assert sorted(record["key"] for record in records(checkpoint)) == KEYS_2X4
    checkpoint.write_text(lines[0] + lines[1] + lines[2][: len(lines[2]) // 2])

    code, out, err = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "--resume", "-q", "-o", "-"])
    assert code == 0, err
    result = json.loads(out)
    assert result["termination"] == "completed"
    assert result["count"] == 2
    assert result["details"]["parts_from_checkpoint"] == 1
    assert sorted(part["key"] for part in result["subproblems"]) == KEYS_2X4
    assert sorted(record["key"] for record in records(checkpoint)) == KEYS_2X4  # torn line gone, none twice


def test_resumed_listing_gives_back_the_same_tilings(tmp_path):
    pipeline, checkpoint = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    arguments = ["solve", str(pipeline), "--mode", "all", "--checkpoint", str(checkpoint), "-q", "-o", "-"]
    code, out, _ = cli(arguments)
    first = json.loads(out)
    code, out, err = cli([*arguments, "--resume"])
    assert code == 0, err
    again = json.loads(out)
    assert again["details"]["parts_from_checkpoint"] == 3
    assert again["count"] == first["count"] == 2

    def tilings(result):
        return sorted(json.dumps(solution["placements"], sort_keys=True) for solution in result["solutions"])

    assert tilings(again) == tilings(first) and len(tilings(first)) == 2


@pytest.mark.parametrize(
    "other, flags",
    [
        (L_2X4, ["--mode", "all"]),
        (L_2X4.replace("width = 4\nheight = 2", "width = 2\nheight = 4"), []),
        (
            L_2X4.replace(
                'method = "checkerboard"', 'method = "checkerboard"\n[options.checkerboard]\norder = "lexicographic"'
            ),
            [],
        ),
    ],
    ids=["other-mode", "other-region", "other-split-options"],
)
def test_a_checkpoint_of_another_pipeline_is_refused(tmp_path, other, flags):
    pipeline, checkpoint = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "-q"])
    before = checkpoint.read_text()
    code, _, err = cli(
        ["solve", str(write(tmp_path, other, "other.toml")), "--checkpoint", str(checkpoint), "--resume", "-q", *flags]
    )
    assert code == 2
    assert err.count("\n") == 1 and "written for a different pipeline" in err
    assert checkpoint.read_text() == before


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--resume"], "--resume needs --checkpoint FILE"),
        (["--checkpoint", "{existing}"], "exists already; pass --resume"),
        (["--checkpoint", "{garbage}", "--resume"], "not a polytile checkpoint"),
    ],
)
def test_checkpoint_misuse_is_one_input_error(tmp_path, flags, message):
    existing = write(tmp_path, "{}\n", "existing.ckpt")
    garbage = write(tmp_path, "not json\n", "garbage.ckpt")
    flags = [flag.format(existing=existing, garbage=garbage) for flag in flags]
    code, _, err = cli(["solve", str(write(tmp_path, L_2X4)), "-q", *flags])
    assert code == 2
    assert err.count("\n") == 1 and message in err


def test_a_checkpoint_needs_a_split(tmp_path):
    unsplit = L_2X4.replace('[split]\nmethod = "checkerboard"\n', "")
    code, _, err = cli(["solve", str(write(tmp_path, unsplit)), "--checkpoint", str(tmp_path / "c"), "-q"])
    assert code == 2 and "records the parts of a split run" in err


def test_a_file_that_is_not_a_checkpoint_is_left_as_it_was(tmp_path):
    notes = write(tmp_path, "important notes, one line, no newline", "notes.txt")
    code, _, err = cli(["solve", str(write(tmp_path, L_2X4)), "--checkpoint", str(notes), "--resume", "-q"])
    assert code == 2 and "not a polytile checkpoint" in err
    assert notes.read_text() == "important notes, one line, no newline"


record_lines = st.one_of(
    st.text(max_size=40),
    st.builds(
        json.dumps,
        st.dictionaries(
            st.sampled_from(["key", "answer", "solutions", "seconds", "model", "x"]),
            st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers()),
            max_size=5,
        ),
    ),
    st.builds(json.dumps, st.integers() | st.lists(st.integers(), max_size=2)),
)


@settings(deadline=None, max_examples=15, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record_lines, max_size=3), st.booleans())
def test_damaged_checkpoints_resume_or_fail_in_one_line(lines, torn):
    folder = Path(tempfile.mkdtemp(dir=SCRATCH.name))
    pipeline, checkpoint = write(folder, L_2X4), folder / "run.ckpt"
    cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "-q"])
    good = checkpoint.read_text().splitlines(keepends=True)
    text = good[0] + good[1] + "".join(line.replace("\n", " ") + "\n" for line in lines)
    checkpoint.write_text(text[:-1] if torn else text)
    code, out, err = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "--resume", "-q", "-o", "-"])
    if code == 0:
        assert json.loads(out)["count"] == 2
    else:
        assert code == 2 and err.count("\n") == 1, err


def uses_the_second_l_variant_twice(model) -> bool:
    """The part 'L:a=0 L:b=2' of the 2×4 split: the one the crashing backends below fail on."""
    return any(constraint.name == "variant L:b" and constraint.rhs == 2 for constraint in model.constraints)


class FailsOnePart(CpsatBackend):
    """A backend that crashes on the part using the second L variant twice."""

    def solve(self, model, settings, on_solution, stop):
        if uses_the_second_l_variant_twice(model):
            raise RuntimeError("solver crashed")
        return super().solve(model, settings, on_solution, stop)


class FailsOnePartPlugin:
    @staticmethod
    @hookimpl
    def polytile_register_backends(register):
        register("fails-one-part", FailsOnePart, help="crashes on one part")


def test_a_part_that_crashes_is_named_and_the_total_withheld_then_resume_finishes(tmp_path):
    pipeline, path = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    host = Host(plugins=[FailsOnePartPlugin])
    plan = load_plan(pipeline, host, {"backend": "fails-one-part"})
    result = run(plan, checkpoint=Checkpoint.open(path, plan, resume=False))
    assert result.termination == Termination.ERROR
    assert result.count is None  # no total claimed with a part missing
    assert "'L:a=0 L:b=2' failed" in result.message and "incomplete" in result.message
    assert [part.key for part in result.subproblems if part.error] == ["L:a=0 L:b=2"]
    assert "L:a=0 L:b=2" not in {record["key"] for record in records(path)}

    # The same pipeline with a backend that works: only the failed part is solved again.
    plan = load_plan(pipeline, host)
    result = run(plan, checkpoint=Checkpoint.open(path, plan, resume=True))
    assert result.termination == Termination.COMPLETED
    assert result.count == 2
    assert result.details["parts_from_checkpoint"] == 2


class KillsItsProcess(CpsatBackend):
    """A backend that takes its worker process down on the same part (a segfault, say)."""

    def solve(self, model, settings, on_solution, stop):
        if uses_the_second_l_variant_twice(model):
            os._exit(3)
        return super().solve(model, settings, on_solution, stop)


class KillsItsProcessPlugin:
    @staticmethod
    @hookimpl
    def polytile_register_backends(register):
        register("kills-its-process", KillsItsProcess, help="a worker process dies on one part")


def test_a_pool_worker_that_dies_loses_no_part(tmp_path):
    """The local process pool breaks when a worker dies: the run says so, claims no total,
    and a resume with a sound backend gets the exact count without counting a part twice."""
    pipeline, path = (
        write(tmp_path, L_2X4.replace('executor = "thread"', 'executor = "process"\njobs = 2')),
        tmp_path / "c",
    )
    host = Host(plugins=[KillsItsProcessPlugin])
    plan = load_plan(pipeline, host, {"backend": "kills-its-process"})
    result = run(plan, checkpoint=Checkpoint.open(path, plan, resume=False))
    assert result.termination == Termination.ERROR and result.count is None
    failed = {part.key for part in result.subproblems if part.error}
    assert "L:a=0 L:b=2" in failed
    recorded = {record["key"] for record in records(path)}
    assert not failed & recorded

    plan = load_plan(pipeline, host)
    result = run(plan, checkpoint=Checkpoint.open(path, plan, resume=True))
    assert result.termination == Termination.COMPLETED and result.count == 2
    assert result.details["parts_from_checkpoint"] == len(recorded)
    assert sorted(record["key"] for record in records(path)) == KEYS_2X4


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_gives_the_exact_count(tmp_path):
    """A real ``polytile solve --checkpoint`` process (a process pool of 2) killed with
    SIGKILL after some parts finished; the same command with --resume ends with the count."""
    pipeline, checkpoint = write(tmp_path, L_9X9), tmp_path / "run.ckpt"
    command = [
        sys.executable,
        "-m",
        "polytile_core.cli.main",
        "solve",
        str(pipeline),
        "--jobs",
        "2",
        "--checkpoint",
        str(checkpoint),
        "-q",
    ]
    process = subprocess.Popen(command, start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            if checkpoint.exists() and checkpoint.read_text().count("\n") >= 1 + 4:
                break
            time.sleep(0.05)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the run and its pool workers
        process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL, process.stderr.read()
    finished_before = {record["key"] for record in records(checkpoint)}
    assert 4 <= len(finished_before) < 21

    output = tmp_path / "result.json"
    done = subprocess.run([*command, "--resume", "-o", str(output)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    result = json.loads(output.read_text())
    assert result["termination"] == "completed"
    assert result["count"] == 1_709_594
    assert result["details"]["parts_from_checkpoint"] >= len(finished_before)
    keys = [record["key"] for record in records(checkpoint)]
    assert len(keys) == len(set(keys)) == 21


def _edited(record: dict, how: str) -> list[dict]:
    changed = json.loads(json.dumps(record))
    if how == "duplicated":
        return [record, record]
    if how == "count null":
        changed["answer"]["count"] = None
    else:
        changed["answer"]["count"] += {"count +1000": 1000, "count -5": -5}[how]
    return [changed]


@pytest.mark.parametrize("how", ["count +1000", "count -5", "count null", "duplicated"])
def test_an_edited_checkpoint_record_is_refused_and_never_added(tmp_path, how):
    """Issue 30: each edit of a record (the counts, a part twice) is refused in one line,
    and the file is left as it was; the run resumed from a fresh checkpoint is exact."""
    pipeline, checkpoint = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    code, _, _ = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "-q"])
    assert code == 0
    header, *lines = checkpoint.read_text().splitlines()
    first, *rest = [json.loads(line) for line in lines]
    edited = [*_edited(first, how), *rest]
    text = "\n".join([header, *(json.dumps(record, separators=(",", ":")) for record in edited)]) + "\n"
    checkpoint.write_text(text)
    code, out, err = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "--resume", "-q", "-o", "-"])
    assert code == 2 and err.count("\n") == 1, err
    assert ("checksum" in err) if how != "duplicated" else ("a second time" in err), err
    assert checkpoint.read_text() == text


def test_a_checkpoint_of_another_polytile_version_is_refused(tmp_path):
    pipeline, checkpoint = write(tmp_path, L_2X4), tmp_path / "run.ckpt"
    cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "-q"])
    header, *lines = checkpoint.read_text().splitlines()
    checkpoint.write_text("\n".join([json.dumps({**json.loads(header), "version": "0.0.1"}), *lines]) + "\n")
    code, _, err = cli(["solve", str(pipeline), "--checkpoint", str(checkpoint), "--resume", "-q"])
    assert code == 2 and "written by polytile 0.0.1" in err, err
