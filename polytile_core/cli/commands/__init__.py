"""Subcommands of the ``polytile`` command, one module each."""

from __future__ import annotations

import argparse
from typing import TypeAlias

# What each subcommand's ``add`` adds its parser to.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
