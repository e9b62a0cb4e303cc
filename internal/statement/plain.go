package statement

import (
	"fmt"
	"math"
	"strings"

	"github.com/privopt/privopt/pkg/core/privacy"
)

// plain returns the statement in words, in the order NIST SP 800-226 asks a guarantee to be
// read: what is released, the claim, the privacy unit, the neighbouring relation, what ε and δ
// mean, the attacker's reading, what is public, what is covered and what is not, and whom the
// data owner is trusted by. A release with no privacy says so first.
func (r *release) plain() string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if !r.private() {
		add("NO PRIVACY IS CLAIMED for this release: %s. Do not publish it as differentially private, and do not rely on it to protect anyone.", strings.Join(r.notPrivate, "; "))
	}
	add("Privacy statement of this privopt release, following NIST SP 800-226 (Guidelines for Evaluating Differential Privacy Guarantees).")
	add("Released: %s, fitted by the mechanism %s, with %s.", r.models(), r.in.Settings.Mechanism, reports(r.count))
	if !r.private() {
		add("For reference only: with private randomness and a certified sampler, these settings would make the release %s under the %s relation (%s). No such claim is made for this release.", r.guarantee(), r.relation, r.curvePoints())
		add("Public: %s.", strings.Join(r.public(), "; "))
		add("Never part of a release: the local diagnostics privopt shows only to the data owner (training loss, accuracy, clipped rows, run time), computed from the data without privacy.")
		return strings.Join(p, "\n\n")
	}
	together := ""
	if r.count > 1 {
		together = fmt.Sprintf(" This guarantee is for all %d models together: their privacy losses are composed, each run having been planned for ε = %s, δ = %s.", r.count, num(r.budget.Epsilon), num(r.budget.Delta))
	}
	add("Guarantee: the release is %s.%s", r.guarantee(), together)
	add("Privacy unit: one row of the training CSV file, which is taken to be one person's record. A person with several rows is protected only as a group: k rows count as k changes, and their protection weakens accordingly (ε grows about k-fold, δ more).")
	if r.relation == privacy.AddRemove {
		add("Neighbouring datasets (add/remove): two datasets are neighbours when one is the other with one row added, so the guarantee protects whether a person's row is in the data at all. The declared public number of rows, N = %d, is public: no dataset covered has more rows, and every mean divides by N. The actual number of rows is not released and is protected like the rows themselves.", r.rows)
	} else {
		add("Neighbouring datasets (replace-one): two datasets are neighbours when they have the same number of rows and differ in one row, in any way the schema allows. The number of rows, n = %d, is public: the guarantee does not hide it.", r.rows)
	}
	add("What ε and δ mean: %s.", r.meaning())
	add("Privacy curve: %s.", r.curvePoints())
	add("Attacker's view: %s.", r.attackerText())
	add("Public, not protected: %s.", strings.Join(r.public(), "; "))
	add("Covered: the released model weights and %s, and anything computed from them alone, such as predictions on other data or this statement.", reports(r.count))
	if b := r.beside(); b != "" {
		add("Also released and covered: %s. The guarantee above is for everything released together.", b)
	}
	add("Not covered: %s.", strings.Join(r.notCovered(), "; "))
	add("Trust: the data owner runs privopt on the data (the central model) and sees the data; the guarantee protects the people in the data from everyone who sees the release, whatever else they know, not from the data owner.")
	return strings.Join(p, "\n\n")
}

// reports is "its privacy report" or "their privacy reports".
func reports(models int) string {
	if models > 1 {
		return "their privacy reports"
	}
	return "its privacy report"
}

// meaning says what ε and δ bound, under the release's relation.
func (r *release) meaning() string {
	other := "had their row been replaced by any other row"
	if r.relation == privacy.AddRemove {
		other = "had their row been left out (or a row added)"
	}
	rows := "1/n"
	if r.relation == privacy.AddRemove {
		rows = "1/N"
	}
	s := fmt.Sprintf("the probability of any outcome of the release, and so of anything anyone concludes from it about a person, is at most e^ε = %s times what it would be %s", up(math.Exp(r.eps)), other)
	if r.pure {
		return s + ", with no exception (δ = 0). Smaller ε is stronger"
	}
	return s + fmt.Sprintf(", plus at most δ = %s. Smaller is stronger; δ should be far below one over the number of rows (here %s = %s)", num(r.delta), rows, up(1/float64(r.rows)))
}

// notCovered lists what the guarantee does not cover.
func (r *release) notCovered() []string {
	out := []string{
		"anything released separately from the same data, such as statistics, other models or the data itself",
		"other releases about the same people: their privacy losses add up with this release's (composition), and this statement does not account for them",
		"the local diagnostics privopt shows only to the data owner (training loss, accuracy, clipped rows, run time): they are computed from the data without privacy and must never be published",
	}
	for _, m := range r.exactOnly {
		out = append(out, fmt.Sprintf("for %s, what the low-order bits of the floating-point release may reveal: its report says the guarantee is proven in exact arithmetic only", m))
	}
	out = append(out, "the security of the training data itself, wherever the data owner keeps and processes it")
	return append(out, "runs made with a user-chosen seed, which are not private (this release's randomness came from the operating system's generator)")
}
