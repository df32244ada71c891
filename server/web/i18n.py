"""The web pages' catalogues (locale/<lang>/LC_MESSAGES/django.po), kept with Babel so
no gettext tools are needed: ``python -m server.web.i18n update|compile|check``.

- ``update`` extracts every message of the web app (Python sources, and templates via
  Django's own ``templatize``, the step ``makemessages`` uses) and merges it into each
  language's ``.po``; English gets its msgids as translations.
- ``compile`` writes the ``.mo`` files Django reads.
- ``check`` lists what is wrong: a page string without a translation, a fuzzy entry, a
  placeholder that differs from its msgid, a ``.mo`` out of date. Exit 1 if anything.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_python
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "server" / "web"
MAIL = ROOT / "server" / "mail"  # the members' mail: its kinds, subjects and templates
LOCALE = ROOT / "locale"
LANGUAGES = ("en", "es", "ru", "ms")
SOURCE_LANGUAGE = "en"
DOMAIN = "django"
KEYWORDS = {
    "_": None,
    "gettext": None,
    "gettext_lazy": None,
    "ngettext": (1, 2),
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}


def _django_setup() -> None:
    # Django is loaded only by ``update`` (templatize needs the settings): ``compile`` and
    # ``check`` run without it.
    import django
    from django.conf import settings

    if not settings.configured:
        import os

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
        django.setup()


def source_files() -> list[Path]:
    files = [p for p in APP.rglob("*.py") if p.name != "i18n.py"]
    files += sorted(APP.rglob("*.html"))
    files += [p for p in MAIL.rglob("*.py") if "migrations" not in p.parts]
    files += sorted(MAIL.rglob("*.txt"))
    return sorted(files)


def extract() -> Catalog:
    """Every translatable message of the web app, with where it is used."""
    _django_setup()
    from django.utils.translation.template import templatize

    template = Catalog(domain=DOMAIN)
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".html", ".txt"):
            # templatize keeps the template's indentation, which Python's tokenizer reads.
            text = "\n".join(
                line.lstrip() for line in templatize(text, origin=str(path)).splitlines()
            )
        found = extract_python(
            io.BytesIO(text.encode("utf-8")), KEYWORDS, [], {"encoding": "utf-8"}
        )
        for lineno, func, args, _comments in found:
            message, context = _message_of(str(func), args)
            if message is None:
                continue
            flags = (
                ("python-format",)
                if "%(" in (message if isinstance(message, str) else message[0])
                else ()
            )
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            template.add(message, None, [(str(where), lineno)], flags=flags, context=context)
    return template


def _message_of(func: str, args) -> tuple[str | tuple | None, str | None]:
    """(msgid or (singular, plural), context) of one extracted call; None if not literal."""
    args = args if isinstance(args, tuple) else (args,)
    context = None
    if func.startswith(("pgettext", "npgettext")):
        context, args = args[0], args[1:]
    plural = func.startswith(("ngettext", "npgettext"))
    message = tuple(args[:2]) if plural else args[0]
    if not message or (plural and not all(message)):
        return None, None
    return message, context


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(
            locale=lang,
            domain=DOMAIN,
            project="Dékabès",
            version="1",
            copyright_holder="the Dékabès authors",
            fuzzy=False,
            msgid_bugs_address="",
            language_team=lang,
            last_translator="Dékabès",
        )
    with path.open("rb") as handle:
        return read_po(handle, locale=lang, domain=DOMAIN)


def update() -> None:
    for lang in LANGUAGES:
        catalog = read_catalog(lang)
        # A fresh template each time: Catalog.update shares message objects with it.
        catalog.update(extract(), no_fuzzy_matching=True)
        catalog.obsolete.clear()
        if lang == SOURCE_LANGUAGE:
            for message in catalog:
                if message.id and not _translated(message):
                    message.string = message.id
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, catalog, width=100, omit_header=False, sort_output=False)


def compile_all() -> None:
    for lang in LANGUAGES:
        catalog = read_catalog(lang)
        with po_path(lang).with_suffix(".mo").open("wb") as handle:
            write_mo(handle, catalog, use_fuzzy=False)


def _translated(message) -> bool:
    if isinstance(message.string, (list, tuple)):
        return all(message.string)
    return bool(message.string)


def check() -> list[str]:
    """Every problem of the catalogues, as lines for a person to read."""
    problems = []
    wanted = {m.id if not isinstance(m.id, list) else tuple(m.id) for m in extract() if m.id}
    for lang in LANGUAGES:
        catalog = read_catalog(lang)
        have = {}
        for message in catalog:
            if message.id:
                have[message.id if not isinstance(message.id, list) else tuple(message.id)] = (
                    message
                )
        for msgid in sorted(wanted, key=str):
            key = msgid[0] if isinstance(msgid, tuple) else msgid
            found = have.get(msgid) or catalog.get(key)
            if found is None:
                problems.append(f"{lang}: no entry for {key!r}")
            elif not _translated(found):
                problems.append(f"{lang}: no translation of {key!r}")
            elif found.fuzzy:
                problems.append(f"{lang}: fuzzy translation of {key!r}")
        for message, errors in catalog.check():
            for error in errors:
                problems.append(f"{lang}: {message.id!r}: {error}")
        problems += _stale_mo(lang, catalog)
    return problems


def _key(value):
    return tuple(value) if isinstance(value, (list, tuple)) else value


def _stale_mo(lang: str, catalog: Catalog) -> list[str]:
    path = po_path(lang).with_suffix(".mo")
    if not path.exists():
        return [f"{lang}: {path.relative_to(ROOT)} is missing (python -m server.web.i18n compile)"]
    with path.open("rb") as handle:
        compiled = read_mo(handle)

    def table(cat):
        return {
            (_key(m.id), m.context): _key(m.string)
            for m in cat
            if m.id and not m.fuzzy and _translated(m)
        }

    if table(compiled) != table(catalog):
        return [
            f"{lang}: {path.relative_to(ROOT)} is out of date (python -m server.web.i18n compile)"
        ]
    return []


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        problems = check()
        print("\n".join(problems) or "catalogues complete")
        return 1 if problems else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
