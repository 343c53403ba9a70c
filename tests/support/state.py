"""Reading a `pulumi stack export` in tests: the state file's secrets."""

from __future__ import annotations

from typing import Any

SECRET_SIG = "4dabf18193072939515e22adb298388d"  # the key that marks a secret value in a state


def without_ciphertext(value: Any) -> Any:
    """`value` with every secret the state encrypts replaced by one stand-in. The engine encrypts each
    secret again (a new nonce) whenever it writes the state, and decrypts it before a call, so equal
    secrets are equal here."""
    if isinstance(value, dict):
        if SECRET_SIG in value:
            return "[secret]"
        return {k: without_ciphertext(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_ciphertext(v) for v in value]
    return value
