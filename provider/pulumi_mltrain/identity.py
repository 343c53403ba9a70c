"""The module path that states name for the stack identity's provider (`pulumi_mltrain.identity:
StackIdentityProvider`, pickled into every stack's state): the identity lives in `stack_identity.py`."""

from .stack_identity import StackIdentity, StackIdentityProvider, stack_identity

__all__ = ["StackIdentity", "StackIdentityProvider", "stack_identity"]
