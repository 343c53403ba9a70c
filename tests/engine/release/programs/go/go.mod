module example.com/training

go 1.26

require github.com/mltrain/pulumi-mltrain/sdk/go v0.2.0
