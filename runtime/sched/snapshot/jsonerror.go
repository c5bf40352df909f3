package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
)

// JSONError restates an error of encoding/json about a snapshot's text in
// the format's own terms: the field by its JSON path and what it wants,
// with no Go type names. Other errors come back as they are.
func JSONError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("no JSON text")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the text ends inside its JSON object")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		if f := jsonPath(te.Field); f != "" {
			return fmt.Errorf("field %s: want %s, got a JSON %s", f, jsonKind(te.Type), te.Value)
		}
		return fmt.Errorf("want %s, got a JSON %s", jsonKind(te.Type), te.Value)
	}
	if m, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", m)
	}
	return err
}

// jsonPath drops the Go names (embedded structs) from a field path, which
// keeps the JSON names, all lower case.
func jsonPath(field string) string {
	var keep []string
	for p := range strings.SplitSeq(field, ".") {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ".")
}

// jsonKind says what JSON value a Go type reads.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}
