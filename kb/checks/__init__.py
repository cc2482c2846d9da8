"""Checks: the one ``Finding`` record every problem is reported as, and the checks that produce them.

``findings`` is the record; ``pgn_lint`` (over ``kb.reading.pgn_tokens``) and ``fen`` check files before import,
``runner`` runs ``chesskb check`` over a store (OWL reasoning in ``owl``, shapes in ``shacl``,
results cached by ``cache``).
"""
