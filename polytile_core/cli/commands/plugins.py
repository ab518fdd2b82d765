"""``polytile plugins``: each plugin, what it provides, where it comes from."""

from __future__ import annotations

import argparse

from polytile_core.cli.commands import Subcommands
from polytile_core.host.capabilities import BackendCapabilities
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
                    if registration.capabilities is not None and capability == "backends":
                        print(f"    {_declared(registration.capabilities)}")
    return 0


def _declared(capabilities: BackendCapabilities) -> str:
    """A backend's capabilities in one line: what auto reads."""
    ranks = ", ".join(f"{mode} {rank}" for mode, rank in sorted(capabilities.rank.items())) or "none"
    accepts = ", ".join(sorted(capabilities.accepts)) or "plain exact covers only"
    extra = [
        word
        for word, flag in (
            ("counts without listing", capabilities.counts_without_listing),
            ("distinct in the search", capabilities.distinct_in_search),
        )
        if flag
    ]
    return f"auto ranks: {ranks}; accepts: {accepts}" + "".join(f"; {word}" for word in extra)
