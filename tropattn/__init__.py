"""tropattn: exact polyhedral geometry of transformer attention."""

from .errors import *  # noqa: F401,F403
from .exact import (  # noqa: F401
    COUNTERS, Certificate, FacetSet, counting, facets, interior_point, relative_interior_point,
    to_rational, to_rational_matrix, to_rational_vector,
)

__version__ = "0.1.0"
