"""The options of the exactcover backend, from ``[options.exactcover]``."""

from __future__ import annotations

from typing import Literal

import attrs

from polytile_core.plugin import InputError


@attrs.frozen
class ExactCoverOptions:
    """Options of the exactcover backend, from ``[options.exactcover]``."""

    counter: Literal["auto", "frontier", "memo", "search"] = attrs.field(
        default="auto",
        metadata={
            "description": "how mode count counts: frontier (a table scan in C), memo (memoised search "
            "in Python), search (list without storing, by the kernel; one anchor placement per orbit when the "
            "problem is symmetric) or auto (a short dancing-links "
            "probe, then frontier, memo and search, each within its budget); in mode all, frontier lists from "
            "the scan's table and auto tries that table first when the search is estimated at a minute or more"
        },
    )
    kernel: Literal["auto", "bitboard", "dlx"] = attrs.field(
        default="auto",
        metadata={
            "description": "what lists (and counts by search): bitboard (at most 256 items: cells and "
            "pieces used once), dlx (dancing links, any size) or auto (dlx to find one; to list, bitboard when "
            "it fits unless a short dlx probe finishes)"
        },
    )
    memo_budget: int | None = attrs.field(
        default=None,
        metadata={
            "description": "states the frontier table may hold in one layer (and the memo in all) before "
            "counting falls back to search; unset: frontier states a side for half the usable memory shared by the usable cores "
            "(200 bytes a state, at least 6,000,000: 31 million on 24 GB and 2 cores) and 1,000,000 "
            "memo states (on auto the frontier also stops past four times the search's estimated time); a "
            "listing's table holds every layer, up to this many states in all (unset: 16,000,000, about 1 GB)",
            "json_schema": {"minimum": 1},
        },
    )
    symmetry: Literal["search", "burnside"] = attrs.field(
        default="search",
        metadata={
            "description": "with distinct: break the symmetry in the search (search), or count the "
            "solutions each symmetry fixes (burnside); listing all: search lists only the tilings with an "
            "anchor piece on a representative and makes the others as their images, burnside lists plainly"
        },
    )

    def __attrs_post_init__(self) -> None:
        # The path is relative to [options.exactcover]: the core puts the table in front.
        if self.memo_budget is not None and self.memo_budget < 1:
            raise InputError(f"expected 1 or more, got {self.memo_budget}", path="memo_budget")
