"""Tests of the rules engine: scoring, the game state machine, properties and ``daily score``."""
