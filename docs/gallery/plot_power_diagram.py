"""
A power diagram
===============

One attention head with keys ``a_j`` and offsets ``b_j`` attends, at zero temperature, to the key
that maximises ``a_j . x + b_j``.  The queries where key ``j`` wins form a convex cell; together
the cells are a power diagram (docs/THEORY.md §2).  :func:`tropattn.plot.plot_power_diagram`
draws it into matplotlib axes.
"""

from tropattn.attention import Head
from tropattn.plot import plot_power_diagram

keys = [[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]]
offsets = [0, -1, -1, -3, 0]
ax = plot_power_diagram(Head(keys, offsets), box=3)
