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


# --- every key the interface uses is in both catalogues ------------------------------------------
# A template that names a missing key prints nothing (Jinja's Undefined), so a key used but never
# written is a silent hole; these tests read the keys where they are used.

from pathlib import Path  # noqa: E402

SERVICE = Path(__file__).resolve().parent.parent / "service"
_TEMPLATE_KEY = re.compile(r"\bt\.([a-z_]+)\b|\bt\[['\"]([a-z_]+)['\"]\]")


def _template_keys() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((SERVICE / "templates").glob("*.html")):
        for match in _TEMPLATE_KEY.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1) or match.group(2), set()).add(path.name)
    return found


def _dynamic_keys() -> set[str]:
    """Keys templates look up by a value (``t[c.level]``, ``t[C.back_key]``, ``t.get(group)`` …): every
    value those can take."""
    from chesskb.kb.courses.course_file import LEVELS
    from chesskb.service.search import SEARCHES

    back = set(re.findall(r'"back_key": "([a-z_]+)"', (SERVICE / "next_exercise.py").read_text(encoding="utf-8")))
    assert back, "next_exercise.py names its back links"
    return {*LEVELS, *back, *SEARCHES, "positions", "games", "themes", "white", "black", "kingside", "queenside"}


def test_every_key_a_template_uses_is_in_both_catalogues() -> None:
    used = _template_keys()
    used.pop("get", None)  # t.get(group, group): the lookup by a value, below
    assert {"themes", "next_exercise", "courses"} <= set(used)  # the reader finds keys (else this proves nothing)
    used.update({key: {"(looked up by value)"} for key in _dynamic_keys()})
    for lang in LANGUAGES:
        missing = {key: sorted(files) for key, files in used.items() if key not in STRINGS[lang]}
        assert not missing, f"keys missing in {lang}: {missing}"


def test_every_key_the_python_and_the_scripts_use_is_in_both_catalogues() -> None:
    """The row labels, the solving and 'Play on' strings sent to the scripts, and the keys those
    scripts read (``S.key`` in solve.js and play.js) are in both catalogues and in what is sent."""
    from chesskb.service.pages import PLAY_STRINGS, ROW_STRINGS, _solve_strings

    for lang in LANGUAGES:
        assert set(ROW_STRINGS.values()) <= set(STRINGS[lang]), lang
        assert set(PLAY_STRINGS) <= set(STRINGS[lang]), lang
        sent = _solve_strings(lang)  # a missing key is a KeyError here
        assert set(sent) <= set(STRINGS[lang])
    for script, sent_keys in (("solve.js", set(_solve_strings("en"))), ("play.js", set(PLAY_STRINGS))):
        used = set(re.findall(r"\bS\.([a-z_]+)\b", (SERVICE / "static" / script).read_text(encoding="utf-8")))
        assert used, script
        assert used <= sent_keys, (script, sorted(used - sent_keys))
