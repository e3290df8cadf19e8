package localapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"artifactflow/backend/declared"
)

// inputFields are the JSON fields a posted artifact may carry. Anything else, notably
// source, trustedPublisher, clientRetained or an id, is refused: the server, never the
// payload, decides those.
var inputFields = map[string]bool{
	"kind": true, "storage": true, "title": true, "description": true, "workspacePath": true,
	"managedId": true, "url": true, "mimeType": true, "metadata": true,
}

// addRequest is a parsed POST body.
type addRequest struct {
	inputs   []declared.Input
	clientID string // the body's clientId, "" when absent
	batch    bool   // {artifacts:[...]} rather than one artifact
}

// parseAddBody parses a POST /session/:id/artifacts body: one artifact object, or
// {artifacts:[...], clientId?}; a single artifact may carry clientId beside its fields.
// Field names are matched exactly (no case folding); unknown fields, wrong types, an
// empty or oversized batch and trailing data are VALIDATION_FAILED naming the field.
func parseAddBody(body []byte) (addRequest, *apiError) {
	top, e := object(body, "")
	if e != nil {
		return addRequest{}, e
	}
	var req addRequest
	if raw, ok := top["clientId"]; ok {
		if err := json.Unmarshal(raw, &req.clientID); err != nil {
			return addRequest{}, invalid("clientId", "must be a string")
		}
		delete(top, "clientId")
	}
	raw, batch := top["artifacts"]
	if !batch {
		in, e := parseInput(top, "")
		if e != nil {
			return addRequest{}, e
		}
		req.inputs = []declared.Input{in}
		return req, nil
	}
	req.batch = true
	for _, k := range sortedKeys(top) {
		if k != "artifacts" {
			return addRequest{}, invalid(k, "unknown field (a batch holds only artifacts and clientId)")
		}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return addRequest{}, invalid("artifacts", "must be an array of artifacts")
	}
	if len(items) == 0 || len(items) > MaxBatch {
		return addRequest{}, invalid("artifacts", fmt.Sprintf("must hold 1-%d artifacts", MaxBatch))
	}
	for i, item := range items {
		prefix := fmt.Sprintf("artifacts[%d]", i)
		fields, e := object(item, prefix)
		if e != nil {
			return addRequest{}, e
		}
		in, e := parseInput(fields, prefix+".")
		if e != nil {
			return addRequest{}, e
		}
		req.inputs = append(req.inputs, in)
	}
	return req, nil
}

// object decodes b as one JSON object into its raw fields; field names the value in errors.
func object(b []byte, field string) (map[string]json.RawMessage, *apiError) {
	b = bytes.TrimSpace(b)
	var m map[string]json.RawMessage
	if len(b) == 0 || b[0] != '{' {
		if field == "" {
			return nil, invalid("", "the body must be a JSON object: one artifact or {\"artifacts\": [...]}")
		}
		return nil, invalid(field, "must be a JSON object")
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid(field, "malformed JSON: "+err.Error())
	}
	return m, nil
}

// parseInput decodes one artifact's raw fields into an Input; prefix goes before field
// names in errors ("artifacts[2].").
func parseInput(fields map[string]json.RawMessage, prefix string) (declared.Input, *apiError) {
	for _, k := range sortedKeys(fields) {
		if !inputFields[k] {
			return declared.Input{}, invalid(prefix+k, "unknown field")
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return declared.Input{}, invalid(prefix, "malformed JSON")
	}
	var in declared.Input
	if err := json.Unmarshal(b, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return declared.Input{}, invalid(prefix+te.Field, "must be "+jsonType(te.Type.Kind().String()))
		}
		return declared.Input{}, invalid(prefix, "malformed artifact: "+err.Error())
	}
	return in, nil
}

// jsonType names a Go kind the way a JSON author thinks of it.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "true or false"
	case "interface":
		return "a JSON value"
	default:
		return "a number"
	}
}

func invalid(field, msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, body: ErrorBody{Code: CodeValidation, Message: msg, Field: trimDot(field)}}
}

func trimDot(s string) string {
	if len(s) > 0 && s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
