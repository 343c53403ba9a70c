"""pulumi-mltrain."""
