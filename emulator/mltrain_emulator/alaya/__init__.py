"""Alaya NeW: its Open API (``api``), the emulator's statement of the platform (``contract``), the create
body's checks (``validation``), the subscription and task state machines (``lifecycle``), the seeded
products and storages (``catalog``), the stored objects (``records``) and the error envelope (``errors``).

It builds on the package's top level and imports nothing of ``mltrain_emulator.modelarts``.
"""
