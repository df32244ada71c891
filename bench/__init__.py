"""Benchmarks and yardsticks: scripts that print figures, outside the product.

Speed and memory targets are checked here, never by timed unit tests. Each module runs
as ``python -m bench.<module>`` (the Makefile's ``bench-*`` targets); the engine's own
``python -m engine bench`` stays in the engine, part of its command line. Product code
never imports this package (the old module names that forwarded here, such as
``python -m server.bench``, are gone: ``python -m bench.<module>`` is the one name).
"""
