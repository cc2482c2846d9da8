"""The interface catalogues: every English string has its Spanish one and the reverse, and the
placeholders ({n}, {san} …) agree, so no page falls back to English or breaks a sentence."""

from __future__ import annotations

import re

from chesskb.service.i18n import LANGUAGES, STRINGS


def test_english_and_spanish_catalogues_have_the_same_keys() -> None:
    assert set(LANGUAGES) == set(STRINGS)
    english, spanish = set(STRINGS["en"]), set(STRINGS["es"])
    assert english - spanish == set(), "missing in Spanish"
    assert spanish - english == set(), "missing in English"


def test_placeholders_agree_in_both_languages() -> None:
    for key, english in STRINGS["en"].items():
        assert sorted(re.findall(r"\{[a-z]+\}", english)) == sorted(re.findall(r"\{[a-z]+\}", STRINGS["es"][key])), key
