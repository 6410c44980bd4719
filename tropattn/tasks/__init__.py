"""Structured tasks as constructive models (docs/THEORY.md §9), and float simulations of their training.

* **Dyck words** -- :func:`generate`, :func:`depths`, :func:`matches`, :func:`top_of_stack`,
  :func:`closing_positions`, :func:`format_sequence`;
* **the exact Dyck transformer** -- :class:`DyckModel` (two layers; layer 2 selects the top of the
  stack as the argmax of a max-plus score, a power diagram in query space), :func:`hard_accuracy`
  (with the knockout and the depth ablation), :func:`soft_sweep` (:class:`SoftRow`: softmax at
  inverse temperature ``beta`` against the §5 bounds of :mod:`tropattn.soft`);
* **staged sparse attention** (the surrogate gradient flow of a high-order Markov task) --
  :func:`target`, :func:`plateau_levels`, :func:`loss`, :func:`vector_field`, :func:`initial_state`,
  :func:`simulate` (:class:`Trajectory`), :func:`detect_plateaus` (:class:`Plateau`),
  :func:`stage_times`, :func:`stage_table` (:class:`StageRow`), :func:`head_distances`,
  :func:`attention_entropy`, :func:`harden`, :func:`hardening_gap`, :func:`hardening_bound`,
  :func:`sharpen`; the teacher chain :func:`markov_teacher` (:class:`Teacher`);
* **trained models** (optional, torch) -- :func:`train_dyck` (:class:`TrainedDyck`, trained by
  steps, seeded, deterministic), :func:`measure_trained` (top-of-stack attention mass and its knockout),
  :func:`run_model` with an :class:`Edit` (ablate, mask, patch), :func:`probe` (linear probes of depth
  and distance), :func:`intervene` (every intervention of :data:`INTERVENTIONS`) beside
  :func:`construction_table` (the same on the exact model); students of the Markov teacher --
  :func:`train_student` (:class:`StudentRun`: the paper's minimal model or a 1-layer multi-head
  attention, trained on :func:`teacher_windows`), :func:`restricted_levels`, :func:`stage_steps`,
  :func:`closest_passes`.

Every softmax here is :func:`tropattn.soft.softmax`.

>>> hard_accuracy(DyckModel(2, 2, 6), generate(3, 6, 2, 2))["all"]
1.0
>>> depths((1, 2, -2, -1))                       # open type 1, open type 2, close 2, close 1
(1, 2, 1, 0)
"""

from .._face import face
from ._dyck import (DyckModel, SoftRow, closing_positions, depths, format_sequence, generate, hard_accuracy, matches,
                    soft_sweep, top_of_stack)
from ._markov import (Plateau, StageRow, Teacher, Trajectory, attention_entropy, detect_plateaus, harden,
                      hardening_bound, hardening_gap, head_distances, initial_state, loss, markov_teacher,
                      plateau_levels, sharpen, simulate, stage_table, stage_times, target, vector_field)
from ._dyck_lab import INTERVENTIONS, construction_table, intervene, probe
from ._markov_student import (STUDENTS, StudentRun, closest_passes, restricted_levels, stage_steps,
                              teacher_windows, train_student)
from ._trained import Edit, TrainedDyck, measure_trained, run_model, train_dyck

__all__ = ["generate", "depths", "matches", "top_of_stack", "closing_positions", "format_sequence",
           "DyckModel", "hard_accuracy", "SoftRow", "soft_sweep",
           "target", "plateau_levels", "loss", "vector_field", "initial_state", "Trajectory", "simulate",
           "Plateau", "detect_plateaus", "stage_times", "StageRow", "stage_table", "head_distances",
           "attention_entropy", "harden", "hardening_gap", "hardening_bound", "sharpen", "Teacher",
           "markov_teacher",
           "TrainedDyck", "train_dyck", "measure_trained", "Edit", "run_model", "probe", "intervene",
           "construction_table", "INTERVENTIONS", "StudentRun", "teacher_windows", "restricted_levels",
           "train_student", "stage_steps", "closest_passes", "STUDENTS"]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "check_shape": "internal; generate, DyckModel and train_dyck check (length, k, m) and say what is wrong",
})
