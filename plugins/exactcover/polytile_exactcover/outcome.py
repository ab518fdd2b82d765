"""What the searches of one solve did (``SearchReport``), and the limits they share."""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

import attrs

from polytile_core.plugin import Termination, relay_stop


@attrs.define
class SearchReport:
    """What one search (or several added up) did: why it stopped (the kernels' word for
    it, as a ``Termination``), what it counted, which kernels ran; ``details`` go to the
    result.  The backend makes its ``BackendResult`` of it."""

    status: Termination = Termination.COMPLETED
    count: int = 0
    how: str = "dlx"
    details: dict[str, Any] = attrs.Factory(dict)

    def add(self, other: SearchReport, times: int = 1) -> None:
        self.count += times * other.count
        if self.status == Termination.COMPLETED:
            self.status = other.status
        for part in other.how.split("+"):
            if part not in self.how.split("+"):
                self.how = f"{self.how}+{part}"
        for key, value in other.details.items():
            mine = self.details.get(key)
            if key.startswith("table_peak"):
                self.details[key] = max(value, mine or 0)
            elif mine is None:
                self.details[key] = value
            elif key == "kernel" and value not in mine.split("+"):
                self.details[key] = f"{mine}+{value}"


class Kernel(Protocol):
    """A C kernel (``_dlx.Search``, ``_bitboard.Board``, ``_frontier.Frontier``)."""

    def run(self, *args: Any) -> Any: ...

    def cancel(self) -> None: ...


class Resumable(Kernel, Protocol):
    """A kernel that can go on from where its node limit stopped it (``_dlx.Search``)."""

    def resume(self, *args: Any) -> Any: ...


class Listable(Kernel, Protocol):
    """A kernel that lists from a table it makes first (``_frontier.Frontier``)."""

    def list(self, *args: Any) -> Any: ...


class Limits:
    """The stop event and the deadline shared by every search of one solve."""

    def __init__(self, stop: threading.Event, time_limit: float | None):
        self.stop = stop
        self.deadline = None if time_limit is None else time.monotonic() + time_limit

    def left(self) -> float:
        """Seconds left for the kernel (0 = no limit; a tiny positive number when past)."""
        if self.deadline is None:
            return 0.0
        return max(self.deadline - time.monotonic(), 1e-6)

    def reason(self) -> str | None:
        if self.stop.is_set():
            return "interrupted"
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "time_limit"
        return None

    def run(self, kernel: Kernel, *args: Any) -> Any:
        """``kernel.run(*args)`` with the GIL released, cancelled when the stop event is
        set: every kernel's way in."""
        return self._relayed(kernel, kernel.run, args)

    def resume(self, kernel: Resumable, *args: Any) -> Any:
        """``kernel.resume(*args)``, as ``run`` runs it."""
        return self._relayed(kernel, kernel.resume, args)

    def list(self, kernel: Listable, *args: Any) -> Any:
        """``kernel.list(*args)``, as ``run`` runs it."""
        return self._relayed(kernel, kernel.list, args)

    def _relayed(self, kernel: Kernel, call: Any, args: tuple[Any, ...]) -> Any:
        with relay_stop(self.stop, kernel.cancel):  # the relay's own interval: a shorter one wakes it
            return call(*args)
