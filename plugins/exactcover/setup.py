"""The compiled kernels (dancing links, bitboards, frontier count); everything else is in pyproject.toml."""

from setuptools import Extension, setup


def kernel(name):
    return Extension(
        f"polytile_exactcover.{name}",
        [f"polytile_exactcover/{name}.c"],
        depends=["polytile_exactcover/_cover_input.h", "polytile_exactcover/_handover.h"],
        extra_compile_args=["-O2", "-pthread"],
        extra_link_args=["-pthread"],
    )


setup(ext_modules=[kernel("_dlx"), kernel("_bitboard"), kernel("_frontier")])
