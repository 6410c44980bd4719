"""Pictures: PNG files are written for small heads; d > 2 is refused clearly."""

import numpy as np
import pytest

from tropattn.attention import Head
from tropattn.errors import InvalidInputError
from tropattn.geometry import PowerDiagram
from tropattn.plot import plot_overlay, plot_power_diagram, plot_soft_weights

PNG = b"\x89PNG\r\n\x1a\n"


def is_png(path):
    data = path.read_bytes()
    return len(data) > 1000 and data.startswith(PNG)


@pytest.fixture
def heads2d():
    return [Head([[0, 0], [2, 0], [0, 2], [1, 1]], [0, -2, -2, -1]),
            Head([[1, 0], [-1, 0]], [0, 1], [[1, 0], [0, 1]])]


def test_power_diagram_draws_one_labelled_cell_per_nonempty_site(heads2d):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot
    head = heads2d[0]
    ax = plot_power_diagram(head, 3)
    nonempty_in_box = head.power_diagram().clip_to_box([-3, -3], [3, 3])
    assert len(ax.texts) == len(nonempty_in_box)
    ax2 = plot_power_diagram(PowerDiagram.voronoi([[0, 0], [2, 0]]), (-1, 3))
    assert sorted(t.get_text() for t in ax2.texts) == ["0", "1"]
    matplotlib.pyplot.close("all")


@pytest.mark.slow
def test_overlay_and_soft_weights_are_written(tmp_path, heads2d):
    p = plot_overlay(heads2d, (-3, 3), tmp_path / "overlay.png")
    assert is_png(p)
    p = plot_soft_weights(heads2d[0], [0.05, 0.5], 3, tmp_path / "soft.png", resolution=60)
    assert is_png(p)
    # tuple heads, default box
    p = plot_overlay([([[1, 0], [0, 1], [-1, -1]],), ([[0, 1], [0, -1]], [0, "1/2"])], None, tmp_path / "t.png")
    assert is_png(p)


def test_one_dimensional_heads_are_drawn_as_intervals(tmp_path):
    heads = [Head([[0], [1], [2]], [0, 0, -2]), Head([[0], [1]], [0, "-1/2"])]
    assert is_png(plot_overlay(heads, (-1, 3), tmp_path / "o1.png"))
    assert is_png(plot_soft_weights(heads[0], [0.1, 1.0], (-1, 3), tmp_path / "s1.png"))


def test_overlay_regions_match_exact_labels(tmp_path, heads2d):
    """The overlay's cells are the label tuples that occur: cross-check with sampled exact labels."""
    from tropattn.attention import as_heads, hard_labels
    from tropattn.plot._power import overlay_diagram

    hs = as_heads(heads2d)
    overlay, tuples = overlay_diagram(hs)
    X = np.random.default_rng(0).uniform(-3, 3, (3000, 2))
    labels = np.stack([hard_labels(h, X) for h in hs]).T
    seen = {tuple(r) for r in labels.tolist() if min(r) >= 0}
    in_box = {tuples[j] for j in overlay.clip_to_box([-3, -3], [3, 3])}
    assert seen <= in_box and len(in_box) - len(seen) <= 1      # tiny regions may escape the sample


def test_three_dimensional_input_is_refused(tmp_path):
    head = Head([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(InvalidInputError, match="two coordinates"):
        plot_power_diagram(head, 1)
    with pytest.raises(InvalidInputError, match="d = 1 or 2"):
        plot_overlay([head], 1, tmp_path / "x.png")
    with pytest.raises(InvalidInputError, match="project|Project"):
        plot_soft_weights(head, [1.0], 1, tmp_path / "y.png")
    assert not (tmp_path / "x.png").exists()


# ---------------------------------------------------------------- issue 9, point 7: pictures that teach

import itertools                                                           # noqa: E402
import warnings                                                            # noqa: E402

import tropattn.plot._power as power_mod                                    # noqa: E402
import tropattn.plot._soft as soft_mod                                      # noqa: E402
from tropattn.attention import count_dual, random_model                    # noqa: E402
from tropattn.plot._common import head_palettes, mix_colors                 # noqa: E402
from tropattn.plot._power import overlay_box                                # noqa: E402


def _capture(monkeypatch, module):
    """Keep the figure that ``module`` saves (the real save still runs)."""
    kept, real = [], module.save

    def save(fig, path, dpi):
        fig.canvas.draw()
        fig.kept_renderer = fig.canvas.get_renderer()       # before the real save closes the figure
        kept.append(fig)
        real(fig, path, dpi)

    monkeypatch.setattr(module, "save", save)
    return kept


@pytest.mark.parametrize("seed", [6, 7, 9, 36, 39])           # seeds where the old default box hid regions
def test_automatic_box_shows_every_region_count_finds(seed):
    heads = random_model(2, 3, 3, seed=seed).layers[0].heads
    lo, hi, shown, total = overlay_box(heads)
    assert shown == total == count_dual(heads)


@pytest.mark.slow
def test_a_box_that_hides_regions_warns_and_says_so(tmp_path, monkeypatch):
    kept = _capture(monkeypatch, power_mod)
    heads = random_model(2, 3, 3, seed=6).layers[0].heads
    with pytest.warns(UserWarning, match="the box hides 1 of the 14 regions"):
        plot_overlay(heads, (-3, 3), tmp_path / "o.png", title="seed 6")
    captions = [t.get_text() for t in kept[0].texts]
    assert any(c.startswith("WARNING: the box hides 1 of the 14") for c in captions)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_overlay(heads, None, tmp_path / "o2.png")             # the automatic box hides nothing


def _overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("heads,box", [
    ([Head([[0], [1], [2]], [0, 0, -2]), Head([[0], [1]], [0, "-1/2"]), Head([[0], [1]], [0, "-0.52"])], None),
    (None, None),
])
def test_titles_and_labels_that_never_overlap(tmp_path, monkeypatch, heads, box):
    heads = heads or random_model(2, 3, 3, seed=36).layers[0].heads
    kept = _capture(monkeypatch, power_mod)
    plot_overlay(heads, box, tmp_path / "o.png", title="my-model.json")
    fig = kept[0]
    assert fig._suptitle.get_text().startswith("my-model.json:")
    renderer = fig.kept_renderer
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_title()
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        assert not any(_overlaps(a, b) for a, b in itertools.combinations(boxes, 2))
        frame = ax.get_window_extent(renderer)
        assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 for b in boxes)   # labels stay inside the panel


def test_overlay_colours_are_mixed_from_the_heads_colours(tmp_path, monkeypatch, heads2d):
    from tropattn.attention import as_heads
    from tropattn.plot._power import overlay_diagram

    kept = _capture(monkeypatch, power_mod)
    plot_overlay(heads2d, (-3, 3), tmp_path / "o.png")
    fig = kept[0]
    palettes = head_palettes([h.N for h in heads2d])
    head_fill = {tuple(np.round(p.get_facecolor()[:3], 6)) for p in fig.axes[0].patches}
    assert head_fill <= {tuple(np.round(c, 6)) for c in palettes[0]}
    _, tuples = overlay_diagram(as_heads(heads2d))
    expected = {tuple(np.round(mix_colors(palettes, t), 6)) for t in tuples}
    overlay_fill = {tuple(np.round(p.get_facecolor()[:3], 6)) for p in fig.axes[-1].patches}
    assert overlay_fill and overlay_fill <= expected


def test_defect_colour_scale_is_fitted_to_the_data(tmp_path, monkeypatch):
    from tropattn.attention import resolve_box
    from tropattn.soft import pointwise_defects

    kept = _capture(monkeypatch, soft_mod)
    head = random_model(2, 1, 3, seed=2).layers[0].heads[0]
    plot_soft_weights(head, [0.05, 1.0], None, tmp_path / "s.png", resolution=40, title="m.json")
    fig = kept[0]
    lo, hi = resolve_box(None, [head])
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 40), np.linspace(lo[1], hi[1], 40))
    X = np.column_stack([gx.ravel(), gy.ravel()])
    defect_axes = [ax for ax in fig.axes if ax.images and "defect" in ax.get_title()]
    assert len(defect_axes) == 2
    for ax, tau in zip(defect_axes, (0.05, 1.0)):
        with np.errstate(divide="ignore"):
            d = pointwise_defects(head, X, tau).log_weight[0] / np.log(10)
        d = d[np.isfinite(d)]
        vmin, vmax = ax.images[0].get_clim()
        assert vmin == pytest.approx(max(d.min(), -300)) and vmax == pytest.approx(d.max())
    assert fig._suptitle.get_text().startswith("m.json:")
