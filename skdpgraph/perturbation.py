"""Deprecated: the names of this module now live in
:mod:`skdpgraph.edge_dp` and :mod:`skdpgraph.utils`."""

from ._deprecated import reexport

reexport(__name__)
