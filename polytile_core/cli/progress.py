"""A one-line progress display for long runs, fed by ``run(..., on_progress=...)``.

It rewrites a single stderr line in place (carriage return, no escape codes) and only
when stderr is a terminal, so pipes, log files and ``--output -`` stay clean.  Our own
instead of ``tqdm`` or ``rich`` (docs/guide.md says why): a bar needs a known total, and
most runs have none (one tiling, a count, an enclosure's bound); what they need is the
counts, the bound and the gap, which are words on a line.  ``rich`` would also bring
pygments and markdown-it-py into the core to draw one line of text.
"""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from polytile_core.solve.state import Progress


def elapsed_text(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` past an hour."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_text(progress: Progress) -> str:
    """E.g. ``1,234 solutions | parts 12/660, ~0:30 left | 0:42``, or for an optimisation
    ``best 126 | bound 128, gap 1.6% | 0:12`` (plain ASCII: any terminal shows it)."""
    optimising = progress.best is not None or progress.bound is not None or progress.stage is not None
    words = [] if optimising else [f"{progress.solutions:,} solution{'s' * (progress.solutions != 1)}"]
    if progress.best is not None:
        words.append(f"best {progress.best:g}")
    if progress.bound is not None:
        gap = _gap(progress.best, progress.bound)
        words.append(f"bound {progress.bound:g}" + ("" if gap is None else f", gap {gap:.1%}"))
    if progress.stage:
        words.append(progress.stage)
    if progress.parts_total is not None:
        words.append(f"parts {progress.parts_done:,}/{progress.parts_total:,}" + _time_left(progress))
    elif progress.parts_done:
        words.append(f"parts {progress.parts_done:,} done")
    words.append(elapsed_text(progress.elapsed))
    return " | ".join(words)


def _gap(best: float | None, bound: float) -> float | None:
    """As Result.gap: how far the best is from the bound, relative to the bound."""
    return None if best is None or bound == 0 else abs(bound - best) / abs(bound)


def _time_left(progress: Progress) -> str:
    """A rough estimate, from the pace so far (parts differ: a guide, not a promise)."""
    if not progress.parts_done or progress.parts_total is None or progress.parts_done >= progress.parts_total:
        return ""
    left = progress.elapsed * (progress.parts_total - progress.parts_done) / progress.parts_done
    return f", ~{elapsed_text(left)} left"


class ProgressLine:
    """Callable as ``on_progress``; use as a context manager so the line is wiped at the end
    (the summary that follows then starts on a clean line)."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and _is_terminal(self.stream)
        self.shown = 0

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        width = shutil.get_terminal_size().columns - 1
        text = progress_text(progress)[:width]
        # Pad over the previous text: shorter lines must not leave its tail behind.
        self._write("\r" + text.ljust(self.shown))
        self.shown = len(text)

    def clear(self) -> None:
        if self.enabled and self.shown:
            self._write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def _write(self, text: str) -> None:
        """A terminal that went away (closed window, hang-up) ends the display, not the run."""
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.clear()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
