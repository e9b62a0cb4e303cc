package curves

import (
	"math"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// Size is a plot's size in SVG user units.
type Size struct {
	Width, Height float64
}

// plotDecades is the most decades the privacy-curve plot shows below the target δ.
const plotDecades = 8

// Series is one sampled curve of a plot: its legend entry, its CSS class and its values.
type Series struct {
	Name, Class string
	Ys          []float64
}

// EpsMax is the largest ε the privacy-curve plots show for a target ε.
func EpsMax(targetEps float64) float64 { return math.Max(10, 2*targetEps) }

// PrivacyCurvePlot lays out curves δ(ε) sampled at eps on a log scale whose y axis spans whole
// decades from below the target δ and the curves' smallest positive values (but at most
// plotDecades decades below the target δ, or below 10⁻³ for a pure-DP target) to 1, with the
// target (ε, δ) marked when δ > 0 (a pure-DP target has no point on a log scale). A curve that
// leaves the plot stops at its axis.
func PrivacyCurvePlot(size Size, title string, eps []float64, series []Series, targetEps, targetDelta float64) plot.Drawing {
	ref := 1e-3
	if targetDelta > 0 {
		ref = targetDelta
	}
	low := ref / 10
	for _, s := range series {
		for _, y := range s.Ys {
			if y > 0 {
				low = math.Min(low, y)
			}
		}
	}
	low = math.Max(low, math.Max(ref*math.Pow(10, -plotDecades), 1e-300))
	yMin := math.Max(math.Pow(10, math.Floor(math.Log10(low))), 1e-300)
	fig := plot.Figure{
		Width: size.Width, Height: size.Height, Title: title,
		X: plot.Axis{Label: "ε", Min: 0, Max: eps[len(eps)-1]},
		Y: plot.Axis{Label: "δ(ε)", Min: yMin, Max: 1, Scale: plot.Log10},
	}
	for _, s := range series {
		fig.Series = append(fig.Series, plot.Series{Name: s.Name, Class: s.Class, X: eps, Y: belowAxis(s.Ys, yMin)})
	}
	if targetDelta > 0 {
		fig.Markers = []plot.Marker{{Label: "target (ε, δ)", Class: "marker", X: targetEps, Y: targetDelta}}
	}
	return fig.MustDraw()
}

// belowAxis returns ys with NaN (no line) at every point that follows a point below min, so a
// curve that leaves the plot ends at its axis instead of running along it.
func belowAxis(ys []float64, min float64) []float64 {
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y
		if i > 0 && ys[i-1] < min && y < min {
			out[i] = math.NaN()
		}
	}
	return out
}

// TradeoffPlot lays out tradeoff curves T(α) sampled at alpha beside perfect privacy 1 − α
// and the tradeoff function of the target (ε, δ)-DP.
func TradeoffPlot(size Size, title string, alpha []float64, series []Series, targetEps, targetDelta float64) plot.Drawing {
	diag, target := make([]float64, len(alpha)), make([]float64, len(alpha))
	approx := privacy.ApproxDP{Eps: targetEps, Del: targetDelta}
	for i, a := range alpha {
		diag[i], target[i] = 1-a, approx.Tradeoff(a)
	}
	fig := plot.Figure{
		Width: size.Width, Height: size.Height, Title: title,
		X: plot.Axis{Label: "type I error α", Min: 0, Max: 1},
		Y: plot.Axis{Label: "type II error", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "perfect privacy 1 − α", Class: "reference", X: alpha, Y: diag},
			{Name: "target (ε, δ)-DP", Class: "series-1", X: alpha, Y: target},
		},
	}
	for _, s := range series {
		fig.Series = append(fig.Series, plot.Series{Name: s.Name, Class: s.Class, X: alpha, Y: s.Ys})
	}
	return fig.MustDraw()
}
