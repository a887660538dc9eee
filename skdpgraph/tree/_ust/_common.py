"""Small array helpers shared by the UST engines."""

import numpy as np

from ...privacy._samplers import standard_gumbel
from ...utils._sparse import component_labels


def gumbel(size, rng):
    """Gumbel noise with unbounded tails: no Gumbel-max choice has probability 0."""
    return standard_gumbel(size, rng)


class GumbelStream:
    """i.i.d. Gumbel noise handed out in pieces, drawn in chunks (fewer calls)."""

    def __init__(self, rng, chunk=4096):
        self.rng, self.chunk = rng, chunk
        self.buf, self.pos = np.empty(0), 0

    def take(self, shape):
        size = int(np.prod(shape))
        if self.pos + size > self.buf.size:
            self.buf, self.pos = gumbel(max(self.chunk, size), self.rng), 0
        out = self.buf[self.pos:self.pos + size].reshape(shape)
        self.pos += size
        return out


def logsumexp(x):
    """``log(sum(exp(x)))`` of a non-empty 1-D array (scipy's is slow here)."""
    top = x.max()
    return float(top + np.log(np.exp(x - top).sum()))


def group_logsumexp(groups, values, n_groups):
    """``logsumexp`` of ``values`` within each group."""
    top = np.full(n_groups, -np.inf)
    np.maximum.at(top, groups, values)
    s = np.bincount(groups, weights=np.exp(values - top[groups]), minlength=n_groups)
    return top + np.log(s)


def group_argmax(groups, keys):
    """Index of the largest ``keys`` entry of each group (one index per group)."""
    order = np.lexsort((-keys, groups))
    g = groups[order]
    first = np.ones(g.size, dtype=bool)
    first[1:] = g[1:] != g[:-1]
    return order[first]


def components(eu, ev, k):
    """Connected-component labels of the graph with edges ``(eu, ev)`` on ``k`` nodes."""
    return component_labels(eu, ev, k)[1]


def edge_lookup(u, v, n):
    """A function mapping pairs ``(a, b)`` to the index of edge ``{a, b}`` (-1 if none)."""
    codes = u * n + v
    sorter = np.argsort(codes)
    sorted_codes = codes[sorter]

    def find(a, b):
        c = np.minimum(a, b) * n + np.maximum(a, b)
        pos = np.minimum(np.searchsorted(sorted_codes, c), codes.size - 1)
        return np.where(sorted_codes[pos] == c, sorter[pos], -1)

    return find
