"""Results, result files and pictures.  Importing the room loads ``resultfile``, which
gives ``Result.save`` its writer (results.py cannot import it: resultfile builds on it)."""

from polytile_core.output import resultfile  # noqa: F401
