"""Workers never outlive the run that started them.

A run killed with SIGKILL (an out-of-memory kill, a batch scheduler's time limit) gets
no chance to stop its workers, and a pool worker waiting for its next part would sleep
forever.  So every worker process polytile starts runs ``exit_with_parent``: a daemon
thread that ends the worker within ``POLL_SECONDS`` of the run's process dying.  It
watches two things, because a worker's parent is not always the run's process (a
forkserver sits between them): its own parent changing (the parent died and the worker
was handed to init), and the run's process being gone or a zombie.

A process pool's worker also stops its running part when the run asks (``start_worker``),
so that what the part found reaches the run, and it leaves Ctrl-C and SIGTERM to the run:
a terminal (or ``timeout``, or a batch system) sends them to the workers too, where they
would end the part and lose what it found.  (The run ends its workers with SIGKILL.)
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

POLL_SECONDS = 0.5

# In a pool's worker process: set once the run asks its running parts to stop
# (``start_worker``); ``solve.workers.solve_part`` hands it to the backend.
PARTS_STOP = threading.Event()
# How often a worker looks at the run's stop flag: a flag in shared memory, read, never
# waited on (a process killed while it waits on a multiprocessing Event leaves the next
# ``set()`` waiting for it for ever).
STOP_POLL_SECONDS = 0.05


def is_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:  # no /proc (not Linux): kill(0) is all there is
        return True


def exit_with_parent(run_pid: int) -> None:
    """Start the watch in this worker process: exit at once when ``run_pid`` is gone."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(POLL_SECONDS)
            if os.getppid() != parent or not is_alive(run_pid):
                os._exit(1)

    threading.Thread(target=watch, name="polytile-exit-with-parent", daemon=True).start()


def start_worker(run_pid: int, stop: ctypes.c_bool) -> None:
    """A process pool's initializer: the worker exits with the run (``exit_with_parent``),
    ignores Ctrl-C and SIGTERM (the run handles them) and sets ``PARTS_STOP`` once the run sets ``stop``
    (a flag in shared memory)."""
    exit_with_parent(run_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def relay() -> None:
        while not stop.value:
            time.sleep(STOP_POLL_SECONDS)
        PARTS_STOP.set()

    threading.Thread(target=relay, name="polytile-parts-stop", daemon=True).start()
