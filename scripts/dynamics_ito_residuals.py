"""The stochastic energy identity of tropattn.dynamics.wasserstein_flow at several dt and sigma (issue 20).

Prints, for sigma in (0.5, sqrt 2) and dt in (0.02, 0.01, 0.005): the rms over 10 paths of the residual with the
Ito term (O(sqrt dt)) and the mean residual without it (does not shrink).  H = 2 heads, n = 8 tokens near the
cross-polytope vertices in R^3, D0 = (Z + Z^T)/2, OU weights, T = 1.

    PYTHONPATH=. python scripts/dynamics_ito_residuals.py
"""

import numpy as np

from tropattn.dynamics import cross_polytope_tokens, gaussian_heads, wasserstein_flow


def main():
    for sigma in (0.5, np.sqrt(2)):
        for dt in (0.02, 0.01, 0.005):
            with_ito, without = [], []
            for s in range(10):
                rng = np.random.default_rng(s)
                X, D0 = cross_polytope_tokens(8, 3, rng), 0.5 * gaussian_heads(2, 3, rng)
                run = wasserstein_flow(X, D0, 1.0, dt, "ou", sigma, seed=s)
                with_ito.append(run.stochastic_residual)
                without.append(run.stochastic_residual_without_ito)
            print(f"sigma = {sigma:.4g}  dt = {dt:<6g} rms residual with Ito {np.sqrt(np.mean(np.square(with_ito))):.4g}"
                  f"   mean without {np.mean(without):+.4g}")


if __name__ == "__main__":
    main()
