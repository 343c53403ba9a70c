"""`python -m pulumi_mltrain.plugin ENGINE_ADDRESS`, the same as `pulumi-resource-mltrain`."""

from pulumi_mltrain.plugin import main

main()
