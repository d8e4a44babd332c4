"""The package version: the one source (pyproject.toml reads it)."""

__version__ = "0.2.0"
