"""The module path that 0.1 states name for the stack identity's provider (`pulumi_mltrain.identity:
StackIdentityProvider`, pickled into every stack's state): the provider lives in `stack_identity.py`, the
resource in `program/stack_identity.py`. Only the provider is re-exported: a provider process that loads
a 0.1 state loads nothing of the program side."""

from .stack_identity import StackIdentityProvider

__all__ = ["StackIdentityProvider"]
