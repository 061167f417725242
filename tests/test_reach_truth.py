"""Values through the structures real programs are made of (issue 14): lists grown by append,
lists of ndarrays, dicts, tuples, comprehensions, helpers with defaults, Dataset + DataLoader.
Each program runs under real torch/numpy; every value the engine claims must hold, and the
names listed must be known (a dtype), so reach cannot silently degrade to unknown."""
from __future__ import annotations

import textwrap
import warnings

import pytest

torch = pytest.importorskip("torch")

from knowledge_truth import contradiction, engine_globals, real_globals  # noqa: E402
from torchtype_lint.model.values import ArrayValue, TensorValue  # noqa: E402

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, Dataset\n"

#: name -> (program, names whose dtype the engine must know)
PROGRAMS = {
    "list of float lists grown by append": ("""
        rows = []
        for i in range(5):
            rows.append([float(i), 2.0 * i])
        arr = np.array(rows)
        t = torch.tensor(rows)
    """, ["arr", "t"]),
    "list of ndarrays grown by append": ("""
        arrs = []
        for i in range(3):
            arrs.append(np.random.rand(3))
        t = torch.tensor(np.array(arrs))
        u = torch.tensor(arrs)
    """, ["u"]),
    "list of int labels grown by append": ("""
        labels = []
        for i in range(4):
            labels.append(i % 2)
        y = torch.tensor(labels)
    """, ["y"]),
    "list of tensors, stacked and indexed": ("""
        ts = []
        for i in range(3):
            ts.append(torch.randn(2, 3))
        b = torch.stack(ts)
        c = torch.cat(ts, dim=0)
        first = ts[0]
    """, ["b", "c", "first"]),
    "dict of tensors": ("""
        d = {}
        d["w"] = torch.zeros(2, dtype=torch.float64)
        w = d["w"]
        for k, v in d.items():
            vv = v
    """, ["w", "vv"]),
    "tuples and zip": ("""
        xs = [torch.randn(2) for _ in range(3)]
        ys = [torch.zeros(2, dtype=torch.int64) for _ in range(3)]
        pairs = list(zip(xs, ys))
        p0, q0 = pairs[0]
    """, ["p0", "q0"]),
    "dict literal with string keys": ("""
        feats = {"x": torch.zeros(3), "y": torch.ones(3, dtype=torch.int64)}
        fx = feats["x"]
        fy = feats["y"]
        feats["z"] = torch.zeros(2, dtype=torch.float16)
        fz = feats["z"]
        feats["x"] = feats["x"].double()
        fx2 = feats["x"]
    """, ["fx", "fy", "fz", "fx2"]),
    "Dataset of dicts through DataLoader": ("""
        class DictDS(Dataset):
            def __init__(self, n):
                self.data = np.random.rand(n, 4).astype(np.float32)
            def __len__(self):
                return len(self.data)
            def __getitem__(self, idx):
                return {"x": torch.from_numpy(self.data[idx]), "label": float(idx % 2)}

        for batch in DataLoader(DictDS(8), batch_size=4):
            bx = batch["x"]
            bl = batch["label"]
    """, ["bx", "bl"]),
    "custom collate_fn": ("""
        class DS(Dataset):
            def __init__(self):
                self.X = np.random.randn(16, 8)
            def __len__(self):
                return len(self.X)
            def __getitem__(self, i):
                return self.X[i], i

        def collate(items):
            xs = torch.stack([torch.tensor(a) for a, b in items])
            ys = torch.tensor([b for a, b in items])
            return xs, ys

        for cx, cy in DataLoader(DS(), batch_size=4, collate_fn=collate):
            pass
    """, ["cx", "cy"]),
    "next(iter(loader))": ("""
        class DS(Dataset):
            def __len__(self):
                return 8
            def __getitem__(self, i):
                return np.random.rand(3), 1.5 * i

        loader = DataLoader(DS(), batch_size=4)
        xb, yb = next(iter(loader))
    """, ["xb", "yb"]),
    "recurrent layers' final states": ("""
        lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)
        out, (h_n, c_n) = lstm(torch.randn(4, 5, 8))
        proj = nn.LSTM(8, 16, proj_size=6)
        p_out, (p_h, p_c) = proj(torch.randn(5, 4, 8))
        gru = nn.GRU(8, 12)
        g_out, g_h = gru(torch.randn(5, 3, 8))
        single, s_h = nn.RNN(8, 12, num_layers=3)(torch.randn(5, 8))
        flat = h_n.view(-1, 2 * 16)
    """, ["h_n", "c_n", "p_h", "p_c", "g_h", "s_h", "flat"]),
    "None defaults, `or` and math": ("""
        import math

        def init_params(n, init=None):
            init = init if init is not None else [1] * n
            return torch.tensor(init)

        def attend(q, k, temperature=None):
            temperature = temperature or math.sqrt(q.size(-1))
            return torch.bmm(q, k.transpose(1, 2)) / temperature

        p = init_params(3)
        scores = attend(torch.randn(2, 3, 4), torch.randn(2, 5, 4))
        root = math.sqrt(2)
        angle = torch.ones(3) * math.pi
    """, ["p", "scores", "angle"]),
    "pairwise distances": ("""
        pos = torch.randn(6, 3)
        dist = torch.cdist(pos, pos)
        near = (dist < 1.0).long()
        batched = torch.cdist(torch.randn(2, 4, 3, dtype=torch.float64), torch.randn(2, 5, 3, dtype=torch.float64))
    """, ["dist", "near", "batched"]),
    "nn.ModuleList of the file's own blocks": ("""
        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, d)
            def forward(self, x):
                return self.fc(x)

        blocks = [Block(4)]
        for _ in range(2):
            blocks.append(Block(4))
        layers = nn.ModuleList(blocks)
        layers.append(Block(4))
        h = torch.randn(2, 4)
        for layer in layers:
            h = layer(h)
        out = h
    """, ["out"]),
    "zip(*batch) splits the fields of a batch": ("""
        batch = [(np.zeros(3), np.array(1, dtype=np.int32)), (np.ones(3), np.array(0, dtype=np.int32))]
        docs, labels = zip(*batch)
        x = torch.from_numpy(np.stack(docs))
        y = torch.as_tensor(np.array(labels))
        first_doc = docs[0]
    """, ["x", "y", "first_doc"]),
    "collate_fn over a dataset the engine cannot read": ("""
        def corpus():
            return list(zip([[1, 2], [3], [0, 4]], [0, 1, 1]))

        def bow(batch, vocab=5):
            counts = torch.zeros(len(batch), vocab, dtype=torch.long)
            for row, (tokens, _) in enumerate(batch):
                for tok in tokens:
                    counts[row, tok] += 1
            return counts, torch.tensor([label for _, label in batch])

        for counts, labels in DataLoader(corpus(), batch_size=2, collate_fn=bow):
            c = counts
    """, ["c"]),
    "numpy scalars from indexing, and np.pi": ("""
        freqs = np.random.uniform(0.5, 4.0, size=8)
        freq = freqs[3]
        t = np.arange(16, dtype=np.float32)
        wave = np.sin(2 * np.pi * freq * t)
        x = torch.from_numpy(wave.astype(np.float32) + wave)
        flags = torch.tensor([freqs[0] > 2.0, freqs[1] > 2.0])
        counts = np.bincount(np.array([1, 2, 2]))
        c0 = torch.tensor(counts[0])
    """, ["freq", "wave", "x", "flags", "c0"]),
    "records appended as dict literals keep their keys": ("""
        recs = []
        for i in range(3):
            recs.append({"x": np.random.rand(2), "n": i, "tag": str(i)})
        r = recs[0]
        fx = torch.from_numpy(r["x"])
        feats = np.array([[rec["n"], 1] for rec in recs])
        ft = torch.from_numpy(feats)
    """, ["fx", "feats", "ft"]),
    "functional softmax with dtype=": ("""
        x = torch.randn(2, 3)
        a = nn.functional.softmax(x, dim=-1, dtype=torch.float64)
        b = nn.functional.log_softmax(x, 1, 3, torch.float64)
        c = nn.functional.softmax(x, dim=0)
    """, ["a", "b", "c"]),
    "iterating an ndarray, and joining what it made": ("""
        labels = np.random.randint(0, 3, size=4)
        firsts = [lab for lab in labels]
        lab0 = firsts[0]
        for r in np.ones((3, 2), dtype=np.float32):
            row = r
        waves = np.stack([np.sin(lab * np.arange(4.0)) * np.hanning(4) for lab in labels])
        t = torch.tensor(waves)
    """, ["lab0", "row", "waves", "t"]),
    "np.load, cast where it is read": ("""
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "features.npy")
        np.save(path, np.ones((3, 2), dtype=np.float32))
        raw = np.load(path)
        feats = np.load(path).astype(np.float64)
        t = torch.from_numpy(feats)
    """, ["feats", "t"]),
    "copy.deepcopy of a model, cast apart from the original": ("""
        import copy

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)
                self.head = nn.Sequential(nn.ReLU(), nn.Linear(3, 2))

            def forward(self, x):
                return self.head(self.fc(x))

        model = Net()
        ema = copy.deepcopy(model).double()
        y = model(torch.randn(2, 4))
        z = ema(torch.randn(2, 4, dtype=torch.float64))
        p_ema = next(iter(ema.parameters()))
        p_model = [p for p in model.parameters()][-1]
    """, ["y", "z", "p_ema", "p_model"]),
    "generator functions: what they yield": ("""
        def batches(X, y, batch_size=2):
            order = torch.randperm(len(X))
            for start in range(0, len(X), batch_size):
                idx = order[start:start + batch_size]
                yield X[idx], y[idx]

        def arrays():
            yield from [np.zeros(2), np.ones(2)]

        X, y = torch.randn(6, 3), torch.zeros(6, dtype=torch.long)
        for step, (xb, yb) in enumerate(batches(X, y)):
            bx, by = xb, yb
        first = next(iter(arrays()))
        listed = list(arrays())[0]
    """, ["bx", "by", "first", "listed"]),
    "an MLP built layer by layer in a loop over known widths": ("""
        class MLP(nn.Module):
            def __init__(self, n_in, n_out, hidden=(32, 16)):
                super().__init__()
                layers, width = [], n_in
                for h in hidden:
                    layers += [nn.Linear(width, h), nn.ReLU()]
                    width = h
                layers.append(nn.Linear(width, n_out))
                self.layers = nn.Sequential(*layers)

            def forward(self, x):
                return self.layers(x)

        logits = MLP(5, 4)(torch.randn(8, 5))
        blocks = []
        for i in range(3):
            blocks.append(nn.Linear(4, 4))
        h = torch.randn(2, 4, dtype=torch.float64)
        for block in nn.ModuleList(blocks).double():
            h = block(h)
        out = h
        total = 0
        for i in range(4):
            total = total + i
        steps = torch.zeros(total)
    """, ["logits", "out", "steps"]),
    "autocast: what leaves the region": ("""
        class Backbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3, padding=1)
                self.pool = nn.AdaptiveAvgPool2d(1)

            def forward(self, x):
                x = torch.relu(self.conv(x))
                return self.pool(x).flatten(1)

        def features(model, images, use_amp=True):
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
                feats = model(images)
                layout = feats.view(2, 4).transpose(0, 1).contiguous() * 2
            return feats, layout

        images = torch.randn(2, 3, 8, 8)
        feats, layout = features(Backbone(), images)
        off, _ = features(Backbone(), images, use_amp=False)
    """, ["feats", "layout"]),
    "comparing values the engine does not know gives no Python bool": ("""
        yy, xx = np.mgrid[:8, :8]
        masks = []
        for cy in (2, 4, 5):
            disc = (yy - cy) ** 2 + (xx - 3) ** 2 <= 4
            masks.append(disc)
        targets = torch.from_numpy(np.stack(masks))[:, None]
        flags = torch.tensor([1, 2]) > 1
    """, ["flags"]),
    "classmethods, staticmethods, dataclass configs, closures": ("""
        from dataclasses import dataclass

        class Batch:
            scale = 2

            def __init__(self, x):
                self.x = x

            @classmethod
            def make(cls, n):
                return cls(torch.zeros(n, dtype=torch.long))

            @staticmethod
            def weights(labels):
                return torch.from_numpy(np.bincount(labels) / len(labels))

        b = Batch.make(3)
        bx = b.x
        w = Batch.weights(np.array([0, 1, 1]))
        w2 = b.weights(np.array([0, 1, 1]))
        scaled = torch.ones(3) * b.scale

        @dataclass
        class Cfg:
            dim: int = 4
            dtype: torch.dtype = torch.float64

        stats = torch.zeros(Cfg().dim, dtype=Cfg().dtype)
        small = torch.zeros(Cfg(2, torch.float16).dim, dtype=Cfg(2, torch.float16).dtype)
        named = torch.zeros(Cfg(dtype=torch.int32).dim, dtype=Cfg(dtype=torch.int32).dtype)

        def outer():
            pw = torch.ones(3, dtype=torch.float64)

            def inner(x):
                return x * pw
            return inner(torch.ones(3))

        c = outer()
        emb = nn.Embedding.from_pretrained(torch.randn(5, 3).half())
        e = emb(torch.tensor([1]))
        finite = torch.isfinite(torch.randn(4, 3)).all(1)
        rows = torch.randn(4, 3).any(-1, keepdim=True)
    """, ["bx", "w", "w2", "scaled", "stats", "small", "named", "c", "e", "finite", "rows"]),
    "lambdas, a lambda collate_fn among them": ("""
        double = lambda t, k=2: t * k
        d = double(torch.ones(2, dtype=torch.long))
        rows = [(np.random.rand(3), 1), (np.random.rand(3), 0)]
        loader = DataLoader(rows, batch_size=2, collate_fn=lambda batch: (
            torch.tensor(np.stack([x for x, _ in batch])), torch.tensor([y for _, y in batch])))
        for xb, yb in loader:
            bx, by = xb, yb
    """, ["d", "bx", "by"]),
    "helper with a dtype default": ("""
        def make(n, dtype=torch.float64):
            return torch.zeros(n, dtype=dtype)

        a = make(3)
        b = make(3, torch.int32)
        c = make(3, dtype=torch.float16)
    """, ["a", "b", "c"]),
}


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_reach_values_hold_in_a_real_run_and_are_known(name):
    body, must_know = PROGRAMS[name]
    source = _program(body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about lists of ndarrays: slow, not wrong
        real = real_globals(source)
    engine = engine_globals(source)
    wrong = [f"{n}: {why}" for n, value in engine.items() if n in real
             for why in [contradiction(value, real[n])] if why]
    assert not wrong, "\n".join(wrong)
    unknown = [n for n in must_know if not (isinstance(engine.get(n), (TensorValue, ArrayValue))
                                             and engine[n].dtypes)]
    assert not unknown, f"unknown to the engine: {unknown}"
    complete = [n for n in must_know if isinstance(engine.get(n), TensorValue) and engine[n].shape
                is not None and all(isinstance(d, int) for d in engine[n].shape)]
    shapes = [f"{n}: {why}" for n in complete
              for why in [contradiction(engine[n], real[n], require_known=True)] if why]
    assert not shapes, "\n".join(shapes)  # a fully known shape is exactly torch's


def test_a_bool_known_at_the_call_site_takes_one_branch():
    # `if half:` with half=True from the default runs only that branch (Python does too);
    # in a standalone analysis the default is only a guess, so both branches stay possible.
    source = _program("""
        def prep(x, half=True):
            if half:
                x = x.half()
            return x

        a = prep(torch.zeros(2))
        b = prep(torch.zeros(2), False)
        c = prep(torch.zeros(2), half=None)
    """)
    real = real_globals(source)
    engine = engine_globals(source)
    assert [real[n].dtype for n in "abc"] == [torch.float16, torch.float32, torch.float32]
    assert [engine[n].dtypes for n in "abc"] == [{"float16"}, {"float32"}, {"float32"}]
