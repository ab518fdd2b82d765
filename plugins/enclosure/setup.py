"""The compiled boundary dynamic program; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("polytile_enclosure._fence", ["polytile_enclosure/_fence.c"], extra_compile_args=["-O2"])])
