package data

import (
	"encoding/json"
	"testing"
)

// TestLabelKindText: a label kind's text is its name in JSON, the schema's label kinds map to
// it, and an unknown name is refused.
func TestLabelKindText(t *testing.T) {
	for kind, name := range map[LabelKind]string{LabelBinary: "binary", LabelNumeric: "numeric", LabelClass: "class"} {
		b, err := json.Marshal(struct{ K LabelKind }{kind})
		if err != nil || string(b) != `{"K":"`+name+`"}` {
			t.Errorf("%v: %s, %v", kind, b, err)
		}
		var back struct{ K LabelKind }
		if err := json.Unmarshal(b, &back); err != nil || back.K != kind {
			t.Errorf("%s: read back %v, %v", b, back.K, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"K":"ordinal"}`), &struct{ K LabelKind }{}); err == nil {
		t.Error("an unknown label kind was read")
	}
	for col, kind := range map[Kind]LabelKind{BinaryLabel: LabelBinary, NumericLabel: LabelNumeric, ClassLabel: LabelClass, Numeric: LabelUnspecified, Ignore: LabelUnspecified} {
		if got := col.LabelKind(); got != kind {
			t.Errorf("%s: %v, want %v", col, got, kind)
		}
	}
}
