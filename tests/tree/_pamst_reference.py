"""Brute-force references for PAMST (test-only).

* :func:`naive_pamst` -- the sequential exponential mechanism exactly as in
  Pinot's thesis (Algorithm 1): from a uniform root, ``|V| - 1`` times draw a
  cut edge with probability proportional to ``exp(-c w(e))``.
* :func:`exact_pamst_distribution` -- the exact law of the released tree, by
  summing the probabilities of all (root, edge order) sequences, in log space.

Graphs are edge lists ``(u, v, w)`` on nodes ``0..n-1`` (connected).
"""

import math
from collections import defaultdict

import numpy as np


def _cut(tree_nodes, u, v):
    a = np.isin(u, tree_nodes)
    b = np.isin(v, tree_nodes)
    return np.flatnonzero(a != b)


def naive_pamst(u, v, w, n, c, rng):
    """One PAMST tree (frozenset of edge indices) by the sequential mechanism."""
    u, v, w = np.asarray(u), np.asarray(v), np.asarray(w, dtype=float)
    nodes = [int(rng.integers(n))]
    chosen = []
    for _ in range(n - 1):
        cut = _cut(nodes, u, v)
        logits = -c * w[cut]
        p = np.exp(logits - logits.max())
        e = int(cut[rng.choice(cut.size, p=p / p.sum())])
        chosen.append(e)
        nodes.append(int(v[e]) if u[e] in nodes else int(u[e]))
    return frozenset(chosen)


def _logsumexp(values):
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(math.fsum(math.exp(x - m) for x in values))


def exact_pamst_distribution(u, v, w, n, c):
    """Exact log-probability of every tree PAMST can output.

    Returns
    -------
    dict
        ``frozenset(edge indices) -> log P(tree)``.
    """
    u, v, w = np.asarray(u), np.asarray(v), np.asarray(w, dtype=float)
    out = defaultdict(list)
    for root in range(n):
        # state: (frozenset of nodes, frozenset of edges) -> log prob
        states = {(frozenset([root]), frozenset()): -math.log(n)}
        for _ in range(n - 1):
            nxt = defaultdict(list)
            for (nodes, edges), lp in states.items():
                cut = _cut(list(nodes), u, v)
                logits = [-c * w[e] for e in cut]
                lz = _logsumexp(logits)
                for e, lg in zip(cut, logits):
                    new = int(v[e]) if int(u[e]) in nodes else int(u[e])
                    nxt[(nodes | {new}, edges | {int(e)})].append(lp + lg - lz)
            states = {k: _logsumexp(vals) for k, vals in nxt.items()}
        for (_, edges), lp in states.items():
            out[edges].append(lp)
    return {k: _logsumexp(vals) for k, vals in out.items()}


def chi_square_statistic(counts, probs, min_expected=5.0):
    """Pearson statistic after merging the cells with small expectation.

    Cells whose expected count is below ``min_expected`` are pooled into one
    cell (kept if its expectation reaches ``min_expected``). Returns the
    statistic and the degrees of freedom.
    """
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray(probs, dtype=float)
    total = counts.sum()
    expected = probs * total
    big = expected >= min_expected
    obs = list(counts[big])
    exp = list(expected[big])
    if (~big).any():
        pooled_obs, pooled_exp = counts[~big].sum(), expected[~big].sum()
        if pooled_exp >= min_expected:
            obs.append(pooled_obs)
            exp.append(pooled_exp)
        else:  # too small to test: fold it into the largest cell
            k = int(np.argmax(exp))
            obs[k] += pooled_obs
            exp[k] += pooled_exp
    obs, exp = np.array(obs), np.array(exp)
    return float(np.sum((obs - exp) ** 2 / exp)), obs.size - 1
