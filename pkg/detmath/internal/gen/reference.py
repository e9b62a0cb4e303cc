# Generates ../../testdata/reference.tsv: exp, log, erfcx, erfc and erf at random double
# arguments (fixed seed), with 50-digit values (python3 + python3-mpmath).
# Run from pkg/detmath: python3 internal/gen/reference.py > testdata/reference.tsv
import mpmath as mp, random
mp.mp.dps = 50
random.seed(11)
print("# function\targument (repr of the double)\tvalue (20 digits)")
def row(name, x, v):
    print("%s\t%r\t%s" % (name, x, mp.nstr(v, 20)))
for _ in range(400):
    x = random.choice([random.uniform(-745, 709.7), random.uniform(-3, 3), random.uniform(-1e-3, 1e-3), random.uniform(-40, 40)])
    row("exp", x, mp.exp(mp.mpf(x)))
for _ in range(400):
    x = random.choice([10**random.uniform(-307, 308), random.uniform(0.5, 2), 1 + random.uniform(-1e-6, 1e-6), random.uniform(0, 10)])
    row("log", x, mp.log(mp.mpf(x)))
for _ in range(400):
    x = random.choice([random.uniform(0, 3), random.uniform(3, 30), 10**random.uniform(-8, 8), random.uniform(-5, 0)])
    m = mp.mpf(x)
    row("erfcx", x, mp.exp(m*m)*mp.erfc(m))
for _ in range(300):
    x = random.choice([random.uniform(-6, 27), random.uniform(0, 3)])
    row("erfc", x, mp.erfc(mp.mpf(x)))
for _ in range(300):
    x = random.choice([random.uniform(-6, 6), random.uniform(-0.5, 0.5), random.uniform(-1e-5, 1e-5)])
    row("erf", x, mp.erf(mp.mpf(x)))
for x in [0.0, 1.0, 2.9999999999999996, 3.0, 0.49999999999999994, 0.5, 2.5]:
    m = mp.mpf(x)
    row("erfcx", x, mp.exp(m*m)*mp.erfc(m))
