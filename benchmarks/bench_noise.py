"""Speed of the exact discrete samplers and grid releases against numpy.

Targets (measured in one run, best of a few repeats, printed as ratios):

* ``discrete_laplace`` no slower than 1.5x ``Generator.laplace`` at 10^6
  draws, at a small scale (one uniform per draw) and at the large scales of
  the default grid (two uniforms per draw);
* ``discrete_gaussian`` as fast as possible against ``Generator.normal``
  (rejection from the discrete Laplace: about 1.3 to 2 candidates per draw);
* ``release_laplace`` / ``release_gaussian`` on 10^6 values: the sampler
  plus a few array operations.

Run: ``python benchmarks/bench_noise.py [--n 1000000] [--repeat 7]``
"""

import argparse
import time

import numpy as np

from skdpgraph.privacy import (
    discrete_gaussian,
    discrete_laplace,
    release_gaussian,
    release_laplace,
)
from skdpgraph.utils import check_random_state


def best_time(func, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n, rep = args.n, args.repeat
    rng = np.random.default_rng(args.seed)
    values = rng.uniform(0.0, 1.0, n)

    rows = []

    def bench(name, func, reference=None):
        func()  # warm-up (constants are cached per scale)
        t = best_time(func, rep)
        rows.append((name, t, reference))
        return t

    t_lap = bench("numpy Generator.laplace", lambda: rng.laplace(0.0, 1.0, n))
    t_nor = bench("numpy Generator.normal", lambda: rng.normal(0.0, 1.0, n))
    for scale in (1.0, 1e3, 1.5e9):
        bench(
            f"discrete_laplace(scale={scale:g})",
            lambda s=scale: discrete_laplace(s, n, rng),
            t_lap,
        )
    for sigma in (0.5, 2.0, 30.0, 1e6):
        bench(
            f"discrete_gaussian(sigma={sigma:g})",
            lambda s=sigma: discrete_gaussian(s, n, rng),
            t_nor,
        )
    # Default grids: about 1025 k / epsilon (Laplace) and sqrt(2 k) 1024 (Gaussian)
    # grid steps of noise, i.e. two-stage scales for large k.
    bench(
        "release_laplace (k = n, l1 = 1, eps = 1)",
        lambda: release_laplace(values, 1.0, 1.0, rng),
        t_lap,
    )
    bench(
        "release_gaussian (k = n, l2 = 1, rho = 0.5)",
        lambda: release_gaussian(values, 1.0, 0.5, rng),
        t_nor,
    )
    # The generator of real releases (random_state=None): a cryptographically
    # secure counter-mode bit generator.
    secure = check_random_state(None)
    bench(
        f"release_laplace, secure {type(secure.bit_generator).__name__}",
        lambda: release_laplace(values, 1.0, 1.0, secure),
        t_lap,
    )
    bench(
        f"numpy laplace, secure {type(secure.bit_generator).__name__}",
        lambda: secure.laplace(0.0, 1.0, n),
        t_lap,
    )

    print(f"{n:,} draws, best of {rep}")
    print(f"{'':45s} {'ns/draw':>9s} {'ratio':>7s}")
    for name, t, ref in rows:
        ratio = "" if ref is None else f"{t / ref:6.2f}x"
        print(f"{name:45s} {t / n * 1e9:9.2f} {ratio:>7s}")
    print(
        "ratios: discrete_laplace and release_laplace vs numpy laplace; "
        "discrete_gaussian and release_gaussian vs numpy normal"
    )


if __name__ == "__main__":
    main()
