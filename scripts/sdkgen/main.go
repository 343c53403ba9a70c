// Command sdkgen writes the typed Python SDK of the native `mltrain` plugin from schema.json with
// Pulumi's own code generator (the CLI's `gen-sdk` needs a language host's GeneratePackage, which the
// project's Python language host does not implement; this program calls the same codegen directly).
//
// The Python settings (package name pulumi_mltrain_native, pyproject, input types) come from
// schema.json's `language.python`, as they do for the code `pulumi import` writes, so the SDK and that
// code name one package.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// StampFile names the file, at the SDK's root, that records the hashes of the generator's inputs, so
// a test can tell a stale SDK without Go.
const StampFile = "SDKGEN_INPUTS"

// noDependencies refuses every package reference: schema.json depends on no other package.
type noDependencies struct{}

var errNoDependencies = errors.New("schema.json must not reference other packages")

func (noDependencies) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return nil, errNoDependencies
}

func (noDependencies) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNoDependencies
}

func (noDependencies) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNoDependencies
}

func (noDependencies) LoadPackageReferenceV2(
	context.Context, *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, errNoDependencies
}

func main() {
	schemaPath := flag.String("schema", "schema.json", "Pulumi package schema to generate from")
	out := flag.String("out", "sdk/python", "folder the SDK is written to (replaced whole)")
	stamp := flag.String("stamp", "", "extra input files whose hashes are recorded beside schema.json's")
	flag.Parse()
	if err := run(*schemaPath, *out, strings.Fields(*stamp)); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

func run(schemaPath, out string, stampInputs []string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	var pythonInfo struct {
		PackageName string `json:"packageName"`
	}
	if err := json.Unmarshal(spec.Language["python"], &pythonInfo); err != nil || pythonInfo.PackageName == "" {
		return fmt.Errorf("%s: language.python.packageName is not set", schemaPath)
	}

	pkg, diags, err := schema.BindSpec(spec, noDependencies{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(os.Stderr, "sdkgen: schema:", d.Error())
		}
		if diags.HasErrors() {
			return fmt.Errorf("%s does not bind (%d problems)", schemaPath, len(diags))
		}
	}
	files, err := python.GeneratePackage("pulumi-mltrain-sdkgen", pkg, nil, noDependencies{})
	if err != nil {
		return err
	}
	stampText, err := stampFor(append([]string{schemaPath}, stampInputs...))
	if err != nil {
		return err
	}
	files[StampFile] = []byte(stampText + treeHash(files) + "  " + filepath.ToSlash(out) + "\n")
	return writeTree(out, files)
}

// stampFor lists "sha256  path" for each input, in the order given.
func stampFor(paths []string) (string, error) {
	var b strings.Builder
	b.WriteString("# sha256 of the inputs this SDK was generated from (scripts/sdkgen.sh), then of the generated files\n")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.ToSlash(p))
	}
	return b.String(), nil
}

// treeHash hashes the generated files (path NUL content NUL, sorted by path), so hand edits show.
func treeHash(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, filepath.ToSlash(name))
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		h.Write([]byte(name + "\x00"))
		h.Write(files[filepath.FromSlash(name)])
		h.Write([]byte("\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeTree replaces out with exactly the generated files.
func writeTree(out string, files map[string][]byte) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
