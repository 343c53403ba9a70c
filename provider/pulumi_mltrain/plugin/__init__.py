"""The native provider plugin `mltrain`: the same specs, clients and waiters as the dynamic resources,
served to the engine as a resource provider (`pulumi-resource-mltrain`).

- `sdk.py`: everything that works around the SDK's experimental provider package (values, errors,
  the server, its thread pool and its engine watch), in one place;
- `provider.py`: one generic adapter from the engine's requests to the resources' `Handler`s;
- `names.py`: schema.json's camelCase property names, and the move of states written before 0.2;
- `owner.py`: the owner (stack identity) and account identity a plugin can know;
- `invokes.py`: the program-time functions of schema.json as invokes.
"""

from __future__ import annotations


def main() -> None:
    """Console script `pulumi-resource-mltrain ENGINE_ADDRESS`: run the plugin's gRPC server."""
    from .provider import serve_plugin

    serve_plugin()
