"""Imported by a process pool's forkserver as it starts (``set_forkserver_preload``).

A SIGTERM sent to the run's whole process group (``timeout``, a batch system) reaches
the forkserver too, and a pool whose forkserver is gone fails every running part: each
worker's exit is reported through its socket to the forkserver.  The forkserver already
ignores Ctrl-C; this makes it ignore SIGTERM as well, so that the run, which treats a
SIGTERM as a Ctrl-C, can ask its parts to stop and write what they found.  The
forkserver still ends with the run (it exits when the run's end of its pipe closes).
The processes it forks get SIGTERM's default back, so that another pool's workers, from
the same forkserver, are not changed; polytile's own ignore it again as they start
(``orphans.start_worker``).

Only the forkserver's own start-up changes anything: imported anywhere else, this
module does nothing.
"""

from __future__ import annotations

import os
import signal
import sys
from multiprocessing import forkserver


def _imported_by_the_forkserver() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "main" and frame.f_code.co_filename == forkserver.__file__:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _sigterm_as_default() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


if _imported_by_the_forkserver():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.register_at_fork(after_in_child=_sigterm_as_default)
