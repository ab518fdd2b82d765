"""Preloaded by each worker of a local cluster (``local_cluster``): Ctrl-C in a terminal
reaches every process of the run, and a worker interrupted there dies with a traceback
of its own although the run stops its workers itself, quietly, when it saves its result.
So the workers ignore SIGINT; they still end with the run (Dask's nanny closes them, and
a worker whose parent is gone exits)."""

from __future__ import annotations

import signal


def dask_setup(worker: object) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
