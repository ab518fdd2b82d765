"""What a backend, a split or a builder can do, declared by its plugin when it registers.

``backend = "auto"`` (``polytile_core.solve.route``) chooses among the installed plugins by
reading these declarations only: it names no plugin, so a third-party backend that
declares its capabilities joins the choice.  A backend registered without capabilities
still works when it is named, but ``auto`` never picks it.

A model's *features* are what its rows need beyond the plain exact cover (every
variable 0-1 and in some ``== 1`` row with coefficients 1): ``count rows`` (rows of
another kind, such as a piece's copies), ``ranges`` (``<=``/``>=`` rows), ``weights``
(a coefficient above 1), ``general rows`` (a negative or fractional coefficient, or a
variable that no ``== 1`` row holds) and ``objective``.  A backend fits a model when it
accepts every feature the model has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from operator import itemgetter
from typing import Any, Literal, get_args

import attrs

from polytile_core.host.contracts import Mode
from polytile_core.model.zero_one import Model

# The backend name that lets polytile choose; no plugin may register a backend by it.
AUTO = "auto"
MODES: frozenset[str] = frozenset(get_args(Mode))
Feature = Literal["count rows", "ranges", "weights", "general rows", "objective"]
FEATURES: frozenset[str] = frozenset(get_args(Feature))


def _names(values: Iterable[str]) -> frozenset[str]:
    return frozenset(values)


Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _known(allowed: frozenset[str], what: str) -> Validator:
    def check(instance: object, attribute: attrs.Attribute[Any], value: Iterable[str]) -> None:
        unknown = set(value) - allowed
        if unknown:
            raise ValueError(f"{attribute.name}: unknown {what} {sorted(unknown)} (known: {sorted(allowed)})")

    return check


def _ranks(instance: Any, attribute: attrs.Attribute[Any], value: Mapping[str, int]) -> None:
    _known(MODES, "mode")(instance, attribute, value)
    missing = set(value) - set(instance.modes)
    if missing:
        raise ValueError(f"rank: modes {sorted(missing)} are ranked but not among modes {sorted(instance.modes)}")


@attrs.frozen(kw_only=True)
class BackendCapabilities:
    """What a backend declares when it registers (``register(..., capabilities=...)``).

    ``rank`` orders the backends ``auto`` may choose for a mode, highest first; a plugin
    sets it from its benchmarks (docs/benchmarks/).  A mode left out of ``rank`` is one
    the backend handles when named, but ``auto`` does not pick it for.  ``releases_gil``:
    its search runs in code that releases the GIL (a C kernel), so a split's parts on
    threads of one process run in parallel; ``executor = "auto"`` then takes threads,
    with no processes to start and no model to send.  ``answers_probes``: given
    ``SolveSettings.probe`` it counts by a short search or its tables and gives up rather
    than search long, and lists only a listing it estimates short, so a run that would split a long search
    probes it with no time limit of its own (a table count is never cut short and made
    again, and no listing is made twice).  ``reads_model = False``: the backend
    solves the builder's statement of the problem (``Model.problem``) and adds to the
    model only the variables of the answers it reports; when it is the backend its
    problem kind's builder names, the run asks that builder for the statement alone
    (``rows=False``), not for rows that can take far longer to write than the answer.
    """

    modes: frozenset[str] = attrs.field(converter=_names, validator=_known(MODES, "mode"))
    accepts: frozenset[str] = attrs.field(default=FEATURES, converter=_names, validator=_known(FEATURES, "feature"))
    counts_without_listing: bool = False
    distinct_in_search: bool = False
    releases_gil: bool = False
    answers_probes: bool = False
    reads_model: bool = True
    rank: Mapping[str, int] = attrs.field(factory=dict, validator=_ranks)

    @property
    def optimises(self) -> bool:
        return "optimize" in self.modes and "objective" in self.accepts

    def fits(self, mode: str, features: frozenset[str]) -> bool:
        """Whether ``auto`` may give this backend a model with ``features`` in ``mode``."""
        return mode in self.rank and features <= self.accepts


@attrs.frozen(kw_only=True)
class BuilderCapabilities:
    """What a problem kind's builder declares when it registers.

    ``lists_optimal``: for an optimisation kind, the pipeline setting that lists every
    optimal answer, as a TOML line (``options.enclose.list_optimal = true``).  Modes
    ``all`` and ``count`` are refused for every kind but ``tiling``; the refusal points at
    this setting, which the core cannot know (it names a plugin's option).
    """

    lists_optimal: str | None = None


@attrs.frozen(kw_only=True)
class DecomposerCapabilities:
    """What a split declares when it registers.

    ``modes``: the modes its parts serve (a split whose parts overlap serves ``one``
    only).  ``part_features``: what its parts' models add to the whole one's (count rows
    for the checkerboard split's variant counts).  ``rank`` (per mode, added to the
    backend's rank) lets ``auto`` try the split for a mode; ``min_jobs``: only when at
    least that many parts can run at once.  ``certificate``: the split can prove,
    without search, that no tiling exists (``Split.impossible``), so ``auto`` races it
    alongside the search routes when it looks for one tiling.  ``when_long``: a count or
    listing on ``min_jobs`` or more jobs is split by it when a short probe of the whole
    problem does not finish (``polytile_core.solve.autosplit``).  ``subtrees``: each part
    is one subtree of a search (the whole model with a branch's choices fixed), so the
    backend is told to count it by search (``SolveSettings.subtree``).
    """

    modes: frozenset[str] = attrs.field(
        default=frozenset({"one", "all", "count"}), converter=_names, validator=_known(MODES, "mode")
    )
    part_features: frozenset[str] = attrs.field(
        default=frozenset(), converter=_names, validator=_known(FEATURES, "feature")
    )
    rank: Mapping[str, int] = attrs.field(factory=dict, validator=_ranks)
    min_jobs: int = 1
    certificate: bool = False
    when_long: bool = False
    subtrees: bool = False

    @property
    def one_solution_only(self) -> bool:
        return set(self.modes) == {"one"}


_first, _second = itemgetter(0), itemgetter(1)  # of a term (var, coefficient)


def model_features(model: Model) -> frozenset[str]:
    """The features of ``model`` (see the module's docstring): as its builder stated them
    while it has the rows and variables it had then, else read from its rows."""
    if model.stated_features is not None:
        stated, rows, variables = model.stated_features
        if (rows, variables) == (len(model.constraints), model.num_variables):
            return stated
    features: set[str] = set()
    if model.objective is not None:
        features.add("objective")
    covered: set[int] = set()
    for constraint in model.constraints:
        coefficients = set(map(_second, constraint.terms))  # a few values, many terms
        if any(not isinstance(c, int) or c < 0 for c in coefficients):
            features.add("general rows")
        elif any(c > 1 for c in coefficients):
            features.add("weights")
        if constraint.sense == "==" and constraint.rhs == 1 and all(c == 1 for c in coefficients):
            covered.update(map(_first, constraint.terms))
        elif constraint.sense == "==":
            features.add("count rows")
        else:
            features.add("ranges")
    if len(covered) < model.num_variables:
        features.add("general rows")
    return frozenset(features)
