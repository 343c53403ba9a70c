"""The module path that 0.1 states name for the stack identity's provider (`pulumi_mltrain.identity:
StackIdentityProvider`, pickled into every stack's state): the provider lives in `stack_identity.py`, the
resource in `program/stack_identity.py`."""

from .program.stack_identity import StackIdentity, stack_identity
from .stack_identity import StackIdentityProvider

__all__ = ["StackIdentity", "StackIdentityProvider", "stack_identity"]
