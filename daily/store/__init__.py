"""The Redis store: the only package that talks to Redis."""
