// Package version reports which privopt this is.
package version

import "runtime/debug"

// Version is the release of privopt; development builds carry the "-dev" suffix.
const Version = "0.1.0-dev"

// String returns Version followed by the version-control revision the binary was built
// from, when the Go toolchain recorded one.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+modified"
	}
	return Version + " (" + rev + ")"
}
