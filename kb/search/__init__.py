"""Search by pattern: the pattern language (``patterns``) and the one SELECT that runs it (``find``)."""
