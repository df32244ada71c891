"""The desktop table: a pygame-ce thin client (``python -m clients.table``).

``app`` decides what to show and what input means, keeping its state in ``state``'s
dataclasses and lending itself to its helpers as ``context``'s Protocols; ``render``
(one module per screen) and ``draw`` paint it, ``layout`` is the geometry, ``input``
turns mouse/finger/keys into commands, ``connection`` is the SDK in a worker thread,
``local`` and ``startup`` start the embedded server and bots behind the open window,
``lobby`` is the lobby, ``i18n`` holds every text in English, Spanish, Russian and Malay.
"""
