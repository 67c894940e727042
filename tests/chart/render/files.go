package main

import (
	"encoding/base64"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Files is .Files: the chart's non-template files by slash-separated path relative to the chart.
type Files map[string][]byte

// loadFiles reads every file of the chart except Chart.yaml, values.yaml and templates/.
func loadFiles(chartDir string) (Files, error) {
	files := Files{}
	err := filepath.Walk(chartDir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(chartDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "templates" || rel == "charts" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "Chart.yaml" || rel == "values.yaml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = data
		return nil
	})
	return files, err
}

// Get returns a file's content, "" when absent (as Helm).
func (f Files) Get(name string) string { return string(f[name]) }

// GetBytes returns a file's bytes, nil when absent.
func (f Files) GetBytes(name string) []byte { return f[name] }

// Glob returns the files whose path matches pattern (path.Match syntax; Helm's ** is not
// supported, and an invalid pattern matches nothing).
func (f Files) Glob(pattern string) Files {
	out := Files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

// AsConfig renders the files as the body of a ConfigMap's data: base name -> content.
func (f Files) AsConfig() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]interface{}{}
	for name, data := range f {
		m[path.Base(name)] = string(data)
	}
	return toYAML(m)
}

// AsSecrets renders the files as the body of a Secret's data: base name -> base64(content).
func (f Files) AsSecrets() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]interface{}{}
	for name, data := range f {
		m[path.Base(name)] = base64.StdEncoding.EncodeToString(data)
	}
	return toYAML(m)
}

// Lines splits a file into lines ("" lines kept, a final newline does not add one).
func (f Files) Lines(name string) []string {
	s := strings.TrimSuffix(string(f[name]), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
