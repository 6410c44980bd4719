"""The interactive 3-D page: one Mesh3d per exact cell, closed meshes that tile the box, and (slow) the page
opened in headless Chromium with the scene's mesh count read from the WebGL scene and no console errors.

Oracles: hand-derived cell counts; a mesh's volume from its float triangles (divergence theorem) and its
edges (each in exactly two triangles) -- no tropattn code is shared with the triangulation.
"""

import itertools
import json
import shutil
import subprocess

import pytest

from tropattn.attention import Head, Layer, Transformer, slice_model
from tropattn.errors import InvalidInputError
from tropattn.geometry import Polytope
from tropattn.plot import plot, plot_3d, plotly_figure
from tropattn.regions import overlay_regions
from tropattn.tropical import lifted_polytope, parse_polynomial

pytest.importorskip("plotly")


def volume(mesh):
    """|signed volume| of a closed triangle mesh, and whether every edge lies in exactly two triangles."""
    P = list(zip(mesh.x, mesh.y, mesh.z))
    edges = {}
    total = 0.0
    for a, b, c in zip(mesh.i, mesh.j, mesh.k):
        (x1, y1, z1), (x2, y2, z2), (x3, y3, z3) = P[a], P[b], P[c]
        total += (x1 * (y2 * z3 - y3 * z2) - y1 * (x2 * z3 - x3 * z2) + z1 * (x2 * y3 - x3 * y2)) / 6
        for e in ((a, b), (b, c), (c, a)):
            key = tuple(sorted(e))
            edges[key] = edges.get(key, 0) + 1
    return abs(total), all(n == 2 for n in edges.values())


def box_volume(fig):
    s = fig.layout.scene
    return ((s.xaxis.range[1] - s.xaxis.range[0]) * (s.yaxis.range[1] - s.yaxis.range[0])
            * (s.zaxis.range[1] - s.zaxis.range[0]))


def assert_tiles(fig, cells):
    meshes = [t for t in fig.data if t.type == "mesh3d"]
    assert len(meshes) == len(fig.data) == cells
    vols = [volume(m) for m in meshes]
    assert all(closed and v > 0 for v, closed in vols)
    assert sum(v for v, _ in vols) == pytest.approx(box_volume(fig), rel=1e-9)


ORTHANT_HEADS = [Head([[1, 0, 0], [-1, 0, 0]]), Head([[0, 1, 0], [0, -1, 0]]), Head([[0, 0, 1], [0, 0, -1]])]


@pytest.mark.parametrize("obj, cells", [
    (Head([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]), 4),                     # four cones
    (Head([[0, 0, 0], [4, 0, 0], [2, 0, 0], [0, 3, 0]], [0, 0, -20, 0]), 3),      # (2, 0, 0) hidden
    (parse_polynomial("max(0, x, y, z)"), 4),                                    # a tropical plane
    (parse_polynomial("max(0, x, y, z, x + y + z + 1)"), 5),
    (overlay_regions(ORTHANT_HEADS), 8),                                         # the regions of a 3-D layer
])
def test_one_closed_mesh_per_cell_tiling_the_box(obj, cells):
    assert_tiles(plotly_figure(obj), cells)


def test_far_cells_grow_the_box():
    assert_tiles(plotly_figure(Head([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, -30, -30])), 3)


def test_a_given_box_drops_the_cells_it_misses():
    head = Head([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [0, 0, -3])          # walls at x = 0 and x = 3
    assert_tiles(plotly_figure(head, box=(-2, 2)), 2)
    assert_tiles(plotly_figure(head, box=(-4, 4)), 3)


def test_lifted_polytope_is_one_closed_mesh():
    P = lifted_polytope(parse_polynomial("max(0, x, y, x + y + 1)"))   # the square, one corner raised: a tetrahedron
    fig = plotly_figure(P)
    (mesh,) = fig.data
    assert len(mesh.x) == 4 and len(mesh.i) == 4
    assert volume(mesh) == (pytest.approx(1 / 6), True)
    cube = Polytope.from_points(list(itertools.product((0, 2), repeat=3)))
    assert volume(plotly_figure(cube).data[0]) == (pytest.approx(8.0), True)


def test_refusals(tmp_path):
    with pytest.raises(InvalidInputError, match="R\\^2; the interactive 3-D picture needs d = 3"):
        plotly_figure(Head([[0, 0], [1, 0]]))
    with pytest.raises(InvalidInputError, match="name it FILE.html"):
        plot_3d(Head([[0, 0, 0], [1, 0, 0]]), tmp_path / "x.png")
    with pytest.raises(InvalidInputError, match="backend"):
        plot(Head([[0, 0, 0], [1, 0, 0]]), tmp_path / "x.html", backend="plotlyy")


PROBE = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message)));
const _ce = console.error; console.error = function(...a){ window.__errors.push(a.join(' ')); _ce.apply(console, a); };
window.addEventListener('load', () => setTimeout(() => {
  const gd = document.querySelector('.plotly-graph-div');
  const scene = gd && gd._fullLayout.scene._scene;
  const pre = document.createElement('pre'); pre.id = 'report';
  pre.textContent = JSON.stringify({traces: gd ? gd._fullData.length : -1,
                                    meshes: scene ? scene.glplot.objects.length : -1, errors: window.__errors});
  document.body.appendChild(pre);
}, 1500));
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_page_opens_in_headless_chromium(tmp_path):
    """The written page, with a probe script added to a copy, renders 8 WebGL meshes and logs no error."""
    page = plot(overlay_regions(ORTHANT_HEADS), tmp_path / "regions.html", backend="plotly")
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("<head>", "<head>" + PROBE, 1))
    run = subprocess.run(["chromium", "--headless", "--no-sandbox", "--use-angle=swiftshader",
                          "--enable-unsafe-swiftshader", "--virtual-time-budget=8000", "--dump-dom",
                          probe.as_uri()], capture_output=True, text=True, timeout=120)
    dom = run.stdout
    start = dom.index('<pre id="report">') + len('<pre id="report">')
    report = json.loads(dom[start:dom.index("</pre>", start)].replace("&quot;", '"'))
    assert report == {"traces": 8, "meshes": 8, "errors": []}


def test_a_3d_slice_of_a_deeper_model():
    heads = [Head([[1, 0, 0, 0], [-1, 0, 0, 0]]), Head([[0, 1, 0, 0], [0, -1, 0, 0]]),
             Head([[0, 0, 1, 0], [0, 0, -1, 0]]), Head([[0, 0, 0, 1], [0, 0, 0, -1]])]
    model = Transformer([Layer(heads, residual=False)])                   # the 16 orthants of R^4
    cut = slice_model(model, [0, 0, 0, 5], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])   # x_4 = 5 > 0
    assert_tiles(plotly_figure(cut, box=2), 8)                           # the 8 octants where x_4 > 0
    assert_tiles(plotly_figure(cut), 8)
