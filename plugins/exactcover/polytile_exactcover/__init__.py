"""polytile backend: exact cover with multiplicities.

Enumeration and one-solution search run on a kernel in C that streams each solution to
Python as it is found: bitboards (``_bitboard.c``) when the items fit in 256 bits, else
dancing links (``_dlx.c``, Knuth's Algorithm X); both with counted groups for piece
multiplicities.  Counting scans the region's frontier with a table of states in C
(``frontier.py``), else falls back to a memoised search (``memo.py``) or to listing
without storing.  Solving up to the region's symmetry breaks the symmetry
in the search (``symmetric.py``).  See docs/exactcover.md.

The modules, in the order a solve goes through them: ``options.py`` (``[options.exactcover]``),
``backend.py`` (what the mode asks for), ``cover.py`` (the model read as an exact cover),
``search.py`` (listing on a kernel), ``count.py`` (counting without listing: ``frontier.py``,
``memo.py``), ``symmetric.py`` (up to symmetry), and ``outcome.py`` (what a search did, and
the limits all of them share).  This file only registers the backend.
"""

from __future__ import annotations

from polytile_core.plugin import BackendCapabilities, BackendFactory, Register, hookimpl
from polytile_exactcover.backend import ExactCoverBackend
from polytile_exactcover.options import ExactCoverOptions

__all__ = ["ExactCoverBackend", "ExactCoverOptions", "polytile_register_backends"]


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "exactcover",
        ExactCoverBackend,
        options=ExactCoverOptions,
        help="exact cover with multiplicities: dancing links in C, memoised counting, symmetry broken in the search",
        # The fastest for a pure cover (docs/benchmarks/split.md, exactcover.md), but no objective
        # and no general rows: auto takes an ILP backend for those.
        capabilities=BackendCapabilities(
            modes={"one", "all", "count"},
            accepts={"count rows", "ranges", "weights"},
            counts_without_listing=True,
            distinct_in_search=True,
            releases_gil=True,  # its C kernels (dlx, bitboard, frontier) run without it; the memo is Python
            answers_probes=True,  # in a probe: a count by the frontier or the memo, a listing if short, or none
            rank={"one": 30, "all": 30, "count": 30},
        ),
    )
