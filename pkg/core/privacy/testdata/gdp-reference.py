# Generates gdp-reference.tsv: mu-GDP values computed with mpmath at 80 significant digits.
import mpmath as mp
mp.mp.dps = 80
def x(s):
    # the exact value of the double nearest to the decimal string s: the Go test passes doubles
    return mp.mpf(float(s)) if isinstance(s, str) else s
def delta(mu, eps):
    mu = x(mu); eps = x(eps)
    return mp.ncdf(-eps/mu + mu/2) - mp.exp(eps)*mp.ncdf(-eps/mu - mu/2)
def bisect(f, lo, hi):
    assert (f(lo) > 0) != (f(hi) > 0)
    # f(lo) > 0 >= f(hi) or the reverse; 300 halvings give far more than 20 digits.
    flo = f(lo)
    for _ in range(300):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (flo > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
def tradeoff(mu, a):
    with mp.workdps(700):  # 2a-1 must keep a = 1e-300 distinct from -1
        mu = x(mu); a = x(a)
        q = -mp.sqrt(2)*mp.erfinv(2*a-1)  # Phi^{-1}(1-a)
        return mp.ncdf(q - mu)
mus = ['1e-4','3e-4','1e-3','0.01','0.1','0.25','0.5','1','2','5','10','30','100']
epss = ['-5','-1','0','1e-4','1e-3','0.01','0.1','0.5','1','2','3','5','10','20','50','100','300','1000','2000']
print("# mu-GDP reference values computed with mpmath (80 significant digits) by gdp-reference.py (python3 + python3-mpmath).")
print("# delta: log(delta(eps)) and delta itself when it is a normal double; eps: smallest eps>=0 with delta(eps)<=delta;")
print("# calib: largest mu with delta_mu(eps)<=delta; tradeoff: T(alpha)=Phi(Phi^-1(1-alpha)-mu).")
print("# kind\targs\tvalue\tlog_value")
for mu in mus:
    for e in epss:
        d = delta(mu, e)
        if d <= 0:
            continue
        ld = mp.log(d)
        v = mp.nstr(d, 20) if ld > mp.log(mp.mpf('1e-307')) else "underflow"
        print("delta\tmu=%s eps=%s\t%s\t%s" % (mu, e, v, mp.nstr(ld, 20)))
for mu in mus:
    for dl in ['0.9','0.5','0.1','1e-3','1e-6','1e-10','1e-20','1e-50','1e-100','1e-200','1e-300']:
        D = x(dl)
        if delta(mu, 0) <= D:
            continue
        f = lambda e: mp.log(delta(mu, e)) - mp.log(D)
        # bracket
        lo, hi = mp.mpf(0), mp.mpf(mu)*10 + 1
        while f(hi) > 0: hi *= 2
        r = bisect(f, lo, hi)
        if r > 2500: continue
        print("eps\tmu=%s delta=%s\t%s\t" % (mu, dl, mp.nstr(r, 20)))
for e in ['0','0.01','0.1','0.5','1','2','4','8','16','50','200','1000']:
    for dl in ['0.5','0.1','1e-3','1e-5','1e-6','1e-10','1e-20','1e-50','1e-100','1e-300']:
        D = x(dl)
        f = lambda m: mp.log(delta(m, e)) - mp.log(D)
        lo, hi = mp.mpf('1e-5'), mp.mpf(1)
        if f(lo) > 0: continue  # the largest mu is below 1e-5: outside the tested range
        while f(hi) < 0: hi *= 2
        r = bisect(f, lo, hi)
        if r < mp.mpf('1e-4') or r > 100: continue
        print("calib\teps=%s delta=%s\t%s\t" % (e, dl, mp.nstr(r, 20)))
for mu in ['1e-4','0.1','0.5','1','2','5','10','30']:
    for a in ['1e-300','1e-100','1e-20','1e-6','1e-3','0.01','0.05','0.1','0.3','0.5','0.7','0.9','0.99','0.999999']:
        t = tradeoff(mu, a)
        if t < mp.mpf('1e-300'): continue
        print("tradeoff\tmu=%s alpha=%s\t%s\t" % (mu, a, mp.nstr(t, 20)))
# Random points (fixed seed) over mu in [1e-4, 100] (log-uniform) and eps in [0, 2000].
import random
random.seed(7)
n = 0
while n < 600:
    mu = 10**random.uniform(-4, 2)
    r = random.random()
    eps = random.uniform(0, 2000) if r < 0.3 else (10**random.uniform(-6, 3.3) if r < 0.8 else random.uniform(0, 5)*mu*mu)
    eps = min(eps, 2000.0)
    d = delta(mp.mpf(mu), mp.mpf(eps))
    if d <= 0:
        continue
    ld = mp.log(d)
    v = mp.nstr(d, 20) if ld > mp.log(mp.mpf('1e-307')) else "underflow"
    print("delta\tmu=%r eps=%r\t%s\t%s" % (mu, eps, v, mp.nstr(ld, 20)))
    n += 1
