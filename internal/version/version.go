// Package version reports which privopt this is.
package version

// Version is the release of privopt; development builds carry the "-dev" suffix.
const Version = "0.1.0-dev"

// String returns Version followed by the version-control revision the binary was built
// from (its first 12 hex digits, "+modified" when the tree had changes), when one is known.
func String() string {
	if rev := revision(); rev != "" {
		return Version + " (" + rev + ")"
	}
	return Version
}
