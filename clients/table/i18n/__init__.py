"""Translations of the table client: ``Translator(lang).t(id, **fields)``.

Counted messages take ``n`` and pick their plural form by the language's rule
(``plural_category``): Russian has one / few / many (1 кость, 2 кости, 5 костей,
21 кость, 11 костей), English and Spanish one / other, Malay a single form.
"""

from __future__ import annotations

import locale
import os

from clients.table.i18n.catalog import ERROR_SAME_AS, LANGUAGES, MESSAGES, PLURAL_CATEGORIES

__all__ = [
    "LANGUAGES",
    "MESSAGES",
    "PLURAL_CATEGORIES",
    "Translator",
    "plural_category",
    "detect_language",
    "next_language",
]


def plural_category(lang: str, n: int) -> str:
    n = abs(int(n))
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang in ("en", "es"):
        return "one" if n == 1 else "other"
    return "other"


def detect_language(environ: dict | None = None) -> str:
    """The first supported language of the system locale; English otherwise."""
    env = os.environ if environ is None else environ
    candidates = [env.get(k) for k in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")]
    if environ is None:
        try:
            candidates.append(locale.getlocale()[0])
        except (ValueError, TypeError):
            pass
    for value in candidates:
        if not value:
            continue
        for part in str(value).split(":"):
            code = part.strip().lower().replace("-", "_").split("_")[0].split(".")[0]
            if code in ("ms", "may", "msa"):
                return "ms"
            if code in LANGUAGES:
                return code
    return "en"


def next_language(lang: str) -> str:
    return LANGUAGES[(LANGUAGES.index(lang) + 1) % len(LANGUAGES)] if lang in LANGUAGES else "en"


class Translator:
    def __init__(self, lang: str = "en"):
        self.lang = lang if lang in LANGUAGES else "en"

    def has(self, msg_id: str) -> bool:
        return msg_id in MESSAGES

    def t(self, msg_id: str, **fields) -> str:
        entry = MESSAGES.get(msg_id)
        if entry is None:
            return msg_id
        value = entry.get(self.lang, entry.get("en"))
        if isinstance(value, dict):
            n = fields.get("n", 0)
            value = value.get(plural_category(self.lang, n)) or next(iter(value.values()))
        try:
            return str(value).format(**fields)
        except (KeyError, IndexError, ValueError):
            return str(value)

    __call__ = t

    def count(self, msg_id: str, n: int) -> str:
        return self.t(msg_id, n=n)

    def error(self, code: str) -> str:
        """A refusal in the player's language: its code's sentence, else one that says the
        server did not accept it (never the code, never the server's English text)."""
        code = ERROR_SAME_AS.get(code, code)
        return self.t(f"err.{code}" if f"err.{code}" in MESSAGES else "err.generic")
