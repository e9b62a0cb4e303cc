package mech

import (
	"fmt"
	"strings"
)

// registered is a mechanism's name and its default settings.
type registered struct {
	name string
	mech Mechanism
}

// registry lists the mechanisms in the order of their names. (A list, not a map: a map
// literal is code in the page's WebAssembly, a list of constants is data.)
var registry = []registered{
	{"auto", Auto{}},
	{"expmech", ExpMech{}},
	{"langevin", Langevin{}},
	{"noisy-gd", NoisyGD{}},
	{"outpert", OutputPerturbation{}},
	{"outpert-gauss", OutputPerturbation{Gaussian: true}},
	{"rashomon", Rashomon{}},
	{"rem", REM{}},
	{"rem-lp", REMLp{}},
}

// ByName returns the mechanism with the given name and default settings.
func ByName(name string) (Mechanism, error) {
	for _, r := range registry {
		if r.name == name {
			return r.mech, nil
		}
	}
	return nil, fmt.Errorf("mech: unknown mechanism %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the mechanisms' names in order.
func Names() []string {
	names := make([]string, len(registry))
	for i, r := range registry {
		names[i] = r.name
	}
	return names
}
