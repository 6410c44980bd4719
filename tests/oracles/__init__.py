"""Independent reference implementations for the tests (they share no code with tropattn).

:mod:`oracles.reference` reads a ``tropattn.model/1`` score-form JSON dict and evaluates the
transformer pointwise in Fractions, and enumerates its activation regions by brute force over
label tuples with its own affine algebra and an exact Fourier-Motzkin feasibility test.
"""

from .reference import (Model, adjacency, brute_force, evaluate, full_dimensional, load_model,
                        pattern_at, region_polyhedron)

__all__ = ["Model", "load_model", "evaluate", "pattern_at", "brute_force", "adjacency",
           "full_dimensional", "region_polyhedron"]
