package engine

import (
	"slices"
	"strings"
	"testing"
)

func TestHandle(t *testing.T) {
	pong := Handle(Request{ID: 7, Kind: "ping"})
	if pong.Kind != "pong" || pong.ID != 7 || pong.Version == "" || !slices.Contains(pong.Capabilities, "ping") {
		t.Errorf("ping: got %+v", pong)
	}
	bad := Handle(Request{ID: 8, Kind: "fit-everything"})
	if bad.Kind != "error" || bad.ID != 8 || !strings.Contains(bad.Error, `"fit-everything"`) {
		t.Errorf("unknown kind: got %+v", bad)
	}
}

func TestHandleJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":3,"kind":"ping"}`, `"kind":"pong"`},
		{`{"id":4,"kind":"nope"}`, `"error":"engine: unknown request kind \"nope\""`},
		{`not json`, `"error":"engine: malformed request:`},
		{``, `"kind":"error"`},
	} {
		if got := HandleJSON(tc.in); !strings.Contains(got, tc.want) {
			t.Errorf("HandleJSON(%q) = %s, want it to contain %s", tc.in, got, tc.want)
		}
	}
}
