"""``tropattn demo``: the main job on built-in examples."""

from __future__ import annotations

from ..attention import random_model, sawtooth_model
from ..region_bounds import bounds
from ..regions import count_regions
from ..tropical import parse_polynomial
from ._common import add_command, registers
from ._polynomials import DEMO_POLYNOMIAL, polynomial_report

__all__ = ["register"]


def cmd_demo(args):

    _, lines = polynomial_report(parse_polynomial(DEMO_POLYNOMIAL))
    print("== 1. A tropical polynomial: the plane conic 3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y² ==")
    print("\n".join(lines))
    print()
    print("== 2. A small hard-attention transformer: exact regions beside the bounds ==")
    d, n, L = 2, 3, 2
    model = sawtooth_model(d, n, L)
    c = count_regions(model, "primal")
    b = bounds(d, d, n, L)
    print(f"sawtooth model (docs/THEORY.md §4): d = {d}, H = {d} heads/layer, N = {n} keys, L = {L} layers")
    print(f"  exact activation regions: {c.n_activation}   linear regions: {c.n_linear}   ({round(c.seconds, 4)} s)")
    print(f"  lower bound N^(dL) = {b.lower}   upper bound (per-layer bound)^L = {b.deep}"
          f"   paper's (N^H)^L = {b.deep_product}")

    model = random_model(1, 3, 3, seed=0)
    c = count_regions(model, "primal")
    b = bounds(1, 3, 3, 1)
    print(f"random 1-layer model, d = 1, H = 3 heads > d, N = 3: exact {c.n_activation} regions;"
          f" N^H = {b.product} is not attainable, H(N-1)+1 = {b.line}")


@registers("``demo``", "demo")
def register(sub):
    add_command(sub, "demo", cmd_demo, "run the main job on a built-in example", json_output=False,
                examples=("tropattn demo",))
