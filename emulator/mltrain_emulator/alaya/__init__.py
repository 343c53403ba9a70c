"""Alaya NeW: its Open API (``api``), the emulator's statement of the platform (``contract``), the create
body's checks (``validation``) and the subscription and task state machines (``lifecycle``).
"""
