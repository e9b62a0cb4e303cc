package devsuite

import (
	"fmt"
	"github.com/privopt/privopt/pkg/core/data"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/plot"
	"github.com/privopt/privopt/pkg/plot/svgfile"
)

// mechanismOf names the mechanism of a suite run's fits as fit's --mech and --opt flags would.
func mechanismOf(res Result) string {
	for _, t := range res.Tasks {
		for _, c := range t.Cells {
			name := c.Spec.Mechanism
			keys := make([]string, 0, len(c.Spec.Options))
			for k := range c.Spec.Options {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				name += fmt.Sprintf(" --opt %s=%s", k, c.Spec.Options[k])
			}
			return name
		}
	}
	return DefaultMechanism
}

// Markdown writes a suite run as markdown: what was run, the tasks with their default
// specs, then a table of the classification tasks and one of the regressions, each cell's
// mean ± standard error over its runs beside the baselines on the same validation rows.
func Markdown(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Every figure is measured on validation rows: each task's training file, encoded with its schema, is divided once "+
		"into fit rows and validation rows by `data.Split(rows, %g, rng.Seeded(%d))`; the test files are never read. "+
		"privopt: what `privopt fit --mech %s` does with every other setting at its default (the label's default loss; "+
		"the whole space, or for the squared loss the ball, with radius 10; private ranges of the numeric columns with %g of the budget), δ = %g, %d runs per ε, each with fresh randomness; mean ± standard error over the runs. "+
		"Baselines, fitted on the same fit rows without privacy: the majority class or the mean label; logistic regression (multinomial for classes) "+
		"with ridge λ = 1/n (scikit-learn's C = 1, here with the intercept penalised too) or least squares (OLS), on features standardised by the fit rows' "+
		"means and standard deviations. Platform: %s.\n\n",
		ValidationShare, SplitSeed, mechanismOf(res), fit.DefaultScaleShare, res.Delta, res.Runs, res.Platform)

	b.WriteString("| task | label | fit rows | validation rows | d | loss | domain | radius | values changed by encoding |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range res.Tasks {
		spec := fit.Spec{}
		if len(t.Cells) > 0 {
			spec = t.Cells[0].Spec
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %s | %g | %d |\n", t.Task.Name, t.Task.Label, t.FitRows, t.ValidationRows, t.Features,
			spec.Loss, spec.Domain, spec.Radius, t.Changed)
	}

	var classes, regressions []TaskResult
	for _, t := range res.Tasks {
		if t.Task.Label == data.LabelNumeric {
			regressions = append(regressions, t)
		} else {
			classes = append(classes, t)
		}
	}
	if len(classes) > 0 {
		top := slices.ContainsFunc(classes, func(t TaskResult) bool { return t.Task.TopShare > 0 })
		b.WriteString("\nClassification: accuracy and mean log-loss on the validation rows; gap: percentage points below the non-private model.\n\n")
		unscaled := slices.ContainsFunc(classes, hasUnscaled)
		b.WriteString("| task | ε | runs | accuracy (%) |")
		rule := "|---|---|---|---|"
		if unscaled {
			b.WriteString(" without private ranges (%) |")
			rule += "---|"
		}
		b.WriteString(" log-loss | majority (%) | non-private (%) | gap (points) | non-private log-loss |")
		rule += "---|---|---|---|---|"
		if top {
			b.WriteString(" top hits | non-private top hits |")
			rule += "---|---|"
		}
		b.WriteString(" fit (s) |\n" + rule + "---|\n")
		for _, t := range classes {
			for _, c := range t.Cells {
				acc, accSE := c.Stat(MeasureAccuracy)
				ll, llSE := c.Stat(MeasureLogLoss)
				np := t.NonPrivate[MeasureAccuracy]
				fmt.Fprintf(&b, "| %s | %g | %d | %s |", t.Task.Name, c.Epsilon, len(c.Runs), pm(acc, accSE, "%.2f", 100))
				if unscaled {
					m, se := c.UnscaledStat(MeasureAccuracy)
					fmt.Fprintf(&b, " %s |", pm(m, se, "%.2f", 100))
				}
				fmt.Fprintf(&b, " %s | %.2f | %.2f | %s | %.4f |", pm(ll, llSE, "%.4f", 1), 100*t.Trivial[MeasureAccuracy], 100*np,
					number(100*(np-acc), "%.2f"), t.NonPrivate[MeasureLogLoss])
				if top {
					if t.Task.TopShare > 0 {
						hits, hitsSE := c.Stat(MeasureTopHits)
						fmt.Fprintf(&b, " %s | %.0f |", pm(hits, hitsSE, "%.1f", 1), t.NonPrivate[MeasureTopHits])
					} else {
						b.WriteString(" – | – |")
					}
				}
				fmt.Fprintf(&b, " %s |%s\n", seconds(c), cellError(c))
			}
		}
	}
	if len(regressions) > 0 {
		b.WriteString("\nRegression: RMSE in the label's units and R² = 1 − MSE/(mean squared deviation of the validation labels from the fit rows' mean); " +
			"the last column is privopt's R² as a percentage of the non-private OLS's.\n\n")
		unscaled := slices.ContainsFunc(regressions, hasUnscaled)
		b.WriteString("| task | ε | runs | RMSE | R² |")
		rule := "|---|---|---|---|---|"
		if unscaled {
			b.WriteString(" R² without private ranges |")
			rule += "---|"
		}
		b.WriteString(" mean RMSE | OLS RMSE | OLS R² | R² (% of OLS) | fit (s) |\n" + rule + "---|---|---|---|---|\n")
		for _, t := range regressions {
			for _, c := range t.Cells {
				e, eSE := c.Stat(MeasureRMSE)
				r2, r2SE := c.Stat(MeasureR2)
				ols := t.NonPrivate[MeasureR2]
				share := math.NaN()
				if ols > 0 {
					share = 100 * r2 / ols
				}
				fmt.Fprintf(&b, "| %s | %g | %d | %s | %s |", t.Task.Name, c.Epsilon, len(c.Runs), pm(e, eSE, "%.3f", 1), pm(r2, r2SE, "%.3f", 1))
				if unscaled {
					m, se := c.UnscaledStat(MeasureR2)
					fmt.Fprintf(&b, " %s |", pm(m, se, "%.3f", 1))
				}
				fmt.Fprintf(&b, " %.3f | %.3f | %.3f | %s | %s |%s\n", t.Trivial[MeasureRMSE], t.NonPrivate[MeasureRMSE], ols,
					number(share, "%.1f"), seconds(c), cellError(c))
			}
		}
	}
	for _, t := range res.Tasks {
		if t.Task.TopShare > 0 {
			fmt.Fprintf(&b, "\n%s's top hits: the positive rows among the %d best-scored of its %d validation rows (%g %%, as CoIL 2000's 800 of 4,000 customers); "+
				"%d validation rows are positive, so a random order finds %.1f on average.\n",
				t.Task.Name, t.TopRows, t.ValidationRows, 100*t.Task.TopShare, t.Positives, t.Trivial[MeasureTopHits])
		}
	}
	return b.String()
}

// hasUnscaled reports whether a task's cells were also run without private ranges.
func hasUnscaled(t TaskResult) bool {
	return slices.ContainsFunc(t.Cells, func(c Cell) bool { return len(c.Unscaled) > 0 })
}

// pm writes mean ± se, both multiplied by scale, in format; "–" for no mean, the mean alone
// without a standard error.
func pm(mean, se float64, format string, scale float64) string {
	if math.IsNaN(mean) {
		return "–"
	}
	s := fmt.Sprintf(format, scale*mean)
	if !math.IsNaN(se) {
		s += " ± " + fmt.Sprintf(format, scale*se)
	}
	return s
}

// number writes v in format, or "–" for NaN.
func number(v float64, format string) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

// seconds writes a cell's mean fit time.
func seconds(c Cell) string {
	s, _ := bench.MeanSD(c.Seconds)
	return number(s, "%.3g")
}

// cellError writes a cell's error after its row, or nothing.
func cellError(c Cell) string {
	if c.Error == "" {
		return ""
	}
	return " (stopped: " + strings.ReplaceAll(c.Error, "|", "/") + ")"
}

// The layout of WriteSVG: panels of panelWidth × panelHeight pixels, panelColumns a
// row, under a title strip and above a legend strip.
const (
	panelWidth   = 300
	panelHeight  = 220
	panelColumns = 4
	titleHeight  = 30
	legendHeight = 30
)

// WriteSVG writes the suite's plot as a standalone SVG document: one panel per task,
// privopt's mean validation accuracy (RMSE for a regression, the top hits for a task with a
// top share) against ε, with the trivial (for top hits, a random order's) and the non-private
// baselines as horizontal lines.
func WriteSVG(w io.Writer, res Result) error {
	if len(res.Tasks) == 0 {
		return fmt.Errorf("devsuite: nothing to plot")
	}
	panels := make([]plot.Drawing, len(res.Tasks))
	for i, t := range res.Tasks {
		d, err := devsuitePanel(t)
		if err != nil {
			return fmt.Errorf("devsuite: plot of %s: %w", t.Task.Name, err)
		}
		panels[i] = d
	}
	cols := min(panelColumns, len(panels))
	rows := (len(panels) + cols - 1) / cols
	width, height := float64(cols*panelWidth), float64(titleHeight+rows*panelHeight+legendHeight)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">`+"\n", width, height, width, height)
	b.WriteString("<style>\n" + svgfile.Style + "</style>\n")
	writeText(&b, plot.Text{X: fmt.Sprint(width / 2), Y: "20", Anchor: "middle", Class: "title",
		Text: fmt.Sprintf("devsuite: privopt's default fit on validation rows against ε (δ = %g, mean of %d runs)", res.Delta, res.Runs)})
	for i, d := range panels {
		fmt.Fprintf(&b, `<g transform="translate(%d %d)">`+"\n", (i%cols)*panelWidth, titleHeight+(i/cols)*panelHeight)
		writeDrawing(&b, d)
		b.WriteString("</g>\n")
	}
	y := float64(titleHeight + rows*panelHeight + legendHeight/2)
	x := 20.0
	for _, item := range []struct{ class, label string }{
		{"series-0", "privopt (mean over runs)"},
		{"series-2", "non-private: logistic regression or OLS"},
		{"reference", "majority class, mean label or random order"},
	} {
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" class="legend-swatch %s"/>`+"\n", x, y-4, x+22, y-4, item.class)
		writeText(&b, plot.Text{X: fmt.Sprint(x + 28), Y: fmt.Sprint(y), Anchor: "start", Class: "legend-label", Text: item.label})
		x += 330
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// devsuitePanel lays out one task's panel.
func devsuitePanel(t TaskResult) (plot.Drawing, error) {
	measure, scale, label := MeasureAccuracy, 100.0, "accuracy (%)"
	switch {
	case t.Task.Label == data.LabelNumeric:
		measure, scale, label = MeasureRMSE, 1, "RMSE"
	case t.Task.TopShare > 0:
		measure, scale, label = MeasureTopHits, 1, fmt.Sprintf("positives in the top %g %%", 100*t.Task.TopShare)
	}
	var xs, ys []float64
	for _, c := range t.Cells {
		m, _ := c.Stat(measure)
		xs, ys = append(xs, c.Epsilon), append(ys, scale*m)
	}
	if len(xs) == 0 {
		return plot.Drawing{}, fmt.Errorf("no cells")
	}
	trivial, nonPrivate := scale*t.Trivial[measure], scale*t.NonPrivate[measure]
	lo, hi := math.Min(trivial, nonPrivate), math.Max(trivial, nonPrivate)
	for _, y := range ys {
		if !math.IsNaN(y) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	pad := math.Max(0.05*(hi-lo), 0.01*math.Max(math.Abs(hi), 1))
	xlo, xhi := slices.Min(xs), slices.Max(xs)
	if xlo == xhi {
		xlo, xhi = xlo/2, xhi*2
	}
	base := []float64{xlo, xhi}
	fig := plot.Figure{
		Width: panelWidth, Height: panelHeight, Title: t.Task.Name,
		X: plot.Axis{Label: epsLabel(xs), Min: xlo, Max: xhi, Scale: plot.Log10},
		Y: plot.Axis{Label: label, Min: lo - pad, Max: hi + pad},
		Series: []plot.Series{
			{Class: "reference", X: base, Y: []float64{trivial, trivial}},
			{Class: "series-2", X: base, Y: []float64{nonPrivate, nonPrivate}},
			{Class: "series-0", X: xs, Y: ys},
		},
	}
	for i, x := range xs {
		if !math.IsNaN(ys[i]) {
			fig.Markers = append(fig.Markers, plot.Marker{Class: "marker", X: x, Y: ys[i]})
		}
	}
	return fig.Draw()
}

// epsLabel is the ε axis's label: its log scale's ticks are powers of ten, so it lists the ε run.
func epsLabel(xs []float64) string {
	list := make([]string, len(xs))
	for i, x := range xs {
		list[i] = fmt.Sprint(x)
	}
	return "ε, log scale (" + strings.Join(list, ", ") + ")"
}

// writeDrawing writes a drawing's elements as svgfile.Write does, without the document
// around them.
func writeDrawing(b *strings.Builder, d plot.Drawing) {
	for _, l := range d.Lines {
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>`+"\n", l.X1, l.Y1, l.X2, l.Y2, html.EscapeString(l.Class))
	}
	for _, p := range d.Paths {
		fmt.Fprintf(b, `<path d="%s" class="%s"/>`+"\n", p.D, html.EscapeString(p.Class))
	}
	for _, c := range d.Circles {
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="%s" class="%s"/>`+"\n", c.CX, c.CY, c.R, html.EscapeString(c.Class))
	}
	for _, t := range d.Texts {
		writeText(b, t)
	}
}

// writeText writes one text element.
func writeText(b *strings.Builder, t plot.Text) {
	transform := ""
	if t.Rotate != "" {
		transform = ` transform="` + html.EscapeString(t.Rotate) + `"`
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" class="%s"%s>%s</text>`+"\n", t.X, t.Y, t.Anchor, html.EscapeString(t.Class), transform, html.EscapeString(t.Text))
}
