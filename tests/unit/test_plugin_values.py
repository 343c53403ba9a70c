"""The adapter's value handling, without the engine: the unknown sentinel, secrets, numbers, and the
identities kept in the state."""

from __future__ import annotations

from pulumi.output import Unknown
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.runtime import rpc

from pulumi_mltrain.config import Settings
from pulumi_mltrain.ownership import derived_stack_identity
from pulumi_mltrain.plugin import sdk
from pulumi_mltrain.plugin.owner import account_identity

URN = "urn:pulumi:dev::proj::mltrain:alaya:TrainingJob::job"


def test_the_unknown_sentinel_becomes_unknown_and_back() -> None:
    values, _ = sdk.plain({"storage_mounts": PropertyValue([PropertyValue(rpc.UNKNOWN)]),
                           "image": PropertyValue("img")})
    assert isinstance(values["storage_mounts"][0], Unknown) and values["image"] == "img"
    back = sdk.wrap({"name": Unknown()})  # type: ignore[no-untyped-call]
    assert back["name"].value == rpc.UNKNOWN, "marshallable: the engine reads the sentinel as unknown"
    back["name"].marshal()


def test_secret_keys_stay_secret_and_numbers_are_floats() -> None:
    values, secret = sdk.plain({"env": PropertyValue({"K": PropertyValue("v", is_secret=True)}),
                                "worker_count": PropertyValue(2.0)})
    assert values == {"env": {"K": "v"}, "worker_count": 2.0} and secret == {"env"}
    wrapped = sdk.wrap({"env": {"K": "v"}, "worker_count": 2, "flag": True}, secret)
    assert wrapped["env"].is_secret and not wrapped["worker_count"].is_secret
    assert wrapped["worker_count"].value == 2.0 and wrapped["flag"].value is True
    for value in wrapped.values():
        value.marshal()


def test_stack_identity_from_the_urn_or_the_setting() -> None:
    identity = derived_stack_identity
    assert identity(URN) == identity(URN.replace("::job", "::other")), "one per project and stack"
    assert identity(URN) != identity(URN.replace(":dev::", ":prod::"))
    assert identity(URN, "team-b/dev") != identity(URN)
    assert identity(URN, "team-b/dev") == identity(URN.replace(":dev::", ":prod::"), "team-b/dev")


def test_account_identity_never_holds_credentials() -> None:
    settings = Settings.load({"mltrain:alayaEndpoint": "HTTPS://Api.Example.com/", "mltrain:alayaApiKey": "k"},
                             env={})
    assert account_identity(settings, "alaya") == {"alaya_endpoint": "https://api.example.com"}
