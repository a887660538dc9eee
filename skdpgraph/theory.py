"""Deprecated: the names of this module now live in
:mod:`skdpgraph.metrics` and :mod:`skdpgraph.edge_dp`."""

from ._deprecated import reexport

reexport(__name__)
