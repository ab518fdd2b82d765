"""``backend = "auto"``: which routes (a split or none, and a backend) to take, and why.

The choice reads only what plugins declared when they registered
(``polytile_core.host.capabilities``) and the features of the model at hand; it names no
plugin.  A backend fits when it ranks the mode and accepts every feature of the model
(for a split, of its parts); among those the highest rank goes first, and a split
adds its own rank for the mode to its backend's.

- Mode ``one`` on a tiling, with no split named: every fitting backend on the whole
  problem, and every split that ranks mode ``one`` with its best backend, raced
  (two routes per job, one for a large model, best first); the splits that declare a
  certificate race too.
- Other modes, or a split named in the pipeline: the one best route.
"""

from __future__ import annotations

import logging
from typing import cast

import attrs

from polytile_core.config.pipeline import Candidates, Chosen, Plan
from polytile_core.convert import CONVERTER
from polytile_core.errors import InputError
from polytile_core.solve.outcome import Outcome

# Routes raced per job (per usable core, by default): a route that waits on another's
# core still starts, and the routes that would lose are stopped as soon as one wins.
# Each racer builds the model again, so a model that is slow to build races one per job.
RACE_WIDTH_PER_JOB = 2
RACE_WIDTH_PER_JOB_LARGE_MODEL = 1


@attrs.frozen
class Route:
    """One way to solve: a split (or none) and a backend, with the reason it was chosen."""

    backend: Chosen
    split: Chosen | None = None
    rank: int = 0
    why: str = ""

    @property
    def name(self) -> str:
        return f"{self.split.name} + {self.backend.name}" if self.split else self.backend.name

    def applied(self, plan: Plan) -> Plan:
        """The plan with this route's backend and split (each with its options)."""
        return attrs.evolve(plan, backend=self.backend, split=self.split)

    def report(self, plan: Plan) -> dict:
        """What ``details.route`` says of this route."""
        options = {self.backend.name: _set(self.backend.options)}
        if self.split is not None:
            options[self.split.name] = _set(self.split.options)
        report: dict[str, object] = {"name": self.name, "backend": self.backend.name, "why": self.why}
        if self.split is not None:
            report["split"] = self.split.name
        report["options"] = {name: value for name, value in options.items() if value is not None}
        return report


def _set(options: object) -> object:
    """The options a route was given, less those left unset (None: a result file has no
    null).  An attrs class (as the hook specs ask) by ``attrs.asdict``: its options hold
    plain values, and the converter would first write its code for the class, a
    millisecond of a run that may take two; any other by the converter."""
    if options is not None and attrs.has(type(options)):
        given = attrs.asdict(cast(attrs.AttrsInstance, options))
    else:
        given = CONVERTER.unstructure(options)
    if isinstance(given, dict):
        return {key: value for key, value in given.items() if value is not None}
    return given


@attrs.frozen
class Routing:
    """The routes ``auto`` takes, best first; ``race``: run them at once, first answer wins,
    with the ``certificates`` (splits that may prove there is no tiling) alongside."""

    routes: tuple[Route, ...]
    race: bool
    certificates: tuple[Chosen, ...] = ()
    passed_over: tuple[str, ...] = ()


def _fitting(candidates: Candidates, mode: str, features: frozenset[str]) -> list[Chosen]:
    fit = [reg for reg in candidates.backends if reg.capabilities.fits(mode, features)]
    return sorted(fit, key=lambda reg: (-reg.capabilities.rank[mode], reg.name))


def _features_text(features: frozenset[str]) -> str:
    return ", ".join(sorted(features)) or "a plain exact cover"


log = logging.getLogger("polytile")


def choose(plan: Plan, features: frozenset[str], *, large_model: bool = False) -> Routing:
    """The routes for a plan whose backend is ``auto``, given its model's features (and
    whether the model is slow to build, which narrows a race); logged on ``polytile``."""
    routing = _routing(plan, features, large_model)
    chosen = ", ".join(route.name for route in routing.routes)
    log.info("auto chose %s%s: %s", "a race of " if routing.race else "", chosen, routing.routes[0].why)
    return routing


def _routing(plan: Plan, features: frozenset[str], large_model: bool) -> Routing:
    candidates = plan.candidates
    if candidates is None:
        raise ValueError("choose() is for plans whose backend is auto")
    mode = plan.settings.mode
    passed_over = tuple(
        f"{reg.name}: {_why_not(reg, mode, features)}"
        for reg in candidates.backends
        if not reg.capabilities.fits(mode, features)
    )
    if plan.split is not None:
        parts = features | plan.split.capabilities.part_features
        fitting = _fitting(candidates, mode, parts)
        if not fitting:
            raise _nothing_fits(mode, parts, passed_over)
        best = fitting[0]
        why = (
            f"named split {plan.split.name}; the highest-ranked backend for mode {mode} "
            f"whose rows fit its parts ({_features_text(parts)})"
        )
        return Routing((Route(best, plan.split, best.capabilities.rank[mode], why),), False, (), passed_over)

    routes: list[Route] = []
    fitting = _fitting(candidates, mode, features)
    for reg in fitting:
        routes.append(
            Route(
                reg,
                None,
                reg.capabilities.rank[mode],
                f"rank {reg.capabilities.rank[mode]} for mode {mode}; accepts {_features_text(features)}",
            )
        )
    if plan.problem == "tiling":
        for split in candidates.splits:
            capabilities = split.capabilities
            if mode not in capabilities.rank or plan.jobs < capabilities.min_jobs:
                continue
            parts = features | capabilities.part_features
            best_for_parts = _fitting(candidates, mode, parts)
            if best_for_parts:
                backend = best_for_parts[0]
                rank = backend.capabilities.rank[mode] + capabilities.rank[mode]
                why = (
                    f"split rank {capabilities.rank[mode]:+d} on {backend.name}'s {backend.capabilities.rank[mode]}; "
                    f"its parts are {_features_text(parts)}"
                )
                routes.append(Route(backend, split, rank, why))
    if not routes:
        raise _nothing_fits(mode, features, passed_over)
    # Best first; at equal rank the whole problem before a split (no split's overhead).
    routes.sort(key=lambda route: (-route.rank, route.split is not None))
    certificates = (
        tuple(split for split in candidates.splits if split.capabilities.certificate)
        if plan.problem == "tiling"
        else ()
    )
    if mode == "one" and plan.problem == "tiling" and len(routes) > 1:
        per_job = RACE_WIDTH_PER_JOB_LARGE_MODEL if large_model else RACE_WIDTH_PER_JOB
        width = max(2, per_job * plan.jobs)
        passed_over += tuple(
            f"{route.name}: not raced (only {width} routes race with {plan.jobs} jobs)" for route in routes[width:]
        )
        return Routing(tuple(routes[:width]), True, certificates, passed_over)
    passed_over += tuple(f"{route.name}: ranked lower" for route in routes[1:])
    return Routing((routes[0],), False, (), passed_over)


def _why_not(reg: Chosen, mode: str, features: frozenset[str]) -> str:
    capabilities = reg.capabilities
    if mode not in capabilities.rank:
        return f"not ranked for mode {mode}"
    return f"does not accept {_features_text(features - capabilities.accepts)}"


def _nothing_fits(mode: str, features: frozenset[str], passed_over: tuple[str, ...]) -> InputError:
    reasons = "; ".join(passed_over) or "no installed backend declares capabilities"
    return InputError(
        f"auto found no backend for mode {mode} on a model with {_features_text(features)} ({reasons}); "
        "name one with solve.backend",
        path="solve.backend",
    )


def on_one_route(outcome: Outcome, plan: Plan, routing: Routing | None) -> Outcome:
    """The outcome of a run on one route, saying which (chosen by auto, or named)."""
    assert plan.backend is not None
    if routing is not None:
        route = routing.routes[0]
        report = {**route.report(plan), "how": f"chosen by auto: {route.why}"}
    else:
        named = Route(plan.backend, plan.split, why=plan.backend_why)
        report = {**named.report(plan), "how": named.why}
    return attrs.evolve(outcome, details={**outcome.details, "route": report}, backend=plan.backend.name)
