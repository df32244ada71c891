"""Translations of the table client (``clients/table/i18n``): completeness of the catalog,
plural forms, placeholders, language detection and cycling, error texts, and the rules panel.

The catalog checks run per message id, so a missing translation names the id it lacks.
"""

from __future__ import annotations

import re
import string

import pytest

from clients.table.i18n import (
    LANGUAGES,
    MESSAGES,
    Translator,
    detect_language,
    next_language,
    plural_category,
)
from clients.table.i18n.catalog import PLURAL_CATEGORIES
from clients.table.i18n.rules import RULES
from engine import REJECTION_CODES

# The plural forms each language needs (CLDR categories for integers).
NEEDED_FORMS = {
    "en": {"one", "other"},
    "es": {"one", "other"},
    "ru": {"one", "few", "many"},
    "ms": {"other"},
}
CLDR_CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
COUNTED = sorted(k for k, v in MESSAGES.items() if isinstance(v.get("en"), dict))
PLAIN = sorted(k for k, v in MESSAGES.items() if not isinstance(v.get("en"), dict))


def _fields(text: str) -> set[str]:
    """The ``{fields}`` of a format string (raises ValueError on a malformed one)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _forms(value) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def _sample_fields(names: set[str]) -> dict[str, object]:
    return {name: (3 if name == "n" else f"<{name}>") for name in names}


# ---------------------------------------------------------------------------- the catalog
def test_the_four_languages_and_their_plural_rules():
    assert LANGUAGES == ("en", "es", "ru", "ms")
    assert {lang: set(PLURAL_CATEGORIES[lang]) for lang in LANGUAGES} == NEEDED_FORMS
    assert len(MESSAGES) > 50
    assert COUNTED, "the catalog has counted messages (tiles.count, ...)"
    assert {"tiles.count", "doubles.count", "pips.count", "points.count"} <= set(COUNTED)


@pytest.mark.parametrize("msg_id", sorted(MESSAGES))
def test_every_message_is_translated_into_every_language(msg_id):
    entry = MESSAGES[msg_id]
    missing = [lang for lang in LANGUAGES if lang not in entry]
    assert not missing, f"{msg_id}: no translation for {missing}"
    assert set(entry) == set(LANGUAGES), f"{msg_id}: unexpected languages {sorted(entry)}"
    for lang in LANGUAGES:
        for text in _forms(entry[lang]):
            assert isinstance(text, str), f"{msg_id}/{lang}: {text!r} is not text"
            assert text.strip(), f"{msg_id}/{lang} is empty"


@pytest.mark.parametrize("msg_id", COUNTED)
def test_counted_messages_have_the_plural_forms_their_language_needs(msg_id):
    entry = MESSAGES[msg_id]
    for lang in LANGUAGES:
        value = entry[lang]
        assert isinstance(value, dict), f"{msg_id}/{lang}: counted in English, not in {lang}"
        missing = NEEDED_FORMS[lang] - set(value)
        assert not missing, f"{msg_id}/{lang}: lacks plural forms {sorted(missing)}"
        assert set(value) <= CLDR_CATEGORIES, f"{msg_id}/{lang}: unknown forms {sorted(value)}"
        for form, text in value.items():
            assert "n" in _fields(text), f"{msg_id}/{lang}/{form} does not show the count"


@pytest.mark.parametrize("msg_id", PLAIN)
def test_plain_messages_are_plain_in_every_language(msg_id):
    for lang in LANGUAGES:
        assert isinstance(MESSAGES[msg_id][lang], str), f"{msg_id}/{lang} has plural forms"


@pytest.mark.parametrize("msg_id", sorted(MESSAGES))
def test_every_translation_uses_the_same_fields_as_english(msg_id):
    entry = MESSAGES[msg_id]
    english_forms = _forms(entry["en"])
    english = _fields(english_forms[0])
    for text in english_forms:
        assert _fields(text) == english, f"{msg_id}/en: its plural forms disagree on fields"
    for lang in LANGUAGES:
        value = entry.get(lang)
        if value is None:
            continue  # reported by the completeness test
        forms = value.items() if isinstance(value, dict) else [("-", value)]
        for form, text in forms:
            got = _fields(text)
            assert got == english, (
                f"{msg_id}/{lang}/{form}: fields {sorted(got)} != English {sorted(english)}"
            )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_formats_cleanly(lang):
    tr = Translator(lang)
    for msg_id, entry in MESSAGES.items():
        names = _fields(_forms(entry["en"])[0])
        text = tr.t(msg_id, **_sample_fields(names))
        assert "{" not in text and "}" not in text, f"{msg_id}/{lang}: {text!r}"
        for name in names - {"n"}:
            assert f"<{name}>" in text, f"{msg_id}/{lang}: {name} not shown in {text!r}"


# ---------------------------------------------------------------------------- plurals
@pytest.mark.parametrize(
    "n, text",
    [
        (1, "1 кость"),
        (2, "2 кости"),
        (3, "3 кости"),
        (4, "4 кости"),
        (5, "5 костей"),
        (0, "0 костей"),
        (11, "11 костей"),
        (12, "12 костей"),
        (14, "14 костей"),
        (21, "21 кость"),
        (22, "22 кости"),
        (25, "25 костей"),
        (101, "101 кость"),
        (111, "111 костей"),
        (112, "112 костей"),
        (122, "122 кости"),
    ],
)
def test_russian_tile_counts(n, text):
    assert Translator("ru").t("tiles.count", n=n) == text
    assert Translator("ru").count("tiles.count", n) == text


@pytest.mark.parametrize(
    "n, text",
    [(1, "1 дубль"), (3, "3 дубля"), (5, "5 дублей"), (21, "21 дубль"), (13, "13 дублей")],
)
def test_russian_double_counts(n, text):
    assert Translator("ru").t("doubles.count", n=n) == text


def test_plural_categories_of_english_spanish_and_malay():
    assert [plural_category("en", n) for n in (0, 1, 2, 21)] == ["other", "one", "other", "other"]
    assert [plural_category("es", n) for n in (0, 1, 2)] == ["other", "one", "other"]
    assert {plural_category("ms", n) for n in range(50)} == {"other"}
    assert Translator("en").t("tiles.count", n=1) == "1 tile"
    assert Translator("en").t("tiles.count", n=7) == "7 tiles"
    assert Translator("en").t("tiles.count", n=0) == "0 tiles"
    assert Translator("es").t("tiles.count", n=1) == "1 ficha"
    assert Translator("es").t("tiles.count", n=5) == "5 fichas"
    assert Translator("ms").t("tiles.count", n=1) == "1 batu"
    assert Translator("ms").t("tiles.count", n=5) == "5 batu"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_category_only_names_forms_the_catalog_has(lang):
    for n in range(0, 1001):
        assert plural_category(lang, n) in NEEDED_FORMS[lang], (lang, n)
    for msg_id in COUNTED:
        for n in range(0, 130):
            text = Translator(lang).t(msg_id, n=n)
            assert text == MESSAGES[msg_id][lang][plural_category(lang, n)].format(n=n)
            assert str(n) in text


# ---------------------------------------------------------------------------- languages
@pytest.mark.parametrize(
    "env, lang",
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "ms_MY"}, "ms"),
        ({"LANG": "ms_MY.UTF-8"}, "ms"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "es_419"}, "es"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "de_DE"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
        ({"LANG": ""}, "en"),
        ({"LANG": "ru-RU"}, "ru"),
        ({"LANGUAGE": "de:ru:en"}, "ru"),  # a LANGUAGE list: the first supported one
        ({"LC_ALL": "es_MX.UTF-8", "LANG": "ru_RU.UTF-8"}, "es"),  # LC_ALL wins over LANG
        ({"LC_MESSAGES": "ms_MY", "LANG": "ru_RU"}, "ms"),
        ({"LC_ALL": "", "LANG": "ru_RU.UTF-8"}, "ru"),  # empty values are skipped
        ({"LANG": "de_DE", "LANGUAGE": "es"}, "es"),  # unsupported LANG: keep looking
    ],
)
def test_detect_language_from_the_environment(env, lang):
    assert detect_language(env) == lang


def test_next_language_cycles_through_all_four():
    seen = []
    lang = "en"
    for _ in range(len(LANGUAGES)):
        seen.append(lang)
        lang = next_language(lang)
    assert lang == "en", "four steps come back to English"
    assert sorted(seen) == sorted(LANGUAGES) and len(set(seen)) == 4
    assert [next_language(x) for x in LANGUAGES] == ["es", "ru", "ms", "en"]
    assert next_language("de") == "en"
    assert next_language("") == "en"


def test_translator_falls_back_to_english_and_to_the_id():
    assert Translator("de").lang == "en"
    assert Translator("de").t("btn.hint") == "Hint"
    assert Translator("ru").t("btn.hint") == "Подсказка"
    assert Translator("ru")("btn.hint") == "Подсказка"
    assert Translator("es").t("no.such.message") == "no.such.message"
    assert Translator("es").has("btn.hint") and not Translator("es").has("no.such.message")
    # A missing field never raises: the text comes back unformatted.
    assert Translator("en").t("seat.name") == MESSAGES["seat.name"]["en"]
    assert Translator("ms").t("seat.name", n=3) == "Tempat 3"


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("code", REJECTION_CODES)
def test_every_engine_rejection_code_has_a_message(code):
    assert f"err.{code}" in MESSAGES, code


def _server_codes_at_a_table() -> list[str]:
    """Every code the server answers an action at a table with (``server/errors.py``:
    the ``TableError`` classes, the engine's rejections among them), and a busy server."""
    from server import errors

    found = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.TableError) and "code" in vars(cls)
    }
    return sorted(found | {errors.ServerBusy.code})


@pytest.mark.parametrize("code", _server_codes_at_a_table())
def test_every_code_the_server_answers_at_a_table_is_a_sentence(code):
    """A refusal is said in the player's language, never as the server's English text in
    a "The server refused: …" (seat_not_away, takeback_pending, no_takeback_request…)."""
    assert f"err.{code}" in MESSAGES, code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_error_texts_for_known_and_unknown_codes(lang):
    tr = Translator(lang)
    assert tr.error("not_your_turn") == MESSAGES["err.not_your_turn"][lang]
    assert tr.error("tile_does_not_fit") == MESSAGES["err.tile_does_not_fit"][lang]
    # The last resort is a sentence: never the code, never the server's English text.
    unknown = tr.error("brand_new_code")
    assert unknown == MESSAGES["err.generic"][lang]
    assert "brand_new_code" not in unknown and "{" not in unknown
    assert tr.error("method_not_allowed") == tr.error("bad_request") != unknown


# Codes of the league, matchmaking, accounts and any endpoint that none of the lobby's
# actions (``LobbyService``: sign in, register, tables, join a table or an open seat,
# create, make a bot, join a club, read standings, ratings, matches, statistics) is
# answered with. Each must be a real code; a new code is either given a sentence or
# named here with the reason. They still get the last resort's sentence, never the code.
NOT_THE_LOBBYS = {
    # the organizers' actions (the web's organizer pages; the app has none)
    "organizer_only",
    "not_removed",
    "slug_taken",
    "not_your_bot",
    "round_open",
    "round_has_matches",
    "deadline_in_past",
    "last_organizer",
    "wrong_format",
    "already_in_pair",
    "round_started",
    "season_closed",
    "round_in_progress",
    "not_enough_players",
    "not_enough_house_bots",
    "too_many_hosted_players",
    "too_many_clubs",
    "too_many_seasons",
    "too_many_invites",
    "too_many_rounds",
    "not_a_league_match",
    "deadline_not_passed",
    "not_substitutable",
    # a match's hands, record and analysis (the app reads none of them)
    "match_in_progress",
    "analysis_not_ready",
    "not_analysed",
    # changing a password, closing an account (the web's account page)
    "wrong_password",
    "account_in_play",
    "confirmation_required",
    # a request signed by the web's session (the app signs with its token)
    "csrf_failed",
}
# The lobby's commands (``LobbyService``'s ``name``s): what a refusal answered.
LOBBY_CONTEXTS = (
    "sign_in",
    "resume",
    "sign_out",
    "refresh",
    "create",
    "join",
    "make_bot",
    "join_club",
    "league",
)


def _server_codes_in_the_lobby() -> list[str]:
    """Every code of ``server/errors.py`` outside the tables (the league's, matchmaking's,
    the accounts', any endpoint's) but those the lobby never meets."""
    from server import errors

    groups = (errors.LeagueError, errors.MatchmakingError, errors.AccountError)
    found = {
        cls.code
        for cls in errors.ERROR_CLASSES.values()
        if issubclass(cls, groups) or cls.area == ""
    }
    assert NOT_THE_LOBBYS <= found, sorted(NOT_THE_LOBBYS - found)
    return sorted(found - NOT_THE_LOBBYS)


def test_the_lobby_is_answered_with_the_commands_the_test_knows():
    from clients.table import lobby_service

    names = {
        cls.name
        for cls in vars(lobby_service).values()
        if isinstance(cls, type) and cls.__name__.startswith("_") and "name" in vars(cls)
    }
    assert names == set(LOBBY_CONTEXTS)


@pytest.fixture(scope="module")
def lobbies():
    from clients.table.config import Settings
    from clients.table.lobby import Lobby

    return {lang: Lobby(Settings(), lang=lang, save_settings=False) for lang in LANGUAGES}


@pytest.mark.parametrize("code", _server_codes_in_the_lobby())
def test_every_code_the_lobby_can_meet_is_a_sentence(code, lobbies):
    """not_a_member, no_longer_open, removed_from_club...: said in the player's language
    for whatever the lobby tried, never "The server refused: not_a_member"."""
    for lang, lobby in lobbies.items():
        last_resort = MESSAGES["err.generic"][lang]
        for context in LOBBY_CONTEXTS:
            text = lobby.error_text(code, context)
            assert text != last_resort, (code, lang, context)
            assert code not in text and "{" not in text, (code, lang, context, text)


@pytest.mark.parametrize("code", sorted(NOT_THE_LOBBYS))
def test_a_code_the_lobby_does_not_expect_is_still_a_sentence(code, lobbies):
    for lang, lobby in lobbies.items():
        text = lobby.error_text(code, "refresh")
        assert code not in text and text.strip(), (code, lang, text)


# ---------------------------------------------------------------------------- rules panel
def _text(lang: str) -> str:
    return " ".join([h for h, _ in RULES[lang]] + [p for _, ps in RULES[lang] for p in ps])


def test_rules_exist_in_four_languages_with_the_same_structure():
    assert set(RULES) == set(LANGUAGES)
    shape = {lang: [len(ps) for _, ps in RULES[lang]] for lang in LANGUAGES}
    assert len({len(s) for s in shape.values()}) == 1, f"section counts differ: {shape}"
    assert len(RULES["en"]) >= 8, "sections 1-8 of RULES.md"
    assert all(s == shape["en"] for s in shape.values()), f"paragraph counts differ: {shape}"
    bullets = {
        lang: [sum(p.startswith("• ") for p in ps) for _, ps in RULES[lang]] for lang in LANGUAGES
    }
    assert all(b == bullets["en"] for b in bullets.values()), bullets


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_sections_are_non_empty(lang):
    for number, (heading, paragraphs) in enumerate(RULES[lang], start=1):
        assert isinstance(heading, str) and heading.strip(), (lang, number)
        assert paragraphs, f"{lang}: section {heading!r} has no paragraph"
        for paragraph in paragraphs:
            assert isinstance(paragraph, str) and len(paragraph.strip()) >= 10, (lang, heading)
        if number <= 8:  # the numbered sections of RULES.md, in order
            assert heading.startswith(f"{number}. "), (lang, heading)
    assert len(_text(lang)) > 3000, f"{lang}: too short to be the full rules"


@pytest.mark.parametrize("lang", ["es", "ru", "ms"])
def test_rules_are_translated_not_copied(lang):
    for (en_heading, en_ps), (heading, ps) in zip(RULES["en"], RULES[lang], strict=False):
        assert heading != en_heading or heading.startswith("Dékabès")
        for en_p, p in zip(en_ps, ps, strict=False):
            assert p != en_p, f"{lang}: paragraph left in English: {p[:60]!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_mention_the_key_numbers(lang):
    text = _text(lang)
    assert "6-6" in text, "the first hand opens with 6-6"
    assert "0-0" in text, "the set runs 0-0 to 6-6"
    assert re.search(r"\b28\b", text), "28 tiles"
    assert re.search(r"\b7\b", text), "7 tiles each, 7 doubles"
    assert "1 → 2 → 3 → 4 → 1" in text, "the turn order"
    assert "Dékabès" in text
    # Scoring: base 1 / 2 after a tie, a Dékabès is worth 2 or 4, the match goes to 4.
    scoring = " ".join(RULES[lang][5][1])
    for number in ("1", "2", "4"):
        assert re.search(rf"\b{number}\b", scoring), f"{lang}: scoring does not mention {number}"
    # The loser goes back to 0 (Russian says it in a word: "обнуляется").
    assert re.search(r"\b0\b", scoring) or (lang == "ru" and "обнул" in scoring), lang
    assert re.search(r"\b4\b", RULES[lang][5][1][-1]), f"{lang}: the match is won at 4 points"


def test_rules_paragraphs_name_the_same_tiles_and_counts_in_every_language():
    """Tile names (``4-6``) and pip counts (``3 / 7 / 3 / 9``) survive translation."""
    pattern = re.compile(r"\d-\d|\d+(?: / \d+){3}")
    for s, (_, en_ps) in enumerate(RULES["en"]):
        for p, en_p in enumerate(en_ps):
            expected = sorted(pattern.findall(en_p))
            for lang in ("es", "ru", "ms"):
                got = sorted(pattern.findall(RULES[lang][s][1][p]))
                assert got == expected, (lang, s, p, got, expected)
