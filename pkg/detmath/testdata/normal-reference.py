# Generates normal-reference.tsv: erfcx(x), Q(x) = P[Z > x], log Q(x) and the tail inverse,
# computed with mpmath at 60 digits for the exact double inputs (python3 + python3-mpmath).
import mpmath as mp
mp.mp.dps = 60
def x(s):
    return mp.mpf(float(s))
print("# kind\targs\tvalue")
pts = ['-26','-10','-3.7','-1','-0.3','0','1e-8','0.1','0.5','0.9','1','1.7','2.5','2.99','3','3.01','3.9','4','4.1','5.5','6','7.25','9.9','10','12.3','25.3','26.7','30','100','1234.5','1e6','1e150']
for s in pts:
    v = x(s)
    print("erfcx\tx=%s\t%s" % (s, mp.nstr(mp.erfc(v)*mp.exp(v*v), 20)))
for s in ['-38','-8','-2','-0.5','0','0.5','1','1.5','2','3','5','8','12','20','30','37','38.4']:
    print("tail\tx=%s\t%s" % (s, mp.nstr(mp.ncdf(-x(s)), 20)))
for s in ['-40','-3','0','2','10','38','40','100','1000','1e5']:
    print("logtail\tx=%s\t%s" % (s, mp.nstr(mp.log(mp.ncdf(-x(s))), 20)))
with mp.workdps(700):
    for s in ['1e-300','1e-200','1e-100','1e-50','1e-20','1e-10','1e-5','0.001','0.01','0.1','0.2','0.3','0.4','0.45','0.4999','0.5001','0.6','0.9','0.99','0.999999','0.9999999999']:
        p = x(s)
        print("tailinv\tp=%s\t%s" % (s, mp.nstr(-mp.sqrt(2)*mp.erfinv(2*p-1), 20)))
