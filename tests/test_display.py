"""Rich display in a notebook: the LaTeX, SVG and HTML strings, read as a browser or TeX would.

The oracles share no code with what they check: counts come from hand-derived examples, the SVG is
parsed with xml.etree and its polygons' areas summed with the shoelace formula (the cells tile the
box), LaTeX is checked by a small balance reader, HTML by the standard library's parser.
"""

import html.parser
import re
from pathlib import Path
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from tropattn.attention import Head, SymbolicHead
from tropattn.geometry import PowerDiagram, Polytope
from tropattn.region_bounds import bounds
from tropattn.regions import enumerate_regions, overlay_regions
from tropattn.attention import sawtooth_model
from tropattn.table import COLUMNS, region_rows
from tropattn.tropical import TropicalRationalFunction, TropicalRationalMap, parse_polynomial

SVG = "{http://www.w3.org/2000/svg}"


def svg_cells(text):
    """The parsed SVG's filled cell polygons as lists of (x, y) pixel floats, and its frame rectangle."""
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg"
    polys = [[tuple(map(float, p.split(","))) for p in e.get("points").split()]
             for e in root.iter(SVG + "polygon") if e.get("class") == "cell"]
    frame = next(root.iter(SVG + "rect"))
    return polys, float(frame.get("width")) * float(frame.get("height"))


def area(poly):
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2


def assert_tiles(text, cells):
    """``cells`` filled polygons, each of positive area, covering the frame once (up to pixel rounding)."""
    polys, frame = svg_cells(text)
    assert len(polys) == cells
    assert all(area(p) > 0 for p in polys)
    assert sum(map(area, polys)) == pytest.approx(frame, rel=1e-3)


@pytest.mark.parametrize("sites, weights, cells", [
    ([[0, 0], [2, 0], [0, 2]], [0, 0, 0], 3),                       # Voronoi of a triangle
    ([[0, 0], [4, 0], [2, 0], [2, 3]], [0, 0, -20, 0], 3),          # (2, 0) is light: hidden between two others
    ([[i, j] for i in range(3) for j in range(3)], [0] * 9, 9),     # a 3 x 3 grid
])
def test_power_diagram_svg_draws_every_cell_once(sites, weights, cells):
    diagram = PowerDiagram(sites, weights)
    text = diagram._repr_svg_()
    assert_tiles(text, cells)
    assert text.count('class="site"') == len(sites)                # every site is inside the box shown


def test_far_cells_are_found_by_growing_the_box():
    diagram = PowerDiagram.from_max_affine([[0, 0], [1, 0], [0, 1]], [0, -40, -40])   # walls near (40, 40)
    assert_tiles(diagram._repr_svg_(), 3)


def test_svg_only_in_the_plane():
    assert PowerDiagram.voronoi([[0], [1]])._repr_svg_() is None
    assert parse_polynomial("max(0, x)")._repr_svg_() is None
    assert Polytope.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])._repr_svg_() is None


@pytest.mark.parametrize("text, regions", [
    ("max(0, x, y)", 3),                        # a tropical line
    ("max(0, x, y, x + y + 1)", 4),             # the lifted square is split along its diagonal
    ("max(0, 2*x, x - 1, y)", 3),               # x - 1 is never the max alone
])
def test_tropical_curve_svg_has_one_polygon_per_linear_region(text, regions):
    assert_tiles(parse_polynomial(text)._repr_svg_(), regions)


def test_polygon_svg():
    square = Polytope.from_points([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]])
    text = square._repr_svg_()
    (poly,), _ = svg_cells(text)
    assert len(poly) == 4 and text.count('class="site"') == 4
    assert area(poly) == pytest.approx((2 * 320 / 3) ** 2, rel=1e-3)   # side 2 in a window 3 wide, 320 px


def test_overlay_svg_draws_every_region():
    heads = [Head([[1, 0], [-1, 0]]), Head([[0, 1], [0, -1]]), Head([[1, -1], [-1, 1]])]   # x = 0, y = 0, x = y
    result = overlay_regions(heads)
    assert_tiles(result._repr_svg_(), 6)
    assert "<svg" in result._repr_html_()


def balanced(tex):
    """Braces, brackets, parentheses, \\left/\\right and \\begin/\\end pair up; the text is $...$."""
    assert tex.startswith("$") and tex.endswith("$") and tex.count("$") == 2
    body = tex[1:-1].replace(r"\{", "").replace(r"\}", "")
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for token in re.findall(r"\\begin\{\w+\}|\\end\{\w+\}|[(){}\[\]]", body):
        if token.startswith("\\begin"):
            stack.append(token[6:])
        elif token.startswith("\\end"):
            assert stack and stack.pop() == token[4:], tex
        elif token in "([{":
            stack.append(token)
        else:
            assert stack and stack.pop() == pairs[token], tex
    assert not stack, tex
    assert body.count(r"\left") == body.count(r"\right")
    return body


def test_latex_of_polynomials_maps_and_heads():
    f = parse_polynomial("max(0, x + 1, 2*y - 1/2)")
    assert balanced(f._repr_latex_()) == r"\max(0,\; x + 1,\; 2y - \tfrac{1}{2})"
    g = TropicalRationalFunction(f, parse_polynomial("max(0, x - 1)", variables=("x", "y")))
    assert balanced(g._repr_latex_()).count(r"\max") == 2
    m = TropicalRationalMap([f, parse_polynomial("x - 1", variables=("x", "y"))])
    body = balanced(m._repr_latex_())
    assert body.startswith(r"\begin{pmatrix}") and r"x - 1" in body
    head = SymbolicHead([[0], [2], ["t"]], [0, 0, "t"])
    body = balanced(head._repr_latex_())
    assert body.startswith("G(x) = ") and "t" in body


class Cells(html.parser.HTMLParser):
    """The text of every table row's cells."""

    def __init__(self, text):
        super().__init__()
        self.rows, self.cell = [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_bounds_html_rows_are_the_fields():
    b = bounds(2, 2, 3)
    rows = Cells(b._repr_html_()).rows
    assert rows[0] == ["field", "value"]
    assert {k: v for k, v in rows[1:]} == {k: str(v) for k, v in b.as_dict().items()}


def test_region_set_html_lists_the_regions():
    result = enumerate_regions(sawtooth_model(1, 3, 2))
    rows = Cells(result._repr_html_()).rows
    fields = dict(r for r in rows[1:6])
    assert fields["activation regions"] == "9" and fields["complete"] == "True"
    table = rows[7:]
    assert len(table) == 9
    for row, region, lin in zip(table, result.activation_regions, result.linear_ids):
        assert row[2] == ", ".join(str(Fraction(v)) for v in region.interior_point)
        assert int(row[4]) == lin


def test_region_set_html_lists_at_most_ten():
    result = enumerate_regions(sawtooth_model(1, 4, 2))           # 16 regions
    text = result._repr_html_()
    assert len(Cells(text).rows) == 6 + 11 and "the first 10 of 16 regions" in text


def test_counts_only_html_has_no_region_table():
    result = enumerate_regions(sawtooth_model(1, 3, 2), keep="counts")
    assert len(Cells(result._repr_html_()).rows) == 6 and result._repr_svg_() is None


def test_the_display_page_runs(tmp_path, monkeypatch):
    """Every ```python block of docs/display.md, in order, in one namespace."""
    pytest.importorskip("plotly")
    pytest.importorskip("pyarrow")
    monkeypatch.setattr("tempfile.mkdtemp", lambda *a, **k: str(tmp_path))
    page = (Path(__file__).resolve().parents[1] / "docs" / "display.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M)
    assert len(blocks) == 2
    namespace = {"__name__": "display_page"}
    for block in blocks:
        exec(compile(block, "docs/display.md", "exec"), namespace)
    assert (tmp_path / "head.html").is_file() and (tmp_path / "regions.parquet").is_file()


def test_region_table_html_has_one_row_per_model_with_its_counts():
    rows = region_rows(shapes=[(1, 1, 3, 2), (2, 2, 2, 1)], seeds=1)
    cells = Cells(rows._repr_html_()).rows
    assert cells[0] == COLUMNS
    assert len(cells) == 1 + len(rows) >= 3
    col = COLUMNS.index("activation_regions")
    assert [int(r[col]) for r in cells[1:]] == [r["activation_regions"] for r in rows]
    assert [r[COLUMNS.index("model")] for r in cells[1:]] == [r["model"] for r in rows]
