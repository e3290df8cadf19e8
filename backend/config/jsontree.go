package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// jsonObject is a JSON object that keeps its keys in the order of the text it was read
// from, so config.json can be changed a few keys at a time without reordering the user's
// file. Its values are *jsonObject, []any, json.Number, string, bool or nil. A key given
// twice keeps its first place and its last value (the value encoding/json reads).
type jsonObject struct {
	keys []string
	vals map[string]any
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

// set puts v under k: in k's place when k is there, else after the last key.
func (o *jsonObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) remove(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
}

// MarshalJSON writes the object's keys in order, without escaping <, > and & (a base URL's
// query stays readable).
func (o *jsonObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(k); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := enc.Encode(o.vals[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil // Encode's newlines are blanks between tokens: valid JSON, compacted by the caller
}

// parseJSONTree reads one JSON value from b into the representation of jsonObject (objects
// in order, numbers as json.Number, so they are written back exactly as read). b must be
// valid JSON; trailing text after the value is an error.
func parseJSONTree(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("config: text after the JSON value")
	}
	return v, nil
}

func parseJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newJSONObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("config: object key %v is not a string", kt)
				}
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return o, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("config: unexpected %v", t)
	default:
		return tok, nil // string, json.Number, bool or nil
	}
}

// treeOf is s as a jsonObject, with exactly the keys Save would write for it.
func treeOf(s Settings) (*jsonObject, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	v, err := parseJSONTree(b)
	if err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	return v.(*jsonObject), nil
}

// jsonDiff returns the merge patch (RFC 7386) that turns a into b: b's keys whose values
// differ from a's (objects compared key by key, so the patch holds only what changed in
// them; lists and other values whole), and nil for a's keys that b lacks. An empty patch
// means a and b are equal.
func jsonDiff(a, b *jsonObject) *jsonObject {
	patch := newJSONObject()
	for _, k := range b.keys {
		bv := b.vals[k]
		av, ok := a.vals[k]
		if !ok {
			patch.set(k, bv)
			continue
		}
		ao, aObj := av.(*jsonObject)
		bo, bObj := bv.(*jsonObject)
		switch {
		case aObj && bObj:
			if sub := jsonDiff(ao, bo); len(sub.keys) > 0 {
				patch.set(k, sub)
			}
		case !jsonEqual(av, bv):
			patch.set(k, bv)
		}
	}
	for _, k := range a.keys {
		if _, ok := b.vals[k]; !ok {
			patch.set(k, nil)
		}
	}
	return patch
}

// jsonApply applies the merge patch p to o in place (RFC 7386): a nil value removes its
// key, an object is applied to the object under its key (a new one when there is none),
// anything else replaces the key's value. Keys of o the patch does not name, at any depth,
// are left as they are; new keys go after o's own.
func jsonApply(o, p *jsonObject) {
	for _, k := range p.keys {
		pv := p.vals[k]
		if pv == nil {
			o.remove(k)
			continue
		}
		po, ok := pv.(*jsonObject)
		if !ok {
			o.set(k, pv)
			continue
		}
		target, ok := o.vals[k].(*jsonObject)
		if !ok {
			target = newJSONObject()
		}
		jsonApply(target, po)
		o.set(k, target)
	}
}

// jsonEqual reports whether two values of the jsonObject representation are equal
// (objects regardless of key order).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case *jsonObject:
		y, ok := b.(*jsonObject)
		if !ok || len(x.vals) != len(y.vals) {
			return false
		}
		for k, xv := range x.vals {
			yv, ok := y.vals[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, jsonEqual)
	default:
		return a == b
	}
}
