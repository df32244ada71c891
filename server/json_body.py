"""The request body parser (kept apart from ``server.errors``: DRF imports it while
``rest_framework.views`` is still loading)."""

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with nesting too deep for the decoder a 400 rather than a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON nested too deeply") from None
