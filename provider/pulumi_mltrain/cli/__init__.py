"""The package's commands, each a plain module with a `main` (pyproject.toml's [project.scripts]):
`mltrain-plan` (plan.py: what an update starts and stops, from `pulumi preview --json`) and
`mltrain-runs` (runs.py: a backend's abandoned and held runs, read by abandoned.py). They need no
engine of their own and read every platform through the registry."""
