"""
A tropical curve and its Newton subdivision
===========================================

A tropical polynomial in two variables is a max of affine functions; its curve is where the
max is attained twice.  The curve is dual to the regular subdivision of the Newton polygon
that the coefficients induce (docs/THEORY.md §1).  :func:`tropattn.plot.plot_tropical_curve`
draws both side by side.
"""

import tropattn as ta
from tropattn.plot import plot_tropical_curve

f = ta.parse_polynomial("max(0, x + 1, y + 1, 2*x, 2*y, x + y + 1.5)")
plot_tropical_curve(f, "curve.png")
