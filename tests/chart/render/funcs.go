package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	sprig "github.com/Masterminds/sprig"
	yaml "gopkg.in/yaml.v3"
)

// maxIncludeDepth bounds include/tpl recursion, as Helm does, so a self-including template
// fails instead of overflowing the stack.
const maxIncludeDepth = 1000

// toYAML is Helm's toYaml: YAML with sorted keys and two-space indentation, without the final
// newline; "" when the value cannot be encoded.
func toYAML(v interface{}) string {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	_ = enc.Close()
	return strings.TrimSuffix(b.String(), "\n")
}

// funcMap returns sprig's functions plus Helm's own. include and tpl execute templates of *root,
// which the caller sets after parsing.
func funcMap(root **template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	// Helm removes these: a chart must not read the renderer's environment.
	delete(f, "env")
	delete(f, "expandenv")

	depth := 0
	f["include"] = func(name string, data interface{}) (string, error) {
		if depth >= maxIncludeDepth {
			return "", fmt.Errorf("include %q: too deep (recursion?)", name)
		}
		depth++
		defer func() { depth-- }()
		var b strings.Builder
		if err := (*root).ExecuteTemplate(&b, name, data); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		if depth >= maxIncludeDepth {
			return "", errors.New("tpl: too deep (recursion?)")
		}
		depth++
		defer func() { depth-- }()
		clone, err := (*root).Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("tpl: %w", err)
		}
		var b strings.Builder
		if err := t.Execute(&b, data); err != nil {
			return "", fmt.Errorf("tpl: %w", err)
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	// `helm template` has no cluster to ask: lookup always answers an empty map.
	f["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	f["toYaml"] = toYAML
	f["fromYaml"] = func(s string) map[string]interface{} {
		var v interface{}
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			return map[string]interface{}{"Error": err.Error()}
		}
		m, _ := normalize(v).(map[string]interface{})
		if m == nil {
			m = map[string]interface{}{}
		}
		return m
	}
	f["fromYamlArray"] = func(s string) []interface{} {
		var v interface{}
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			return []interface{}{err.Error()}
		}
		a, _ := normalize(v).([]interface{})
		return a
	}
	f["toJson"] = func(v interface{}) string {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(data)
	}
	f["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["fromJsonArray"] = func(s string) []interface{} {
		var a []interface{}
		if err := json.Unmarshal([]byte(s), &a); err != nil {
			return []interface{}{err.Error()}
		}
		return a
	}
	return f
}
