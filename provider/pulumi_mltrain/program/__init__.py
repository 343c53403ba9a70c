"""The program side: what runs in the user's Pulumi program process.

- `alaya_resources.py`, `modelarts_resources.py`: the typed resource classes (generated); their pickled
  providers stay in the platform folders (`<family>/_resources.py`), whose class paths states name;
- `resource.py`: the base of those classes;
- `explicit_provider.py`: `pulumi_mltrain.Provider` (generated from the table of settings);
- `stack_identity.py`: the hidden identity resource every dynamic resource depends on (its provider,
  which runs in the provider process and whose class path states name, is `pulumi_mltrain.stack_identity`);
- `calls.py`: what the program-time functions share; `alaya_functions.py`, `modelarts_functions.py`: the
  look-ups themselves (`alaya.get_training_job`, ...; the native plugin serves the same ones as invokes).

Import-light on purpose: a program that declares resources loads pulumi and the standard library only;
the functions load a platform's client on their first call. This package imports nothing at import time.
"""
