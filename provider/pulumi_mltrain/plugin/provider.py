"""The native plugin face: a thin adapter from the engine's provider requests to the resources'
`Handler`s (`handler.py`), calling only their public operations.

Every guarantee and rule is the handlers' own (ownership marks, not-found only on the platform's code,
wall-clock deadlines, rollback, drift read-back, the credential check at check, the diff of an imported
state, the outputs a state keeps, the preview's mark of a step that starts a run): this module
translates between gRPC's properties and the handler's values, and adds what the engine gives a
plugin and not a dynamic provider, namely
- the owner (a stack identity from `owner.py` and the request's URN) and the account identity,
  added to the inputs at check, as the dynamic program side adds them; the URN is the request's at
  every call, and no state keeps it (`names.owned`);
- the engine's `timeout` (the resource's customTimeouts), passed to the operation, which uses it
  unless the `timeouts` input sets one;
- import: `Handler.import_object` reads the object's inputs back and takes it over through the same
  path as `adopt_id`;
- a partially created resource (a create that failed after its object came to exist, found by
  `Handler.survivor`, or one the engine cancelled): the engine keeps its ID and `Handler.partial`'s
  state, and the next update finishes the create (`Handler.update`), waiting for it as a create does;
- property names: schema.json's camelCase names in and out, and the move of a state written before
  0.2 to them (`names.py`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from importlib import resources
from typing import Any

from pulumi.provider.experimental import provider as p

from .. import __version__, cancel, registry
from .. import spec as specs
from ..accounts import ACCOUNT_KEY
from ..config import Settings
from ..errors import MltrainError
from ..handler import Created, Handler, Outcome
from ..ownership import IMPORTED_KEY, INTERNAL_PREFIX, STACK_KEY, URN_KEY, derived_stack_identity
from . import names, sdk
from .invokes import invoke
from .owner import STACK_IDENTITY_VARIABLE, account_identity


def resource_handlers() -> dict[str, registry.Resource]:
    """Type token -> its registry entry (whose handler serves it)."""
    return {r.token: r for r in registry.RESOURCES}


RESOURCES = resource_handlers()


class MltrainPlugin(p.Provider):
    """The `mltrain` provider: one configured `Handler` per resource type, made on first use."""

    def __init__(self) -> None:
        self._variables: dict[str, str] = {}
        self._handlers: dict[str, Handler[Any, Any, Any]] = {}
        self._lock = threading.Lock()

    # ----- provider-wide -----------------------------------------------------------------------
    async def get_schema(self, request: p.GetSchemaRequest) -> p.GetSchemaResponse:
        # Generated at build time (`python -m tools.generate`) and shipped in the wheel.
        text = (resources.files("pulumi_mltrain") / "schema.json").read_text(encoding="utf-8")
        return p.GetSchemaResponse(schema=text)

    async def configure(self, request: p.ConfigureRequest) -> p.ConfigureResponse:
        """Settings from the provider's variables (`mltrain:*` keys), and no output values. Previews call
        Create and Update (`supports_preview`) only so that an update that renames a state's properties
        (see `diff`) previews its renamed outputs; every other preview answers what the engine would
        without it: the checked inputs, derived outputs included."""
        variables = provider_variables(request)
        Settings.load(variables)  # a malformed endpoint or number fails here, naming the key
        self._variables = variables
        return p.ConfigureResponse(accept_secrets=True, supports_preview=True, accept_resources=False,
                                   accept_outputs=False)

    async def cancel(self) -> None:
        """The engine cancels (an interrupted `pulumi up`, or before it closes the plugin): every wait ends
        now, and a create that was waiting records its object as unfinished (`cancel.py`)."""
        cancel.signal()

    async def invoke(self, request: p.InvokeRequest) -> p.InvokeResponse:
        args, _ = sdk.plain(request.args)
        try:
            result = await sdk.run_sync(invoke, request.tok, args, self._variables)
        except LookupError as err:
            return p.InvokeResponse(failures=[p.CheckFailure("", str(err))])
        return p.InvokeResponse(return_value=sdk.wrap(result))

    def _handler(self, token: str) -> Handler[Any, Any, Any]:
        with self._lock:
            found = self._handlers.get(token)
            if found is None:
                entry = RESOURCES.get(token)
                if entry is None:
                    raise MltrainError(f"unknown resource type {token}; this provider has {', '.join(RESOURCES)}")
                found = entry.handler()
                found.configure(Settings.load(self._variables))
                self._handlers[token] = found
            return found

    def _owner_inputs(self, token: str, urn: str) -> dict[str, Any]:
        handler = self._handler(token)
        platform = token.split(":")[1]
        return {STACK_KEY: derived_stack_identity(urn, self._variables.get(STACK_IDENTITY_VARIABLE)), URN_KEY: urn,
                ACCOUNT_KEY: account_identity(handler.settings, platform)}

    # ----- resources ---------------------------------------------------------------------------
    async def check(self, request: p.CheckRequest) -> p.CheckResponse:
        handler = self._handler(request.type)
        olds = names.fields(handler, sdk.plain(request.old_inputs)[0])
        news, secret = sdk.plain(request.new_inputs)
        news = {k: v for k, v in names.fields(handler, news).items() if not k.startswith(INTERNAL_PREFIX)}
        news.update(self._owner_inputs(request.type, request.urn))
        result = await sdk.run_sync(handler.check, olds, news)
        failures = [p.CheckFailure(names.path(handler, f.property), f.reason) for f in result.failures]
        return p.CheckResponse(inputs=names.wrap(handler, result.inputs, secret), failures=failures)

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        handler = self._handler(request.type)
        raw = sdk.plain(request.old_state)[0]
        olds = names.owned(handler, raw, request.urn)
        news = names.owned(handler, sdk.plain(request.new_inputs)[0], request.urn)
        result = await sdk.run_sync(handler.diff, olds, news, request.resource_id)
        changed, replaces = result.changed, result.replaces  # with a partial create's key: its update finishes it
        if names.renames_only(handler, raw, changed):
            return p.DiffResponse(changes=True, replaces=[], delete_before_replace=result.delete_before_replace,
                                  diffs=[], detailed_diff={})
        detailed = {names.path(handler, k): p.PropertyDiff(_kind(k in replaces, k in olds, k in news), True)
                    for k in changed}
        return p.DiffResponse(changes=bool(changed), replaces=[names.path(handler, k) for k in replaces],
                              delete_before_replace=result.delete_before_replace,
                              diffs=[names.path(handler, k) for k in changed], detailed_diff=detailed)

    async def create(self, request: p.CreateRequest) -> p.CreateResponse:
        handler = self._handler(request.type)
        if request.preview:  # the checked inputs, with what the handler marks in a create's preview
            return p.CreateResponse(resource_id="",
                                    properties={**request.properties, **names.marks(handler.preview_create())})
        props, secret = sdk.plain(request.properties)
        props = names.owned(handler, props, request.urn)
        try:
            result = await sdk.run_sync(lambda: handler.create(props, timeout=request.timeout))
        except MltrainError as err:
            survivor = await sdk.run_sync(handler.survivor, props)
            if survivor is None:
                raise
            state = handler.partial(props, request.timeout)
            raise sdk.PartialCreate(
                f"{err}. {handler.noun.capitalize()} {survivor} exists and is recorded in the state as partially "
                "created: `pulumi destroy` removes it, and the next `pulumi up` goes on with it",
                survivor, names.wrap(handler, state, secret), names.wrap(handler, state, secret)) from None
        if result.unfinished:  # cancelled while it waited: the next update goes on with it
            result = Created(result.id, handler.partial(result.outputs, request.timeout))
        _raise_problem(handler, result, result.id, secret)
        return p.CreateResponse(resource_id=result.id, properties=names.wrap(handler, result.outputs, secret))

    async def read(self, request: p.ReadRequest) -> p.ReadResponse:
        handler = self._handler(request.type)
        props, secret = sdk.plain(request.properties)
        inputs, in_secret = sdk.plain(request.inputs)
        props, inputs = names.fields(handler, props), names.fields(handler, inputs)
        if not props and not inputs:
            # The imported state is marked as such (in its outputs and inputs): its diff is the
            # handler's rule for an import (`takeover.imported_unchanged`).
            owner = {**self._owner_inputs(request.type, request.urn), IMPORTED_KEY: True}
            imported = await sdk.run_sync(handler.import_object, request.resource_id, owner)
            return p.ReadResponse(resource_id=request.resource_id,
                                  properties=names.wrap(handler, _secret_values(handler, imported.outputs)),
                                  inputs=names.wrap(handler, _secret_values(handler, imported.inputs)))
        result = await sdk.run_sync(handler.read, request.resource_id, {**inputs, **props, URN_KEY: request.urn})
        if result is None:
            return p.ReadResponse(resource_id="", properties={}, inputs={})
        keys = secret | in_secret
        return p.ReadResponse(resource_id=result.id, properties=names.wrap(handler, result.outputs, keys),
                              inputs=names.wrap(handler, inputs if result.inputs is None else result.inputs, keys))

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        handler = self._handler(request.type)
        raw, old_secret = sdk.plain(request.olds)
        olds = names.owned(handler, raw, request.urn)
        news, secret = sdk.plain(request.news)
        news = names.owned(handler, news, request.urn)
        if names.old_names(handler, raw) and not (await sdk.run_sync(handler.diff, olds, news)).changed:
            # Only the names change (see `diff`): the state as it is, under the schema's names.
            return p.UpdateResponse(properties=names.wrap(handler, olds, old_secret | secret))
        if request.preview:
            return p.UpdateResponse(properties=request.news)  # the checked inputs
        result = await sdk.run_sync(lambda: handler.update(request.resource_id, olds, news, timeout=request.timeout))
        _raise_problem(handler, result, request.resource_id, secret)
        return p.UpdateResponse(properties=names.wrap(handler, result.outputs, secret))

    async def delete(self, request: p.DeleteRequest) -> None:
        handler = self._handler(request.type)
        props = names.owned(handler, sdk.plain(request.properties)[0], request.urn)
        await sdk.run_sync(lambda: handler.delete(request.resource_id, props, timeout=request.timeout))


def _raise_problem(handler: Handler[Any, Any, Any], result: Outcome, object_id: str, secret: Iterable[str]) -> None:
    """A held failure or an unfinished wait is recorded and still fails the step: the engine keeps the
    object's ID and state as a partially created resource (an initialization error), and retries it with
    an update at the next `pulumi up` (which goes on waiting, or fails again on the held failure)."""
    problem = result.problem
    if problem:
        state = names.wrap(handler, result.outputs, secret)
        raise sdk.PartialCreate(problem, object_id, state, state)


def provider_variables(request: p.ConfigureRequest) -> dict[str, str]:
    """The provider's settings as `mltrain:<key>` strings, as the stack config writes them: from its
    typed arguments, else from the variables (which the engine names `mltrain:config:<key>`)."""
    out: dict[str, str] = {}
    for key, value in request.variables.items():
        package, _, name = key.partition(":")
        if package == "mltrain":
            out[f"mltrain:{name.removeprefix('config:')}"] = value
    args, _ = sdk.plain(request.args)
    for name, value in args.items():
        if value is None or specs.is_unknown(value):
            continue
        whole = isinstance(value, float) and value.is_integer()
        out[f"mltrain:{name}"] = value if isinstance(value, str) else json.dumps(int(value) if whole else value)
    return out


def _kind(replace: bool, in_old: bool, in_new: bool) -> p.PropertyDiffKind:
    k = p.PropertyDiffKind
    if not in_old:
        return k.ADD_REPLACE if replace else k.ADD
    if not in_new:
        return k.DELETE_REPLACE if replace else k.DELETE
    return k.UPDATE_REPLACE if replace else k.UPDATE


def _secret_values(handler: Handler[Any, Any, Any], values: dict[str, Any]) -> dict[str, Any]:
    """An import's values with each value of an environment map (`redact` fields) secret: they may be
    credentials and the platform does not say which. Secret one by one, not as a whole map, because
    the code `pulumi import` writes keeps secret() only on scalar values."""
    out = dict(values)
    for name, meta in specs.field_metas(handler.spec_type):
        if meta.redact and isinstance(out.get(name), dict):
            out[name] = sdk.wrap(out[name], out[name])
    return out


def serve_plugin(argv: list[str] | None = None) -> None:
    sdk.serve(MltrainPlugin(), __version__, argv)
