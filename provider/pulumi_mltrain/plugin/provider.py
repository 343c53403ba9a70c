"""The native plugin face: a thin adapter from the engine's provider requests to the resources'
`Handler`s (`handler.py`), calling only their public operations.

Every guarantee is the handlers' own (ownership marks, not-found only on the platform's code,
wall-clock deadlines, rollback, drift read-back, the credential check at check): this module only adds
what the engine gives a plugin and not a dynamic provider, namely
- the owner (a stack identity from `owner.py` and the request's URN) and the account identity,
  added to the inputs at check, as the dynamic program side adds them;
- the engine's `timeout` (the resource's customTimeouts), passed to the operation, which uses it
  unless the `timeouts` input sets one;
- import: `Handler.import_object` reads the object's inputs back and takes it over through the same
  path as `adopt_id`;
- a partially created resource (a create that failed after its object came to exist, found by
  `Handler.survivor`): the next update finishes the create through `Handler.resume`, which waits for
  it as a create does;
- property names: the engine and every SDK speak schema.json's camelCase names (`productCode`), the
  handlers the spec's field names (`product_code`). Every request is read in either form (states
  written before 0.2 hold the field names, and a resource left unchanged keeps its old outputs until
  its next update or refresh) and every answer is written in the schema's names (`spec.to_field_names`
  and back), so an old state moves to the new names without a replace and without a platform call.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from importlib import resources
from typing import Any

from pulumi.provider.experimental import provider as p

from .. import __version__, cancel, registry, runs
from .. import spec as specs
from ..accounts import ACCOUNT_KEY
from ..config import Settings
from ..errors import MltrainError
from ..handler import Handler, Outcome, Updated
from ..ownership import ATTEMPT_KEY, IMPORTED_KEY, INTERNAL_PREFIX, STACK_KEY, URN_KEY, derived_stack_identity
from . import sdk
from .invokes import invoke
from .owner import STACK_IDENTITY_VARIABLE, account_identity


def resource_handlers() -> dict[str, registry.Resource]:
    """Type token -> its registry entry (whose handler serves it)."""
    return {r.token: r for r in registry.RESOURCES}


RESOURCES = resource_handlers()
# Marks the state of a create that failed after its object came to exist (see `Handler.survivor`);
# its value is the engine's create timeout in seconds (True when it gave none).
PARTIAL_KEY = f"{INTERNAL_PREFIX}partial"


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
        olds = _fields(handler, sdk.plain(request.old_inputs)[0])
        news, secret = sdk.plain(request.new_inputs)
        news = {k: v for k, v in _fields(handler, news).items() if not k.startswith(INTERNAL_PREFIX)}
        news.update(self._owner_inputs(request.type, request.urn))
        result = await sdk.run_sync(handler.check, olds, news)
        failures = [p.CheckFailure(_path(handler, f.property), f.reason) for f in result.failures]
        return p.CheckResponse(inputs=_wrap(handler, result.inputs, secret), failures=failures)

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        handler = self._handler(request.type)
        raw = sdk.plain(request.old_state)[0]
        olds = _fields(handler, raw)
        news = _fields(handler, sdk.plain(request.new_inputs)[0])
        imported = bool(olds.pop(IMPORTED_KEY, False))
        result = await sdk.run_sync(handler.diff, olds, news, request.resource_id)
        changed, replaces = list(result.changed), list(result.replaces)
        if olds.get(PARTIAL_KEY) and PARTIAL_KEY not in changed:
            changed.append(PARTIAL_KEY)  # the create is to be finished (update)
        if imported:
            # What the declaration leaves to the platform (and the platform's spelling of declared
            # values) is no change: the imported inputs are the platform's complete copy.
            covered = _covered(handler, olds, news, changed)
            changed = [k for k in changed if k not in covered]
            replaces = [k for k in replaces if k not in covered]
        if not changed and _old_names(handler, raw):
            # A state written before 0.2 (field names): an update that renames it and calls nothing, so that
            # resources built from its outputs read them by the schema's names, in the preview too. A state
            # left as it is would hand them the old names, which they would read as missing (and replace).
            return p.DiffResponse(changes=True, replaces=[], delete_before_replace=result.delete_before_replace,
                                  diffs=[], detailed_diff={})
        detailed = {_path(handler, k): p.PropertyDiff(_kind(k in replaces, k in olds, k in news), True)
                    for k in changed}
        return p.DiffResponse(changes=bool(changed), replaces=[_path(handler, k) for k in replaces],
                              delete_before_replace=result.delete_before_replace,
                              diffs=[_path(handler, k) for k in changed], detailed_diff=detailed)

    async def create(self, request: p.CreateRequest) -> p.CreateResponse:
        if request.preview:
            # The checked inputs; a training job's create starts a run (its first, or a replacement):
            # marked for the policy new-run-budget, which is given no step (see runs.RUN_STARTS).
            properties = request.properties
            if self._handler(request.type).runs is not None:
                properties = {**properties, **sdk.wrap({specs.property_name(runs.RUN_STARTS): True})}
            return p.CreateResponse(resource_id="", properties=properties)
        handler = self._handler(request.type)
        props, secret = sdk.plain(request.properties)
        props = _fields(handler, props)
        try:
            result = await sdk.run_sync(lambda: handler.create(props, timeout=request.timeout))
        except MltrainError as err:
            survivor = await sdk.run_sync(handler.survivor, props)
            if survivor is None:
                raise
            # The engine's create timeout is kept: the update that finishes this create gets only
            # the update timeout from the engine, and the create's deadline is the one that applies.
            state = {**props, PARTIAL_KEY: request.timeout or True}
            raise sdk.PartialCreate(
                f"{err}. {handler.noun.capitalize()} {survivor} exists and is recorded in the state as partially "
                "created: `pulumi destroy` removes it, and the next `pulumi up` goes on with it",
                survivor, _wrap(handler, state, secret), _wrap(handler, state, secret)) from None
        if result.unfinished:
            # Cancelled while it waited: resumed by the next update, within this create timeout.
            result = type(result)(result.id, {**result.outputs, PARTIAL_KEY: request.timeout or True})
        _raise_problem(handler, result, result.id, secret)
        return p.CreateResponse(resource_id=result.id,
                                properties=_wrap(handler, _present(handler, result.outputs), secret))

    async def read(self, request: p.ReadRequest) -> p.ReadResponse:
        handler = self._handler(request.type)
        props, secret = sdk.plain(request.properties)
        inputs, in_secret = sdk.plain(request.inputs)
        props, inputs = _fields(handler, props), _fields(handler, inputs)
        if not props and not inputs:
            # The imported state is marked as such (in its outputs and inputs): see `diff`.
            owner = {**self._owner_inputs(request.type, request.urn), IMPORTED_KEY: True}
            imported = await sdk.run_sync(handler.import_object, request.resource_id, owner)
            return p.ReadResponse(resource_id=request.resource_id,
                                  properties=_wrap(handler, _secret_values(handler, imported.outputs)),
                                  inputs=_wrap(handler, _secret_values(handler, imported.inputs)))
        result = await sdk.run_sync(handler.read, request.resource_id, {**inputs, **props})
        if result is None:
            return p.ReadResponse(resource_id="", properties={}, inputs={})
        keys = secret | in_secret
        return p.ReadResponse(resource_id=result.id, properties=_wrap(handler, _present(handler, result.outputs), keys),
                              inputs=_wrap(handler, result.inputs, keys))

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        handler = self._handler(request.type)
        raw, old_secret = sdk.plain(request.olds)
        olds = _fields(handler, raw)
        news, secret = sdk.plain(request.news)
        news = _fields(handler, news)
        partial = olds.get(PARTIAL_KEY)
        if not partial and _old_names(handler, raw) and not (await sdk.run_sync(handler.diff, olds, news)).changed:
            # Only the names change (see `diff`): the state as it is, under the schema's names.
            return p.UpdateResponse(properties=_wrap(handler, olds, old_secret | secret))
        if request.preview:
            return p.UpdateResponse(properties=request.news)  # the checked inputs
        if partial:
            # A partial create: finish it as a create of this resource's own object (waited for, and
            # rolled back when it failed meanwhile), within the create timeout the engine gave the
            # create (kept in the partial state), else the update's; a failed update keeps the partial state.
            given = partial if isinstance(partial, int | float) and not isinstance(partial, bool) else None
            timeout = float(given) if given and given > 0 else request.timeout
            attempt = int(olds[ATTEMPT_KEY]) if isinstance(olds.get(ATTEMPT_KEY), int | float) else 1
            resumed = await sdk.run_sync(
                lambda: handler.resume(request.resource_id, news, timeout=timeout, attempt=attempt))
            # Cancelled again: the next update goes on, still within the create's timeout.
            result: Outcome = Updated({**resumed.outputs, PARTIAL_KEY: partial} if resumed.unfinished
                                      else resumed.outputs)
        else:
            result = await sdk.run_sync(lambda: handler.update(request.resource_id, olds, news,
                                                               timeout=request.timeout))
        _raise_problem(handler, result, request.resource_id, secret)
        return p.UpdateResponse(properties=_wrap(handler, _present(handler, result.outputs), secret))

    async def delete(self, request: p.DeleteRequest) -> None:
        handler = self._handler(request.type)
        props = _fields(handler, sdk.plain(request.properties)[0])
        await sdk.run_sync(lambda: handler.delete(request.resource_id, props, timeout=request.timeout))


def _raise_problem(handler: Handler[Any, Any, Any], result: Outcome, object_id: str, secret: Iterable[str]) -> None:
    """A held failure or an unfinished wait is recorded and still fails the step: the engine keeps the
    object's ID and state as a partially created resource (an initialization error), and retries it with
    an update at the next `pulumi up` (which goes on waiting, or fails again on the held failure)."""
    problem = result.problem
    if problem:
        state = _wrap(handler, result.outputs, secret)
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


def _old_names(handler: Handler[Any, Any, Any], state: dict[str, Any]) -> bool:
    """Whether a state holds properties under their field names (written before 0.2)."""
    return set(state) != set(specs.to_property_names(_fields(handler, state), *_models(handler)))


def _models(handler: Handler[Any, Any, Any]) -> tuple[type[Any], ...]:
    return (handler.spec_type, handler.output_type)


def _fields(handler: Handler[Any, Any, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A request's properties (schema names, or field names as older states hold them) by field name."""
    return specs.to_field_names(values, *_models(handler))


def _present(handler: Handler[Any, Any, Any], outs: dict[str, Any]) -> dict[str, Any]:
    """Outputs as the state keeps them: without the absent values (None) of output-only fields and of
    `adopt_id`. Every SDK reads a property missing from the outputs as it reads a null one (unknown in a
    preview; in an update the value the program gave, None here), so a null costs state and says nothing."""
    inputs = handler.spec_type.model_fields
    return {k: v for k, v in outs.items() if v is not None or (k in inputs and k != "adopt_id")}


def _path(handler: Handler[Any, Any, Any], path: str) -> str:
    """A property path of the handler's (field names) in schema names."""
    return specs.property_path(path, *_models(handler))


def _wrap(handler: Handler[Any, Any, Any], values: dict[str, Any], secret: Iterable[str] = ()) -> dict[str, Any]:
    """Field-named values as the engine's properties in schema names: secret where the request's
    value was (`secret`, in either form) and where the spec declares the field secret."""
    keys = set(_fields(handler, dict.fromkeys(secret))) | _secret_fields(handler)
    return sdk.wrap(specs.to_property_names(values, *_models(handler)), {_path(handler, k) for k in keys})


def _covered(handler: Handler[Any, Any, Any], olds: dict[str, Any], news: dict[str, Any],
             changed: list[str]) -> set[str]:
    """Changed remote fields whose declared value the imported copy satisfies (`spec.differing`)."""
    declared, _ = specs.validate(handler.spec_type, specs.user_props(news, handler.spec_type))
    held, _ = specs.validate(handler.spec_type, specs.user_props(olds, handler.spec_type))
    if declared is None or held is None:
        return set()
    metas = dict(specs.field_metas(handler.spec_type))
    local = {name for name, meta in metas.items() if meta.on_change == "local"}
    # What the platform never returns, the import could not read: the declaration says what it is.
    unread = {name for name, meta in metas.items() if not meta.returned and getattr(held, name) in (None, [], {})}
    differ = specs.differing(declared, held)
    return {k for k in changed
            if k in handler.spec_type.model_fields and k not in local and (k not in differ or k in unread)}


def _kind(replace: bool, in_old: bool, in_new: bool) -> p.PropertyDiffKind:
    k = p.PropertyDiffKind
    if not in_old:
        return k.ADD_REPLACE if replace else k.ADD
    if not in_new:
        return k.DELETE_REPLACE if replace else k.DELETE
    return k.UPDATE_REPLACE if replace else k.UPDATE


def _secret_fields(handler: Handler[Any, Any, Any]) -> set[str]:
    """Fields the spec declares secret: secret in the state even when the program passed plain text."""
    return {name for name, meta in specs.field_metas(handler.spec_type) if meta.secret}


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
