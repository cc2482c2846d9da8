"""Merging: when records from many sources are one game, one player, one event, and what they disagree on.

The rule for games is ``kb.mapping.identity`` (a game's IRI is minted from it); ``linking`` joins
players whose names alone do not meet, ``conflicts`` tells compatible refinements from true conflicts,
``freshness`` decides whether a stored source is still what its files would give.
"""
