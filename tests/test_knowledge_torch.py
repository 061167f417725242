"""The engine's knowledge of torch and numpy, checked row by row against the real libraries.

Each row is (setup statements, expression[, LOOSE]). The same source runs under real torch
(``exec``) and through the engine; the engine's dtype and shape must agree with the real
result. A row is strict by default: the engine must *know* the dtype and the full shape. Rows
marked LOOSE may be (partly) unknown to the engine (unknown is silent, so never wrong), but
anything the engine does claim must still be true.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from knowledge_truth import contradiction, engine_globals, real_globals  # noqa: E402

LOOSE = "loose"

PRELUDE = """\
import io
PRELUDE_MARK = "abc"
import torch
import numpy as np
x = torch.randn(2, 3)
w = torch.randn(3, 4)
v = torch.randn(3)
i = torch.tensor([[1, 2, 3], [4, 5, 6]])
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
u8 = torch.tensor([1, 2, 3], dtype=torch.uint8)
b = torch.tensor([True, False, True])
x64 = torch.randn(2, 3, dtype=torch.float64)
y4 = torch.randn(2, 3, 4, 5)
b3 = torch.randn(5, 2, 3)
a64 = np.random.rand(4, 3)
a32 = np.ones((4, 3), dtype=np.float32)
ai = np.arange(6)
ai32 = np.arange(6, dtype=np.int32)
ai3 = np.arange(3)
"""

CONSTRUCTORS = [
    # torch.tensor from literal nesting
    ("", "torch.tensor(1)"), ("", "torch.tensor(1.5)"), ("", "torch.tensor(True)"),
    ("", "torch.tensor(2j)"),
    ("", "torch.tensor([1, 2, 3])"), ("", "torch.tensor([1.0, 2])"),
    ("", "torch.tensor([[1, 2], [3, 4]])"), ("", "torch.tensor([[1.0], [2.0], [3.0]])"),
    ("", "torch.tensor([True, False])"), ("", "torch.tensor([True, 1])"),
    ("", "torch.tensor([1, 2.5])"), ("", "torch.tensor([])"), ("", "torch.tensor([[]])"),
    ("", "torch.tensor([1 + 2j, 3])"), ("", "torch.tensor((1, 2))"),
    ("", "torch.tensor([[[1], [2]], [[3], [4]]])"),
    ("", "torch.tensor([1, 2], dtype=torch.float64)"), ("", "torch.tensor([1, 2], dtype=float)"),
    ("", "torch.tensor([1.7, 2.2], dtype=int)"), ("", "torch.tensor([0, 1], dtype=bool)"),
    ("", "torch.tensor([1, 2], dtype=torch.half)"), ("", "torch.tensor(3, dtype=torch.long)"),
    ("n = 4", "torch.tensor([n, n])"), ("f = 0.5", "torch.tensor([f, 1])"),
    ("rows = [[1, 2], [3, 4]]", "torch.tensor(rows)"),
    ("", "torch.tensor(x)"), ("", "torch.as_tensor([1, 2])"), ("", "torch.as_tensor(x64)"),
    ("", "torch.asarray([1.0, 2.0])"),
    # size-taking factories
    ("", "torch.zeros(2, 3)"), ("", "torch.zeros((2, 3))"), ("", "torch.zeros([2, 3])"),
    ("", "torch.zeros(size=(2, 3))"), ("", "torch.zeros(2, 3, dtype=torch.int32)"),
    ("", "torch.zeros(3, dtype=float)"), ("", "torch.zeros(())"), ("", "torch.zeros(0)"),
    ("", "torch.ones(4)"), ("", "torch.ones(2, 2, dtype=torch.bool)"),
    ("", "torch.ones(2, dtype=int)"), ("", "torch.ones(x.shape)"), ("", "torch.ones(x.size())"),
    ("", "torch.empty(3, 4)"), ("", "torch.empty(2, dtype=torch.uint8)"),
    ("", "torch.rand(3)"), ("", "torch.rand(2, 3)"), ("", "torch.randn(2, 3, 4)"),
    ("", "torch.randn(5, dtype=torch.float64)"), ("", "torch.randn(2, 3, requires_grad=True)"),
    ("n = 3", "torch.randn(n, 2)"), ("shape = (2, 5)", "torch.rand(shape)"),
    ("", "torch.full((2, 3), 1.5)"), ("", "torch.full((2, 3), 7)"), ("", "torch.full((2,), True)"),
    ("", "torch.full((2, 2), 1, dtype=torch.float16)"), ("", "torch.full([3], 2j)"),
    ("", "torch.full(size=(1, 2), fill_value=0.5)"),
    ("", "torch.randint(0, 10, (3,))"), ("", "torch.randint(10, (2, 3))"),
    ("", "torch.randint(10, size=(4,))"), ("", "torch.randint(0, 10, (3,), dtype=torch.int32)"),
    ("", "torch.randint(low=0, high=5, size=(2, 2))"),
    ("", "torch.arange(5)"), ("", "torch.arange(1, 10, 2)"), ("", "torch.arange(10, 0, -3)"),
    ("", "torch.arange(0.0, 1.0, 0.25)"), ("", "torch.arange(5, dtype=torch.float32)"),
    ("", "torch.arange(0, 1, 0.1)"), ("", "torch.arange(3.0)"), ("", "torch.arange(3, dtype=float)"),
    ("", "torch.arange(start=2, end=7)"), ("", "torch.arange(end=4)"),
    ("", "torch.linspace(0, 1, 5)"), ("", "torch.linspace(0, 1, steps=7)"),
    ("", "torch.linspace(0, 10, 3, dtype=torch.float64)"), ("", "torch.logspace(0, 2, 3)"),
    ("", "torch.eye(3)"), ("", "torch.eye(2, 4)"), ("", "torch.eye(3, dtype=torch.int64)"),
    ("", "torch.eye(n=2, m=3)"),
    ("", "torch.randperm(6)"), ("", "torch.randperm(4, dtype=torch.int32)"),
    # *_like copy the input's dtype and shape
    ("", "torch.zeros_like(i)"), ("", "torch.ones_like(x)"), ("", "torch.empty_like(b)"),
    ("", "torch.empty_like(x, dtype=torch.float64)"), ("", "torch.full_like(i, 2.5)"),
    ("", "torch.full_like(x, 7)"), ("", "torch.rand_like(x)"), ("", "torch.randn_like(x64)"),
    ("", "torch.randint_like(x, 10)"), ("", "torch.zeros_like(u8, dtype=float)"),
    # new_* copy the receiver's dtype
    ("", "x.new_zeros(2)"), ("", "x.new_zeros((2, 5))"), ("", "x.new_ones((3, 4))"),
    ("", "x.new_ones(3, 4)"), ("", "i.new_full((2,), 1.5)"), ("", "x.new_full((2,), 1)"),
    ("", "x.new_tensor([1, 2])"), ("", "i.new_tensor([1.5])"), ("", "x.new_empty(3)"),
    ("", "x.new_zeros(2, dtype=torch.int64)"), ("", "b.new_ones(2)"),
    ("", "x.new_tensor([[1, 2], [3, 4]])"),
    # legacy constructors
    ("", "torch.Tensor(2, 3)"), ("", "torch.Tensor([1, 2])"), ("", "torch.Tensor([[1, 2]])"),
    ("", "torch.Tensor([1.5, 2])"), ("", "torch.Tensor()"), ("", "torch.Tensor(a64)"),
    ("", "torch.FloatTensor(3)"), ("", "torch.FloatTensor([[1, 2]])"),
    ("", "torch.LongTensor([1, 2, 3])"), ("", "torch.LongTensor(2, 2)"),
    ("", "torch.DoubleTensor(2, 2)"), ("", "torch.BoolTensor([True])"), ("", "torch.IntTensor(2)"),
    ("", "torch.ByteTensor([1, 2])"), ("", "torch.HalfTensor(1)"),
    ("", "torch.FloatTensor(a64)"), ("", "torch.LongTensor((4, 5))"),
    # module-level torch.set_default_dtype
    ("torch.set_default_dtype(torch.float64)", "torch.tensor([1.0])"),
    ("torch.set_default_dtype(torch.float64)", "torch.zeros(2)"),
    ("torch.set_default_dtype(torch.float64)", "torch.randn(2, 2)"),
    ("torch.set_default_dtype(torch.float64)", "torch.arange(0.0, 1.0, 0.5)"),
    ("torch.set_default_dtype(torch.float64)", "torch.tensor([1])"),
    ("torch.set_default_dtype(torch.float64)", "torch.tensor(1) / 2"),
    ("torch.set_default_dtype(torch.float64)", "torch.tensor([1, 2]) * 0.5"),
    ("torch.set_default_dtype(torch.float64)", "torch.linspace(0, 1, 3)"),
    ("torch.set_default_dtype(torch.float64)", "torch.Tensor(2)"),
    ("torch.set_default_dtype(torch.float64)", "torch.eye(2)"),
    ("torch.set_default_dtype(torch.float64)", "torch.full((2,), 1.5)"),
    ("torch.set_default_dtype(torch.float64)", "torch.tensor([1j])"),
    ("torch.set_default_dtype(torch.float64)", "torch.ones(2, dtype=torch.float32)"),
    ("torch.set_default_dtype(torch.float64)", "torch.tensor([1, 2]).sqrt()"),
    ("torch.set_default_dtype(torch.float16)", "torch.tensor([1.0])"),
    ("torch.set_default_dtype(torch.bfloat16)", "torch.zeros(2)"),
    ("torch.set_default_dtype(torch.float64)\ntorch.set_default_dtype(torch.float32)",
     "torch.zeros(2)"),
    ("if len(PRELUDE_MARK) > 5:\n    torch.set_default_dtype(torch.float64)", "torch.zeros(2)", LOOSE),
    ("if len(PRELUDE_MARK) > 5:\n    torch.set_default_dtype(torch.float64)", "torch.tensor([1, 2]) / 2",
     LOOSE),
    ("def maybe():\n    torch.set_default_dtype(torch.float64)\nif len(PRELUDE_MARK) < 5:\n    maybe()",
     "torch.nn.Linear(2, 2).weight", LOOSE),
]

CASTS = [
    ("", "x.float()"), ("", "i.double()"), ("", "x.half()"), ("", "x.bfloat16()"),
    ("", "x.long()"), ("", "x.int()"), ("", "x.short()"), ("", "x.bool()"), ("", "x.byte()"),
    ("", "x.char()"), ("", "x.cfloat()"), ("", "x.cdouble()"),
    ("", "x.to(torch.float64)"), ("", "x.to(dtype=torch.int32)"), ("", "x.to(i)"),
    ("", "i.to(x)"), ("", "x.to('cpu')"), ("", "x.to('cpu', torch.float16)"),
    ("", "x.to(float)"), ("", "i.to(int)"), ("", "x.to(torch.device('cpu'))"),
    ("", "x.to(device='cpu', dtype=torch.bfloat16)"), ("", "x.to(torch.int8, copy=True)"),
    ("", "x.type(torch.int64)"), ("", "x.type(torch.LongTensor)"),
    ("", "x.type('torch.DoubleTensor')"), ("", "x.type(dtype=torch.float16)"),
    ("", "x.type_as(i)"), ("", "i.type_as(x64)"), ("", "x.cpu()"), ("", "x.detach()"),
    ("", "x.clone()"), ("", "x.contiguous()"), ("", "x.double().float()"),
    ("", "x.long().float() / 2"),
]

OPS = [
    # reductions
    ("", "x.sum()"), ("", "i.sum()"), ("", "b.sum()"), ("", "i32.sum()"), ("", "u8.sum()"),
    ("", "x.sum(0)"), ("", "x.sum(dim=1)"), ("", "x.sum(1, keepdim=True)"),
    ("", "x.sum(-1)"), ("", "i.sum(dtype=torch.float64)"), ("", "torch.sum(x)"),
    ("", "torch.sum(x, 1)"), ("", "x.mean()"), ("", "x.mean(0)"), ("", "torch.mean(x, dim=1)"),
    ("", "x64.mean(1, keepdim=True)"), ("", "x.max()"), ("", "x.min()"), ("", "i.max()"),
    ("", "x.max(0)"), ("", "x.min(dim=1)"), ("", "torch.max(x)"), ("", "x.argmax()"),
    ("", "x.argmax(1)"), ("", "x.argmin(dim=0)"), ("", "torch.argmax(x, dim=1)"),
    ("", "x.std()"), ("", "x.var(0)"), ("", "i.prod()"), ("", "b.prod()"), ("", "b.any()"),
    ("", "x.all()"), ("", "x.cumsum(0)"), ("", "i32.cumsum(0)"), ("", "b.cumsum(0)"),
    ("", "x.norm()"), ("", "x.amax(0)"), ("", "x.logsumexp(1)"), ("", "i.float().mean()"),
    ("", "x.median()"), ("", "x.count_nonzero()"), ("", "(x > 0).sum()"),
    ("", "(x > 0).float().mean()"), ("", "x.nansum()"), ("", "x.argsort(1)"), ("", "x.nonzero()", LOOSE),
    # unary math and elementwise methods
    ("", "i.exp()"), ("", "i.sqrt()"), ("", "torch.sigmoid(i)"), ("", "torch.exp(x)"),
    ("", "b.log()"), ("", "u8.tanh()"), ("", "x.abs()"), ("", "i.abs()"), ("", "x.neg()"),
    ("", "x.clamp(0, 1)"), ("", "i.clamp(min=0)"), ("", "x.relu()"), ("", "i.tril()"),
    ("", "x.softmax(1)"), ("", "x.softmax(dim=-1, dtype=torch.float64)"), ("", "i.sign()"),
    ("", "x.round()"), ("", "i.pow(2)"), ("", "x.add(1)"), ("", "i.add(0.5)"), ("", "i.mul(x)"),
    ("", "i.sub(i32)"), ("", "i.div(2)"), ("", "i.true_divide(i)"), ("", "i32.div(i32)"),
    ("", "torch.add(i, x)"), ("", "x.isnan()"), ("", "x.eq(0)"), ("", "i.gt(2)"),
    ("", "torch.where(b, 1.0, 0.0)"), ("", "torch.where(x > 0, x, x64)"),
    ("", "torch.where(x > 0, i, x)"), ("", "x.masked_fill(x > 0, 0.0)"),
    ("", "x[0, 0].item()"), ("", "i.sum().item()"), ("", "b.any().item()"),
    ("", "x // 2"), ("", "i // 2"), ("", "i % 4"), ("", "x ** 2"), ("", "i ** 2"), ("", "i ** 0.5"),
    ("", "2 ** i"), ("", "i & 1"), ("", "b | b"), ("", "-x"), ("", "-i"), ("", "~b"),
    ("", "1 - x"), ("", "1 / i"), ("", "x * v"), ("", "i + u8"), ("", "u8 + i32"),
    ("", "u8 - 128"), ("", "u8 / 255"), ("", "x * 0.5 + 1"),
    ("", "i.pow(0.5)"), ("", "i.pow(x)"), ("", "torch.pow(i, 2)"), ("", "i.clamp(0.5)"),
    ("", "i.clamp(min=0.5)"), ("", "i.clamp(0, 1)"), ("", "torch.clamp(i, max=2.5)"),
    ("", "i.clip(0.0, 1.0)"), ("", "i.masked_fill(i > 2, 0.5)"), ("", "i.fill_(2.5)"),
    ("", "torch.maximum(i, x)"), ("", "torch.minimum(i32, u8)"), ("", "i.float().lerp(x, 0.5)"),
    ("", "x.mul_(2)"), ("", "i.add_(i32)"), ("", "x.sub(1)"), ("", "i.sub(1.5)"),
    ("", "i.mul(2.5)"), ("", "x.abs_()"), ("", "i.neg()"), ("", "torch.abs(u8)"),
    ("", "torch.round(x)"), ("", "torch.floor(i)"), ("", "torch.ceil(x64)"),
    ("", "torch.sqrt(i32)"), ("", "torch.log(u8)"), ("", "torch.tanh(b)"),
    ("", "torch.softmax(x, 1)"), ("", "torch.log_softmax(x, dim=1)"),
    ("", "i.remainder(2.5)"), ("", "i.fmod(2)"), ("", "i.floor_divide(2)"),
    ("", "torch.fmax(i, x)"), ("", "torch.remainder(u8, 3)"), ("", "v.repeat(2)"),
    ("", "v.expand(2, -1)"), ("", "x.repeat(2, 1)"), ("", "x.expand(4, 2, 3)"), ("", "x.squeeze(0)"),
    ("", "torch.zeros(2, 3).masked_fill_(b[:1].expand(2, 3), 1)", LOOSE),
    ("", "x.detach().numpy()"), ("", "x.tolist()", LOOSE), ("", "i.tolist()", LOOSE),
    ("", "x.split(1)[0]", LOOSE), ("", "x.chunk(3, dim=1)[1]", LOOSE), ("", "x.unbind(0)[1]"),
    ("", "torch.unbind(y4, 2)[0]"), ("", "torch.split(x, 2, dim=1)[0]", LOOSE),
    ("xs = []\nfor _ in range(3):\n    xs.append(torch.ones(2, dtype=torch.float64))", "torch.stack(xs)",
     LOOSE),
    ("d = {}\nd['a'] = torch.zeros(3, dtype=torch.int8)", "list(d.values())[0]"),
    ("d = {'a': torch.zeros(3)}", "[v for k, v in d.items()][0]"),
    ("", "x.sum(dim=(0, 1))"), ("", "y4.mean((1, 2))"), ("", "y4.sum([0, -1], keepdim=True)"),
    ("", "x.max(x64)"), ("", "torch.max(i, x)"), ("", "x.topk(2)[0]"), ("", "x.topk(2)[1]"),
    ("", "x.topk(1, dim=0)[0]"), ("", "x.sort()[1]"), ("", "torch.sort(i, dim=0)[0]"),
    ("", "x.max(dim=1)[0]"), ("", "x.min(1, keepdim=True)[1]"), ("", "x.median(0)[0]"),
    ("k = True", "x.sum(0, keepdim=k)"), ("", "x.max(dim=1).values"), ("", "x.max(1).indices"),
    ("", "x.topk(2).indices"), ("", "torch.sort(x, 0).values"), ("", "torch.max(x, 1)[1]"),
    ("out = torch.empty(3)", "torch.add(i[0], i[0], out=out)"),
    ("out = torch.empty(3, dtype=torch.float16)", "torch.mul(v, 2, out=out)"),
    ("w = torch.randn(3, requires_grad=True).double()\n(w * 2).sum().backward()", "w.grad", LOOSE),
    ("t = torch.randn(3, requires_grad=True)", "t.int().requires_grad"),
    ("t = torch.randn(3, requires_grad=True)", "t.double().requires_grad"),
    ("", "torch.logsumexp(i, 0)"), ("", "x == None", LOOSE), ("", "'%.2f' % x.mean()"),
    ("", "range(torch.tensor(3))"),
    ("", "torch.einsum('ij,jk->ik', x, w)", LOOSE), ("", "torch.einsum('ij,jk', [x64, x64.T])", LOOSE),
    # matmul family
    ("", "x @ w"), ("", "x @ x.T"), ("", "torch.matmul(x, w)"), ("", "x.matmul(w)"),
    ("", "torch.mm(x, w)"), ("", "x.mm(w)"), ("", "torch.bmm(b3, b3.transpose(1, 2))"),
    ("", "torch.mv(x, v)"), ("", "torch.dot(v, v)"), ("", "v @ v"), ("", "v @ w"),
    ("", "x @ v"), ("", "b3 @ w"), ("", "i @ i.T"), ("", "x64 @ x64.T"),
    ("", "torch.matmul(b3, v)"), ("", "torch.randn(7, 1, 2, 3) @ torch.randn(5, 3, 4)"),
    # shapes
    ("", "x.view(3, 2)"), ("", "x.view(-1)"), ("", "x.view(6, -1)"), ("", "x.view((3, 2))"),
    ("", "x.reshape(1, 6)"), ("", "x.reshape((3, -1))"), ("", "x.reshape(-1, 2)"),
    ("", "torch.reshape(x, (6,))"), ("", "y4.view(2, -1)"), ("", "y4.reshape(y4.size(0), -1)"),
    ("", "x.flatten()"), ("", "y4.flatten(1)"), ("", "y4.flatten(1, 2)"),
    ("", "torch.flatten(y4, 1)"), ("", "y4.flatten(start_dim=2)"), ("", "y4.flatten(0, -2)"),
    ("", "y4.permute(0, 2, 3, 1)"), ("", "y4.permute((3, 2, 1, 0))"),
    ("", "y4.permute(0, -1, 1, 2)"), ("", "torch.permute(y4, (1, 0, 2, 3))"),
    ("", "x.transpose(0, 1)"), ("", "y4.transpose(1, -1)"), ("", "torch.transpose(y4, 0, 2)"),
    ("", "x.t()"), ("", "x.T"), ("", "v.t()"), ("", "y4.mT"), ("", "y4.swapaxes(0, 1)"),
    ("", "x.unsqueeze(0)"), ("", "x.unsqueeze(-1)"), ("", "x.unsqueeze(1)"),
    ("", "torch.unsqueeze(v, 0)"), ("", "torch.ones(1, 3, 1).squeeze()"),
    ("", "torch.ones(1, 3, 1).squeeze(0)"), ("", "torch.ones(1, 3, 1).squeeze(-1)"),
    ("", "torch.ones(2, 3).squeeze(0)"), ("", "torch.squeeze(torch.ones(1, 3))"),
    ("", "torch.cat([x, x])"), ("", "torch.cat([x, x], dim=1)"), ("", "torch.cat((x, x), 1)"),
    ("", "torch.cat([x, x64])"), ("", "torch.cat([x, i], -1)"), ("", "torch.concat([v, v])"),
    ("", "torch.stack([x, x])"), ("", "torch.stack([x, x], dim=2)"), ("", "torch.stack([v, v], 1)"),
    ("", "torch.stack((i, i), -1)"), ("", "torch.stack([v, v.double()])"),
    ("", "x.view_as(x.T)"), ("", "x.reshape_as(x.T)"), ("", "v.expand_as(x)"),
    ("", "x.size()"), ("", "x.shape"), ("", "x.size(1)"), ("", "x.size(-1)"), ("", "x.shape[0]"),
    ("", "x.dim()"), ("", "x.ndim"), ("", "x.numel()"), ("", "len(x)"), ("", "len(a64)"), ("", "len([x, x, x])"), ("", "len(x.shape)"), ("", "x.shape[-1]"),
    # indexing
    ("", "x[0]"), ("", "x[:, 0]"), ("", "x[0, 1]"), ("", "x[-1]"), ("", "y4[0, 1]"),
    ("", "y4[:, :, 0]"), ("", "x[1:]", LOOSE), ("", "x[:, :2]", LOOSE), ("", "x[..., 0]", LOOSE),
    ("", "x[None]", LOOSE), ("", "x[:, None]", LOOSE), ("", "x[x > 0]", LOOSE),
    ("", "x[b[:2]]", LOOSE), ("", "x[torch.tensor([0, 1, 1])]", LOOSE),
    ("", "x[:, [0, 2]]", LOOSE), ("", "x[:]"), ("", "y4[0][1]"), ("", "x[0][0]"),
    ("", "i[1]"), ("", "b[0]"), ("", "x.data"), ("", "x.detach()[0]"),
    # dtype predicates: a known bool decides `x.half() if x.is_floating_point() else x`
    ("", "x.is_floating_point()"), ("", "i.is_floating_point()"), ("", "torch.is_floating_point(b)"),
    ("", "x.half().is_floating_point()"), ("", "x.is_complex()"), ("", "torch.is_complex(i32)"),
    ("", "x.half() if x.is_floating_point() else x"), ("", "i.half() if i.is_floating_point() else i"),
    ("", "torch.outer(v, v)"), ("", "torch.outer(torch.arange(4.0), v)"),
    ("", "x.half().index_select(1, torch.tensor([0, 2]))"), ("", "torch.index_select(i, 0, torch.tensor(1))"),
    ("", "y4.index_select(-1, torch.arange(3))"), ("", "x.index_select(0, torch.tensor([0], dtype=torch.int32))"),
    # grids and inverses: shapes and the inputs' dtype
    ("", "torch.meshgrid(v, torch.randn(4), indexing='ij')[1]"),
    ("", "torch.meshgrid(v, torch.randn(4), indexing='xy')[0]"),
    ("", "torch.meshgrid([torch.arange(3), torch.arange(5), torch.arange(2)], indexing='ij')[2]"),
    ("", "torch.meshgrid(torch.tensor(2.0), v, indexing='ij')[0]"),
    ("", "torch.meshgrid(torch.arange(3), torch.arange(4), torch.arange(2), indexing='xy')[2]"),
    ("", "torch.inverse(torch.randn(2, 3, 3) + 3 * torch.eye(3))"),
    ("", "torch.linalg.inv(x64[:, :2] + 3 * torch.eye(2, dtype=torch.float64))"),
    # F.interpolate: (N, C) kept, the spatial sizes given, the input's dtype
    ("", "torch.nn.functional.interpolate(y4, size=(6, 7), mode='bilinear')"),
    ("", "torch.nn.functional.interpolate(y4.double(), size=3)"),
    ("", "torch.nn.functional.interpolate(b3, size=8, mode='linear', align_corners=False)"),
    ("", "torch.nn.functional.interpolate(y4[None].half(), (2, 3, 4), None, 'trilinear')"),
    # scale_factor: each spatial size becomes floor(size * scale), in doubles
    ("", "torch.nn.functional.interpolate(y4, scale_factor=2)"),
    ("", "torch.nn.functional.interpolate(y4, scale_factor=(1.5, 0.7), mode='bilinear')"),
    ("", "torch.nn.functional.interpolate(b3, None, 0.7)"),
    ("", "torch.nn.functional.interpolate(y4, scale_factor=1.9, recompute_scale_factor=True)"),
]

NUMPY = [
    ("", "np.array([1, 2])"), ("", "np.array([1.0, 2])"), ("", "np.array([[1, 2], [3, 4]])"),
    ("", "np.array([True, False])"), ("", "np.array([1, 2], dtype=np.float32)"),
    ("", "np.array([1, 2], dtype='float32')"), ("", "np.array([1, 2], dtype=float)"),
    ("", "np.array([1.5, 2], dtype=int)"), ("", "np.array(3)"), ("", "np.array(2.5)"),
    ("", "np.array([1j])"), ("", "np.asarray([1.5])"), ("", "np.asarray(a32)"),
    ("", "np.array(a32)"), ("", "np.array([[1.0, 2.0]], dtype=np.float16)"),
    ("", "np.zeros(3)"), ("", "np.zeros((2, 3))"), ("", "np.zeros([2, 3], dtype=np.int32)"),
    ("", "np.ones((2,), dtype=np.int32)"), ("", "np.ones(4)"), ("", "np.empty(4)"),
    ("", "np.empty((2, 2), dtype='uint8')"), ("", "np.full((2, 2), 7)"),
    ("", "np.full(3, 0.5)"), ("", "np.full((1,), True)"), ("", "np.full((2,), 1, dtype=np.float32)"),
    ("", "np.arange(5)"), ("", "np.arange(0.0, 1.0, 0.25)"), ("", "np.arange(2, 8, 2)"),
    ("", "np.arange(5, dtype=np.float32)"), ("", "np.linspace(0, 1, 5)"),
    ("", "np.linspace(0, 1, num=4)"), ("", "np.linspace(0, 1)"),
    ("", "np.random.rand(4, 3)"), ("", "np.random.rand()"), ("", "np.random.randn(2)"),
    ("", "np.random.random((2, 3))"), ("", "np.random.random(3)"),
    ("", "np.random.random_sample((2,))"),
    ("", "np.random.randint(0, 10, size=(3,))"), ("", "np.random.randint(5, size=4)"),
    ("", "np.random.uniform(size=(2,))"), ("", "np.random.normal(0, 1, (2, 3))"),
    ("", "np.random.normal(0, 1, size=5)"), ("", "np.random.standard_normal((3, 2))"),
    ("", "np.random.permutation(5)"),
    ("", "np.zeros_like(a32)"), ("", "np.ones_like(ai)"), ("", "np.full_like(ai, 2.5)"),
    ("", "a64.astype(np.float32)"), ("", "a64.astype('int32')"), ("", "a64.astype(int)"),
    ("", "ai.astype(float)"), ("", "a32.astype(np.float64)"), ("", "ai.astype(bool)"),
    ("", "a64.T"), ("", "a64.shape"), ("", "a64.reshape(-1)"), ("", "a64.copy()"),
    ("", "a64.flatten()"), ("", "a64[0]", LOOSE), ("", "a64.ravel()"),
    # NumPy 2 promotion: Python scalars are weak, arrays are not
    ("b64 = np.zeros(6)\nb64.shape = (2, 3)", "b64"), ("b64 = np.zeros(6)\nb64.shape = (3, -1)", "b64", LOOSE),
    ("", "np.concatenate([a64, a32])"), ("", "np.concatenate((a32, a32), axis=1)"),
    ("", "np.stack([ai, ai32])"), ("", "np.stack([a32, a32], axis=-1)"), ("", "np.vstack([a32, a64])"),
    ("", "np.hstack([a32, a32])"), ("", "np.concatenate([ai, ai32.astype(np.uint8)])"),
    ("", "a64 + 1"), ("", "a64 * 2.5"), ("", "a32 + 1.5"), ("", "a32 * 2"), ("", "ai + 1.5"),
    ("", "ai / 2"), ("", "ai32 + ai"), ("", "a32 + a64"), ("", "ai32 + 1"), ("", "ai32 * 1.5"),
    ("", "ai32 / 2"), ("", "a32 / 2"), ("", "ai + ai32"), ("", "a32 * ai3"), ("", "a64 > 0"),
    ("", "ai == 1"), ("", "ai // 2"), ("", "ai32 + True"), ("", "-a32"), ("", "a32 @ a32.T"),
    ("", "np.loadtxt(io.StringIO('1 2\\n3 4'))", LOOSE),
    ("", "np.loadtxt(io.StringIO('1 2\\n3 4'), dtype=np.int32)", LOOSE),
    ("", "np.genfromtxt(io.StringIO('1,2\\n3,4'), delimiter=',')", LOOSE),
    # numpy to torch keeps the dtype
    ("", "torch.from_numpy(a64)"), ("", "torch.from_numpy(np.zeros(3, dtype=np.float32))"),
    ("", "torch.from_numpy(np.random.rand(4, 3))"), ("", "torch.tensor(a64)"),
    ("", "torch.as_tensor(a64)"), ("", "torch.tensor(ai)"), ("", "torch.from_numpy(np.arange(3))"),
    ("", "torch.as_tensor(a64, dtype=torch.float32)"), ("", "torch.tensor(a32)"),
    ("", "torch.from_numpy(a64).float()"), ("", "torch.from_numpy(ai32)"),
    ("", "torch.from_numpy(np.array([True]))"), ("", "torch.tensor(np.array([1.0, 2.0]))"),
    ("", "x.numpy()"), ("", "i.numpy()"), ("", "x.detach().cpu().numpy()"),
    ("", "torch.from_numpy(a64) * v"), ("", "v + torch.from_numpy(a32)"),
    # triangles keep the dtype and shape (a 1-D array becomes square); numpy scalars from sums
    ("", "np.triu(a64, 1)"), ("", "np.tril(a32)"), ("", "np.triu(ai32)"), ("", "np.tril(m=a64 > 0, k=-1)"),
    ("", "np.triu(a64 @ a64.T)"), ("", "float(a64.size - a64.sum()) / a64.sum()"), ("", "a64.sum() * 2.0"),
]

MODULES = [
    ("", "torch.nn.Linear(3, 4)(x)"), ("", "torch.nn.Linear(3, 4)(v)"),
    ("", "torch.nn.Linear(5, 2)(y4)"), ("", "torch.nn.Linear(3, 4, dtype=torch.float64)(x64)"),
    ("m = torch.nn.Linear(3, 4)\nm.double()", "m(x64)"), ("m = torch.nn.Linear(3, 4).half()", "m.weight"),
    ("", "torch.nn.Linear(3, 4).weight"), ("", "torch.nn.Linear(3, 4).bias", LOOSE),
    ("", "torch.nn.Conv2d(3, 8, 3)(torch.randn(2, 3, 10, 10))"),
    ("", "torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)(torch.randn(2, 3, 10, 10))"),
    ("", "torch.nn.Conv2d(3, 8, kernel_size=(3, 5))(torch.randn(3, 10, 10))"),
    ("", "torch.nn.Conv1d(4, 6, 3, padding=1)(torch.randn(2, 4, 9))"),
    ("", "torch.nn.MaxPool2d(2)(torch.randn(2, 3, 10, 10))"),
    ("", "torch.nn.AvgPool2d(3, stride=1)(torch.randn(1, 2, 5, 5))"),
    ("", "torch.nn.AdaptiveAvgPool2d(1)(torch.randn(2, 3, 10, 10))"),
    ("", "torch.nn.AdaptiveAvgPool2d((2, 3))(torch.randn(2, 3, 10, 10))"),
    # padding layers: F.pad's arithmetic on the last dims, the input's dtype
    ("", "torch.nn.ReflectionPad2d(3)(torch.randn(2, 3, 10, 10))"),
    # a convolution's weight is (out, in // groups, *kernel) ((in, out // groups, ...) transposed);
    # its settings read back as tuples
    ("", "torch.nn.Conv2d(4, 6, (3, 5), groups=2).weight"),
    ("", "torch.nn.Conv1d(3, 8, 5).weight.double()"),
    ("", "torch.nn.Conv3d(2, 4, 3, padding=1).weight"),
    ("", "torch.nn.ConvTranspose2d(4, 6, 3, groups=2).weight"),
    ("", "torch.nn.Conv2d(3, 8, 3, stride=2).stride"), ("", "torch.nn.Conv2d(3, 8, 3).padding"),
    ("", "torch.nn.Conv1d(3, 8, 3, dilation=2).dilation"), ("", "torch.nn.Conv2d(3, 8, (1, 3)).kernel_size"),
    ("", "torch.nn.Conv2d(3, 8, 3).groups"), ("", "torch.nn.Conv2d(4, 8, 3, groups=4).groups"),
    ("", "torch.nn.Conv2d(3, 8, 3, padding='same').padding", LOOSE),
    # F.conv1d/2d/3d: (N, weight's out channels, each size from the window)
    ("", "torch.nn.functional.conv2d(y4, torch.randn(6, 3, 2, 2))"),
    ("", "torch.nn.functional.conv2d(y4, torch.randn(6, 3, 3, 3), None, 2, 1)"),
    ("", "torch.nn.functional.conv2d(y4[0], torch.randn(6, 3, 3, 1), stride=(1, 2), dilation=(1, 1))"),
    ("", "torch.nn.functional.conv1d(b3, torch.randn(4, 1, 2), groups=2)"),
    ("", "torch.nn.functional.conv3d(y4[None], torch.randn(5, 2, 2, 2, 2), padding=1)"),
    ("", "torch.nn.functional.conv2d(y4, torch.randn(6, 3, 3, 3), padding='same')", LOOSE),
    # the resampling layers: F.interpolate with their settings
    ("", "torch.nn.Upsample(scale_factor=2)(torch.randn(2, 3, 5, 7))"),
    ("", "torch.nn.Upsample(size=(4, 9), mode='bilinear')(torch.randn(2, 3, 5, 7).double())"),
    ("", "torch.nn.Upsample(None, 1.5, 'trilinear')(torch.randn(1, 2, 3, 5, 7))"),
    ("", "torch.nn.Upsample(scale_factor=(2, 0.5))(torch.randn(2, 3, 5, 7).half())"),
    ("", "torch.nn.Upsample(scale_factor=3, mode='linear')(torch.randn(2, 3, 5))"),
    ("", "torch.nn.UpsamplingNearest2d(scale_factor=2)(torch.randn(2, 3, 5, 7))"),
    ("", "torch.nn.UpsamplingBilinear2d(size=6)(torch.randn(2, 3, 5, 7))"),
    ("", "torch.nn.ReflectionPad2d((1, 2, 0, 3))(torch.randn(3, 10, 10).double())"),
    ("", "torch.nn.ReplicationPad1d(2)(torch.randn(2, 3, 5))"),
    ("", "torch.nn.ZeroPad2d((1, 1, 2, 0))(torch.randn(1, 2, 4, 4).half())"),
    ("", "torch.nn.ConstantPad1d(2, 3.5)(torch.randn(2, 4))"),
    ("", "torch.nn.ReflectionPad3d(1)(torch.randn(1, 2, 3, 4, 5))"),
    ("", "torch.nn.Embedding(10, 4)(torch.tensor([[1, 2], [3, 4]]))"),
    ("", "torch.nn.Embedding(10, 4).weight"),
    ("", "torch.nn.LayerNorm(3)(x)"), ("", "torch.nn.LayerNorm(3)(x.half())"),
    ("", "torch.nn.BatchNorm1d(3)(x.bfloat16())"), ("", "torch.nn.GroupNorm(1, 3)(x.half())"),
    ("", "torch.nn.LayerNorm(3).double()(x64)"), ("", "torch.nn.BatchNorm1d(3)(x)"),
    ("", "torch.nn.BatchNorm2d(3)(torch.randn(2, 3, 4, 4))"),
    ("", "torch.nn.ReLU()(x)"), ("", "torch.nn.ReLU()(i)"), ("", "torch.nn.Sigmoid()(i)"),
    ("", "torch.nn.Dropout(0.5)(x64)"), ("", "torch.nn.Flatten()(y4)"),
    ("", "torch.nn.Flatten(0)(y4)"), ("", "torch.nn.Identity()(u8)"), ("", "torch.nn.Softmax(dim=1)(x)"),
    ("", "torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))(x)"),
    ("", "torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten())(torch.randn(2, 3, 5, 5))"),
    ("", "torch.nn.LSTM(3, 5)(torch.randn(7, 2, 3))[0]"),
    ("", "torch.nn.LSTM(3, 5, batch_first=True)(torch.randn(2, 7, 3))[0]"),
    ("", "torch.nn.GRU(3, 5, bidirectional=True)(torch.randn(7, 2, 3))[0]"),
    ("", "torch.nn.MultiheadAttention(4, 2)(torch.randn(5, 2, 4), torch.randn(5, 2, 4), "
         "torch.randn(5, 2, 4))[0]"),
    ("", "torch.nn.CrossEntropyLoss()(x, torch.tensor([0, 2]))"),
    ("", "torch.nn.CrossEntropyLoss(reduction='none')(x, torch.tensor([0, 2]))", LOOSE),
    ("", "torch.nn.MSELoss()(x, x)"), ("", "torch.nn.MSELoss()(x64, x64)"),
    ("", "torch.nn.BCEWithLogitsLoss()(x, torch.ones(2, 3))"), ("", "torch.nn.L1Loss()(v, v)"),
    ("", "torch.nn.NLLLoss()(x.log_softmax(1), torch.tensor([0, 1]))"),
    ("", "torch.nn.HuberLoss()(x, x)"), ("", "torch.nn.HuberLoss()(x, x64)"),
    ("", "torch.nn.MSELoss()(x, x64)"), ("", "torch.nn.MSELoss()(x.bfloat16(), x)"),
    ("", "torch.nn.L1Loss()(x64, x)"), ("", "torch.nn.MSELoss()(x, i)"),
    ("", "torch.nn.BCEWithLogitsLoss()(x, torch.rand(2, 3, dtype=torch.float64))"),
    ("", "torch.nn.CrossEntropyLoss()(x64, torch.tensor([0, 1]))"),
    ("", "torch.nn.CrossEntropyLoss()(x, x64.softmax(1))"),
    ("", "torch.nn.functional.smooth_l1_loss(x.half(), x)"),
    ("", "torch.nn.functional.binary_cross_entropy(torch.rand(3), torch.rand(3))"),
    ("", "torch.nn.functional.cross_entropy(x.bfloat16(), torch.tensor([0, 1]))"),
    ("", "torch.nn.functional.nll_loss(x64, torch.tensor([0, 1]))"),
    ("", "torch.nn.functional.kl_div(x, x64, reduction='batchmean')"),
    ("", "torch.nn.functional.relu(x64)"), ("", "torch.nn.functional.softmax(x, dim=1)"),
    ("", "torch.nn.functional.linear(x, w.T)"), ("", "torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)"),
    ("", "torch.nn.functional.one_hot(torch.tensor([0, 2]))", LOOSE),
    ("", "torch.nn.functional.cross_entropy(x, torch.tensor([0, 2]))"),
    ("", "torch.nn.functional.mse_loss(x, x, reduction='sum')"),
    ("", "torch.nn.functional.mse_loss(x, x, reduction='none')", LOOSE),
    ("", "torch.nn.functional.embedding(torch.tensor([1, 2]), torch.randn(5, 3))"),
    ("", "torch.nn.functional.sigmoid(i)"), ("", "torch.nn.functional.gelu(x)"),
    ("", "torch.nn.functional.dropout(x, 0.1)"), ("", "torch.nn.functional.normalize(x)"),
    ("", "torch.nn.functional.pad(x, (1, 1))", LOOSE), ("", "torch.nn.functional.layer_norm(x, (3,))"),
    ("torch.set_default_dtype(torch.float64)", "torch.nn.Linear(3, 4)(x64)"),
    ("torch.set_default_dtype(torch.float64)", "torch.nn.Linear(3, 4).weight"),
    ("torch.set_default_dtype(torch.float64)", "torch.nn.Conv1d(2, 2, 1).weight", LOOSE),
    ("torch.set_default_dtype(torch.float64)", "torch.nn.Embedding(4, 2)(torch.tensor([1]))"),
    ("def main():\n    torch.set_default_dtype(torch.float64)\nmain()", "torch.zeros(2)"),
    ("t = torch.zeros(3)\nt.data = torch.ones(3, dtype=torch.float64)", "t * 1"),
    ("t = torch.zeros(2, 3)\nt.unsqueeze_(0)", "t"), ("t = torch.zeros(1, 3)\nt.squeeze_()", "t"),
    ("t = torch.zeros(2, 3)\nt.t_()", "t"), ("t = torch.zeros(2, 3)\nt.resize_(6)", "t", LOOSE),
    ("t = torch.zeros(2, 3)", "t.unsqueeze_(1)"),
    ("m = torch.nn.Linear(3, 2)\nm.weight.data = torch.randn(2, 3, dtype=torch.float64)", "m.weight", LOOSE),
    ("m = torch.nn.Linear(3, 2)\nm.weight = torch.nn.Parameter(torch.randn(2, 3).half())", "m.weight", LOOSE),
    ("", "torch.nn.Parameter(torch.zeros(2, 3))"), ("", "torch.nn.Parameter(x64)"),
    # a tensor with an ndarray on its right: numpy computes it, with numpy's promotion
    # (knowledge/tensor_array_ops.py)
    ("", "torch.randn(4, 3) - a64"), ("", "torch.randn(4, 3) * a32"), ("", "torch.randn(2, 3) + ai32[:3]"),
    ("", "i * a64[:2]"), ("", "torch.ones(4, 3) / np.array(2.0)"), ("", "(x - np.array([0.5, 0.4, 0.3])) / 0.2"),
    ("", "i + np.array(1.5)"), ("", "u8 * ai[:3]"), ("", "b & np.array([True, False, True])"),
    ("", "torch.ones(3, dtype=torch.half) + np.ones(3, dtype=np.float32)"), ("", "i // ai32[:3]"),
    ("", "i32 / ai32[:3]"), ("", "x ** a64[:2]"), ("", "torch.ones(2, 3) % ai[:3]"),
    # an autocast decorator runs the body in the region; an nn.Sequential in a region runs
    # layer by layer as autocast runs each (engine/functions.autocast_regions)
    ("m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU())\n"
     "@torch.autocast('cpu', dtype=torch.bfloat16)\ndef f(t):\n    return m(t)", "f(x)"),
    ("m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))\n"
     "@torch.autocast(device_type='cpu')\ndef f(t):\n    return m(t) @ w[:2]", "f(x)", LOOSE),
    ("@torch.autocast('cpu', dtype=torch.bfloat16)\ndef f(t):\n    return t + 1", "f(x)"),
    ("m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Softmax(dim=-1))\n"
     "@torch.autocast('cpu', dtype=torch.bfloat16)\ndef f(t):\n    return m(t)", "f(x)", LOOSE),
    # losses with reduction="none": one value per element (broadcast), per sample for the class losses
    ("", "torch.nn.functional.mse_loss(torch.randn(8, 1), torch.randn(8), reduction='none')"),
    ("", "torch.nn.functional.l1_loss(x, v, reduction='none')"),
    ("", "torch.nn.functional.smooth_l1_loss(x, x, reduction='none')"),
    ("", "torch.nn.functional.kl_div(x.log_softmax(1), x.softmax(1), reduction='none')"),
    ("", "torch.nn.functional.binary_cross_entropy_with_logits(x, x.sigmoid(), reduction='none')"),
    ("", "torch.nn.functional.binary_cross_entropy_with_logits(x, x.sigmoid(), pos_weight=v, reduction='none')"),
    ("", "torch.nn.functional.binary_cross_entropy(x.sigmoid(), x.sigmoid(), reduction='none')"),
    ("", "torch.nn.functional.cross_entropy(x, torch.tensor([0, 2]), reduction='none')"),
    ("", "torch.nn.functional.nll_loss(y4[:, :, 0], torch.zeros(2, 5, dtype=torch.long), reduction='none')"),
    ("", "torch.nn.functional.cross_entropy(v, torch.tensor(1), reduction='none')"),
    ("", "torch.nn.MSELoss(reduction='none')(torch.randn(8, 1), torch.randn(8))"),
    ("", "torch.nn.CrossEntropyLoss(reduction='none')(torch.randn(8, 5, 3), torch.randint(0, 5, (8, 3)))"),
    ("", "torch.nn.HuberLoss(reduction='none')(x, x[:1])"),
    ("", "torch.nn.BCEWithLogitsLoss(reduction='none')(x, x.sigmoid())", LOOSE),
    # gather: the input's dtype in the index's shape
    ("", "x.gather(1, torch.tensor([[0], [2]]))"), ("", "torch.gather(x64, 0, torch.zeros(1, 3, dtype=torch.long))"),
    ("", "i.gather(1, torch.zeros(2, 5, dtype=torch.long))"),
    # a subclass of nn.Sequential whose layers super().__init__ gets runs them; one that adds a
    # layer (an attribute set on self, append) or has its own forward is not followed
    ("class Block(torch.nn.Sequential):\n    def __init__(self, a, b):\n"
     "        super().__init__(torch.nn.Conv2d(a, b, 3, padding=1), torch.nn.ReLU())",
     "torch.nn.ModuleList([Block(3, 4), Block(4, 8)])[1](Block(3, 4)(torch.randn(2, 3, 8, 8)))"),
    ("class Grown(torch.nn.Sequential):\n    def __init__(self):\n        super().__init__(torch.nn.Linear(3, 4))\n"
     "        self.extra = torch.nn.Linear(4, 2)", "Grown()(x)", LOOSE),
    ("class Appended(torch.nn.Sequential):\n    def __init__(self):\n        super().__init__(torch.nn.Linear(3, 4))\n"
     "        self.append(torch.nn.Linear(4, 5))", "Appended()(x)", LOOSE),
    # a layer's only parameter replaced: the layer computes in the new dtype (module_dtypes.sole_parameter)
    ("m = torch.nn.Linear(3, 2, bias=False)\nm.weight.data = torch.randn(2, 3, dtype=torch.float64)", "m(x64)"),
    ("m = torch.nn.Embedding(5, 2)\nm.weight = torch.nn.Parameter(torch.from_numpy(np.random.rand(5, 2)))",
     "m(torch.tensor([1, 4]))"),
    ("m = torch.nn.Conv1d(2, 2, 1, bias=False)\nm.weight.data = torch.randn(2, 2, 1).double()",
     "m(x64.unsqueeze(0))"),
    ("m = torch.nn.Embedding(5, 2)\nm.weight.data = torch.randn(5, 2).half()", "m.weight"),
    # attention weights: averaged over heads (N, L, S), per head (N, heads, L, S), unbatched (L, S)
    ("mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)\nq, k = torch.randn(3, 5, 8), torch.randn(3, 7, 8)",
     "mha(q, k, k)[1]"),
    ("mha = torch.nn.MultiheadAttention(8, 2)\nq, k = torch.randn(5, 3, 8), torch.randn(7, 3, 8)",
     "mha(q, k, k, average_attn_weights=False)[1]"),
    ("mha = torch.nn.MultiheadAttention(8, 2)\nq, k = torch.randn(5, 8), torch.randn(7, 8)", "mha(q, k, k)[1]"),
    ("mha = torch.nn.MultiheadAttention(8, 2)\nq = torch.randn(5, 3, 8)", "mha(q, q, q)[0]"),
    ("layer = torch.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)\n"
     "dec = torch.nn.TransformerDecoder(layer, 2)", "dec(torch.randn(3, 4, 8), torch.randn(3, 6, 8))"),
    ("", "torch.nn.TransformerDecoderLayer(8, 2, 16)(torch.randn(4, 3, 8), torch.randn(6, 3, 8))"),
    # pad_sequence: (max L, N, *rest), or (N, max L, *rest) batch first; their dtype
    ("from torch.nn.utils.rnn import pad_sequence\nseqs = [torch.ones(3, 2), torch.ones(5, 2), torch.ones(1, 2)]",
     "pad_sequence(seqs)"),
    ("from torch.nn.utils.rnn import pad_sequence\nseqs = [torch.tensor([1, 2]), torch.tensor([3])]",
     "pad_sequence(seqs, batch_first=True, padding_value=0)"),
    ("from torch.nn.utils.rnn import pad_sequence\nseqs = [torch.ones(n, 4).half() for n in (2, 6)]",
     "pad_sequence(seqs, True)"),
    ("", "x.repeat_interleave(2, dim=0)"), ("", "x.repeat_interleave(3, dim=-1)"), ("", "x.repeat_interleave(2)"),
    ("", "torch.repeat_interleave(i, 2, dim=1)"), ("", "i.repeat_interleave(torch.tensor([1, 2]), dim=0)", LOOSE),
    ("", "torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0]))"),
    ("", "torch.bucketize(x, torch.tensor([0.0]), out_int32=True)"),
    ("", "torch.nn.functional.cosine_similarity(y4, y4, dim=1)"),
    ("", "torch.nn.functional.cosine_similarity(x, v.unsqueeze(0))"),
    ("", "torch.cosine_similarity(x64, x64, dim=-1)"),
    # elementwise activations and normalisations of the functional API keep dtype and shape
    *[("", f"torch.nn.functional.{name}({arg})") for name, arg in (
        ("softplus", "y4"), ("mish", "x64"), ("hardswish", "x"), ("hardsigmoid", "x.half()"), ("selu", "y4"),
        ("celu", "x"), ("softsign", "x"), ("logsigmoid", "x64"), ("tanhshrink", "x"), ("softshrink", "x"),
        ("hardshrink", "x"), ("dropout1d", "b3"), ("dropout2d", "y4"), ("dropout3d", "y4.unsqueeze(0)"),
        ("alpha_dropout", "x"), ("group_norm", "y4, 3"), ("instance_norm", "y4"),
        ("local_response_norm", "y4, 2"))],
]

TABLE = CONSTRUCTORS + CASTS + OPS + NUMPY + MODULES


def _row(row):
    setup, expr = row[0], row[1]
    strict = not (len(row) > 2 and row[2] == LOOSE)
    return setup, expr, strict


def _source(setup: str, expr: str) -> str:
    return PRELUDE + (setup + "\n" if setup else "") + f"result = {expr}\n"


def _real(source: str):
    previous = torch.get_default_dtype()
    try:
        return real_globals(source)["result"]
    finally:
        torch.set_default_dtype(previous)


def _check(rows):
    wrong = []
    for row in rows:
        setup, expr, strict = _row(row)
        source = _source(setup, expr)
        try:
            real = _real(source)
        except Exception as exc:  # noqa: BLE001 - a broken row is reported, not a crash
            wrong.append(f"{expr}: raised under real torch: {type(exc).__name__}: {exc}")
            continue
        engine = engine_globals(source).get("result")
        why = contradiction(engine, real, require_known=strict)
        if why:
            label = f"{setup.replace(chr(10), '; ')}; {expr}" if setup else expr
            wrong.append(f"{label}: {why}")
    return wrong


@pytest.mark.parametrize("name,rows", [("constructors", CONSTRUCTORS), ("casts", CASTS),
                                       ("ops", OPS), ("numpy", NUMPY), ("modules", MODULES)])
def test_engine_agrees_with_torch(name, rows):
    wrong = _check(rows)
    assert not wrong, f"{len(wrong)} of {len(rows)} {name} rows disagree:\n" + "\n".join(wrong)


def test_table_rows_run_under_real_torch():
    # Every row is valid code: a row that raised would compare nothing.
    assert len(TABLE) > 400
    assert len({(_row(r)[0], _row(r)[1]) for r in TABLE}) == len(TABLE), "duplicate rows"


def test_sole_parameter_table_matches_torch():
    # module_dtypes.sole_parameter: replacing that one parameter decides the layer's dtype, so
    # the table must list only layers whose named_parameters are exactly ['weight'] as configured.
    from torchtype_lint.knowledge import module_dtypes as MD
    from torchtype_lint.model.values import ModuleValue

    builders = {"Embedding": lambda: torch.nn.Embedding(5, 2), "EmbeddingBag": lambda: torch.nn.EmbeddingBag(5, 2),
                "PReLU": lambda: torch.nn.PReLU(), "Linear": lambda: torch.nn.Linear(3, 2, bias=False),
                "Conv1d": lambda: torch.nn.Conv1d(3, 2, 1, bias=False),
                "Conv2d": lambda: torch.nn.Conv2d(3, 2, 1, bias=False),
                "Conv3d": lambda: torch.nn.Conv3d(3, 2, 1, bias=False),
                "ConvTranspose1d": lambda: torch.nn.ConvTranspose1d(3, 2, 1, bias=False),
                "ConvTranspose2d": lambda: torch.nn.ConvTranspose2d(3, 2, 1, bias=False),
                "ConvTranspose3d": lambda: torch.nn.ConvTranspose3d(3, 2, 1, bias=False)}
    assert set(builders) == set(MD.SOLE_WEIGHT_ALWAYS) | set(MD.SOLE_WEIGHT_WITHOUT_BIAS)
    for name, build in builders.items():
        assert [n for n, _ in build().named_parameters()] == ["weight"], name
        config = {"bias": False} if name in MD.SOLE_WEIGHT_WITHOUT_BIAS else {}
        assert MD.sole_parameter(ModuleValue(f"torch.nn.{name}", config)) == "weight"
    for name in MD.SOLE_WEIGHT_WITHOUT_BIAS:  # with a bias (the default) there are two
        assert MD.sole_parameter(ModuleValue(f"torch.nn.{name}", {})) is None
        assert MD.sole_parameter(ModuleValue(f"torch.nn.{name}", {"bias": True})) is None
    assert len(list(torch.nn.Linear(3, 2).named_parameters())) == 2
