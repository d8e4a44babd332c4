"""The package version, its one source (pyproject.toml reads it), and its licence."""

__version__ = "0.2.0"
__license__ = "Apache-2.0"  # the LICENSE file beside pyproject.toml, shipped in the sdist and the wheel
