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
    from tropattn.attention.soft import as_heads, hard_labels
    from tropattn.plot.power import _overlay_diagram

    hs = as_heads(heads2d)
    overlay, tuples = _overlay_diagram(hs)
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
