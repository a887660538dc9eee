"""Docstring paragraphs shared by many functions and estimators, written once.

A docstring names a shared parameter as ``{{name}}`` on its own line (in the
Parameters section, four spaces in), a shared reference as
``.. [1] {{name}}`` (or a References section citing only it as
``{{name_references}}``); :func:`fill_doc` replaces it with the text below, so
every release documents its randomness, its input check and its accountant
in the same words, and every citation reads the same.

:func:`doc_template` serves functions whose whole docstrings share one
outline: the outline is written once, and each function fills in its own
fields.
"""

import re

_PARAMETERS = {
    "random_state": """\
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` draws from a cryptographically secure generator (AES-128 in
        counter mode, or ChaCha20), as a private release needs. A fixed seed
        makes the release reproducible, hence not private against anyone who
        knows the seed: for tests and studies only. So does a generator: it
        stays in the fitted model (and its pickle), from which its draws can
        be replayed. Fits that reuse a seed draw correlated noise, which no
        accountant's composition covers.""",
    "check_input": """\
    check_input : bool, default=True
        Validate ``graph`` with :func:`skdpgraph.utils.check_graph`; pass
        False only for a graph that already is canonical.""",
    "graph": """\
    graph : ndarray of shape (n, n) or sparse matrix
        A graph of distances: anything :func:`skdpgraph.utils.check_graph`
        accepts with ``metric="precomputed"``.""",
    "sensitivity": """\
    sensitivity : float
        ``mu`` of the neighbourhood (> 0): neighbouring weight functions
        differ by at most ``mu`` in total (``"l1"``) or on each edge
        (``"linf"``).""",
    "accountant": """\
    accountant : object with ``check`` and ``spend``, default=None
        A budget accountant (:class:`skdpgraph.privacy.BudgetAccountant`,
        diffprivlib's, or any object with their ``check``/``spend``
        methods), charged for each release after the input is validated and
        before any private value is read; ``None``: the default accountant
        (:meth:`skdpgraph.privacy.BudgetAccountant.load_default`).""",
    "verbose": """\
    verbose : int, default=0
        ``> 0``: print one line per stage of the fit (validation, release,
        clustering) with its duration to standard error.""",
    "edge_table": """\
    table : EdgeTable or dask.dataframe.DataFrame
        The edge table; a DataFrame is read as :func:`as_edge_table` reads
        it (columns ``u``, ``v``, ``weight``).""",
    "split_every": """\
    split_every : int, default=4
        Forests merged by each task of the reduction.""",
    "dask_verbose": """\
    verbose : int, default=0
        Show Dask's progress bar.""",
    # An attribute, for the Attributes section of a graph transformer.
    "n_features_in": """\
    n_features_in_ : int
        Number of nodes of the graph seen in :meth:`fit`.""",
}

#: References cited by many docstrings: ``{{muelle}}`` in a References
#: section gives ``.. [<label>] ...`` with the label the docstring uses;
#: ``{{muelle_references}}`` alone on its line, four spaces in, gives the
#: whole References section of a docstring that cites only that work.
_REFERENCES = {
    "muelle": 'Y. Muelle, C. Clifton and K. Boehm, "Privacy-Integrated Graph\n'
              '       Clustering Through Differential Privacy", EDBT/ICDT Workshops, 2015.',
    "hardt_price": 'M. Hardt and E. Price, "The Noisy Power Method: A Meta Algorithm\n'
                   '       with Applications", NeurIPS 2014.',
    "decelle": 'A. Decelle, F. Krzakala, C. Moore and L. Zdeborova, "Asymptotic\n'
               '       analysis of the stochastic block model for modular networks and its\n'
               '       algorithmic applications", Phys. Rev. E 84, 066106, 2011.',
    "karrer_newman": 'B. Karrer and M. E. J. Newman, "Stochastic blockmodels and community\n'
                     '       structure in networks", Phys. Rev. E 83, 016107, 2011.',
    "cesar_rogers": 'M. Cesar and R. Rogers, "Bounding, Concentrating, and\n'
                    '       Truncating: Unifying Privacy Loss Composition for Data Analytics",\n'
                    '       ALT 2021.',
}


def fill_doc(obj):
    """Replace the ``{{name}}`` lines of ``obj``'s docstring with the shared paragraphs."""
    doc = obj.__doc__
    if doc:  # None under python -OO
        for name, text in _PARAMETERS.items():
            doc = doc.replace("    {{" + name + "}}", text)
        for name, text in _REFERENCES.items():
            section = "    References\n    ----------\n    .. [1] " + text
            doc = doc.replace("    {{" + name + "_references}}", section)
            doc = doc.replace("{{" + name + "}}", text)
        obj.__doc__ = doc
    return obj


def doc_template(template, **fields):
    """Decorator: the docstring is ``template`` with ``fields`` (and ``name``) filled in.

    A field alone on its line (``    {notes}``) may hold several lines: they are
    written dedented and indented here to the placeholder's column. Fields
    inside a line are replaced as they are. ``{name}`` is the function's name.
    """

    def decorate(func):
        values = {"name": func.__name__, **fields}

        def fill(match):
            indent, whole_line, inline = match.groups()
            if inline is not None:
                return str(values[inline])
            lines = str(values[whole_line]).split("\n")
            return "\n".join(indent + line if line else line for line in lines)

        func.__doc__ = re.sub(r"(?m)^( *)\{(\w+)\}$|\{(\w+)\}", fill, template)
        return func

    return decorate
