// Command render is a small, offline stand-in for `helm template`, used by the chart test
// (tests/chart/run_chart_test.sh) where no helm binary exists. It implements the subset of Helm
// the fleetsweep chart uses (docs/deploy.md lists it): .Values (chart values.yaml deep-merged with
// -f files, null deletes a key, numbers are float64 as in Helm), .Release, .Chart, .Capabilities,
// .Template, .Files (Get, GetBytes, Glob, AsConfig, AsSecrets, Lines), sprig's functions,
// include, tpl, required, toYaml/fromYaml/toJson/fromJson, and lookup as `helm template` has it
// (always empty). Missing keys render as "" (Helm's missingkey=zero).
//
// Output (in -out DIR): manifest.yaml (what `helm template` prints), objects.json (every
// non-empty document as {"template", "object"}), values.json (the merged values), NOTES.txt.
//
// Exit status: 0 on success; 1 when rendering or parsing fails (message on stderr). With
// -expect-error TEXT the meaning flips: 0 only when rendering fails with a message containing
// TEXT, which the test uses to check the chart's own guards.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	chartDir := flag.String("chart", "", "chart directory (holds Chart.yaml)")
	var valueFiles stringList
	flag.Var(&valueFiles, "f", "values file merged over the chart's values.yaml (repeatable)")
	release := flag.String("release", "sweep", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	outDir := flag.String("out", "", "output directory (created)")
	expectError := flag.String("expect-error", "", "succeed only if rendering fails with this text")
	flag.Parse()
	if *chartDir == "" || (*outDir == "" && *expectError == "") {
		fmt.Fprintln(os.Stderr, "usage: render -chart DIR [-f values.yaml ...] -out DIR [-release NAME] [-namespace NS] [-expect-error TEXT]")
		os.Exit(2)
	}

	result, err := renderChart(*chartDir, valueFiles, *release, *namespace)
	if *expectError != "" {
		if err == nil {
			fmt.Fprintf(os.Stderr, "render: expected an error containing %q, but the chart rendered\n", *expectError)
			os.Exit(1)
		}
		if !strings.Contains(err.Error(), *expectError) {
			fmt.Fprintf(os.Stderr, "render: expected an error containing %q, got: %v\n", *expectError, err)
			os.Exit(1)
		}
		fmt.Printf("render: failed as expected: %v\n", err)
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "render: %v\n", err)
		os.Exit(1)
	}
	if err := writeResult(*outDir, result); err != nil {
		fmt.Fprintf(os.Stderr, "render: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("render: %d objects from %d templates -> %s\n", len(result.objects), result.templates, *outDir)
}

func writeResult(dir string, r *rendered) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	objects, err := json.MarshalIndent(r.objects, "", " ")
	if err != nil {
		return fmt.Errorf("encoding objects: %w", err)
	}
	values, err := json.MarshalIndent(r.values, "", " ")
	if err != nil {
		return fmt.Errorf("encoding values: %w", err)
	}
	files := map[string][]byte{
		"manifest.yaml": []byte(r.manifest),
		"objects.json":  objects,
		"values.json":   values,
		"NOTES.txt":     []byte(r.notes),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
