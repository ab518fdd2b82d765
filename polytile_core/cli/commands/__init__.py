"""Subcommands of the ``polytile`` command, one module each."""
