"""Checks of the privacy parameters (epsilon, delta, rho, sensitivity, neighbourhood)."""

from ..utils import check_real

#: The two neighbourhoods of weight-DP.
NEIGHBORHOODS = ("l1", "linf")


def check_neighborhood(neighborhood):
    """Validate a neighbourhood name; return it.

    Parameters
    ----------
    neighborhood : {"l1", "linf"}
        ``"l1"``: the weights of neighbouring graphs differ by at most the
        sensitivity in total; ``"linf"``: each weight differs by at most the
        sensitivity.

    Returns
    -------
    neighborhood : str
        ``neighborhood`` itself.

    Raises
    ------
    ValueError
        For any other value.
    """
    if neighborhood not in NEIGHBORHOODS:
        raise ValueError(
            f"neighborhood must be one of {NEIGHBORHOODS}; got {neighborhood!r}. "
            "'l1': the weights of neighbouring graphs differ by at most "
            "`sensitivity` in total; 'linf': each weight differs by at most "
            "`sensitivity`."
        )
    return neighborhood


def check_epsilon(epsilon, name="epsilon"):
    """``epsilon`` as a float; ValueError unless finite and > 0.

    Parameters
    ----------
    epsilon : float
        The budget to check (a real number, not a bool).
    name : str, default="epsilon"
        Name used in the message.

    Returns
    -------
    float
    """
    return check_real(epsilon, name, low=0.0, low_open=True)


def check_rho(rho):
    """A zCDP parameter ``rho`` as a float; ValueError unless finite and > 0.

    Parameters
    ----------
    rho : float
        The zCDP parameter to check (a real number, not a bool).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``rho`` is not a real number.
    ValueError
        If ``rho`` is not finite and > 0.
    """
    return check_real(rho, "rho", low=0.0, low_open=True)


def check_sensitivity(sensitivity):
    """``sensitivity`` as a float; ValueError unless finite and > 0.

    Parameters
    ----------
    sensitivity : float
        ``mu`` of the neighbourhood (a real number, not a bool).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``sensitivity`` is not a real number.
    ValueError
        If ``sensitivity`` is not finite and > 0.
    """
    return check_real(sensitivity, "sensitivity", low=0.0, low_open=True)


def check_delta(delta):
    """``delta`` as a float in the open interval (0, 1).

    Parameters
    ----------
    delta : float
        The ``delta`` of ``(epsilon, delta)``-DP (a real number, not a bool).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``delta`` is not a real number.
    ValueError
        If ``delta`` is not in (0, 1).
    """
    return check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
