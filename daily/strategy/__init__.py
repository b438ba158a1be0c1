"""The strategy engine: exact solver, hints and computer opponents (pure, numpy)."""
