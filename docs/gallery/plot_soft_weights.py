"""
Soft attention weights
======================

At temperature ``tau`` a head's weights are ``softmax((a_j . x + b_j) / tau)``.  As
``tau -> 0`` they converge to the hard argmax, exponentially fast away from the walls of the
power diagram (docs/THEORY.md §5).  :func:`tropattn.plot.plot_soft_weights` shows the mixture
of key colours (top) and the weight defect ``log10(1 - p*)`` (bottom) at several temperatures.
"""

from tropattn.plot import plot_soft_weights

head = ([[0, 0], [1, 0], [0, 1], [1, 1]], [0, 0, 0, -0.5])
plot_soft_weights(head, [1.0, 0.3, 0.1], 2, "soft.png", resolution=80)
