"""Brute-force references for the private spanning-tree mechanisms (tests only).

Everything here enumerates: all spanning trees of a tiny graph, and for the
sequential mechanisms all orders in which a tree's edges can be chosen. The
laws are computed exactly (in log space) from the definitions, independently
of the library's samplers.
"""

import itertools
import math

import numpy as np

# The enumerations call a pure-Python logsumexp hundreds of thousands of times
# on short lists, where scipy's costs tens of microseconds a call.
from _pamst_reference import _logsumexp
from scipy.special import logsumexp
from scipy.stats import binom, chi2


def spanning_trees(u, v, n):
    """All spanning forests of maximal size (one tree per component).

    Returns a list of sorted tuples of edge indices.
    """
    m = len(u)
    # size of a spanning forest
    parent = list(range(n))

    def find(p, a):
        while p[a] != a:
            a = p[a]
        return a

    for e in range(m):
        a, b = find(parent, u[e]), find(parent, v[e])
        if a != b:
            parent[a] = b
    k = n - len({find(parent, x) for x in range(n)})
    out = []
    for comb in itertools.combinations(range(m), k):
        p = list(range(n))
        ok = True
        for e in comb:
            a, b = find(p, u[e]), find(p, v[e])
            if a == b:
                ok = False
                break
            p[a] = b
        if ok:
            out.append(tuple(comb))
    return out


def _creates_cycle(prefix, e, u, v, n):
    p = list(range(n))

    def find(a):
        while p[a] != a:
            a = p[a]
        return a

    for f in prefix:
        p[find(u[f])] = find(v[f])
    return find(u[e]) == find(v[e])


def exponential_tree_log_law(trees, w, c):
    """``log P(T)`` for ``P(T) ~ exp(-c w(T))``."""
    lw = np.array([-c * sum(w[e] for e in t) for t in trees])
    return lw - logsumexp(lw)


def kruskal_em_log_law(trees, u, v, w, n, b):
    """Exact law of the MST of ``w - b Gumbel`` (sequential exponential mechanism).

    ``P(T) = sum over orders of T's edges of prod_k exp(-w(e_k)/b) /
    sum_{f acyclic with the prefix, not yet chosen} exp(-w(f)/b)``.
    """
    m = len(u)
    out = []
    for t in trees:
        terms = []
        for perm in itertools.permutations(t):
            lp = 0.0
            for i, e in enumerate(perm):
                prefix = perm[:i]
                valid = [f for f in range(m) if f not in prefix
                         and not _creates_cycle(prefix, f, u, v, n)]
                lp += -w[e] / b - _logsumexp([-w[f] / b for f in valid])
            terms.append(lp)
        out.append(_logsumexp(terms))
    return np.array(out)


def prim_em_log_law(trees, u, v, w, n, b):
    """Exact law of Prim with exponential-mechanism steps from a uniform root.

    Connected graphs only. ``P(T) = (1/n) sum_r sum over orders of T's edges
    that grow a tree from r of prod_k exp(-w(e_k)/b) / sum_{cut} exp(-w/b)``.
    """
    m = len(u)
    out = []
    for t in trees:
        terms = []
        for r in range(n):
            for perm in itertools.permutations(t):
                inside = {r}
                lp = 0.0
                ok = True
                for e in perm:
                    if (u[e] in inside) == (v[e] in inside):
                        ok = False
                        break
                    cut = [f for f in range(m) if (u[f] in inside) != (v[f] in inside)]
                    lp += -w[e] / b - _logsumexp([-w[f] / b for f in cut])
                    inside |= {u[e], v[e]}
                if ok:
                    terms.append(lp - math.log(n))
        out.append(_logsumexp(terms))
    return np.array(out)


def chi_square_pvalue(counts, probs, min_expected=5.0):
    """p-value of Pearson's chi-square test, pooling cells expected below 5.

    If the pooled cell is itself expected below ``min_expected``, the
    chi-square law is far from its tail there (one cell expected 0.8 makes a
    correct sampler fail a 5e-8 test with probability ~2e-5). It is then folded
    into the largest cell, and its count is tested on its own with the exact
    binomial upper tail; the smaller p-value, doubled (Bonferroni), is returned.
    """
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray(probs, dtype=float)
    N = counts.sum()
    exp = probs * N
    big = exp >= min_expected
    obs = list(counts[big])
    ex = list(exp[big])
    small_tail = None
    if (~big).any():
        small_obs, small_exp = counts[~big].sum(), exp[~big].sum()
        if small_exp >= min_expected or (small_exp > 0 and not ex):
            obs.append(small_obs)
            ex.append(small_exp)
        elif small_exp > 0:
            k = int(np.argmax(ex))
            obs[k] += small_obs
            ex[k] += small_exp
            small_tail = float(binom.sf(small_obs - 1, int(N), small_exp / N))
        elif small_obs > 0:
            return 0.0  # an outcome of probability zero was observed
    obs, ex = np.array(obs), np.array(ex)
    stat = float(np.sum((obs - ex) ** 2 / ex))
    p = float(chi2.sf(stat, obs.size - 1))
    if small_tail is not None:
        p = min(1.0, 2.0 * min(p, small_tail))
    return p


def renyi_divergence(logp, logq, alpha):
    """``D_alpha(P || Q)`` of two finite laws given in log space."""
    return float(logsumexp(alpha * logp + (1.0 - alpha) * logq) / (alpha - 1.0))


def neighbours(w, mu, neighborhood):
    """Worst-case neighbouring weight vectors (the extreme points).

    ``"linf"``: every sign pattern ``w + mu s``, ``s in {-1, 0, 1}^m`` (the
    vertices of the box and more). ``"l1"``: ``w +- mu e_i`` for each edge.
    """
    w = np.asarray(w, dtype=float)
    m = w.size
    if neighborhood == "l1":
        for i in range(m):
            for s in (-1.0, 1.0):
                d = np.zeros(m)
                d[i] = s * mu
                yield w + d
    else:
        for s in itertools.product((-1.0, 0.0, 1.0), repeat=m):
            yield w + mu * np.array(s)


def random_k5():
    """The complete graph on 5 random points of the unit square (seed 3)."""
    from skdpgraph.utils import check_graph

    return check_graph(np.random.default_rng(3).random((5, 2)), metric="euclidean")


def tree_counts(sampler, graph, trees, n_samples, seed, **kwargs):
    """How often ``sampler(graph, random_state=rng, **kwargs)`` returns each
    tree of ``trees`` (edge-index tuples from :func:`spanning_trees`)."""
    from skdpgraph.utils import graph_edges

    u, v, _ = graph_edges(graph)
    pos = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(u, v))}
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(trees))
    for _ in range(n_samples):
        T = sampler(graph, random_state=rng, **kwargs)
        counts[trees.index(tuple(sorted(pos[(int(a), int(b))] for a, b in T.edges)))] += 1
    return counts
