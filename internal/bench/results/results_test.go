package results

import (
	"os"
	"strings"
	"testing"
)

// TestResults: the embedded results are a benchmark on each platform (rows and the baselines;
// the native one first, then WebAssembly in node), and results.md is the table they make.
func TestResults(t *testing.T) {
	native, others, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(native.Rows) == 0 || !(native.Baselines.NonPrivateAccuracy > 0.8) || !(native.Baselines.MajorityAccuracy > 0.7) {
		t.Errorf("native: %d rows, baselines %+v", len(native.Rows), native.Baselines)
	}
	if len(others) == 0 || others[0].Platform != "js/wasm" || len(others[0].Rows) != len(native.Rows) {
		t.Fatalf("the other platforms: %+v", others)
	}
	md, err := os.ReadFile("results.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), Markdown(native, others...)) {
		t.Error("results.md is not the table of the JSON results: run ./build.sh bench")
	}
}
