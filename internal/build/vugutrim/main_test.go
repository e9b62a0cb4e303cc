package main

import "testing"

func TestTrim(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"between blocks", "<section>\n  <h2>A</h2>\n  <p>b</p>\n</section>", "<section><h2>A</h2><p>b</p></section>"},
		{"a block beside inline elements", "<div>\n  <label>a</label>\n  <input>\n</div>", "<div><label>a</label>\n  <input></div>"},
		{"inline elements keep theirs", "<span>a</span>\n<button>b</button>", "<span>a</span>\n<button>b</button>"},
		{"no line break: kept", "<p>a</p> <p>b</p>", "<p>a</p> <p>b</p>"},
		{"text is kept, and the space after it", "<p>a\n  <span>b</span>\n</p>", "<p>a\n  <span>b</span></p>"},
		{"a > in a quoted attribute", "<div vg-if='len(x) > 0'>\n  <p>a</p>\n</div>", "<div vg-if='len(x) > 0'><p>a</p></div>"},
		{"a component is a block, but the plot", "<ui:RunStep></ui:RunStep>\n<ui:PlotView></ui:PlotView>\n<span>a</span>", "<ui:RunStep></ui:RunStep><ui:PlotView></ui:PlotView>\n<span>a</span>"},
		{"options of a select", "<select>\n  <option>a</option>\n</select>", "<select><option>a</option></select>"},
	} {
		got, err := trim(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{"<p>a</p>\n<!-- b -->", "<script>if a < b {}</script>", "<div a='>", "<>"} {
		if _, err := trim(bad); err == nil {
			t.Errorf("%q: trimmed, want an error", bad)
		}
	}
}
