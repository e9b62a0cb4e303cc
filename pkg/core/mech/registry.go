package mech

import (
	"fmt"
	"sort"
	"strings"
)

// registry lists the mechanisms by Name, each with its default settings.
var registry = map[string]Mechanism{
	"rem":           REM{},
	"rem-lp":        REMLp{},
	"outpert":       OutputPerturbation{},
	"outpert-gauss": OutputPerturbation{Gaussian: true},
	"langevin":      Langevin{},
	"noisy-gd":      NoisyGD{},
	"expmech":       ExpMech{},
	"rashomon":      Rashomon{},
	"auto":          Auto{},
}

// ByName returns the mechanism with the given name and default settings.
func ByName(name string) (Mechanism, error) {
	m, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("mech: unknown mechanism %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return m, nil
}

// Names lists the mechanisms' names in order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
