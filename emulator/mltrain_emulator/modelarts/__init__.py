"""Huawei Cloud ModelArts v2 training and what stands in front of it: the training API (``api``), the
emulator's statement of IAM and ModelArts (``contract``), the algorithm and job documents
(``documents``), the job state machine (``lifecycle``), IAM's token and project endpoints (``iam``)
and the API gateway's AK/SK signature check (``signing``), with the seeded flavors and engines
(``catalog``), the stored objects (``records``) and the error bodies (``errors``).

IAM and the gateway live here, not in a package of their own: the emulator serves them only for
ModelArts (a token or a signature is what a ModelArts call needs), one contract states them together,
and the gateway's refusals are ModelArts errors. The provider groups them the same way
(``pulumi_mltrain.modelarts``: contract, iam, signer).

It builds on the package's top level and imports nothing of ``mltrain_emulator.alaya``.
"""
