"""Deprecated: the names of this module now live in
:mod:`skdpgraph.tree` and :mod:`skdpgraph.privacy`."""

from ._deprecated import reexport

reexport(__name__)
