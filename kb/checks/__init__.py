"""Checks: the checks that produce ``Finding``s (the record every problem is reported as, ``kb.findings``).

``pgn_lint`` (over ``kb.reading.pgn_tokens``) and ``fen`` check files before import,
``runner`` runs ``chesskb check`` over a store (OWL reasoning in ``owl``, shapes in ``shacl``,
results cached by ``cache``).
"""
