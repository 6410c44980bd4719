"""Attention as a dynamical system on the tokens (docs/THEORY.md §8).

* :mod:`~tropattn.dynamics._sphere` -- tokens on ``S^{d-1}``, SA / USA velocity fields vectorised over
  tokens and heads, the interaction energy, fixed-step (renormalised) and ``solve_ivp`` integrators;
* :mod:`~tropattn.dynamics._equiangular` -- the scalar ODE of the common overlap, clustering times;
* :mod:`~tropattn.dynamics._clusters` -- overlap gap, the exact inter-cluster mass bound, cluster detection;
* :mod:`~tropattn.dynamics._hardmax` -- the ``beta -> infinity`` Frank-Wolfe step and its dominance cells,
  computed exactly as the power diagram of a tropical polynomial;
* :mod:`~tropattn.dynamics._condensation` -- nucleation from a Gaussian start, the threshold ``beta_c``;
* :mod:`~tropattn.dynamics._mckean_vlasov` -- ``beta*(d)`` and ``K#(beta)`` of the noisy USA free energy;
* :mod:`~tropattn.dynamics._wasserstein` -- time-dependent multi-head energy flows with OU / oscillating /
  frozen weights and the energy-dissipation identity.

Simulations are in floats (numpy); the hardmax cells and labels are exact.

>>> from tropattn.dynamics import critical_beta_star
>>> round(critical_beta_star(2), 4)
2.4469
"""

from ._clusters import (cluster_sizes, clustered_tokens, detect_clusters, inter_cluster_mass, inter_cluster_odds,
                       mass_bound, overlap_gap, overlaps)
from ._condensation import condensation_sweep, condensed_state, critical_beta, order_parameters
from ._equiangular import VALUE_CONVENTIONS, clustering_time, equiangular_tokens, rho_rate, rho_trajectory
from ._hardmax import (collinearity_residual, deviation_time, dominance_diagram, dominance_polynomial,
                      exponential_rate, hardmax_flow, least_margin, hardmax_step, hardmax_targets, self_dominant, soft_flow,
                      soft_step, vertex_count)
from ._mckean_vlasov import bessel_ratio, critical_beta_star, k_sharp
from ._sphere import (MAX_ANGLE_STEP, MODES, SCHEMES, Trajectory, attention_weights, check_beta, check_heads,
                     check_tokens, energy, energy_rate, head_velocities, random_symmetric, random_tokens, scores,
                     simulate, velocity)
from ._wasserstein import (PHASES, WEIGHT_LAWS, WassersteinRun, flow_terms, interaction_energy, symmetric_noise,
                          time_average, wasserstein_flow)

__all__ = [
    "MODES", "SCHEMES", "MAX_ANGLE_STEP", "check_beta", "check_tokens", "check_heads", "scores",
    "attention_weights", "head_velocities", "velocity", "energy", "energy_rate", "random_tokens",
    "random_symmetric", "Trajectory", "simulate",
    "VALUE_CONVENTIONS", "rho_rate", "rho_trajectory", "equiangular_tokens", "clustering_time",
    "overlaps", "overlap_gap", "inter_cluster_mass", "inter_cluster_odds", "mass_bound", "detect_clusters",
    "cluster_sizes", "clustered_tokens",
    "dominance_polynomial", "dominance_diagram", "hardmax_targets", "hardmax_step", "soft_step", "hardmax_flow",
    "soft_flow", "self_dominant", "vertex_count", "collinearity_residual", "deviation_time", "least_margin", "exponential_rate",
    "order_parameters", "condensed_state", "condensation_sweep", "critical_beta",
    "bessel_ratio", "critical_beta_star", "k_sharp",
    "WEIGHT_LAWS", "PHASES", "interaction_energy", "flow_terms", "symmetric_noise", "WassersteinRun",
    "wasserstein_flow", "time_average",
]
