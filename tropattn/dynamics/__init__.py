"""Attention as a dynamical system on the tokens (docs/THEORY.md §8), simulated in floats.

* **the flow on the sphere** -- :func:`scores`, :func:`attention_weights`, :func:`head_velocities`,
  :func:`velocity` (SA / USA fields vectorised over tokens and heads; SA is the float forward
  :func:`tropattn.soft.attend`), :func:`log_energy` (finite at every beta), :func:`energy`, :func:`energy_rate`, :func:`simulate`
  (:class:`Trajectory`), :func:`random_tokens`, :func:`random_symmetric`;
* **equiangular reduction** -- :func:`rho_rate`, :func:`rho_trajectory`, :func:`equiangular_tokens`,
  :func:`clustering_time`, :func:`rate_maximising_beta` (closed form), :func:`fastest_clustering_beta`;
* **clusters** -- :func:`overlaps`, :func:`overlap_gap`, :func:`inter_cluster_odds`,
  :func:`inter_cluster_mass`, :func:`mass_bound`, :func:`detect_clusters`, :func:`cluster_sizes`,
  :func:`clustered_tokens`; **flat and projected flows** -- :func:`flat_velocity`, :func:`energy_terms`,
  :func:`orthogonal_psd_heads`, :func:`satisfies_monotone_condition`, :func:`integrate_flow`, :func:`identity_defect`, :func:`decreases`; **fixed points** -- :func:`cluster_configuration`, :func:`simplex_centres`,
  :func:`find_clustered_state`, :func:`tangent_frame`, :func:`tangent_jacobian`, :func:`slow_rate`,
  :func:`suppression_in_d`;
* **hardmax** (``beta -> infinity``; cells exact, as the power diagram of a tropical polynomial) --
  :func:`dominance_polynomial`, :func:`dominance_diagram`, :func:`hardmax_targets`, :func:`hardmax_step`,
  :func:`soft_step`, :func:`hardmax_flow`, :func:`soft_flow`, :func:`self_dominant`, :func:`vertex_count`,
  :func:`collinearity_residual`, :func:`deviation_time`, :func:`least_margin`, :func:`exponential_rate`;
* **condensation** -- :func:`order_parameters`, :func:`condensed_state`, :func:`condensation_sweep`,
  :func:`critical_beta`, :func:`threshold_curve`, :func:`zero_beta_constant`,
  :func:`order_parameter_grid` (the noiseless finite-time criterion); **McKean-Vlasov** -- :func:`bessel_ratio`, :func:`critical_beta_star`, :func:`k_sharp` (one convention:
  ``K# -> d``), checked by :func:`k_sharp_quadrature`, :func:`branch_coupling`, :func:`landau_coefficient`,
  :func:`stationary_order` and the particles of :func:`noisy_particles`, :func:`particle_order`;
* **Wasserstein flows of time-dependent heads** -- :func:`interaction_energy`, :func:`flow_terms`,
  :func:`symmetric_noise`, :func:`wasserstein_flow` (:class:`WassersteinRun`, with the stochastic Ito
  identity), :func:`time_average`, :func:`cross_polytope_tokens`, :func:`gaussian_heads`, :func:`loglog_slope`.

Choices are strings: ``mode`` ``"sa"`` or ``"usa"``; ``scheme`` ``"euler"``, ``"rk4"`` or
``"solve_ivp"``; ``values`` ``"unit"`` or ``"scaled"``; ``weights`` ``"frozen"``, ``"ou"`` or
``"oscillating"``; ``phase`` ``"in-phase"`` or ``"spread"``.  A fixed step that moves a
token by more than 0.5 rad is refused as a blow-up.

>>> round(critical_beta_star(2), 4)                 # the McKean-Vlasov threshold on the circle
2.4469
>>> import numpy as np
>>> X = random_tokens(6, 3, np.random.default_rng(0))
>>> bool(energy_rate(X, np.eye(3), 1.0) >= 0)       # one SA head ascends its interaction energy
True
"""

from .._face import face
from ._clusters import (cluster_sizes, clustered_tokens, detect_clusters, inter_cluster_mass, inter_cluster_odds,
                        mass_bound, overlap_gap, overlaps)
from ._condensation import (condensation_sweep, condensed_state, critical_beta, order_parameter_grid, order_parameters,
                            threshold_curve, zero_beta_constant)
from ._equiangular import (clustering_time, equiangular_tokens, fastest_clustering_beta, rate_maximising_beta, rho_rate,
                           rho_trajectory)
from ._flat import (decreases, energy_terms, flat_velocity, identity_defect, integrate_flow, orthogonal_psd_heads,
                    satisfies_monotone_condition)
from ._fixed_points import (cluster_configuration, find_clustered_state, simplex_centres, slow_rate,
                            spectrum_summary, suppression_in_d, tangent_frame, tangent_jacobian)
from ._hardmax import (collinearity_residual, deviation_time, dominance_diagram, dominance_polynomial,
                       exponential_rate, hardmax_flow, hardmax_step, hardmax_targets, least_margin, self_dominant,
                       soft_flow, soft_step, vertex_count)
from ._mckean_vlasov import bessel_ratio, critical_beta_star, k_sharp
from ._mean_field import (branch_coupling, k_sharp_quadrature, landau_coefficient, noisy_particles, particle_order,
                          stationary_order, zonal_kernel)
from ._sphere import (Trajectory, attention_weights, energy, energy_rate, head_velocities, is_monotone, log_energy,
                      random_symmetric, random_tokens, scores, simulate, velocity)
from ._wasserstein import (WassersteinRun, cross_polytope_tokens, flow_terms, gaussian_heads, interaction_energy,
                           loglog_slope, symmetric_noise, time_average, wasserstein_flow)

__all__ = [
    "scores", "attention_weights", "head_velocities", "velocity", "log_energy", "energy", "energy_rate", "is_monotone", "random_tokens",
    "random_symmetric", "Trajectory", "simulate",
    "rho_rate", "rho_trajectory", "equiangular_tokens", "clustering_time", "rate_maximising_beta",
    "fastest_clustering_beta",
    "overlaps", "overlap_gap", "inter_cluster_mass", "inter_cluster_odds", "mass_bound", "detect_clusters",
    "cluster_sizes", "clustered_tokens",
    "flat_velocity", "energy_terms", "orthogonal_psd_heads", "satisfies_monotone_condition", "integrate_flow",
    "identity_defect", "decreases",
    "cluster_configuration", "simplex_centres", "find_clustered_state", "tangent_frame", "tangent_jacobian",
    "slow_rate", "spectrum_summary", "suppression_in_d",
    "dominance_polynomial", "dominance_diagram", "hardmax_targets", "hardmax_step", "soft_step", "hardmax_flow",
    "soft_flow", "self_dominant", "vertex_count", "collinearity_residual", "deviation_time", "least_margin",
    "exponential_rate",
    "order_parameters", "condensed_state", "condensation_sweep", "critical_beta", "threshold_curve",
    "zero_beta_constant", "order_parameter_grid",
    "bessel_ratio", "critical_beta_star", "k_sharp",
    "zonal_kernel", "branch_coupling", "k_sharp_quadrature", "landau_coefficient", "stationary_order",
    "noisy_particles", "particle_order",
    "interaction_energy", "flow_terms", "symmetric_noise", "WassersteinRun", "wasserstein_flow", "time_average",
    "cross_polytope_tokens", "gaussian_heads", "loglog_slope",
]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "MODES": "internal; mode is 'sa' or 'usa'",
    "SCHEMES": "internal; scheme is 'euler', 'rk4' or 'solve_ivp'",
    "MAX_ANGLE_STEP": "internal; a fixed step moving a token by more than 0.5 rad is refused",
    "VALUE_CONVENTIONS": "internal; values is 'unit' or 'scaled'",
    "WEIGHT_LAWS": "internal; weights is 'frozen', 'ou' or 'oscillating'",
    "PHASES": "internal; phase is 'in-phase' or 'spread'",
    "check_beta": "tropattn._validate.positive_float (internal: every function checks its beta)",
    "check_tokens": "internal; simulate(..., normalize=True) projects tokens onto the sphere",
    "check_heads": "internal; every function checks its score matrices",
})
