"""Continuous noise for selection mechanisms (the Gumbel-max trick).

The Gumbel noise here never leaves the library as a number: it only decides
which candidates win (Report-Noisy-Max, the input-perturbation tree), so its
floating-point support does not reveal the input the way ``w + Laplace``
does. What floating point changes is the law of the winner, by the
resolution of the uniforms; see :func:`standard_gumbel`.
"""


def standard_gumbel(size, random_state):
    """i.i.d. standard Gumbel draws, ``-log(E)`` with ``E ~ Exp(1)``.

    Parameters
    ----------
    size : int or tuple of int
    random_state : numpy.random.Generator

    Returns
    -------
    ndarray of float64
    """
    return random_state.gumbel(size=size)
