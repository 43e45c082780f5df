package orderedjson

import (
	"strings"
	"testing"
)

// TestRoundTrip: the keys come out in the order given, values as
// encoding/json writes them (HTML escaped), and read back strictly.
func TestRoundTrip(t *testing.T) {
	b, err := Marshal(Field{"z", 0.5}, Field{"a", [2]float64{0, 1}}, Field{"m", "<b>"})
	if want := `{"z":0.5,"a":[0,1],"m":"\u003cb\u003e"}`; err != nil || string(b) != want {
		t.Fatalf("Marshal = %s, %v; want %s", b, err, want)
	}
	var z float64
	var a [2]float64
	var m string
	if err := Unmarshal(b, Field{"a", &a}, Field{"z", &z}, Field{"m", &m}); err != nil || z != 0.5 || a != [2]float64{0, 1} || m != "<b>" {
		t.Errorf("Unmarshal: %v %v %q, %v", z, a, m, err)
	}
	for in, want := range map[string]string{
		`{"z":1,"y":2}`: `json: unknown field "y"`,
		`{"z":"x"}`:     "z: json: cannot unmarshal string",
		`[1]`:           "cannot unmarshal array",
	} {
		if err := Unmarshal([]byte(in), Field{"z", &z}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Unmarshal(%s) = %v, want %s", in, err, want)
		}
	}
	z = 3
	if err := Unmarshal([]byte(`null`), Field{"z", &z}); err != nil || z != 3 {
		t.Errorf("null: %v, z %v", err, z)
	}
}
