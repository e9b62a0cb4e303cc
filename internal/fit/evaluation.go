package fit

import (
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// LocalEvaluation is a model's accuracy and mean loss on held-out rows: computed from the
// data, local diagnostics shown to its owner only, never part of a release.
type LocalEvaluation struct {
	// Rows is the number of held-out rows.
	Rows int `json:"rows"`
	// Accuracy is the fraction of rows classified right, nil for a regression loss; Majority
	// that of always predicting the training rows' most frequent class (the smallest on a
	// tie), the baseline a model must beat.
	Accuracy *float64 `json:"accuracy,omitempty"`
	Majority *float64 `json:"majority,omitempty"`
	// ROC is a binary classifier's ROC curve on the held-out rows (nil for the others).
	ROC *ROC `json:"roc,omitempty"`
	// Loss is the mean loss of the held-out rows (the plain per-row loss, or the robust one).
	Loss float64 `json:"loss"`
	// RMSE is a regression model's root mean squared error in the label's units against the
	// labels as declared (not clipped to a private range), when EvaluateLocally is given them.
	RMSE *float64 `json:"rmse,omitempty"`
}

// EvaluateLocally returns the local evaluation of the model w of the spec s on held-out rows: its mean loss over
// the rows of test (divided by their number, whatever the relation: the fit's public N plays
// no part in a local diagnostic), its accuracy beside the majority class of the train labels,
// a binary classifier's ROC curve and, when declared holds the test rows' labels as declared,
// a regression's RMSE against them. facts are the training data's; test is encoded as the
// model's rows are.
func EvaluateLocally(s Spec, facts Facts, train []float64, test *data.Dataset, declared []float64, w []float64) (*LocalEvaluation, error) {
	facts.N = test.N
	s.Budget.Neighbouring = privacy.ReplaceOne // the problem's size is then facts.N
	p, err := Problem(s, facts)
	if err != nil {
		return nil, err
	}
	l, err := p.NewLoss(test)
	if err != nil {
		return nil, fmt.Errorf("fit: the held-out rows: %w", err)
	}
	ev := &LocalEvaluation{Rows: test.N, Loss: l.Mean(nil, w)}
	if acc, ok := mech.Accuracy(p, test, w); ok {
		m := majorityAccuracy(train, test.Y)
		ev.Accuracy, ev.Majority = &acc, &m
		if p.Loss.Name != mech.LossMultinomial {
			ev.ROC = rocOf(test, w)
		}
	}
	if test.Label.Kind == data.LabelNumeric && declared != nil {
		sum := 0.0
		x := make([]float64, test.D)
		for i := range test.N {
			x = test.Row(i, x)
			e := test.Label.Raw(dot(w, x)) - declared[i]
			sum += e * e
		}
		rmse := math.Sqrt(sum / float64(max(test.N, 1)))
		ev.RMSE = &rmse
	}
	return ev, nil
}

// dot returns ⟨w, x⟩.
func dot(w, x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += w[j] * v
	}
	return s
}

// ROC is a ROC curve: the false- and true-positive rates of the rule "positive when the score
// ⟨w, x⟩ is at least t", for thresholds t from +∞ down to −∞ (at most rocPoints + 1 points,
// from (0, 0) to (1, 1)), and the area under the full curve.
type ROC struct {
	FPR []float64 `json:"fpr"`
	TPR []float64 `json:"tpr"`
	AUC float64   `json:"auc"`
}

// rocPoints bounds the points of a ROC curve.
const rocPoints = 100

// rocOf returns the ROC curve of the scores ⟨w, x⟩ of the rows of ds against their labels
// (positive when y > 0); nil when either class is absent. Tied scores move together, so the
// area is the probability that a positive row scores above a negative one, ties counting half.
func rocOf(ds *data.Dataset, w []float64) *ROC {
	// The scores of the positive and of the negative rows, each sorted ascending and walked
	// from the top (two sorts of float64s: no sort of another type is linked into the page).
	var ps, ns []float64
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		if ds.Y[i] > 0 {
			ps = append(ps, dot(w, x))
		} else {
			ns = append(ns, dot(w, x))
		}
	}
	pos, neg := len(ps), len(ns)
	if pos == 0 || neg == 0 {
		return nil
	}
	slices.Sort(ps)
	slices.Sort(ns)
	r := &ROC{FPR: []float64{0}, TPR: []float64{0}}
	tp, fp, every, drawn := 0, 0, max(1, ds.N/rocPoints), 0
	for tp+fp < ds.N {
		// The next score down, and every row that has it.
		tp0, fp0, score := tp, fp, math.Inf(-1)
		if tp < pos {
			score = ps[pos-1-tp]
		}
		if fp < neg {
			score = math.Max(score, ns[neg-1-fp])
		}
		for tp < pos && ps[pos-1-tp] == score {
			tp++
		}
		for fp < neg && ns[neg-1-fp] == score {
			fp++
		}
		r.AUC += float64(fp-fp0) * float64(tp+tp0) / 2 // trapezoid: ties count half
		if i := tp + fp; i == ds.N || i-drawn >= every {
			r.FPR, r.TPR, drawn = append(r.FPR, float64(fp)/float64(neg)), append(r.TPR, float64(tp)/float64(pos)), i
		}
	}
	r.AUC /= float64(pos) * float64(neg)
	return r
}

// majorityAccuracy returns the fraction of the labels test equal to the most frequent of
// train (the smallest on a tie).
func majorityAccuracy(train, test []float64) float64 {
	counts := map[float64]int{}
	for _, y := range train {
		counts[y]++
	}
	best, bestCount := math.Inf(1), 0
	for y, c := range counts {
		if c > bestCount || (c == bestCount && y < best) {
			best, bestCount = y, c
		}
	}
	hits := 0
	for _, y := range test {
		if y == best {
			hits++
		}
	}
	return float64(hits) / float64(max(len(test), 1))
}
