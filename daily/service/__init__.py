"""A layer of the package."""
