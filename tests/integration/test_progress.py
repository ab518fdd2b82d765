"""The progress line, and Ctrl-C on a long run: it stops, and still writes what it found."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from polytile_core import api
from polytile_core.cli.progress import ProgressLine, elapsed_text, progress_text
from polytile_core.host.contracts import listen_to_progress, report_progress
from polytile_core.output.reading import read_result
from polytile_core.solve.run import run
from polytile_core.solve.state import Progress

EXAMPLES = Path(__file__).parents[2] / "examples"

# 8×8 with dominoes has 12,988,816 tilings (OEIS A004003): listing them all takes far
# longer than any test, so the run is still going when it is interrupted.
LONG_RUN = """
[region]
width = 8
height = 8
[[pieces]]
name = "D"
shape = ["##"]
unlimited = true
[solve]
backend = "cpsat"
"""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_line_says_solutions_parts_and_time():
    assert progress_text(Progress(1, 0, None, 5.2)) == "1 solution | 0:05"
    # 3 parts in 125 s: the other 657 at that pace take about 7 hours 36 minutes.
    assert progress_text(Progress(12345, 3, 660, 125)) == "12,345 solutions | parts 3/660, ~7:36:15 left | 2:05"
    assert progress_text(Progress(12, 660, 660, 125)) == "12 solutions | parts 660/660 | 2:05"
    assert progress_text(Progress(0, 7, None, 3)) == "0 solutions | parts 7 done | 0:03"
    assert elapsed_text(3 * 3600 + 62) == "3:01:02"


def test_an_optimisation_shows_its_best_its_bound_and_the_gap_not_solutions():
    assert progress_text(Progress(0, 0, None, 12, best=126, bound=128)) == "best 126 | bound 128, gap 1.6% | 0:12"
    assert progress_text(Progress(0, 0, None, 5, stage="computing the bound")) == "computing the bound | 0:05"
    assert progress_text(Progress(0, 0, None, 5, bound=130)) == "bound 130 | 0:05"


def test_the_enclosure_run_reports_its_best_area_and_bound_to_the_progress_line():
    # The 5 free tetrominoes fence in at most 9 cells (../shared/oracles.md).
    seen: list[Progress] = []
    plan = api.load(EXAMPLES / "enclosure-tetrominoes.toml")
    result = run(plan, on_progress=seen.append)
    assert result.objective == 9
    assert (seen[-1].best, seen[-1].bound) == (9, 9)
    assert "best 9 | bound 9, gap 0.0%" in progress_text(seen[-1])


def test_cp_sat_reports_each_better_fence_from_its_own_threads(tmp_path):
    pipeline = tmp_path / "enclose.toml"
    pipeline.write_text('problem = "enclose"\n[[pieces]]\nfamily = "tetrominoes"\n[solve]\nbackend = "cpsat"\n')
    seen: list[Progress] = []
    result = run(api.load(pipeline, time_limit=2), on_progress=seen.append)
    assert result.objective is not None, "CP-SAT found no fence in 2 s"
    assert seen[-1].best == result.objective and seen[-1].bound >= result.objective


def test_backends_report_only_to_the_run_of_their_own_thread():
    heard: list[dict] = []
    report_progress(best=1)  # no run listening: goes nowhere

    def backend_thread():
        listen_to_progress(lambda **report: heard.append(report))
        report_progress(best=5, bound=8)

    worker = threading.Thread(target=backend_thread)
    worker.start()
    worker.join()
    report_progress(best=2)
    assert heard == [{"best": 5, "bound": 8, "stage": None}]


def test_the_line_is_rewritten_in_place_and_wiped_at_the_end():
    stream = Terminal()
    with ProgressLine(stream) as progress:
        progress(Progress(12345, 0, None, 1))
        progress(Progress(2, 0, None, 2))
    text = stream.getvalue()
    assert "\n" not in text
    assert text.startswith("\r12,345 solutions | 0:01")
    # The shorter second line is padded over the first, and the end leaves a blank line.
    assert "\r2 solutions | 0:02" + " " * 5 in text
    assert text.endswith("\r")


def test_nothing_is_written_when_stderr_is_not_a_terminal_or_when_quiet():
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        with ProgressLine(stream, enabled=enabled) as progress:
            progress(Progress(5, 1, 2, 1))
        assert stream.getvalue() == ""


def test_a_terminal_that_went_away_ends_the_display_not_the_run():
    stream = Terminal()
    with ProgressLine(stream) as progress:
        progress(Progress(1, 0, None, 1))
        assert progress.enabled
        stream.close()  # writing now raises ValueError, as a hung-up terminal raises OSError
        progress(Progress(2, 0, None, 2))
    assert not progress.enabled


def _start_in_terminal(arguments, cwd):
    """Start ``polytile`` with stderr on a pseudo-terminal (so the progress line shows)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "polytile_core.cli.main", "solve", *arguments],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=terminal,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
    )
    os.close(terminal)
    return process, controller


def _read_until(controller, predicate, timeout):
    """Read the terminal until ``predicate(text)`` holds; return all text read."""
    text, deadline = "", time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate(text):
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                text += os.read(controller, 4096).decode("utf-8", "replace")
            except OSError:  # the process closed the terminal
                break
    return text


def _shown_counts(text):
    counts = []
    for chunk in text.split("\r"):
        words = chunk.strip().split(" ")
        if len(words) > 1 and words[1].startswith("solution"):
            counts.append(int(words[0].replace(",", "")))
    return counts


def test_ctrl_c_stops_the_run_and_writes_the_solutions_found_so_far(tmp_path):
    """Ctrl-C, then a second one while saving: the result and the picture are written."""
    pipeline = tmp_path / "dominoes.toml"
    pipeline.write_text(LONG_RUN)
    process, controller = _start_in_terminal(
        [str(pipeline), "--mode", "all", "-o", "out.json", "--render", "out.svg"], tmp_path
    )
    try:
        # Wait until the progress line reports solutions: the search is under way.
        shown = _read_until(controller, lambda text: any(_shown_counts(text)), timeout=90)
        assert any(_shown_counts(shown)), f"no progress seen: {shown!r}"
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        # An impatient second Ctrl-C while the result is being saved must not lose it.
        shown += _read_until(controller, lambda text: "saving what was found" in text, timeout=60)
        assert "polytile: interrupted; saving what was found" in shown
        os.killpg(process.pid, signal.SIGINT)
        stdout, _ = process.communicate(timeout=60)
        shown += _read_until(controller, lambda text: False, timeout=0.5)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    assert process.returncode == 130
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["termination"] == "interrupted"
    assert result["found"] == "feasible"
    assert 0 < result["count"] < 12_988_816
    assert len(result["solutions"]) == result["count"]
    assert max(_shown_counts(shown)) <= result["count"]
    # Every solution kept is a real domino tiling of the 8×8 board.
    for solution in result["solutions"][:50]:
        cells = [(flat[i], flat[i + 1]) for _, flat in solution["placements"] for i in range(0, len(flat), 2)]
        assert sorted(cells) == [(x, y) for x in range(8) for y in range(8)]
    assert "solutions: " in stdout.decode() and "did not complete" in stdout.decode()
    assert (tmp_path / "out.svg").exists()


def test_json_on_stdout_stays_clean_while_the_progress_line_runs(tmp_path):
    pipeline = tmp_path / "dominoes.toml"
    pipeline.write_text(LONG_RUN)
    process, controller = _start_in_terminal(
        [str(pipeline), "--mode", "count", "--time-limit", "1.5", "-o", "-"], tmp_path
    )
    try:
        stdout, _ = process.communicate(timeout=90)
        shown = _read_until(controller, lambda text: False, timeout=0.5)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    result = json.loads(stdout)  # nothing but the JSON on stdout
    assert result["termination"] == "time_limit"
    assert "solutions" in shown and "status: time_limit" in shown


@pytest.mark.parametrize("output", ["out.json", "out.jsonl"])
def test_two_quick_ctrl_c_still_write_what_was_found(tmp_path, output):
    """The second Ctrl-C comes while the backend is still stopping: the run does not wait
    for it, and the result file holds the solutions found so far, marked interrupted."""
    pipeline = tmp_path / "dominoes.toml"
    pipeline.write_text(LONG_RUN)
    process, controller = _start_in_terminal([str(pipeline), "--mode", "all", "-o", output], tmp_path)
    try:
        shown = _read_until(controller, lambda text: any(_shown_counts(text)), timeout=90)
        assert any(_shown_counts(shown)), f"no progress seen: {shown!r}"
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.01)
        os.killpg(process.pid, signal.SIGINT)
        stdout, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    assert process.returncode == 130, stdout.decode()
    result = read_result(tmp_path / output)
    assert result.termination.value == "interrupted"
    assert 0 < len(result.solutions) and result.count >= len(result.solutions)
    if output.endswith(".jsonl"):  # streamed: every solution is in the file
        assert len(result.solutions) == result.count
    for solution in result.solutions[:50]:
        cells = [cell for placed in solution.placements for cell in placed.cells]
        assert sorted(cells) == [(x, y) for x in range(8) for y in range(8)]
    assert not [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")]
