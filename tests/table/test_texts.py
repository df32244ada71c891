"""Every text of the table client exists in every language, with the right plural
forms and the same placeholders; the rules panel is complete in all four languages."""

from __future__ import annotations

import re
import string

import pytest

from clients.table.i18n import LANGUAGES, MESSAGES, Translator, detect_language, plural_category
from clients.table.i18n.rules import RULES

NEEDED_FORMS = {
    "en": {"one", "other"},
    "es": {"one", "other"},
    "ru": {"one", "few", "many"},
    "ms": {"other"},
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _forms(value) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


@pytest.mark.parametrize("msg_id", sorted(MESSAGES))
def test_every_message_has_every_language_and_the_same_fields(msg_id):
    entry = MESSAGES[msg_id]
    assert set(entry) == set(LANGUAGES), f"{msg_id}: languages {sorted(entry)}"
    english = set().union(*(_fields(t) for t in _forms(entry["en"])))
    for lang in LANGUAGES:
        value = entry[lang]
        if isinstance(value, dict):
            assert NEEDED_FORMS[lang] <= set(value), (
                f"{msg_id}/{lang}: plural forms {sorted(value)}"
            )
        for text in _forms(value):
            assert text.strip(), f"{msg_id}/{lang} is empty"
            assert _fields(text) == english, f"{msg_id}/{lang}: fields {_fields(text)} != {english}"


def test_counted_messages_are_plural_in_every_language():
    counted = [k for k, v in MESSAGES.items() if isinstance(v["en"], dict)]
    assert "tiles.count" in counted
    assert all(isinstance(MESSAGES[k][lang], dict) for k in counted for lang in LANGUAGES)


@pytest.mark.parametrize(
    "n, word",
    [
        (1, "кость"),
        (2, "кости"),
        (4, "кости"),
        (5, "костей"),
        (11, "костей"),
        (12, "костей"),
        (14, "костей"),
        (21, "кость"),
        (22, "кости"),
        (25, "костей"),
        (111, "костей"),
        (0, "костей"),
    ],
)
def test_russian_plurals(n, word):
    assert Translator("ru").t("tiles.count", n=n) == f"{n} {word}"


def test_plural_categories_of_the_other_languages():
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert Translator("es").t("tiles.count", n=1) == "1 ficha"
    assert Translator("es").t("tiles.count", n=3) == "3 fichas"
    assert Translator("ms").t("tiles.count", n=3) == "3 batu"


@pytest.mark.parametrize(
    "env, lang",
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "es_ES"}, "es"),
        ({"LANG": "ms_MY.UTF-8"}, "ms"),
        ({"LANG": "de_DE"}, "en"),
        ({"LC_ALL": "es_MX", "LANG": "ru_RU"}, "es"),
        ({}, "en"),
    ],
)
def test_language_from_the_system_locale(env, lang):
    assert detect_language(env) == lang


def test_every_server_error_code_has_a_message():
    codes = (
        "bad_event bad_deal wrong_phase not_your_turn tile_not_in_hand tile_does_not_fit "
        "end_required must_play must_open_double_six not_entitled already_accepted "
        "not_representative opener_not_on_team nothing_to_undo nothing_to_redo "
        "not_allowed_in_rated not_authenticated not_your_seat stale_version paused "
        "validation_error idempotency_key_reused not_found"
    ).split()
    for code in codes:
        assert f"err.{code}" in MESSAGES, code
    tr = Translator("ru")
    assert tr.error("not_your_turn") == MESSAGES["err.not_your_turn"]["ru"]
    assert Translator("en").error("some_new_code") == MESSAGES["err.generic"]["en"]


def test_the_rules_panel_is_complete_in_four_languages():
    assert set(RULES) == set(LANGUAGES)
    sizes = {lang: len(RULES[lang]) for lang in LANGUAGES}
    assert len(set(sizes.values())) == 1, sizes
    for lang, sections in RULES.items():
        text = " ".join(p for _, paragraphs in sections for p in paragraphs)
        assert all(heading and paragraphs for heading, paragraphs in sections), lang
        assert "6-6" in text and "5" in text, lang  # the opener and the redeal rule
        assert re.search(r"\b4\b", text), lang  # the match is played to 4
        assert len(text) > 3000, f"{lang}: {len(text)} characters is not the full rules"
