"""polytile executor on Dask distributed: the parts of a split run on a cluster.

``polytile solve run.toml --executor dask --scheduler tcp://HOST:8786`` sends each part
to a running Dask scheduler as one task; without an address, a local cluster with
``--jobs`` worker processes is started for the run and closed after it.

Dask reruns the tasks of a worker that dies on another worker, and each part's future
completes once, so a part is counted once however often it was started.  A part whose
worker dies on every try ends in ``KilledWorker``, which the run reports with the part's
key (the answer is then marked incomplete, never a wrong total).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import attrs

from polytile_core.plugin import ExecutorFactory, Flag, InputError, Register, doc, hookimpl

if TYPE_CHECKING:  # distributed is imported when a run needs it (polytile commands load every plugin)
    from distributed import Client, LocalCluster
    from distributed import Future as DaskFuture

P = ParamSpec("P")
T = TypeVar("T")

SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


@attrs.frozen
class DaskOptions:
    """Options of the dask executor, from ``[options.dask]`` (``--scheduler`` sets ``scheduler``)."""

    scheduler: str | None = attrs.field(
        default=None,
        metadata=doc(
            "address of a running scheduler, e.g. tcp://10.0.0.5:8786; "
            "without it (or scheduler_file) a local cluster with --jobs workers is started"
        ),
    )
    scheduler_file: str | None = attrs.field(
        default=None,
        metadata=doc(
            "the file `dask scheduler --scheduler-file FILE` writes, instead of scheduler "
            "(waited for up to connect_timeout)"
        ),
    )
    connect_timeout: float = attrs.field(default=10.0, metadata=doc("seconds to wait for the scheduler (and its file)"))
    threads_per_worker: int = attrs.field(default=1, metadata=doc("threads per worker of a local cluster", minimum=1))

    def __attrs_post_init__(self) -> None:
        # Paths relative to [options.dask]: the core puts the table in front.
        if not self.connect_timeout > 0:
            raise InputError(
                f"expected a positive number of seconds, got {self.connect_timeout}", path="connect_timeout"
            )
        if self.threads_per_worker < 1:
            raise InputError(f"expected 1 or more, got {self.threads_per_worker}", path="threads_per_worker")


class DaskExecutor(concurrent.futures.Executor):
    """A ``concurrent.futures`` executor over a Dask client: one task per part.

    Closing it closes the client, and the local cluster when it started one; a
    cluster reached by address keeps running.  ``shutdown(cancel_futures=True)``
    cancels the parts not finished (a part already running on a remote worker
    runs to its own time limit: Dask cannot interrupt a running task).

    If the scheduler is lost for good, every part still out fails with
    ``BrokenExecutor``, which ends the run as an error naming the parts, instead of
    waiting for answers that cannot come.
    """

    def __init__(self, client: Client, cluster: LocalCluster | None = None):
        self.client = client
        self.cluster = cluster
        self._pending: dict[concurrent.futures.Future[Any], DaskFuture] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._watch_client, name="polytile-dask-watch", daemon=True).start()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> concurrent.futures.Future[T]:
        outcome: concurrent.futures.Future[T] = concurrent.futures.Future()
        try:
            # pure=False: two parts that happen to look alike are still two tasks.
            task = self.client.submit(fn, *args, pure=False, **kwargs)
        except Exception as exc:  # the client has lost its scheduler
            outcome.set_exception(concurrent.futures.BrokenExecutor(f"lost the Dask scheduler ({exc})"))
            return outcome
        with self._lock:
            self._pending[outcome] = task
        task.add_done_callback(lambda done: self._settle(outcome, done))
        return outcome

    def _settle(self, outcome: concurrent.futures.Future[Any], task: DaskFuture) -> None:
        """Hand a finished task's answer (or error) to the future the run waits on."""
        with self._lock:
            if self._pending.pop(outcome, None) is None:
                return  # already failed or cancelled here
        try:
            if task.status == "finished":
                outcome.set_result(task.result())
            elif task.status == "error":
                outcome.set_exception(task.exception())
            else:
                outcome.set_exception(
                    concurrent.futures.BrokenExecutor(
                        "the part was cancelled on the Dask cluster (scheduler lost or restarted)"
                    )
                )
        except Exception as exc:  # the answer could not be fetched
            outcome.set_exception(concurrent.futures.BrokenExecutor(f"lost the Dask scheduler ({exc})"))

    def _watch_client(self) -> None:
        while not self._closed.wait(0.5):
            if self.client.status in ("closing", "closed"):
                self._fail_pending(concurrent.futures.BrokenExecutor("lost the Dask scheduler"))
                return

    def _fail_pending(self, error: BaseException | None) -> list:
        """Settle every future still out (with ``error``, or as cancelled); return their tasks."""
        with self._lock:
            pending, self._pending = self._pending, {}
        for outcome in pending:
            if error is None:
                outcome.cancel()
            else:
                outcome.set_exception(error)
        return list(pending.values())

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._closed.is_set():
            return
        try:
            if wait and not cancel_futures:
                with self._lock:
                    pending = list(self._pending)
                concurrent.futures.wait(pending)
            self._closed.set()
            tasks = self._fail_pending(None)
            if tasks:
                with contextlib.suppress(Exception):  # a lost scheduler has nothing left to cancel
                    self.client.cancel(tasks)
        finally:
            self._closed.set()
            with contextlib.suppress(Exception):
                self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def check_options(options: DaskOptions) -> None:
    if options.scheduler is not None and options.scheduler_file is not None:
        raise InputError("give scheduler or scheduler_file, not both", path="options.dask.scheduler")
    if options.scheduler is not None and not options.scheduler.startswith(SCHEMES):
        raise InputError(
            f"expected an address such as tcp://HOST:8786, got {options.scheduler!r}", path="options.dask.scheduler"
        )


def wait_for_file(path: Path, timeout: float) -> None:
    """A batch job may start the scheduler alongside polytile: give its file ``timeout`` seconds
    to appear (Dask's client would wait for it forever)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise InputError(
                f"no scheduler file appeared at {path} within {timeout:g} s", path="options.dask.scheduler_file"
            )
        time.sleep(0.1)


def local_cluster(workers: int, threads_per_worker: int = 1) -> LocalCluster:
    """A Dask cluster on this machine: a scheduler in this process and ``workers`` worker
    processes, on 127.0.0.1 only, with no fixed ports and quiet logs, whose workers leave
    Ctrl-C to the run (``worker_setup``; what a run without a scheduler starts, and what the
    tests and benchmarks start)."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        silence_logs=logging.ERROR,
        preload=["polytile_dask.worker_setup"],
    )


def dask_executor(jobs: int, options: DaskOptions | None = None) -> DaskExecutor:
    """Connect to the scheduler the options name, or start a local cluster of ``jobs`` workers."""
    from distributed import Client

    options = options or DaskOptions()
    check_options(options)
    if options.scheduler is None and options.scheduler_file is None:
        cluster = local_cluster(jobs, options.threads_per_worker)
        try:
            return DaskExecutor(Client(cluster), cluster)
        except BaseException:
            cluster.close()
            raise
    where = options.scheduler or options.scheduler_file
    path = "options.dask.scheduler" if options.scheduler else "options.dask.scheduler_file"
    if options.scheduler_file is not None:
        wait_for_file(Path(options.scheduler_file), options.connect_timeout)
    try:
        client = Client(options.scheduler, scheduler_file=options.scheduler_file, timeout=options.connect_timeout)
    except Exception as exc:  # refused, timed out, or a file that is not a scheduler's: all said in one line
        reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
        raise InputError(f"cannot reach the Dask scheduler at {where} ({reason})", path=path) from None
    return DaskExecutor(client)


@hookimpl
def polytile_register_executors(register: Register[ExecutorFactory]) -> None:
    register(
        "dask",
        dask_executor,
        options=DaskOptions,
        help="a Dask distributed cluster (--scheduler tcp://HOST:PORT), or a local one with --jobs workers",
    )


@hookimpl
def polytile_register_flags(register: Register[Flag]) -> None:
    register(
        "--scheduler",
        Flag(of="executor", option="scheduler", metavar="ADDRESS"),
        help="a Dask scheduler, tcp://HOST:PORT, for the parts (implies --executor dask)",
    )
