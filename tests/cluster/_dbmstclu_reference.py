"""Brute-force DBMSTClu, Algorithm 1 of Pinot et al. (UAI 2018) taken literally.

Every candidate cut is evaluated by recomputing the DBCVI of the whole
partition from scratch in exact rational arithmetic.
"""

from fractions import Fraction

_ZERO, _ONE = Fraction(0), Fraction(1)


def _components(n, edges):
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in edges:
        parent[find(a)] = find(b)
    return [find(a) for a in range(n)]


def _validity(sep, disp):
    if disp == 0:
        return _ONE
    return (sep - disp) / max(sep, disp)


def reference_dbcvi(n, edges, weights, cut):
    """Exact DBCVI of the partition obtained by removing the edges in ``cut``."""
    kept = [e for k, e in enumerate(edges) if k not in cut]
    comp = _components(n, kept)
    disp, sep, size = {}, {}, {}
    for a in range(n):
        size[comp[a]] = size.get(comp[a], 0) + 1
        disp.setdefault(comp[a], _ZERO)
    for k, (a, b) in enumerate(edges):
        w = weights[k] if type(weights[k]) is Fraction else Fraction(weights[k])
        if k in cut:
            for c in (comp[a], comp[b]):
                sep[c] = min(sep.get(c, w), w)
        else:
            disp[comp[a]] = max(disp[comp[a]], w)
    total = _ZERO
    for c, s in size.items():
        total += s * _validity(sep.get(c, _ONE), disp[c])
    return total / n, comp


def reference_dbmstclu(n, edges, weights, tol=Fraction(1, 10**9)):
    """Algorithm 1 on a connected tree: (labels, cut order, dbcvi path).

    Values within ``tol`` of each other are ties (the library's documented
    rule, so that rounding of float weights does not decide): among the cuts
    within ``tol`` of the best, the last in edge order is made (line 10 keeps
    the last candidate reaching the running best), if it is within ``tol``
    of the current index or above.
    """
    weights = [Fraction(w) for w in weights]  # once, not per candidate
    cut, order, path = set(), [], []
    dbcvi = Fraction(-1)
    while dbcvi < 1 - tol:
        values = {k: reference_dbcvi(n, edges, weights, cut | {k})[0]
                  for k in range(len(edges)) if k not in cut}
        if not values:
            break
        top = max(values.values())
        if top < dbcvi - tol:
            break
        best_k = max(k for k, val in values.items() if val >= top - tol)
        cut.add(best_k)
        order.append(best_k)
        path.append(values[best_k])
        dbcvi = values[best_k]
    _, comp = reference_dbcvi(n, edges, weights, cut)
    first = {}
    for a in range(n):
        first.setdefault(comp[a], len(first))
    labels = [first[comp[a]] for a in range(n)]
    return labels, order, path
