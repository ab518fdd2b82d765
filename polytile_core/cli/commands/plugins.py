"""``polytile plugins``: each plugin, what it provides, where it comes from."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from polytile_core.cli.commands import Subcommands
from polytile_core.host.capabilities import BackendCapabilities, BuilderCapabilities, DecomposerCapabilities
from polytile_core.host.registry import CAPABILITIES, SINGULAR, Host


def add(subparsers: Subcommands) -> None:
    command = subparsers.add_parser("plugins", help="list installed plugins and what they provide")
    command.set_defaults(func=show_plugins)


def show_plugins(arguments: argparse.Namespace, host: Host) -> int:
    origins = host.plugin_origins()
    for plugin in sorted(origins):
        print(f"{plugin}  ({origins[plugin]})")
        for capability in CAPABILITIES:
            for registration in host.registry[capability].values():
                if registration.plugin == plugin:
                    print(f"  {SINGULAR[capability]} {registration.name}: {registration.help}")
                    declared = registration.capabilities
                    if isinstance(declared, BackendCapabilities):
                        print(f"    {_backend(declared)}")
                    elif isinstance(declared, DecomposerCapabilities):
                        print(f"    {_decomposer(declared)}")
                    elif isinstance(declared, BuilderCapabilities) and declared.lists_optimal:
                        print(f"    every optimal answer listed with: {declared.lists_optimal}")
    return 0


def _ranks(rank: Mapping[str, int]) -> str:
    return ", ".join(f"{mode} {value}" for mode, value in sorted(rank.items()))


def _flags(flags: tuple[tuple[str, bool], ...]) -> str:
    return "".join(f"; {word}" for word, flag in flags if flag)


def _backend(capabilities: BackendCapabilities) -> str:
    """A backend's declared capabilities in one line: what ``auto`` and the kits read."""
    accepts = ", ".join(sorted(capabilities.accepts)) or "plain exact covers only"
    return (
        f"modes: {', '.join(sorted(capabilities.modes))}; auto ranks: {_ranks(capabilities.rank) or 'none'}; "
        f"accepts: {accepts}"
        + _flags(
            (
                ("counts without listing", capabilities.counts_without_listing),
                ("distinct in the search", capabilities.distinct_in_search),
                ("releases the GIL", capabilities.releases_gil),
                ("answers probes (tables, short listings)", capabilities.answers_probes),
                ("reads no rows, only the builder's statement", not capabilities.reads_model),
            )
        )
    )


def _decomposer(capabilities: DecomposerCapabilities) -> str:
    """A split's declared capabilities in one line."""
    adds = ", ".join(sorted(capabilities.part_features)) or "nothing"
    return (
        f"modes: {', '.join(sorted(capabilities.modes))}; auto ranks: {_ranks(capabilities.rank) or 'none'}; "
        f"its parts add: {adds}"
        + _flags(
            (
                (f"from {capabilities.min_jobs} jobs", capabilities.min_jobs > 1),
                ("a certificate without search", capabilities.certificate),
                ("splits a long count or listing", capabilities.when_long),
                ("parts are subtrees of one search", capabilities.subtrees),
            )
        )
    )
