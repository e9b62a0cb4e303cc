package ui

import (
	"strconv"

	"github.com/vugu/vugu"
)

// DataStep renders the data step: the file, its preview, the schema and the check.
type DataStep struct{ App *App }

// SchemaEditor renders the schema's columns and norm bound, inside the data step.
type SchemaEditor struct{ App *App }

// ModelStep renders the model step: the loss, its modifier and the parameter domain.
type ModelStep struct{ App *App }

// PrivacyStep renders the budget, the comparison of the mechanisms, the chosen mechanism's
// settings and its privacy curves.
type PrivacyStep struct{ App *App }

// RunStep renders the run button, the progress and the cancel button.
type RunStep struct{ App *App }

// ResultsView renders the results: the report, the diagnostics, the model and the downloads.
type ResultsView struct{ App *App }

// UseModel renders the "Use the model" panel: a row typed with its prediction, and a CSV file
// to score; in the results for the finished runs' models, or in its own section for those of a
// loaded release file (see useState).
type UseModel struct{ App *App }

// DragOver accepts a file dragged over the drop zone.
func (c *DataStep) DragOver(e vugu.DOMEvent) { e.PreventDefault() }

// Drop opens the file dropped on the drop zone.
func (c *DataStep) Drop(e vugu.DOMEvent) {
	e.PreventDefault()
	c.App.OpenFile(e)
}

// id returns an element id made of a prefix and an index, for the inputs of a list.
func id(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }

// atoi reads a whole number, or −1.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// itoa writes a whole number.
func itoa(n int) string { return strconv.Itoa(n) }

// boolText writes "true" or "false", for ARIA states (a false bool attribute would be left out).
func boolText(b bool) string { return strconv.FormatBool(b) }
