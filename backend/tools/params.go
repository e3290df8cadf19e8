package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// String returns params[name] as a string. A missing or empty value is an error when
// required; numbers and bools are formatted (models sometimes send "count": "3" or an id
// as a number).
func String(params map[string]any, name string, required bool) (string, error) {
	v, ok := params[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("missing required parameter %q", name)
		}
		return "", nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		s = strconv.FormatBool(x)
	default:
		return "", fmt.Errorf("parameter %q must be a string, got %T", name, v)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("parameter %q must not be empty", name)
	}
	return s, nil
}

// Int returns params[name] as an int, def when absent. Strings holding integers are
// accepted (XML mode sends text); fractions and out-of-range values are errors.
func Int(params map[string]any, name string, def int) (int, error) {
	v, ok := params[name]
	if !ok || v == nil {
		return def, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		return x, nil
	case string:
		x = strings.TrimSpace(x)
		if x == "" {
			return def, nil
		}
		p, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, fmt.Errorf("parameter %q must be an integer, got %q", name, x)
		}
		f = p
	default:
		return 0, fmt.Errorf("parameter %q must be an integer, got %T", name, v)
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, fmt.Errorf("parameter %q must be an integer, got %v", name, f)
	}
	return int(f), nil
}
