"""Hostile input: `check` of every resource returns checked inputs or field-named failures, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_mltrain import registry
from pulumi_mltrain.handler import Handler
from pulumi_mltrain.platform_calls import PlatformCalls

PROVIDERS = [r.calls() for r in sorted(registry.RESOURCES, key=lambda r: r.kind)]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=40))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)


def props_for(provider: type[PlatformCalls[Any, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    names = [*provider.spec_type.model_fields, "bogus_field"]
    return st.dictionaries(st.sampled_from(names), values, max_size=len(names))


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.kind + "@" + p.__module__ for p in PROVIDERS])
def test_check_never_raises(provider: type[PlatformCalls[Any, Any]]) -> None:
    instance = Handler(provider)
    instance.configure(instance.settings.model_copy())  # no credentials: no catalogue calls
    fields = set(provider.spec_type.model_fields) | {"bogus_field"}

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(props_for(provider))
    def run(props: dict[str, Any]) -> None:
        result = instance.check({}, {**props, "__provider": "blob"})
        assert result.inputs["__provider"] == "blob"
        for failure in result.failures:
            root = failure.property.split(".")[0].split("[")[0]
            assert root in fields, failure.property
            assert failure.reason.startswith(f"{provider.kind}: {failure.property} ")

    run()
