package ui

import "github.com/privopt/privopt/internal/curves"

// CurveWidget renders the privacy-curve widget (curves.Widget) below the app's steps.
type CurveWidget struct {
	W *curves.Widget
}
