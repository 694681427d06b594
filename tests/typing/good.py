"""A program mypy must accept against tcore's generated stubs (tests/test_stubs.py)."""
import tcore
import tcore.nn.functional as F

x: tcore.Tensor = tcore.ones(2, 3, dtype=tcore.float64)
y = tcore.ones([2, 3], requires_grad=True)
z = tcore.add(x, 1.0, alpha=2) + y * 3 - 1
s = z.exp().sum([0], keepdim=True).mean()
m = x > 0.5
w = tcore.where(m, x, tcore.zeros(2, 3, dtype=tcore.float64))
out = tcore.empty([0], dtype=tcore.float64)
tcore.mul(x, w, out=out)
value: int | float | bool = s.item()
shape: tuple[int, ...] = w.shape
rows: int = w.size(0)
v = x.view(3, 2).transpose(0, 1).contiguous()
p = x ** 2 + abs(-x) + (x @ v)
flags = (m & ~m) | (x != 1)
with tcore.no_grad():
    q = tcore.sqrt(x).relu()
row = x[0]
cell = x[1, ::2, None, ...]
x[0, 1:] = 2.0
for r in x:
    r.sum()
best = x.max(0)
top: tcore.Tensor = best.values + 1
where_: tcore.Tensor = best.indices
var: tcore.Tensor = x.var([1], correction=0, keepdim=True).sqrt()
prod2 = tcore.matmul(x, x.t()) @ x
tcore.manual_seed(0)
noise = tcore.randn(2, 3) * 0.1 + tcore.rand([2, 3]) + tcore.arange(3)
act = F.gelu(x, approximate="tanh") + F.silu(x) + x.clamp(min=0) + F.mse_loss(x, y)
special: tcore.Tensor = tcore.special.expit(x) + tcore.special.logsumexp(x, 1, keepdim=True)
norms: tcore.Tensor = tcore.linalg.vector_norm(x, 2, dim=[1]) + tcore.linalg.vecdot(x, x, dim=-1)
