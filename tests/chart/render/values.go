package main

import (
	"fmt"
	"os"

	yaml "gopkg.in/yaml.v3"
)

// loadYAMLMap reads a YAML file whose top level is a mapping (an empty file is an empty map).
func loadYAMLMap(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v interface{}
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v == nil {
		return map[string]interface{}{}, nil
	}
	m, ok := normalize(v).(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: top level is not a mapping", path)
	}
	return m, nil
}

// normalize turns what yaml.v3 decodes into JSON-shaped data, as Helm sees values (Helm reads
// YAML through JSON): string-keyed maps, and every number a float64.
func normalize(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	default:
		return v
	}
}

// coalesce merges override into base the way Helm merges -f files over the chart's values:
// maps merge key by key, anything else replaces, and a null in override deletes the key.
func coalesce(base, override map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		if v == nil {
			delete(out, k)
			continue
		}
		bm, bIsMap := out[k].(map[string]interface{})
		om, oIsMap := v.(map[string]interface{})
		if bIsMap && oIsMap {
			out[k] = coalesce(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}
