package label

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Label{
		"supported": Supported, "SUPPORTS": Supported, " Supports ": Supported,
		"unsupported": Unsupported, "REFUTES": Unsupported, "refuted": Unsupported,
		"insufficient": Insufficient, "NOT ENOUGH INFO": Insufficient, "not_enough_info": Insufficient, "NEI": Insufficient,
	} {
		got, ok := Parse(in)
		if !ok || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "true", "support", "entailment", "maybe"} {
		if got, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %q, accepted", in, got)
		}
	}
}

func TestOrder(t *testing.T) {
	for i, l := range All {
		if l.Index() != i || Of(i) != l || !l.Valid() {
			t.Errorf("label %q: index %d, Of(%d) = %q", l, l.Index(), i, Of(i))
		}
	}
	if None.Index() != -1 || None.Valid() || Of(3) != None || Of(-1) != None {
		t.Error("None is not a label")
	}
}

func TestUnmarshal(t *testing.T) {
	var v struct{ L Label }
	if err := json.Unmarshal([]byte(`{"L":"REFUTES"}`), &v); err != nil || v.L != Unsupported {
		t.Fatalf("got %q, %v", v.L, err)
	}
	if err := json.Unmarshal([]byte(`{"L":"yes"}`), &v); err == nil {
		t.Fatal("an unknown label decoded")
	}
}
