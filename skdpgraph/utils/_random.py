"""Randomness: one place that turns ``random_state`` into a numpy Generator.

A private release needs unpredictable randomness: with ``random_state=None``
the generator is a cryptographically secure counter-mode bit generator from
``randomgen`` (AES-128 in counter mode when the processor has AES-NI,
otherwise ChaCha20), keyed from the operating system's entropy through
:mod:`secrets`. numpy's own bit generators (PCG64 and friends) are fast and
statistically sound but not cryptographically secure: an observer who sees
enough of their output can predict the rest.

An integer ``random_state`` seeds numpy's default generator instead: the
output is then reproducible, and therefore not private against anyone who
knows the seed. Use integer seeds for experiments and tests only.
"""

import secrets
from numbers import Integral

import numpy as np


def secure_generator():
    """A ``numpy.random.Generator`` over a cryptographically secure bit generator.

    AES-128 in counter mode (``randomgen.AESCounter``) when the processor has
    the AES-NI instructions, ChaCha20 (``randomgen.ChaCha`` with 20 rounds)
    otherwise; keyed with 256 bits from :func:`secrets.randbits`.

    Returns
    -------
    numpy.random.Generator
    """
    return keyed_generator(secrets.token_bytes(32))


def keyed_generator(key):
    """The secure generator of :func:`secure_generator` keyed with given bytes.

    The same 32-byte key gives the same stream, so a task that is run again
    (a distributed worker lost and its work redone) draws the same noise,
    never a second independent release. The key must be secret and
    unpredictable for the stream to be; keys of independent streams are
    derived from one secret (see :mod:`skdpgraph.distributed`).

    Parameters
    ----------
    key : bytes of length 32
        Secret key of the stream, read as a little-endian 256-bit integer.

    Returns
    -------
    numpy.random.Generator
        AES-128 counter mode (``randomgen.AESCounter``) with AES-NI,
        ChaCha20 otherwise, seeded with the 256-bit integer ``key``.

    Raises
    ------
    ValueError
        If ``key`` is not a ``bytes`` object of length 32.
    """
    from randomgen import AESCounter, ChaCha

    if not isinstance(key, bytes) or len(key) != 32:
        raise ValueError("key must be 32 bytes.")
    seed = int.from_bytes(key, "little")
    aes = AESCounter(seed=seed)
    if aes.use_aesni:
        return np.random.Generator(aes)
    return np.random.Generator(ChaCha(seed=seed, rounds=20))


def check_random_state(random_state):
    """A ``numpy.random.Generator`` from ``random_state``.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None``: a fresh cryptographically secure generator
        (:func:`secure_generator`), as a private release needs. An int:
        numpy's default generator seeded with it (reproducible, hence not
        private against whoever knows the seed). A ``Generator`` is used as
        is; a legacy ``RandomState`` seeds a new default generator.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        For any other type.
    """
    if random_state is None:
        return secure_generator()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or a "
        f"RandomState; got {type(random_state).__name__}."
    )
