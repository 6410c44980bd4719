"""The Dyck paper's experiments on a trained model: linear probes and interventions (THEORY §9).

Optional: needs torch.  On a model from :func:`tropattn.tasks.train_dyck`:

* :func:`probe` -- ridge-regression probes of the **depth** ``D_q`` and the **distance** ``t - top[t]``
  (``t = q + 1``) from the residual stream after each layer, at the positions ``q`` with ``D_q > 0``;
  fitted on training words, scored (R² and Pearson r) on held-out words, on an out-of-distribution
  split (fitted on positions ``q < length/2``, scored on ``q >= length/2``) and against a control fitted
  on shuffled labels;
* :func:`intervene` -- accuracy on every close (and the long-distance ones, distance >= 3), one close
  per forward pass, under: mean- and resample-ablation of the probe subspace (depth and distance
  directions after layer 1, the input of layer 2) and of random subspaces of the same rank (control);
  the top-of-stack attention knockout in each layer and in both, and a random-edge knockout (control);
  activation patching clean -> corrupted (the top-of-stack open's type changed, so the answer
  changes) of the residual after each layer at the query and at the top of the stack, and restoring
  only the query's top-of-stack edge (its clean key and value) in each layer and in both;
* :func:`construction_table` -- the same interventions on the exact :class:`DyckModel`, for one table.

Everything is a float simulation except the construction's column, which is exact.
"""

from __future__ import annotations

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_int
from ..attention import Head
from ..errors import InvalidInputError
from ._dyck import DyckModel, depths, generate, hard_accuracy, top_of_stack
from ._trained import Edit, close_rows, run_model

__all__ = ["probe", "intervene", "construction_table", "INTERVENTIONS"]

torch = lazy_import("torch", extra="torch")

#: The interventions, in table order: (key, what it does, control of).
INTERVENTIONS = (
    ("none", "no intervention", None),
    ("probe_mean", "mean-ablate the probe subspace (depth, distance) after layer 1", None),
    ("random_mean", "mean-ablate a random subspace of the same rank after layer 1", "probe_mean"),
    ("probe_resample", "resample-ablate the probe subspace after layer 1", None),
    ("random_resample", "resample-ablate a random subspace of the same rank", "probe_resample"),
    ("knockout_L1", "mask the top-of-stack edge in layer 1", None),
    ("knockout_L2", "mask the top-of-stack edge in layer 2", None),
    ("knockout_both", "mask the top-of-stack edge in both layers", None),
    ("random_edge_both", "mask a random other edge in both layers", "knockout_both"),
    ("corrupted", "corrupted word (top-of-stack type changed), no patch", None),
    ("patch_query_L0", "corrupted, residual at the query restored after the embeddings", None),
    ("patch_query_L1", "corrupted, residual at the query restored after layer 1", None),
    ("patch_top_L0", "corrupted, residual at the top of the stack restored after the embeddings", None),
    ("patch_top_L1", "corrupted, residual at the top of the stack restored after layer 1", None),
    ("restore_edge_L1", "corrupted, only the top-of-stack edge's key and value restored in layer 1", None),
    ("restore_edge_L2", "corrupted, only the top-of-stack edge's key and value restored in layer 2", None),
    ("restore_edge_both", "corrupted, only the top-of-stack edge restored in both layers", None),
)


def _ridge(X, y, alpha):
    """Ridge regression with an intercept on standardised features: ``(weights in raw units, bias)``."""
    mu, sd = X.mean(0), X.std(0) + 1e-8
    Z = (X - mu) / sd
    w = np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))
    return w / sd, y.mean() - (mu / sd) @ w


def _scores(y, pred):
    ss = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(((y - pred) ** 2).sum()) / ss if ss > 0 else float("nan")
    r = float(np.corrcoef(y, pred)[0, 1]) if y.std() > 0 and pred.std() > 0 else float("nan")
    return {"r2": r2, "r": r}


def _probe_data(trained, words):
    """Per layer, the residual at the positions ``q < length - 1`` with ``D_q > 0``; depth, distance, ``q``."""
    _, trace = run_model(trained, words)
    b, q, depth, dist = [], [], [], []
    for i, w in enumerate(words):
        D, top = depths(w), top_of_stack(w)
        for j in range(len(w) - 1):
            if D[j] > 0:
                b.append(i), q.append(j), depth.append(D[j]), dist.append(j + 1 - top[j + 1])
    b, q = np.array(b), np.array(q)
    feats = [r[b, q].numpy() for r in trace["resid"]]
    return feats, {"depth": np.array(depth, dtype=float), "distance": np.array(dist, dtype=float)}, q


def probe(trained, n_train=400, n_test=200, seed=1, alpha=1.0) -> dict:
    """Linear probes of depth and distance after every layer: held-out, OOD-split and shuffled-control scores.

    Parameters
    ----------
    trained : TrainedDyck
        A model from :func:`tropattn.tasks.train_dyck`.
    n_train, n_test : int, optional
        Probe-training and held-out words (defaults 400, 200; seeds ``seed`` and ``seed + 1``).
    seed : int, optional
        Seed of the probe words and of the label shuffle (default 1).
    alpha : float, optional
        Ridge penalty on standardised features (default 1.0).

    Returns
    -------
    dict
        ``layers[l][target]`` for ``l = 0`` (embeddings) .. ``layers`` and target ``depth``/``distance``:
        ``heldout``, ``ood`` and ``shuffled`` score dicts (``r2``, ``r``); ``directions[target]`` the
        raw-unit probe weights after layer 1 (for :func:`intervene`); ``rows`` the probed positions.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> from tropattn.tasks import train_dyck
    >>> p = probe(train_dyck(k=2, m=2, length=8, steps=2, batch=4, d_model=8), n_train=20, n_test=10)
    >>> len(p["layers"]), sorted(p["layers"][0]["depth"])
    (3, ['heldout', 'ood', 'shuffled'])
    """
    n_train = positive_int(n_train, "n_train", meaning="the probe-training words")
    n_test = positive_int(n_test, "n_test", meaning="the held-out words")
    L = trained.length
    Xtr, ytr, qtr = _probe_data(trained, generate(n_train, L, trained.k, trained.m, seed=seed))
    Xte, yte, qte = _probe_data(trained, generate(n_test, L, trained.k, trained.m, seed=seed + 1))
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(qtr))
    early, late = qtr < L // 2, qte >= L // 2
    layers, directions = [], {}
    for li, (A, B) in enumerate(zip(Xtr, Xte)):
        out = {}
        for name in ("depth", "distance"):
            w, c = _ridge(A, ytr[name], alpha)
            ws, cs = _ridge(A, ytr[name][perm], alpha)
            wo, co = _ridge(A[early], ytr[name][early], alpha)
            out[name] = {"heldout": _scores(yte[name], B @ w + c), "shuffled": _scores(yte[name], B @ ws + cs),
                         "ood": _scores(yte[name][late], B[late] @ wo + co)}
            if li == 1:
                directions[name] = w
        layers.append(out)
    return {"layers": layers, "directions": directions, "rows": int(len(qtr)), "heldout_rows": int(len(qte))}


def _orthonormal(vectors):
    Q, _ = np.linalg.qr(np.array(vectors, dtype=float).T)
    return torch.from_numpy(Q.astype(np.float32))


def _ablate(U, mean=None, donor=None):
    """Replace the component of the residual in span(U) by the mean's (or the donor run's)."""
    P = U @ U.T

    def f(x):
        ref = mean if donor is None else donor
        return x - (x - ref) @ P
    return f


def _expand(words, rows):
    """One batch row per close (the close's word)."""
    return [words[b] for b in rows[:, 0]]


def _corrupt(words, rows, k, rng):
    """Per close: its word with the top-of-stack open and its partner set to another type."""
    out, shift = [], rng.integers(1, max(k, 2), size=len(rows)) if k > 1 else np.zeros(len(rows), dtype=int)
    for (b, q, _, top, _), s in zip(rows, shift):
        w = list(words[b])
        c = (w[top] - 1 + int(s)) % k
        w[top], w[q + 1] = c + 1, -(c + 1)
        out.append(tuple(w))
    return out


def _edges(n_rows, length, q, cols):
    """The mask of the edges ``q[i] -> cols[i]`` (none where ``cols[i] < 0``)."""
    e = torch.zeros(n_rows, length, length, dtype=torch.bool)
    keep = cols >= 0
    e[torch.arange(n_rows)[torch.from_numpy(keep)], torch.from_numpy(q[keep]), torch.from_numpy(cols[keep])] = True
    return e


def _random_keys(rows, rng):
    """Per close, a random key ``j <= q`` other than the top of the stack (the control edge); -1 if none."""
    out = []
    for _, q, _, top, _ in rows:
        j = int(rng.integers(q)) if q > 0 else -1            # 0..q-1, then skip the top
        out.append(j + 1 if j >= top else j)
    return np.array(out, dtype=np.int64)


def intervene(trained, n_words=200, seed=7, probes=None, random_draws=5) -> dict:
    """Accuracy under every intervention of :data:`INTERVENTIONS` (one close per forward pass).

    Parameters
    ----------
    trained : TrainedDyck
        A model from :func:`tropattn.tasks.train_dyck` (two or more layers).
    n_words : int, optional
        Test words (default 200, seed ``seed``).
    seed : int, optional
        Seed of the words, the corruptions, the random edges and subspaces (default 7).
    probes : dict, optional
        A :func:`probe` result (default: fitted here with its defaults).
    random_draws : int, optional
        Random subspaces averaged for the controls (default 5).

    Returns
    -------
    dict
        ``accuracy[key] = {"all", "long"}`` per intervention key (for the patches: the fraction
        predicting the *clean* answer), ``closes``, ``long_closes``, ``chance`` and ``rank``.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> from tropattn.tasks import train_dyck
    >>> r = intervene(train_dyck(k=2, m=2, length=8, steps=2, batch=4, d_model=8), n_words=8, random_draws=1)
    >>> list(r["accuracy"]) == [key for key, _, _ in INTERVENTIONS]
    True
    """
    n_words = positive_int(n_words, "n_words", meaning="the test words")
    draws = positive_int(random_draws, "random_draws", meaning="the random subspaces")
    probes = probes or probe(trained)
    rng = np.random.default_rng(seed)
    words = generate(n_words, trained.length, trained.k, trained.m, seed=seed)
    rows = close_rows(words)
    _, q, y, top, dist = rows.T
    long, n, L = dist >= 3, len(rows), trained.length
    batch, bad = _expand(words, rows), _corrupt(words, rows, trained.k, rng)
    ar = torch.arange(n)
    qt = torch.from_numpy(q)

    def acc(edit=None, ws=batch):
        logits, trace = run_model(trained, ws, edit)
        ok = logits[ar, qt].argmax(-1).numpy() == y
        return {"all": float(ok.mean()), "long": float(ok[long].mean()) if long.any() else float("nan")}, trace

    res = {}
    res["none"], clean = acc()
    basis = _orthonormal(list(probes["directions"].values()))
    rank = basis.shape[1]
    mean = clean["resid"][1].mean((0, 1))
    donor = clean["resid"][1][torch.from_numpy(rng.permutation(n))]
    res["probe_mean"] = acc(Edit(resid={1: _ablate(basis, mean=mean)}))[0]
    res["probe_resample"] = acc(Edit(resid={1: _ablate(basis, donor=donor)}))[0]
    for key, kw in (("random_mean", {"mean": mean}), ("random_resample", {"donor": donor})):
        runs = [acc(Edit(resid={1: _ablate(_orthonormal(rng.standard_normal((rank, trained.d_model))), **kw)}))[0]
                for _ in range(draws)]
        res[key] = {part: float(np.mean([r[part] for r in runs])) for part in ("all", "long")}
    ko, rnd = _edges(n, L, q, top), _edges(n, L, q, _random_keys(rows, rng))
    res["knockout_L1"] = acc(Edit(mask={1: ko}))[0]
    res["knockout_L2"] = acc(Edit(mask={2: ko}))[0]
    res["knockout_both"] = acc(Edit(mask={1: ko, 2: ko}))[0]
    res["random_edge_both"] = acc(Edit(mask={1: rnd, 2: rnd}))[0]
    res["corrupted"] = acc(ws=bad)[0]
    for where, pos in (("query", q), ("top", top)):
        for layer in (0, 1):
            src = clean["resid"][layer][ar, torch.from_numpy(pos)]

            def put(x, src=src, pos=pos):
                x = x.clone()
                x[ar, torch.from_numpy(pos)] = src
                return x
            res[f"patch_{where}_L{layer}"] = acc(Edit(resid={layer: put}), ws=bad)[0]
    tt = torch.from_numpy(top)
    restore = {layer: (qt, tt, clean["keys"][layer - 1][ar, :, tt], clean["values"][layer - 1][ar, :, tt])
               for layer in (1, 2)}
    res["restore_edge_L1"] = acc(Edit(restore={1: restore[1]}), ws=bad)[0]
    res["restore_edge_L2"] = acc(Edit(restore={2: restore[2]}), ws=bad)[0]
    res["restore_edge_both"] = acc(Edit(restore=restore), ws=bad)[0]
    return {"accuracy": {key: res[key] for key, _, _ in INTERVENTIONS}, "closes": int(n),
            "long_closes": int(long.sum()), "chance": 1 / trained.k, "rank": int(rank)}


def _construction_predict(model, w, t, knock=((), ())):
    """The exact model's answer at ``t`` with keys ``knock[0]`` removed from layer 1 and ``knock[1]`` from
    layer 2 (``None`` when a layer is left without keys: it reads nothing)."""
    D = depths(w)
    keep = [j for j in range(t) if j not in knock[0]] if knock else list(range(t))
    if not keep:
        return None
    x1 = Head([(j,) for j in keep], values=[(D[j], 1) for j in keep]).hard(DyckModel.query)   # layer 1
    try:
        head, opens = model.layer2_head(w, t, knockout=knock[1] if knock else ())
    except InvalidInputError:                                                                   # no open left
        return None
    return w[opens[head.label(x1)]] - 1


def construction_table(k, m, length, n_words=60, seed=7) -> dict:
    """The interventions of :data:`INTERVENTIONS` on the exact :class:`DyckModel` (hard attention, rationals).

    The construction's layer 1 attends to the latest token ``t - 1`` (it copies the depth), its
    layer 2 to the top of the stack (it copies the type).  So: the probe-subspace ablation is its
    depth ablation (:func:`hard_accuracy` with ``ablate_depth``); the random-subspace controls are
    ``None`` (its residual ``(depth, recency, type)`` has no spare direction: every direction is read);
    a knockout removes the key from the layer's exact head (layer 1: the recency head, which then copies
    the depth of the latest key left; layer 2: the top-of-stack head); the random edge is a random key
    ``j < t`` other than the top, removed in both layers.  Patches: the corrupted word changes only the top open's type, which
    the construction reads only through layer 2's value at that key, so restoring the query's
    residual (its depth and recency are the same in both words) restores the answer only when the query
    is itself the top (distance 1), restoring layer 1's edge (it carries a depth) restores nothing, and restoring
    the top token or its edge in layer 2 restores the answer; these are evaluated by running the model
    on the word that the restored pieces spell.

    Parameters
    ----------
    k, m, length : int
        The shape.
    n_words : int, optional
        Test words (default 60; exact arithmetic, one model per close).
    seed : int, optional
        Seed of the words and the random edges (default 7).

    Returns
    -------
    dict
        ``accuracy[key] = {"all", "long"}`` (``None`` where the construction has no counterpart).

    Examples
    --------
    >>> t = construction_table(2, 2, 8, n_words=20)["accuracy"]
    >>> t["none"]["all"], t["knockout_L1"]["long"], t["restore_edge_L2"]["long"], t["patch_query_L1"]["long"]
    (1.0, 1.0, 1.0, 0.0)
    """
    model = DyckModel(k, m, length)
    words = generate(positive_int(n_words, "n_words", meaning="the test words"), length, k, m, seed=seed)
    rows = close_rows(words)
    rng = np.random.default_rng(seed)
    bad = _corrupt(words, rows, k, rng)
    rand = _random_keys(rows, rng)
    long = rows[:, 4] >= 3

    def frac(ok):
        ok = np.asarray(ok, dtype=bool)
        return {"all": float(ok.mean()), "long": float(ok[long].mean()) if long.any() else float("nan")}

    def run(word_of, knock=lambda r, i: ()):
        return frac([_construction_predict(model, word_of(r, i), int(r[1]) + 1, knock(r, i)) == r[2]
                     for i, r in enumerate(rows)])

    clean, corrupt = (lambda r, i: words[r[0]]), (lambda r, i: bad[i])
    res = {"none": run(clean)}
    res["probe_mean"] = res["probe_resample"] = {key: hard_accuracy(model, words, ablate_depth=True)[key]
                                                 for key in ("all", "long")}
    res["random_mean"] = res["random_resample"] = None
    res["knockout_L1"] = run(clean, knock=lambda r, i: ((int(r[3]),), ()))
    res["knockout_L2"] = run(clean, knock=lambda r, i: ((), (int(r[3]),)))
    res["knockout_both"] = run(clean, knock=lambda r, i: ((int(r[3]),),) * 2)
    res["random_edge_both"] = run(clean, knock=lambda r, i: ((int(rand[i]),),) * 2)
    res["corrupted"] = run(corrupt)
    at_top = (lambda r, i: words[r[0]] if r[1] == r[3] else bad[i])       # the query's residual restored
    res["patch_query_L0"] = res["patch_query_L1"] = run(at_top)
    res["restore_edge_L1"] = res["corrupted"]                                # layer 1 reads no type
    for key in ("patch_top_L0", "patch_top_L1", "restore_edge_L2", "restore_edge_both"):   # the top read clean
        res[key] = run(clean)
    return {"accuracy": {key: res[key] for key, _, _ in INTERVENTIONS}, "closes": int(len(rows)),
            "long_closes": int(long.sum()), "chance": 1 / k}
