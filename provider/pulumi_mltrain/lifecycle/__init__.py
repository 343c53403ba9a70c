"""The lifecycles every resource shares, each written once and driven by the few primitives a platform
supplies (`protocol.py`): idempotent create with resend (`resend.py`), record after wait (`record.py`),
roll-back (`rollback.py`), stop, remove and confirm gone (`removal.py`). They hold no client and no
settings: a platform's implementation of the protocol brings both, and the operation's one deadline
(`deadline.py`) bounds every call and wait they make.
"""
