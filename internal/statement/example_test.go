package statement_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/statement"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// exampleSchema declares a small census-like file: two numeric columns, one categorical
// column and a binary label.
const exampleSchema = `{
  "privopt_schema": 1,
  "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
  "columns": [
    {"name": "age", "kind": "numeric", "min": 17, "max": 90},
    {"name": "hours-per-week", "kind": "numeric", "min": 1, "max": 99},
    {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
    {"name": "income", "kind": "binary-label", "positive": [">50K"], "negative": ["<=50K"]}
  ]
}`

// exampleCSV returns a file of n rows of the schema above.
func exampleCSV(n int) string {
	var b strings.Builder
	b.WriteString("age,hours-per-week,sex,income\n")
	for i := range n {
		label := "<=50K"
		if i%3 == 0 {
			label = ">50K"
		}
		fmt.Fprintf(&b, "%d,%d,%s,%s\n", 17+i%70, 10+i%60, []string{"Female", "Male"}[i%2], label)
	}
	return b.String()
}

// fitted fits the example's settings on the example's data, the way privopt fit does, and
// returns the statements of the release; seed > 0 draws the noise from a seeded generator.
func fitted(spec fit.Spec, seed uint64) statement.Statements {
	schema, err := data.LoadSchema(strings.NewReader(exampleSchema))
	if err != nil {
		panic(err)
	}
	ds, _, err := data.Encode(strings.NewReader(exampleCSV(2000)), schema)
	if err != nil {
		panic(err)
	}
	facts, err := fit.FactsOf(ds, nil)
	if err != nil {
		panic(err)
	}
	plan, err := fit.Plan(spec, facts)
	if err != nil {
		panic(err)
	}
	r := rng.New()
	if seed > 0 {
		r = rng.Seeded(seed)
	}
	rel, err := plan.Run(context.Background(), ds, r, nil)
	if err != nil {
		panic(err)
	}
	curve, err := privacy.Compose(plan.Guarantee())
	if err != nil {
		panic(err)
	}
	st, err := statement.Of(statement.Input{Schema: schema, Settings: spec, Facts: facts, Curve: curve, Reports: []privacy.Report{rel.Report}})
	if err != nil {
		panic(err)
	}
	return st
}

// A logistic regression fitted by noisy gradient descent at ε = 1, δ = 10⁻⁶ under replace-one,
// with its three statements.
func ExampleOf() {
	st := fitted(fit.Spec{Loss: "logistic", Domain: fit.Ball, Radius: 5, Mechanism: "noisy-gd",
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.ReplaceOne}}, 0)
	fmt.Println(st.Plain)
	fmt.Println()
	fmt.Print(st.Registry)
	fmt.Println()
	for _, b := range st.Attacker {
		fmt.Printf("false-positive rate %g: true-positive rate ≤ %.6g\n", b.FalsePositiveRate, b.TruePositiveRateBound)
	}

	// Output:
	// Privacy statement of this privopt release, following NIST SP 800-226 (Guidelines for Evaluating Differential Privacy Guarantees).
	//
	// Released: 1 linear model (5 weights, logistic loss) predicting "income", fitted by the mechanism noisy-gd, with its privacy report.
	//
	// Guarantee: the release is (ε = 1, δ = 1e-06)-differentially private.
	//
	// Privacy unit: one row of the training CSV file, which is taken to be one person's record. A person with several rows is protected only as a group: k rows count as k changes, and their protection weakens accordingly (ε grows about k-fold, δ more).
	//
	// Neighbouring datasets (replace-one): two datasets are neighbours when they have the same number of rows and differ in one row, in any way the schema allows. The number of rows, n = 2000, is public: the guarantee does not hide it.
	//
	// What ε and δ mean: the probability of any outcome of the release, and so of anything anyone concludes from it about a person, is at most e^ε = 2.719 times what it would be had their row been replaced by any other row, plus at most δ = 1e-06. Smaller is stronger; δ should be far below one over the number of rows (here 1/n = 0.0005).
	//
	// Privacy curve: the certified curve is μ-GDP with μ = 0.236615, with a sampler within total variation 3.06e-13; it gives ε = 0.9996 at δ = 1e-06, and δ = 9.922e-07 at ε = 1.
	//
	// Attacker's view: consider an attacker who knows every other row and tests whether the model was trained with a given person's row or with another given row in its place. At a false-positive rate of 1 %, its true-positive rate is at most 1.84 %; at 5 %, at most 7.96 %; at 10 %, at most 14.9 % (1 − T(α) for the curve's tradeoff function T). An attacker who guesses at random reaches a true-positive rate equal to the false-positive rate (1 %, 5 %, 10 %).
	//
	// Public, not protected: the schema's columns: "age" (numeric, declared range [17, 90]); "hours-per-week" (numeric, declared range [1, 99]); "sex" (categorical: "Female", "Male"); "income" (the label, positive for ">50K", negative for "<=50K"); the norm bound: every encoded row x has ‖x‖_2 ≤ 1 (features scaled by a constant computed from the schema), the last coordinate being the constant 0.5; the loss (logistic), the parameter domain (the ℓ2 ball of radius 5), the mechanism (noisy-gd) with its default settings; the model's privacy budget (ε = 1, δ = 1e-06, under replace-one); the number of rows n = 2000.
	//
	// Covered: the released model weights and its privacy report, and anything computed from them alone, such as predictions on other data or this statement.
	//
	// Not covered: anything released separately from the same data, such as statistics, other models or the data itself; other releases about the same people: their privacy losses add up with this release's (composition), and this statement does not account for them; the local diagnostics privopt shows only to the data owner (training loss, accuracy, clipped rows, run time): they are computed from the data without privacy and must never be published; the security of the training data itself, wherever the data owner keeps and processes it; runs made with a user-chosen seed, which are not private (this release's randomness came from the operating system's generator).
	//
	// Trust: the data owner runs privopt on the data (the central model) and sees the data; the guarantee protects the people in the data from everyone who sees the release, whatever else they know, not from the data owner.
	//
	// # Differential Privacy Deployments Registry entry (schema of github.com/opendp/deployments-registry-data),
	// # generated by privopt from the release's settings, public facts and privacy curve.
	// # The data curator fills in the fields marked below before submitting it.
	// url_slug: "" # the data curator fills this in
	// status: "Draft"
	// tier: 3
	// deployment:
	//   basic:
	//     name: "privopt release: 1 linear model (5 weights, logistic loss) predicting \"income\""
	//     data_curators: # the data curator fills this in
	//       - ""
	//     intended_use: "" # the data curator fills this in
	//     data_product_type: "Machine learning model"
	//     data_product_region: "" # the data curator fills this in
	//     description: "1 linear model (5 weights, logistic loss) predicting \"income\", fitted with privopt's noisy-gd mechanism on a CSV dataset; the model's weights and privacy report are released."
	//     publication_date: "" # the data curator fills this in
	//   dp_variant:
	//     variant_name: "Approximate DP"
	//     data_domain: "Every CSV file with the columns of the declared schema and exactly n = 2000 rows, each row encoded as the schema declares, so that every encoded row x has ‖x‖_2 ≤ 1 (features scaled by a constant computed from the schema), the last coordinate being the constant 0.5."
	//     unprotected_quantities: "Public, none of it computed from the data: the schema's columns: \"age\" (numeric, declared range [17, 90]); \"hours-per-week\" (numeric, declared range [1, 99]); \"sex\" (categorical: \"Female\", \"Male\"); \"income\" (the label, positive for \"\u003e50K\", negative for \"\u003c=50K\"); the norm bound: every encoded row x has ‖x‖_2 ≤ 1 (features scaled by a constant computed from the schema), the last coordinate being the constant 0.5; the loss (logistic), the parameter domain (the ℓ2 ball of radius 5), the mechanism (noisy-gd) with its default settings; the model's privacy budget (ε = 1, δ = 1e-06, under replace-one); the number of rows n = 2000."
	//   privacy_loss:
	//     privacy_unit: "Row-level: one row of the training CSV file, taken to be one person's record"
	//     privacy_unit_details: "Replace-one (bounded DP): two datasets are adjacent when they have the same number of rows, n = 2000 (public), and differ in one row. In OpenDP's terms: input metric ChangeOneDistance, bound on input distance 1 (SymmetricDistance 2 between datasets of equal size). A person with several rows is protected only as a group (k rows are k changes)."
	//     privacy_parameters:
	//       epsilon: 1.0
	//       delta: 1.0e-06
	//     privacy_parameters_details: "In OpenDP's terms: output measure SmoothedMaxDivergence, bounded by the whole privacy curve δ(ε) below; at ε = 1 it is at most δ = 1e-06. Beyond the single point, the certified curve is μ-GDP with μ = 0.236615, with a sampler within total variation 3.06e-13; it gives ε = 0.9996 at δ = 1e-06, and δ = 9.922e-07 at ε = 1."
	//   deployment_model:
	//     model_name: "Central"
	//     actors: "The data owner holds the CSV file and runs privopt on it (on their own machine or in their browser); they see the data and the local diagnostics and must be trusted. Everyone who receives the release (the model weights and the privacy reports) is untrusted: the guarantee holds against them, whatever else they know."
	//     release_type: "One release"
	//     release_type_details: "1 linear model (5 weights, logistic loss) predicting \"income\", published once, together. Any later release from the same data composes with this one and is not covered by this entry."
	//     data_source_type: "Static"
	//     access_type: "Non-interactive"
	//   accounting:
	//     post_processing: "None beyond the mechanism: the released weights are its output as drawn (its projection onto the parameter domain and any rounding to a grid are part of the mechanism). Predictions and anything else computed from the weights alone are post-processing and cost no privacy."
	//     composition: "One model is released: its guarantee is that of its mechanism, μ-GDP with μ = 0.236615, with a sampler within total variation 3.06e-13. Other releases from the same data are not accounted for and compose with this one."
	//   implementation:
	//     preprocessing_and_hyperparameter_tuning: "Pre-processing reads only the declared schema: numeric columns are clipped to their declared ranges and mapped to [0, 1], categorical columns are one-hot encoded, missing values are replaced as declared, and rows are brought within the declared norm bound. No constant is computed from the data, and privopt refuses a schema whose bounds or categories were read from the data until a person confirms them. Every parameter of the mechanism is planned from the settings and public facts before the data is read. No exploratory analysis or tuning on the data is accounted for: if the settings were chosen by looking at the data or at earlier fits on it, that privacy loss is not covered."
	//     mechanisms: "- noisy-gd (projected noisy gradient descent, discrete Gaussian on a grid), following Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets, and the Universality of Langevin Diffusion for Convex Optimization (noisy gradient descent, eq. (18)); Canonne, Kamath and Steinke 2020 for the discrete noise. Guarantee before sampler error: μ-GDP with μ = 0.236615. Sensitivity of the ℓ2 distance between one step's rounded drifts y − h∇F(y) on neighbouring datasets, in real units: 0.002431 (h·Δ + 2g√d with h = 3.99475, g = 7.45e-09 and Δ = 0.000608401 the mean gradient's sensitivity: 2G/n with n = 2000 (replace one example) with G = 0.608401, plus a rounding allowance 4(n + 4)·2⁻⁵³·G). The sampler's total-variation error, at most 3.053e-13 for every dataset, is included in δ. Floating point: the release is drawn on a grid with exact discrete noise or chosen by an exact rejection test, so its floating-point form is covered.\n- Random numbers: the operating system's cryptographic generator.\n- Implementation: privopt, in Go; the same code runs natively and in the browser."
	//     justification: "The data owner chose the settings: the loss, the parameter domain, the mechanism, the budget (ε, δ) and the neighbouring relation. privopt calibrates each mechanism's noise to the exact privacy curve of the declared problem, rounded toward privacy, and certifies the curve of the release; this entry is derived from that curve and from the public settings, not written by hand."
	//   administrative:
	//     sources: "" # the data curator fills this in
	//     notes: "Generated by privopt. The attacker's reading of the privacy curve: a membership attacker's true-positive rate at most 1.84 % at false-positive rate 1 %, true-positive rate at most 7.96 % at false-positive rate 5 %, true-positive rate at most 14.9 % at false-positive rate 10 % (random guessing: equal rates)."
	//     registry_authors: # the data curator fills this in
	//       - ""
	//
	// false-positive rate 0.01: true-positive rate ≤ 0.0183209
	// false-positive rate 0.05: true-positive rate ≤ 0.0795301
	// false-positive rate 0.1: true-positive rate ≤ 0.148026
}

// A seeded run under add/remove: no privacy is claimed, and every statement says so first.
func ExampleOf_seeded() {
	spec := fit.Spec{Loss: "logistic", Domain: fit.Ball, Radius: 5, Mechanism: "outpert", PublicN: 5000,
		Budget: privacy.Budget{Epsilon: 1, Neighbouring: privacy.AddRemove}}
	st := fitted(spec, 1)
	fmt.Println(st.Plain)
	fmt.Println()
	fmt.Println(strings.SplitN(st.Registry, "\nurl_slug", 2)[0])
	fmt.Println(st.Attacker)
	// Output:
	// NO PRIVACY IS CLAIMED for this release: this release's random numbers came from a user-chosen seed, so anyone who knows or guesses the seed can reproduce the noise. Do not publish it as differentially private, and do not rely on it to protect anyone.
	//
	// Privacy statement of this privopt release, following NIST SP 800-226 (Guidelines for Evaluating Differential Privacy Guarantees).
	//
	// Released: 1 linear model (5 weights, logistic loss) predicting "income", fitted by the mechanism outpert, with its privacy report.
	//
	// For reference only: with private randomness and a certified sampler, these settings would make the release (ε = 1)-differentially private (pure: δ = 0) under the add-remove relation (the certified curve is pure ε-DP with ε = 1; it gives δ = 0 at ε = 1). No such claim is made for this release.
	//
	// Public: the schema's columns: "age" (numeric, declared range [17, 90]); "hours-per-week" (numeric, declared range [1, 99]); "sex" (categorical: "Female", "Male"); "income" (the label, positive for ">50K", negative for "<=50K"); the norm bound: every encoded row x has ‖x‖_2 ≤ 1 (features scaled by a constant computed from the schema), the last coordinate being the constant 0.5; the loss (logistic), the parameter domain (the ℓ2 ball of radius 5), the mechanism (outpert) with its default settings; the model's privacy budget (ε = 1, δ = 0, under add-remove); the declared public number of rows N = 5000.
	//
	// Never part of a release: the local diagnostics privopt shows only to the data owner (training loss, accuracy, clipped rows, run time), computed from the data without privacy.
	//
	// # Differential Privacy Deployments Registry entry (schema of github.com/opendp/deployments-registry-data),
	// # generated by privopt from the release's settings, public facts and privacy curve.
	// # The data curator fills in the fields marked below before submitting it.
	// # NO PRIVACY IS CLAIMED for this release: it must not be registered as a differentially private deployment.
	// [{0.01 1} {0.05 1} {0.1 1}]
}
