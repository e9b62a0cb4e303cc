package results

import (
	"os"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/bench"
)

// TestResults: the embedded results are a whole benchmark on each platform (every ε of
// bench/ADULT.md for each mechanism, the baselines), and results.md is the table they make.
func TestResults(t *testing.T) {
	native, wasm, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []bench.Result{native, wasm} {
		if len(r.Rows) == 0 || !(r.Baselines.NonPrivateAccuracy > 0.8) || !(r.Baselines.MajorityAccuracy > 0.7) {
			t.Errorf("%s: %d rows, baselines %+v", r.Platform, len(r.Rows), r.Baselines)
		}
	}
	if native.Platform == wasm.Platform || wasm.Platform != "js/wasm" {
		t.Errorf("platforms %q and %q", native.Platform, wasm.Platform)
	}
	md, err := os.ReadFile("results.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), bench.Markdown(native, &wasm)) {
		t.Error("results.md is not the table of native.json and wasm.json: run ./build.sh bench")
	}
}
