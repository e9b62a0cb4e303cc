package ui

// CurveWidget renders a GDPWidget.
type CurveWidget struct {
	W *GDPWidget
}
