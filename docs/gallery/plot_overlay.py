"""
Two heads and their overlay
===========================

The zero-temperature regions of a layer are the common refinement of its heads' power
diagrams.  :func:`tropattn.plot.plot_overlay` draws each head's cells and the overlay, each
region labelled by the tuple of keys that win there.
"""

from tropattn.plot import plot_overlay

head_1 = ([[0, 0], [1, 0], [0, 1]], [0, 0, 0])
head_2 = ([[1, 1], [-1, 0], [0, -1]], [0, 0, 0])
plot_overlay([head_1, head_2], 3, "overlay.png")
