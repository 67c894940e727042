package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	yaml "gopkg.in/yaml.v3"
)

// chartMetadata is .Chart: the fields of Chart.yaml, named as Helm names them (a misspelt field
// fails to render here as it does in Helm).
type chartMetadata struct {
	APIVersion   string            `yaml:"apiVersion"`
	Name         string            `yaml:"name"`
	Version      string            `yaml:"version"`
	KubeVersion  string            `yaml:"kubeVersion"`
	Description  string            `yaml:"description"`
	Type         string            `yaml:"type"`
	Keywords     []string          `yaml:"keywords"`
	Home         string            `yaml:"home"`
	Sources      []string          `yaml:"sources"`
	Icon         string            `yaml:"icon"`
	AppVersion   string            `yaml:"appVersion"`
	Deprecated   bool              `yaml:"deprecated"`
	Annotations  map[string]string `yaml:"annotations"`
	Maintainers  []interface{}     `yaml:"maintainers"`
	Dependencies []interface{}     `yaml:"dependencies"`
}

type releaseInfo struct {
	Name      string
	Namespace string
	Service   string
	Revision  int
	IsInstall bool
	IsUpgrade bool
}

// apiVersions is .Capabilities.APIVersions: like `helm template` without --api-versions, it
// knows only the built-in groups, so optional CRDs (ServiceMonitor) must be switched by values.
type apiVersions []string

func (a apiVersions) Has(v string) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

type kubeVersion struct{ Version, Major, Minor, GitVersion string }

type capabilities struct {
	KubeVersion kubeVersion
	APIVersions apiVersions
}

type object struct {
	Template string                 `json:"template"`
	Object   map[string]interface{} `json:"object"`
}

type rendered struct {
	manifest  string
	notes     string
	objects   []object
	values    map[string]interface{}
	templates int
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

func renderChart(chartDir string, valueFiles []string, release, namespace string) (*rendered, error) {
	var meta chartMetadata
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&meta); err != nil {
		return nil, fmt.Errorf("Chart.yaml: %w", err)
	}
	if meta.Name == "" || meta.Version == "" || meta.APIVersion != "v2" {
		return nil, fmt.Errorf("Chart.yaml: name, version and apiVersion v2 are required")
	}

	values, err := loadYAMLMap(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range valueFiles {
		override, err := loadYAMLMap(f)
		if err != nil {
			return nil, err
		}
		values = coalesce(values, override)
	}
	files, err := loadFiles(chartDir)
	if err != nil {
		return nil, err
	}

	// Parse every template under one set, named "<chart>/templates/<path>" as Helm names them.
	var root *template.Template
	root = template.New("").Funcs(funcMap(&root)).Option("missingkey=zero")
	tdir := filepath.Join(chartDir, "templates")
	var names []string
	err = filepath.Walk(tdir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tdir, p)
		name := meta.Name + "/templates/" + filepath.ToSlash(rel)
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if _, err := root.New(name).Parse(string(text)); err != nil {
			return err
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)

	top := func(name string) map[string]interface{} {
		return map[string]interface{}{
			"Values":  values,
			"Chart":   meta,
			"Files":   files,
			"Release": releaseInfo{Name: release, Namespace: namespace, Service: "Helm", Revision: 1, IsInstall: true},
			"Capabilities": capabilities{
				KubeVersion: kubeVersion{Version: "v1.28.0", Major: "1", Minor: "28", GitVersion: "v1.28.0"},
				APIVersions: apiVersions{"v1", "apps/v1", "batch/v1", "policy/v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1"},
			},
			"Template": map[string]interface{}{"Name": name, "BasePath": meta.Name + "/templates"},
		}
	}

	out := &rendered{values: values}
	var manifest strings.Builder
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "_") {
			continue
		}
		var b strings.Builder
		if err := root.ExecuteTemplate(&b, name, top(name)); err != nil {
			return nil, err
		}
		text := strings.ReplaceAll(b.String(), "<no value>", "")
		out.templates++
		if base == "NOTES.txt" {
			out.notes = text
			continue
		}
		for i, doc := range docSeparator.Split(text, -1) {
			obj, err := decodeDocument(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d is not valid YAML: %w\n%s", name, i, err, doc)
			}
			if obj == nil {
				continue
			}
			out.objects = append(out.objects, object{Template: name, Object: obj})
			fmt.Fprintf(&manifest, "---\n# Source: %s\n%s\n", name, strings.Trim(doc, "\n"))
		}
	}
	out.manifest = manifest.String()
	return out, nil
}

// decodeDocument parses one YAML document; nil for an empty (or comment-only) one. Duplicate keys
// are errors.
func decodeDocument(doc string) (map[string]interface{}, error) {
	var v interface{}
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	m, ok := jsonShape(v).(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("top level is not a mapping")
	}
	return m, nil
}

// jsonShape makes decoded YAML encodable as JSON (string keys) without touching number types,
// so the schema check sees integers as integers.
func jsonShape(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			t[k] = jsonShape(e)
		}
		return t
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = jsonShape(e)
		}
		return out
	case []interface{}:
		for i, e := range t {
			t[i] = jsonShape(e)
		}
		return t
	default:
		return v
	}
}
