"""The program side's placement and declarations: what the engine tests rely on, checked without it.

Placement must be stable (the same shard for a resource on every run and machine) and move few
resources when the number of processes changes; every attribute the generated classes annotate as
never None must be declared (or be a required argument or the ID).
"""

from __future__ import annotations

import ast
import inspect

from pulumi_mltrain import alaya, modelarts, registry
from pulumi_mltrain.spread import jump_hash, shard_of

TYPE = "pulumi-python:dynamic/alaya:TrainingJob"


def test_a_resource_keeps_its_shard_across_runs() -> None:
    # Pinned values (sha256 of type and name, no per-process hash seed): a change here would move
    # resources of existing stacks between processes on their next `up`.
    assert [shard_of(TYPE, f"job-{i}", 3) for i in range(8)] == [1, 1, 0, 0, 1, 1, 2, 2]
    assert shard_of(TYPE, "job-0", 1) == 0
    assert [jump_hash(k, 10) for k in (0, 1, 2**63, 2**64 - 1)] == [0, 6, 5, 9]


def test_more_processes_move_few_resources() -> None:
    names = [f"job-{i}" for i in range(400)]
    for k in range(1, 8):
        before = [shard_of(TYPE, n, k) for n in names]
        after = [shard_of(TYPE, n, k + 1) for n in names]
        moved = [b for b, a in zip(before, after, strict=True) if a != b]
        assert all(a == k for b, a in zip(before, after, strict=True) if a != b), "moves go to the new shard only"
        assert len(moved) < 2 * len(names) / (k + 1), (k, len(moved))
        assert set(after) == set(range(k + 1))


def _annotations(cls: type) -> dict[str, str]:
    """The `if TYPE_CHECKING:` attribute annotations of a generated class, as source text."""
    tree = ast.parse(inspect.getsource(cls))
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = ast.unparse(node.annotation)
    return out


def test_every_attribute_typed_as_never_none_is_declared() -> None:
    for decl in registry.RESOURCES:
        cls = getattr({"alaya": alaya, "modelarts": modelarts}[decl.family], decl.name)
        required = {name for name, p in inspect.signature(cls.__init__).parameters.items()
                    if p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.KEYWORD_ONLY}
        annotated = _annotations(cls)
        assert annotated, cls
        for attr, text in annotated.items():
            if "None" in text:
                continue  # may read as None: given or not
            assert attr in (*cls._declared(), *cls._id_fields, *required), (decl.name, attr, text)
