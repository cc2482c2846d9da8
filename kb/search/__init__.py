"""Search by pattern: the pattern language (``patterns``) and the index lookups a pattern implies (``lookups``).

Pure text: the one SELECT that runs a pattern on a store is ``queries.find``, and the canned queries'
``pattern`` type compiles with the same functions.
"""
