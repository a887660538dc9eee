"""Graph clusterers."""

from ._dbmstclu import DBMSTClu, dbmstclu, dbcvi_score

__all__ = ["DBMSTClu", "dbmstclu", "dbcvi_score"]
