"""Slow DBMSTClu in floating point with the library's tie rule, for exact comparison.

Algorithm 1 of Pinot et al. (UAI 2018) as ``skdpgraph.dbmstclu`` documents it, written
for clarity: every cluster's best cut is found by trying every edge of the cluster (two
breadth-first searches each), and the greedy loop keeps the clusters and their best cuts.
Values are computed with the same float expressions as the library, so outputs must be
identical, ties included:

* a cluster's term is ``|C| V(C)``; cutting edge ``e`` of a cluster ``C`` of ``N`` nodes
  into sides ``X`` and ``Y`` gives ``r = |X| V_X + |Y| V_Y`` with
  ``V_X = V(min(w(e), SEP(X)), max(DISP(X), 0))`` (``SEP``: smallest cut edge incident to
  ``X``; ``DISP``: largest edge inside ``X``, ``-inf`` if none), ``V(sep, disp) = 1`` if
  ``disp <= 0`` else ``(sep - disp) / max(sep, disp)``;
* a cluster's best cut is the edge of largest rank (position in the sorted edge list)
  among its edges with ``r >= top - tol``, ``tol = 1e-9 * n_c`` (``n_c``: the size of the
  connected component);
* each step cuts, among the clusters whose best gain ``r - |C| V(C)`` is within ``tol`` of
  the largest, the one whose best cut has the largest rank; the first cut of a component is
  always made, later ones while the largest gain is at least ``-tol``, until the
  component's sum of terms reaches ``n_c - tol``.
"""

import math
from collections import deque


def _validity(sep, disp):
    return (sep - disp) / max(sep, disp) if disp > 0 else 1.0


def _side(adj, start, banned, members):
    """Nodes reachable from ``start`` inside ``members`` without crossing edge ``banned``."""
    seen, queue = {start}, deque([start])
    while queue:
        a = queue.popleft()
        for b, e in adj[a]:
            if e != banned and b in members and b not in seen:
                seen.add(b)
                queue.append(b)
    return seen


def _side_term(nodes, w_cut, edges, weights, inside_edges, cut_min):
    sep = min(cut_min[a] for a in nodes)
    disp = max((weights[e] for e in inside_edges if edges[e][0] in nodes), default=-math.inf)
    return len(nodes) * _validity(min(max(w_cut, 0.0), sep), max(disp, 0.0))


def best_cut(cluster, term, tol, adj, edges, weights, cut_min):
    """(gain, rank, (side, term), (side, term)) of the cluster's best cut, or None."""
    inside = [e for e, (a, b) in enumerate(edges) if a in cluster and b in cluster]
    values = {}
    for e in inside:
        x = _side(adj, edges[e][0], e, cluster)
        y = cluster - x
        rest = [f for f in inside if f != e]
        tx = _side_term(x, weights[e], edges, weights, [f for f in rest if edges[f][0] in x],
                        cut_min)
        ty = _side_term(y, weights[e], edges, weights, [f for f in rest if edges[f][0] in y],
                        cut_min)
        values[e] = (tx + ty, (x, tx), (y, ty))
    if not values:
        return None
    top = max(r for r, _, _ in values.values())
    e = max(f for f, (r, _, _) in values.items() if r >= top - tol)
    r, side_x, side_y = values[e]
    return r - term, e, side_x, side_y


def float_reference_dbmstclu(n, edges, weights, tie_rtol=1e-9):
    """(cut edge indices in order, index after each cut, labels) of a forest.

    ``edges``: list of ``(u, v)``, ``u < v``, sorted; ``weights``: floats.
    """
    edges = [tuple(int(x) for x in e) for e in edges]
    weights = [float(x) for x in weights]
    adj = {a: [] for a in range(n)}
    for e, (a, b) in enumerate(edges):
        adj[a].append((b, e))
        adj[b].append((a, e))
    comps, seen = [], set()
    for a in range(n):
        if a not in seen:
            comp = _side(adj, a, -1, set(range(n)))
            seen |= comp
            comps.append(comp)
    total = sum(1.0 if len(c) == 1 else -float(len(c)) for c in comps)
    cut_min = [math.inf] * n
    order, path, cut = [], [], set()
    for comp in comps:
        n_c = len(comp)
        if n_c < 2:
            continue
        tol = tie_rtol * n_c
        clusters = [(comp, best_cut(comp, -float(n_c), tol, adj, edges, weights, cut_min))]
        s_comp, first = -float(n_c), True
        while s_comp < n_c - tol:
            live = [(c, b) for c, b in clusters if b is not None]
            if not live:
                break
            top = max(b[0] for _, b in live)
            if not first and top < -tol:
                break
            c, b = max(((c, b) for c, b in live if b[0] >= top - tol), key=lambda cb: cb[1][1])
            first = False
            gain, e, (x, tx), (y, ty) = b
            s_comp += gain
            total += gain
            order.append(e)
            path.append(total)
            cut.add(e)
            for a in edges[e]:
                cut_min[a] = min(cut_min[a], weights[e])
            clusters = [cb for cb in clusters if cb[0] is not c]
            for side, term in ((x, tx), (y, ty)):
                clusters.append((side, best_cut(side, term, tol, adj, edges, weights, cut_min)
                                 if len(side) > 1 else None))
    labels, kept = [-1] * n, {a: [(b, e) for b, e in adj[a] if e not in cut] for a in range(n)}
    count = 0
    for a in range(n):
        if labels[a] < 0:
            for b in _side(kept, a, -1, set(range(n))):
                labels[b] = count
            count += 1
    return order, path, labels
