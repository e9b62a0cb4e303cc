package main

import (
	"encoding/json"
	"flag"
	"io"

	"github.com/privopt/privopt/internal/accounting"
)

const accountSynopsis = `Answers privacy-accounting questions, exactly, and prints JSON:
  --mu M --eps E                       δ(ε) of μ-GDP
  --mu M --delta D                     the smallest ε with δ(ε) ≤ D (and Rényi-DP conversions)
  --eps E --delta D [--sensitivity S]  the largest μ meeting (E, D), and the smallest σ for S
  --compose-mu M1,M2,... [--delta D]   the composed μ = √Σμᵢ², and its ε at D
  --tradeoff --mu M --alpha A          the tradeoff function T(α) of μ-GDP
  --pure-eps E0 --eps E                δ(ε) of pure E0-DP`

func runAccount(args []string, stdout, _ io.Writer) error {
	fs := newFlags("account [options]", accountSynopsis, stdout)
	for _, name := range accounting.Names {
		if name == "tradeoff" {
			fs.Bool(name, false, "compute the tradeoff function T(α) (with --mu and --alpha)")
			continue
		}
		fs.String(name, "", accountFlagHelp[name])
	}
	if err := fs.parse(args); err != nil {
		return err
	}
	params := accounting.Params{}
	fs.Visit(func(f *flag.Flag) { params[f.Name] = f.Value.String() })
	if params["tradeoff"] == "false" {
		delete(params, "tradeoff")
	}
	res, err := accounting.Evaluate(params) // fails only with an accounting.InputError
	if err != nil {
		return usageError{err.Error()}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

var accountFlagHelp = map[string]string{
	"mu":          "Gaussian-DP parameter μ > 0",
	"eps":         "privacy parameter ε",
	"delta":       "privacy parameter δ in (0, 1)",
	"sensitivity": "L2 sensitivity S > 0 of a Gaussian mechanism",
	"compose-mu":  "comma-separated μ values to compose",
	"alpha":       "type I error α in [0, 1]",
	"pure-eps":    "ε₀ of a pure ε₀-DP mechanism",
}
