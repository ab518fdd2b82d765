"""The compiled boundary dynamic program and the fence finder's; everything else is in pyproject.toml."""

from setuptools import Extension, setup

flags = ["-O2"]
shared = ["polytile_enclosure/_shared.h"]  # what both share: the flood fill, placing cells
setup(
    ext_modules=[
        Extension(
            "polytile_enclosure._fence", ["polytile_enclosure/_fence.c"], extra_compile_args=flags, depends=shared
        ),
        Extension(
            "polytile_enclosure._order", ["polytile_enclosure/_order.c"], extra_compile_args=flags, depends=shared
        ),
    ]
)
