"""The desktop table: a pygame-ce thin client (``python -m clients.table``).

``app`` decides what to show and what input means, ``render``/``draw`` paint it,
``layout`` is the geometry, ``input`` turns mouse/finger/keys into commands,
``connection`` is the SDK in a worker thread, ``local`` starts the embedded server
and bots, ``i18n`` holds every text in English, Spanish, Russian and Malay.
"""
