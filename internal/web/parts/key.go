package parts

import (
	"math"
	"reflect"
	"strconv"
)

// Key returns a key that tells apart every two different values of
// data's type, and false if data holds what it cannot spell out: a
// pointer (whose address would stand for what it points to) or a map
// but a nil one (spelled "n", none), an interface, a function or a
// channel. Each string is spelled with its
// length, each number ends with a comma, each list starts with its
// length, so that no two values of a type have the same key (but for a
// nil list and an empty one, which templates show alike). It reads
// data by reflection, as fmt's %#v would, without formatting it.
func Key(data any) (string, bool) {
	b, ok := appendKey(make([]byte, 0, 256), reflect.ValueOf(data))
	return string(b), ok
}

// appendKey appends the key of v to b (see Key).
func appendKey(b []byte, v reflect.Value) ([]byte, bool) {
	switch v.Kind() {
	case reflect.String:
		b = strconv.AppendInt(b, int64(v.Len()), 10)
		return append(append(b, ':'), v.String()...), true
	case reflect.Bool:
		if v.Bool() {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(b, v.Int(), 10), ','), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return append(strconv.AppendUint(b, v.Uint(), 10), ','), true
	case reflect.Float32, reflect.Float64:
		return append(strconv.AppendUint(b, math.Float64bits(v.Float()), 10), ','), true
	case reflect.Pointer, reflect.Map:
		return append(b, 'n'), v.IsNil() // a page's Veiled, nil where it is cleared
	case reflect.Struct:
		for i := range v.NumField() {
			var ok bool
			if b, ok = appendKey(b, v.Field(i)); !ok {
				return b, false
			}
		}
		return b, true
	case reflect.Slice, reflect.Array:
		b = append(strconv.AppendInt(b, int64(v.Len()), 10), '[')
		for i := range v.Len() {
			var ok bool
			if b, ok = appendKey(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}
