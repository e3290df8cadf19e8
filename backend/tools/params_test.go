package tools

import "testing"

func TestStringParam(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]any
		required bool
		want     string
		wantErr  bool
	}{
		{"present", map[string]any{"id": "task_plan"}, true, "task_plan", false},
		{"number formatted", map[string]any{"id": float64(42)}, true, "42", false},
		{"missing required", map[string]any{}, true, "", true},
		{"missing optional", map[string]any{}, false, "", false},
		{"blank required", map[string]any{"id": "  "}, true, "", true},
		{"object rejected", map[string]any{"id": map[string]any{}}, true, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := String(tc.params, "id", tc.required)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("String = %q, %v; want %q, err %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestIntParam(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		want    int
		wantErr bool
	}{
		{"absent gives default", nil, 5, false},
		{"float", float64(3), 3, false},
		{"string", " 7 ", 7, false},
		{"fraction", 2.5, 0, true},
		{"garbage", "many", 0, true},
		{"huge", 1e12, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := map[string]any{}
			if tc.v != nil {
				p["count"] = tc.v
			}
			got, err := Int(p, "count", 5)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("Int = %d, %v; want %d, err %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
