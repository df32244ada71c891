"""Benchmarks and yardsticks: scripts that print figures, outside the product.

Speed and memory targets are checked here, never by timed unit tests. Each module runs
as ``python -m bench.<module>`` (the Makefile's ``bench-*`` targets); the engine's own
``python -m engine bench`` stays in the engine, part of its command line. Product code
never imports this package: the old module names (``python -m server.bench``,
``server.bench_abuse``, ``server.league.bench``, ``server.web.bench``) are kept as
forwarders of a few lines that call ``main`` here.
"""
