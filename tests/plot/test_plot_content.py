"""Pictures tested by what is drawn: the figure's artists against exact counts and independent numbers.

The figure is caught where matplotlib writes it (``Figure.savefig``, a public matplotlib
method: the drawing code of tropattn runs unchanged) and its axes are read: filled
polygons (``ax.patches``), lines and markers (``ax.lines``), images (``ax.images``).
Nothing here is compared with a number the drawing code computed itself: cell counts come
from the exact geometry, soft weights from a softmax written out below.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import logsumexp
from matplotlib.colors import to_rgb

from tropattn.attention import Head, count_dual, random_model
from tropattn.plot import plot_overlay, plot_soft_weights, plot_tropical_curve
from tropattn.tropical import curve_edges, parse_polynomial


def rgb(color):
    return tuple(np.round(to_rgb(color), 6))


def segments(ax):
    return [ln for ln in ax.lines if len(ln.get_xdata()) == 2]


def markers(ax):
    return [ln for ln in ax.lines if len(ln.get_xdata()) == 1]


CURVES = ["max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)", "max(0, 6*x, 6*y, 2*x + 2*y + 1)",
          "max(0, 2*x, 2*y, x + 1)", "max(0, 100000*x, 100000*y)", "max(0, x, y, x + y - 1, 2*x - 3)",
          "max(1, x, 2*y - 1, x + y + 1/2, 3*x - 4, y - 2)"]


def draw_curve(figures, tmp_path, text):
    poly = parse_polynomial(text)
    plot_tropical_curve(poly, tmp_path / "c.png")
    (fig,) = figures
    return poly, fig


@pytest.mark.parametrize("text", CURVES)
def test_both_panels_are_drawn_with_one_filled_polygon_per_exact_cell(figures, tmp_path, text):
    poly, fig = draw_curve(figures, tmp_path, text)
    assert len(fig.axes) == 2
    curve, newton = fig.axes
    assert len(curve.patches) == len(poly.linear_regions())           # the default window shows every region
    assert len(newton.patches) == len(poly.dual_subdivision())        # one polygon per maximal cell
    edges = curve_edges(poly)
    assert len(segments(curve)) == len(edges) == len(segments(newton))
    exps = {tuple(float(v) for v in poly.exponents[j]) for e in edges for j in e.ends}
    drawn = {(x, y) for ln in segments(newton) for x, y in zip(ln.get_xdata(), ln.get_ydata())}
    assert drawn == exps                                               # the dual edges join the exponents


def winner(poly, point):
    """The term that attains the max at ``point``, evaluated here in Fractions (None on a tie)."""
    x = [Fraction(v) for v in point]
    values = [c + sum(a * b for a, b in zip(e, x)) for e, c in zip(poly.exponents, poly.coefficients)]
    top = max(values)
    return values.index(top) if values.count(top) == 1 else None


@pytest.mark.parametrize("text", CURVES)
def test_region_colours_match_the_newton_polygon_legend(figures, tmp_path, text):
    """Each filled polygon is one region, in the colour of its term's dot; label j lies where term j wins."""
    poly, fig = draw_curve(figures, tmp_path, text)
    curve, newton = fig.axes
    dots = {(float(ln.get_xdata()[0]), float(ln.get_ydata()[0])): rgb(ln.get_markerfacecolor())
            for ln in markers(newton)}
    terms = []
    for patch in curve.patches:
        xy = np.asarray(patch.get_xy(), dtype=float)[:-1]
        j = winner(poly, xy.mean(axis=0))                    # the centroid of a convex cell lies inside it
        assert j is not None
        terms.append(j)
        assert rgb(patch.get_facecolor()) == dots[tuple(float(v) for v in poly.exponents[j])]
    assert sorted(terms) == sorted(r.term for r in poly.linear_regions())   # every region once
    labels = [t for t in curve.texts if t.get_text().isdigit()]
    assert sorted(int(t.get_text()) for t in labels) == sorted(terms)
    for t in labels:
        j = int(t.get_text())
        assert winner(poly, t.get_position()) == j
        assert rgb(t.get_bbox_patch().get_facecolor()) == dots[tuple(float(v) for v in poly.exponents[j])]


@pytest.mark.parametrize("text", CURVES)
def test_vertices_walls_and_window(figures, tmp_path, text):
    poly, fig = draw_curve(figures, tmp_path, text)
    curve = fig.axes[0]
    vertices = sorted(tuple(float(v) for v in c.point) for c in poly.hypersurface_cells() if c.dim == 0)
    assert sorted((float(ln.get_xdata()[0]), float(ln.get_ydata()[0])) for ln in markers(curve)) == vertices
    (x0, x1), (y0, y1) = curve.get_xlim(), curve.get_ylim()
    xs, ys = zip(*vertices)
    assert x0 < min(xs) and max(xs) < x1 and y0 < min(ys) and max(ys) < y1
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1)
    assert x1 - x0 <= 3 * span and y1 - y0 <= 3 * span                 # a window sized by the vertices
    widths = [ln.get_linewidth() for ax in fig.axes for ln in segments(ax)]
    assert max(widths) <= 6 and min(widths) > 0                         # heavy walls stay lines


def test_a_small_curve_is_not_lost_in_a_large_window(figures, tmp_path):
    """Vertices within ±1/2 (walls' points at ±25/2): the window is about ±3/2, not ±25."""
    _, fig = draw_curve(figures, tmp_path, "max(0, 6*x, 6*y, 2*x + 2*y + 1)")
    assert fig.axes[0].get_xlim() == (-1.5, 1.5) and fig.axes[0].get_ylim() == (-1.5, 1.5)


def test_heavier_walls_are_drawn_thicker(figures, tmp_path):
    poly, fig = draw_curve(figures, tmp_path, "max(0, 2*x, 2*y, x + 1)")
    weights = [e.weight for e in curve_edges(poly)]
    light, heavy = (sorted({ln.get_linewidth() for ln, w in zip(segments(ax), weights) if w == k})
                    for ax in fig.axes[:1] for k in (1, 2))
    assert len(light) == len(heavy) == 1 and heavy[0] > light[0]


def softmax(scores, tau):
    z = scores / tau
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("taus", [[0.3], [0.05, 1.0]])
def test_soft_weights_are_drawn_at_the_temperature_asked_1d(figures, tmp_path, taus):
    keys, offsets = np.array([[1.0], [0.0], [-1.0]]), np.array([0.0, 0.5, 0.0])
    plot_soft_weights(Head(keys.tolist(), offsets.tolist()), taus, (-2, 2), tmp_path / "s.png", resolution=41)
    (fig,) = figures
    assert len(fig.axes) == len(taus)
    for ax, tau in zip(fig.axes, taus):
        curves = [ln for ln in ax.lines if len(ln.get_xdata()) == 41]
        assert len(curves) == 3
        x = curves[0].get_xdata()
        expected = softmax(x[:, None] * keys[:, 0] + offsets, tau)
        for j, ln in enumerate(curves):
            np.testing.assert_allclose(ln.get_ydata(), expected[:, j], atol=1e-12)
        walls = sorted(ln.get_xdata()[0] for ln in ax.lines if len(ln.get_xdata()) == 2)
        assert walls == pytest.approx([-0.5, 0.5])                      # exact walls s_0 = s_1, s_1 = s_2


def test_soft_weights_are_drawn_at_the_temperature_asked_2d(figures, tmp_path):
    """The defect panels hold log10(1 - p*) of the tau asked (computed here from the scores)."""
    keys, offsets = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]]), np.array([0.0, -2.0, -2.0])
    taus, r = [0.2, 1.0], 30
    plot_soft_weights(Head(keys.tolist(), offsets.tolist()), taus, (-2, 3), tmp_path / "s.png", resolution=r)
    (fig,) = figures
    gx, gy = np.meshgrid(np.linspace(-2, 3, r), np.linspace(-2, 3, r))
    X = np.column_stack([gx.ravel(), gy.ravel()])
    defect_axes = [ax for ax in fig.axes if ax.images and "defect" in ax.get_title()]
    mix_axes = [ax for ax in fig.axes if ax.images and "colour mix" in ax.get_title()]
    assert len(defect_axes) == len(mix_axes) == 2
    for ax, tau in zip(defect_axes, taus):
        z = (X @ keys.T + offsets) / tau
        others = z.copy()
        others[np.arange(len(z)), z.argmax(axis=1)] = -np.inf               # 1 - p* = the others' sum
        expected = (logsumexp(others, axis=1) - logsumexp(z, axis=1)) / np.log(10)
        vmin, vmax = ax.images[0].get_clim()
        drawn = np.asarray(ax.images[0].get_array()).ravel()
        ok = np.isfinite(expected) & (expected > vmin + 1e-6) & (expected < vmax - 1e-6)
        assert ok.sum() > r * r // 2
        np.testing.assert_allclose(drawn[ok], expected[ok], atol=1e-6)
    # the colour mix is sum_j p_j(x) c_j: each key's colour c_j read where its weight is nearest 1
    weights = [softmax(X @ keys.T + offsets, tau) for tau in taus]
    images = [np.asarray(ax.images[0].get_array()).reshape(-1, 3) for ax in mix_axes]
    C = images[0][weights[0].argmax(axis=0)]
    for W, img in zip(weights, images):
        np.testing.assert_allclose(img, np.clip(W @ C, 0, 1), atol=1e-6)


@pytest.mark.parametrize("seed", [6, pytest.param(7, marks=pytest.mark.slow)])
def test_overlay_panels_fill_one_polygon_per_exact_cell(figures, tmp_path, seed):
    heads = random_model(2, 3, 3, seed=seed).layers[0].heads
    plot_overlay(heads, None, tmp_path / "o.png")
    (fig,) = figures
    assert len(fig.axes) == len(heads) + 1
    for ax, head in zip(fig.axes, heads):
        assert len(ax.patches) == len(head.power_diagram().nonempty)
    assert len(fig.axes[-1].patches) == count_dual(heads)
