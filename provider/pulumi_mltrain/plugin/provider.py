"""One generic adapter from the engine's provider requests to the existing `MltrainProvider`s.

Every guarantee is the existing providers' own (ownership marks, not-found only on the platform's
code, wall-clock deadlines, rollback, drift read-back, the credential check at check): this module
only adds what the engine gives a plugin and not a dynamic provider, namely
- the owner (a stack identity from `identity.py` and the request's URN) and the account identity,
  added to the inputs at check, as the dynamic program side adds them;
- the engine's `timeout` (the resource's customTimeouts) as the operation's deadline, unless the
  `timeouts` input sets one;
- import: a read with no inputs reads the object's inputs back and takes it over through the same
  path as `adopt_id`;
- a partially created resource (a create that failed after its object came to exist): the next
  update finishes the create through `MltrainProvider.resume`, which waits for it as a create does.
"""

from __future__ import annotations

import json
import threading
import time
from importlib import resources
from typing import Any

from pulumi.dynamic import ConfigureRequest as DynamicConfigure
from pulumi.dynamic.config import Config
from pulumi.provider.experimental import provider as p

from .. import __version__, registry, transport
from .. import spec as specs
from ..accounts import ACCOUNT_KEY
from ..config import Settings
from ..errors import MltrainError
from ..ownership import FAILED_KEY, STACK_KEY, URN_KEY, Mark
from ..program import load
from ..resource import _ACCOUNT, MltrainProvider
from . import sdk
from .identity import STACK_IDENTITY_VARIABLE, account_identity, stack_identity
from .invokes import invoke


def resource_targets() -> dict[str, str]:
    """Type token -> "module:Class" of its provider, from the registry."""
    return {r.token: r.target for r in registry.RESOURCES}


RESOURCES = resource_targets()
# How long the look for a failed create's object may take.
SURVIVOR_SECONDS = 30.0
# Types whose ID is made of inputs (no remote object of its own): the fields, in the ID's order.
IMPORT_ID_FIELDS: dict[str, tuple[str, ...]] = {
    "mltrain:alaya:StorageMount": ("storage_id", "file_directory", "mount_path"),
}
_INTERNAL = "__mltrain_"
# Marks a state whose inputs were read back by `pulumi import` (the platform's complete copy); the
# next update replaces them with the declared inputs.
IMPORTED_KEY = "__mltrain_imported"
# Marks the state of a create that failed after its object came to exist (see `_survivor`); its value
# is the engine's create timeout in seconds (True when it gave none).
PARTIAL_KEY = "__mltrain_partial"


class MltrainPlugin(p.Provider):
    """The `mltrain` provider: one configured `MltrainProvider` per resource type, made on first use."""

    def __init__(self) -> None:
        self._variables: dict[str, str] = {}
        self._impls: dict[str, MltrainProvider] = {}
        self._lock = threading.Lock()

    # ----- provider-wide -----------------------------------------------------------------------
    async def get_schema(self, request: p.GetSchemaRequest) -> p.GetSchemaResponse:
        # Generated at build time (`python -m tools.generate`) and shipped in the wheel.
        text = (resources.files("pulumi_mltrain") / "schema.json").read_text(encoding="utf-8")
        return p.GetSchemaResponse(schema=text)

    async def configure(self, request: p.ConfigureRequest) -> p.ConfigureResponse:
        """Settings from the provider's variables (`mltrain:*` keys); no preview creates (the checked
        inputs, derived outputs included, are the preview's outputs) and no output values."""
        variables = provider_variables(request)
        Settings.load(variables)  # a malformed endpoint or number fails here, naming the key
        self._variables = variables
        return p.ConfigureResponse(accept_secrets=True, supports_preview=False, accept_resources=False,
                                   accept_outputs=False)

    async def invoke(self, request: p.InvokeRequest) -> p.InvokeResponse:
        args, _ = sdk.plain(request.args)
        try:
            result = await sdk.run_sync(invoke, request.tok, args, self._variables)
        except LookupError as err:
            return p.InvokeResponse(failures=[p.CheckFailure("", str(err))])
        return p.InvokeResponse(return_value=sdk.wrap(result))

    def _impl(self, token: str) -> MltrainProvider:
        with self._lock:
            found = self._impls.get(token)
            if found is None:
                target = RESOURCES.get(token)
                if target is None:
                    raise MltrainError(f"unknown resource type {token}; this provider has {', '.join(RESOURCES)}")
                found = load(target)()
                found.configure(DynamicConfigure(Config(dict(self._variables), "mltrain")))
                self._impls[token] = found
            return found

    def _owner_inputs(self, token: str, urn: str) -> dict[str, Any]:
        impl = self._impl(token)
        platform = token.split(":")[1]
        return {STACK_KEY: stack_identity(urn, self._variables.get(STACK_IDENTITY_VARIABLE)), URN_KEY: urn,
                ACCOUNT_KEY: account_identity(impl.settings, platform)}

    # ----- resources ---------------------------------------------------------------------------
    async def check(self, request: p.CheckRequest) -> p.CheckResponse:
        impl = self._impl(request.type)
        olds, _ = sdk.plain(request.old_inputs)
        news, secret = sdk.plain(request.new_inputs)
        news = {k: v for k, v in news.items() if not k.startswith(_INTERNAL)}
        news.update(self._owner_inputs(request.type, request.urn))
        result = await sdk.run_sync(impl.check, olds, news)
        failures = [p.CheckFailure(f.property, f.reason) for f in result.failures or []]
        return p.CheckResponse(inputs=sdk.wrap(result.inputs or {}, secret | _secret_fields(impl)),
                               failures=failures)

    async def diff(self, request: p.DiffRequest) -> p.DiffResponse:
        impl = self._impl(request.type)
        olds, _ = sdk.plain(request.old_state)
        news, _ = sdk.plain(request.new_inputs)
        imported = bool(olds.pop(IMPORTED_KEY, False))
        result = await sdk.run_sync(impl.diff, request.resource_id, olds, news)
        replaces = list(result.replaces or [])
        changed, _ = specs.diff(impl.spec_type, olds, news)
        changed += [k for k in replaces if k not in changed]
        if olds.get(PARTIAL_KEY):
            changed.append(PARTIAL_KEY)  # the create is to be finished (update)
        if imported:
            # What the declaration leaves to the platform (and the platform's spelling of declared
            # values) is no change: the imported inputs are the platform's complete copy.
            covered = _covered(impl, olds, news, changed)
            changed = [k for k in changed if k not in covered]
            replaces = [k for k in replaces if k not in covered]
        detailed = {k: p.PropertyDiff(_kind(k in replaces, k in olds, k in news), True) for k in changed}
        return p.DiffResponse(changes=bool(changed) if imported else bool(result.changes), replaces=replaces,
                              delete_before_replace=bool(result.delete_before_replace),
                              diffs=changed, detailed_diff=detailed)

    async def create(self, request: p.CreateRequest) -> p.CreateResponse:
        impl = self._impl(request.type)
        props, secret = sdk.plain(request.properties)
        given = props.get("timeouts")
        props["timeouts"] = _with_timeout(given, "create", request.timeout)
        keys = secret | _secret_fields(impl)
        try:
            result = await sdk.run_sync(impl.create, props)
        except MltrainError as err:
            survivor = await sdk.run_sync(_survivor, impl, props)
            if survivor is None:
                raise
            # The engine's create timeout is kept: the update that finishes this create gets only
            # the update timeout from the engine, and the create's deadline is the one that applies.
            state = _restore_timeouts({**props, PARTIAL_KEY: request.timeout or True}, given)
            raise sdk.PartialCreate(
                f"{err}. {impl.noun.capitalize()} {survivor} exists and is recorded in the state as partially "
                "created: `pulumi destroy` removes it, and the next `pulumi up` takes it over",
                survivor, sdk.wrap(state, keys), sdk.wrap(state, keys)) from None
        outs = _restore_timeouts(dict(result.outs or {}), given)
        failed = outs.get(FAILED_KEY)
        if failed:
            # A job kept by on_failure="keep": recorded (ID, status, reason) and still a failed create.
            raise sdk.PartialCreate(str(failed), str(result.id), sdk.wrap(outs, keys), sdk.wrap(outs, keys))
        return p.CreateResponse(resource_id=result.id, properties=sdk.wrap(outs, keys))

    async def read(self, request: p.ReadRequest) -> p.ReadResponse:
        impl = self._impl(request.type)
        props, secret = sdk.plain(request.properties)
        inputs, in_secret = sdk.plain(request.inputs)
        if not props and not inputs:
            outs, read_inputs = await sdk.run_sync(self._import, impl, request)
            secret_keys = _secret_fields(impl)
            return p.ReadResponse(resource_id=request.resource_id,
                                  properties=sdk.wrap(_secret_values(impl, outs), secret_keys),
                                  inputs=sdk.wrap(_secret_values(impl, read_inputs), secret_keys))
        result = await sdk.run_sync(impl.read, request.resource_id, {**inputs, **props})
        if not result.id:
            return p.ReadResponse(resource_id="", properties={}, inputs={})
        keys = secret | in_secret | _secret_fields(impl)
        return p.ReadResponse(resource_id=result.id, properties=sdk.wrap(dict(result.outs or {}), keys),
                              inputs=sdk.wrap(dict(getattr(result, "inputs", None) or {}), keys))

    def _import(self, impl: MltrainProvider, request: p.ReadRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        """`pulumi import`: the object's inputs as the platform holds them (the spec's own read-back),
        then taken over as `adopt_id` takes an object (marked as this resource's where the platform
        allows it); (outputs, inputs)."""
        owner = self._owner_inputs(request.type, request.urn)
        seed = dict.fromkeys(impl.spec_type.model_fields)
        fields = IMPORT_ID_FIELDS.get(request.type, ())
        if fields:
            parts = request.resource_id.split(":", len(fields) - 1)
            if len(parts) != len(fields):
                raise MltrainError(f"{impl.kind}: an import ID is {':'.join(f'<{f}>' for f in fields)}")
            seed.update(zip(fields, parts, strict=True))
        blank = impl.spec_type.model_construct(**seed)
        token = impl._in_account(owner)
        try:
            found = _reader(impl)._read(request.resource_id, blank)
            if found is None or found[1] is None:
                raise MltrainError(f"{impl.kind} {request.resource_id}: the platform has no object to import "
                                 "under this ID (or it is being deleted)")
            spec = specs.from_wire(impl.spec_type, found[1], blank)
            if spec is None:
                raise MltrainError(f"{impl.kind} {request.resource_id}: the platform's copy does not read back "
                                 "as valid inputs, so it cannot be imported")
            inputs = {**spec.as_declared().props(), **owner, IMPORTED_KEY: True}
            deadline = impl._deadline(spec, "create")
            with transport.operation_deadline(deadline, f"importing {impl.kind} {request.resource_id}"):
                outs = impl._adopt(request.resource_id, spec, Mark.from_props(owner), deadline)
        finally:
            _ACCOUNT.reset(token)
        return impl._outs(spec, {**found[0], **outs}, inputs), inputs

    async def update(self, request: p.UpdateRequest) -> p.UpdateResponse:
        impl = self._impl(request.type)
        olds, _ = sdk.plain(request.olds)
        news, secret = sdk.plain(request.news)
        given = news.get("timeouts")
        if olds.get(PARTIAL_KEY):
            # A partial create: finish it as a create of this resource's own object (waited for, and
            # rolled back when it failed meanwhile); a failed update keeps the partial state.
            news["timeouts"] = _with_timeout(given, "create", _create_timeout(olds[PARTIAL_KEY], request.timeout))
            outs = dict((await sdk.run_sync(impl.resume, request.resource_id, news)).outs or {})
        else:
            news["timeouts"] = _with_timeout(given, "update", request.timeout)
            outs = dict((await sdk.run_sync(impl.update, request.resource_id, olds, news)).outs or {})
        outs = _restore_timeouts({k: v for k, v in outs.items() if v is not None or k != "adopt_id"}, given)
        return p.UpdateResponse(properties=sdk.wrap(outs, secret | _secret_fields(impl)))

    async def delete(self, request: p.DeleteRequest) -> None:
        impl = self._impl(request.type)
        props, _ = sdk.plain(request.properties)
        props["timeouts"] = _with_timeout(props.get("timeouts"), "delete", request.timeout)
        await sdk.run_sync(impl.delete, request.resource_id, props)


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


def _survivor(impl: MltrainProvider, props: dict[str, Any]) -> str | None:
    """After a failed create: the ID of this resource's own object if one exists (it carries this
    resource's mark, found the way a retried create finds it), else None."""
    find = getattr(impl, "_existing", None)
    spec, _ = specs.validate(impl.spec_type, specs.user_props(props, impl.spec_type))
    if find is None or spec is None or not getattr(spec, "name", None):
        return None
    token = impl._in_account(props)
    try:
        with transport.operation_deadline(time.monotonic() + SURVIVOR_SECONDS, "looking for the object"):
            found = find(spec, Mark.from_props(props))
            if found is None:
                return None
            object_id = str(found if isinstance(found, str) else (found.get("metadata") or {}).get("id") or "")
            return object_id if object_id and impl._read(object_id, spec) is not None else None
    except Exception:  # not found, not ours, unreachable: nothing to record
        return None
    finally:
        _ACCOUNT.reset(token)


def _covered(impl: MltrainProvider, olds: dict[str, Any], news: dict[str, Any], changed: list[str]) -> set[str]:
    """Changed remote fields whose declared value the imported copy satisfies (`spec.differing`)."""
    declared, _ = specs.validate(impl.spec_type, specs.user_props(news, impl.spec_type))
    held, _ = specs.validate(impl.spec_type, specs.user_props(olds, impl.spec_type))
    if declared is None or held is None:
        return set()
    local = {name for name, meta in specs.field_metas(impl.spec_type) if meta.on_change == "local"}
    differ = specs.differing(declared, held)
    return {k for k in changed if k in impl.spec_type.model_fields and k not in local and k not in differ}


def _reader(impl: MltrainProvider) -> MltrainProvider:
    """`impl` without derived outputs: at import the inputs they follow from are not known before the
    first read (they are computed from the read-back inputs afterwards, in `_outs`)."""
    cls = type(impl)
    reader: MltrainProvider = type(f"{cls.__name__}Import", (cls,), {"_derived": lambda self, spec: {}})()
    reader.__dict__.update(impl.__dict__)
    return reader


def _kind(replace: bool, in_old: bool, in_new: bool) -> p.PropertyDiffKind:
    k = p.PropertyDiffKind
    if not in_old:
        return k.ADD_REPLACE if replace else k.ADD
    if not in_new:
        return k.DELETE_REPLACE if replace else k.DELETE
    return k.UPDATE_REPLACE if replace else k.UPDATE


def _secret_fields(impl: MltrainProvider) -> set[str]:
    """Fields the spec declares secret: secret in the state even when the program passed plain text."""
    return {name for name, meta in specs.field_metas(impl.spec_type) if meta.secret}


def _secret_values(impl: MltrainProvider, values: dict[str, Any]) -> dict[str, Any]:
    """An import's values with each value of an environment map (`redact` fields) secret: they may be
    credentials and the platform does not say which. Secret one by one, not as a whole map, because
    the code `pulumi import` writes keeps secret() only on scalar values."""
    out = dict(values)
    for name, meta in specs.field_metas(impl.spec_type):
        if meta.redact and isinstance(out.get(name), dict):
            out[name] = sdk.wrap(out[name], out[name])
    return out


def _with_timeout(given: Any, op: str, seconds: float) -> Any:
    """The `timeouts` input with the engine's custom timeout for `op` where the input sets none."""
    if not seconds or seconds <= 0:
        return given
    timeouts = dict(given) if isinstance(given, dict) else {}
    if not timeouts.get(op):
        timeouts[op] = float(seconds)
    return timeouts


def _create_timeout(partial: Any, update_timeout: float) -> float:
    """The deadline of the update that finishes a partial create: the create timeout the engine gave
    the create (kept in the partial state), else the update's."""
    if isinstance(partial, (int, float)) and not isinstance(partial, bool) and partial > 0:
        return float(partial)
    return update_timeout


def _restore_timeouts(outs: dict[str, Any], given: Any) -> dict[str, Any]:
    """Outputs carry the `timeouts` input as declared, not the engine's: no diff on the next run."""
    if given is None:
        outs.pop("timeouts", None)
    else:
        outs["timeouts"] = given
    return outs


def serve_plugin(argv: list[str] | None = None) -> None:
    sdk.serve(MltrainPlugin(), __version__, argv)
