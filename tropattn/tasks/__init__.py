"""Structured tasks as constructive models (docs/THEORY.md §9).

* :mod:`tropattn.tasks._dyck` -- Dyck-(k, m) words, their depth / match / top-of-stack
  oracles, and an exact two-layer hard-attention transformer whose layer 2 selects the
  top of the stack as the argmax of a max-plus score (a power diagram in query space);
* :mod:`tropattn.tasks._markov` -- the surrogate gradient flow of staged sparse attention
  (heads with values ``V_k`` and attention ``s_k`` on the simplex) and the high-order Markov
  teacher chain it models;
* :mod:`tropattn.tasks._trained` -- optional (torch): a tiny trained two-layer one-head
  transformer on Dyck words, its top-of-stack attention mass and the same knockout.

>>> from tropattn.tasks import DyckModel, generate, hard_accuracy
>>> hard_accuracy(DyckModel(2, 2, 6), generate(3, 6, 2, 2))["all"]
1.0
"""

from ._dyck import (DyckModel, SoftRow, check_shape, closing_positions, depths, format_sequence, generate,
                   hard_accuracy, matches, soft_sweep, top_of_stack)
from ._markov import (Plateau, StageRow, Teacher, Trajectory, attention_entropy, detect_plateaus, harden,
                     hardening_bound, hardening_gap, head_distances, initial_state, loss, markov_teacher,
                     plateau_levels, sharpen, simulate, stage_table, stage_times, target, vector_field)
from ._trained import TrainedDyck, measure_trained, train_dyck

__all__ = ["DyckModel", "SoftRow", "check_shape", "closing_positions", "depths", "format_sequence", "generate",
           "hard_accuracy", "matches", "soft_sweep", "top_of_stack",
           "Plateau", "StageRow", "Teacher", "Trajectory", "attention_entropy", "detect_plateaus", "harden",
           "hardening_bound", "hardening_gap", "head_distances", "initial_state", "loss", "markov_teacher",
           "plateau_levels", "sharpen", "simulate", "stage_table", "stage_times", "target", "vector_field",
           "TrainedDyck", "measure_trained", "train_dyck"]
