module github.com/mltrain/pulumi-mltrain/sdk/go

go 1.22

require (
	github.com/blang/semver v3.5.1+incompatible
	github.com/pulumi/pulumi/sdk/v3 v3.274.1
)
