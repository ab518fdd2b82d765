"""The compiled dancing-links kernel; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("polytile_exactcover._dlx", ["polytile_exactcover/_dlx.c"], extra_compile_args=["-O2"])])
