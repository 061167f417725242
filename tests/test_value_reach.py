"""Values the engine must carry from where they are made to where torch fails, through the
shapes real programs have: calls nested several levels deep (a factory called from a
constructor called from ``main``), heap objects of knowledge values joined in a list and
iterated (a list of ``TensorDataset``s, one per client), dtype comparisons that decide a
branch (``if pic.dtype == np.uint8:``), slices of a known tuple (``H, W = x.shape[-2:]``),
``math.ceil``/``math.floor`` of known numbers, ``Tensor.unfold`` windows, the full first batch of
a loader whose last batch falls short, a loader wrapped in a ``tqdm`` progress bar, layers built
through ``functools.partial``, datasets split (``random_split``, ``Subset``, ``ConcatDataset``),
indexed (a class's own ``__getitem__``) and measured (its ``__len__``), an ``nn.Sequential`` grown
with ``add_module``/``append``, a custom ``torch.autograd.Function``'s ``apply``, a class that
extends an nn layer (``class Conv2dSame(nn.Conv2d)``: the layer its ``super().__init__`` builds,
its ``self.weight``, ``super().forward``).

Each case is a small program with the finding expected on the line marked ``# <-`` and a twin
that is fine and must be silent (no finding at all). Every claim is checked against torch in
one subprocess: the bad program raises what the case says, the twin runs to its end. A dtype
mismatch's wording depends on the CPU, device and torch version: those cases name the exception
class and take any wording the rule's runtime claim knows (tests/torch_runs.py).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import AsClaimed, Raises, raised_as_said, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import math\nimport numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.utils.data import DataLoader, Dataset, TensorDataset\n")
HEADER_LINES = HEADER.count("\n")


@dataclass(frozen=True)
class Case:
    """``bad`` fails in torch with ``raises`` (a substring, or ``AsClaimed``: the exception
    class, with any wording the rule's runtime claim knows, where torch words it differently by
    CPU, device or version) and gets ``code`` on its ``# <-`` line; ``good`` runs and gets no
    finding."""

    name: str
    code: str
    raises: Raises
    bad: str
    good: str


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def findings(body: str) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [(f.line - HEADER_LINES, f.code) for f in check_source(_program(body), "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


_DEEP_FACTORY = """
    class Backbone(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3)

        def forward(self, x):
            return self.conv(x)  # <-


    def build_backbone(width, half=False):
        model = Backbone(width)
        return model{cast}


    class Segmenter(nn.Module):
        def __init__(self, half=True):
            super().__init__()
            self.half_input = half
            self.net = build_backbone(8, half=half)

        def forward(self, images):
            if self.half_input:
                images = images.half()
            return self.net(images)


    def main():
        segmenter = Segmenter(half=True)
        return segmenter(torch.rand(2, 3, 16, 16))


    main()
"""

_DEEP_HELPER = """
    class Hasher(nn.Module):
        def rotate(self, vecs, n_buckets):
            rotations = torch.randn(1, vecs.shape[-1], n_buckets){cast}
            return torch.einsum("btf,bfi->bti", vecs, rotations.expand(vecs.shape[0], -1, -1))  # <-

        def forward(self, qk):
            return self.rotate(qk, 4).argmax(-1)


    class Attention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.to_qk = nn.Linear(dim, dim)
            self.hasher = Hasher()

        def forward(self, x):
            return self.hasher(self.to_qk(x))


    class LM(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.attn = Attention(dim)

        def forward(self, x):
            return self.attn(x)


    def main():
        model = LM().half()
        with torch.no_grad():
            return model(torch.randn(2, 5, 16).half())


    main()
"""

_CLIENT_DATASETS = """
    def load_clients(n_clients):
        rng = np.random.default_rng(0)
        datasets = []
        for client in range(n_clients):
            n = 12 if client % 2 else 16
            x = rng.standard_normal((n, 10)).astype(np.float32)
            y = rng.integers(0, 4, size=n)
            datasets.append(TensorDataset(torch.from_numpy(x), {labels}))
        return datasets


    def local_update(model, dataset):
        criterion = nn.CrossEntropyLoss()
        for data, label in DataLoader(dataset, batch_size=4, shuffle=True):
            loss = criterion(model(data), label)  # <-
            loss.backward()


    model = nn.Linear(10, 4)
    for ds in load_clients(8):
        local_update(model, ds)
"""

_DTYPE_BRANCH = """
    class ToTensor:
        def __call__(self, pic):
            if pic.dtype == np.uint8:
                return torch.from_numpy(pic[None].astype(np.float32) / 255.0)
            if pic.dtype in (np.uint16, np.int16):
                return torch.from_numpy(pic[None].astype({kept}))
            return torch.from_numpy(pic[None])


    class Crop:
        def __init__(self, size):
            self.size = size

        def __call__(self, img):
            return img[:self.size, :self.size]


    class Pipeline:
        def __init__(self, steps):
            self.steps = steps

        def __call__(self, img):
            for step in self.steps:
                img = step(img)
            return img


    class Slices(Dataset):
        def __init__(self, transform):
            self.slices = np.random.default_rng(0).integers(0, 4096, size=(8, 24, 24), dtype=np.uint16)
            self.transform = transform

        def __len__(self):
            return len(self.slices)

        def __getitem__(self, i):
            return self.transform(self.slices[i])


    conv = nn.Conv2d(1, 4, 3)
    for images in DataLoader(Slices(Pipeline([Crop(16), ToTensor()])), batch_size=4):
        conv(images)  # <-
"""

_CEIL_GRID = """
    class Decoder(nn.Module):
        def __init__(self, patch=4, dim=8):
            super().__init__()
            self.patch = patch
            self.embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch{padding})

        def forward(self, images):
            h, w = images.shape[-2:]
            gh, gw = math.ceil(h / self.patch), math.ceil(w / self.patch)
            tokens = self.embed(images).flatten(2).transpose(1, 2)
            b, n, c = tokens.shape
            return tokens.reshape(b, gh, gw, c)  # <-


    Decoder()(torch.rand(2, 3, 134, 134))
"""

_WINDOWS = """
    series = torch.sin(torch.linspace(0, 20, 60))
    windows = series.unfold(0, {size}, 2)
    head = nn.Linear(12, 1)
    head(windows)  # <-
"""

_FIRST_BATCH = """
    series = torch.sin(torch.linspace(0, 20, 55))
    windows = series.unfold(0, 15, 1)
    loader = DataLoader(TensorDataset(windows[:, :12].unsqueeze(-1)), batch_size=4, shuffle=True)
    pe = torch.zeros(12, 1, 16)
    proj = nn.Linear(1, 16)
    for {target} in {iterable}:
        h = proj(x)
        h = h + pe{layout}  # <-
"""

_PROGRESS_BAR = """
    from tqdm import tqdm
    from tqdm.auto import tqdm as auto_tqdm

    features = torch.from_numpy(np.random.default_rng(0).standard_normal((40, 3))){cast}
    loader = DataLoader(TensorDataset(features, torch.randn(40)), batch_size=4)
    model = nn.Linear(3, 1)
    for epoch in auto_tqdm(range(2)):
        for x, y in tqdm(loader, desc="train", leave=False):
            model(x)  # <-
"""

_PARTIAL = """
    from functools import partial


    def make_head(in_features, num_classes, bias=True):
        return nn.Linear(in_features, num_classes, bias=bias)


    class Block(nn.Module):
        def __init__(self, dim, norm_layer=nn.LayerNorm, head_layer=None):
            super().__init__()
            self.norm = norm_layer(dim)
            self.head = head_layer(dim)

        def forward(self, x):
            return self.head(self.norm(x))


    block = Block(16, norm_layer=partial(nn.LayerNorm, eps=1e-6), head_layer=partial(make_head, num_classes=4))
    block(torch.randn(2, 16){cast})
"""

_SPLITS = """
    from torch.utils.data import ConcatDataset, Subset, random_split


    class Readings(Dataset):
        def __init__(self, n):
            self.x = torch.from_numpy(np.random.default_rng(0).standard_normal((n, 6))){cast}
            self.y = torch.randint(0, 3, (n,))

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.x[i], self.y[i]


    data = Readings(100)
    train_set, val_set = random_split(data, [0.8, 0.2])
    extra = ConcatDataset([Subset(data, list(range(10))), val_set])
    model = nn.Linear(6, 3)
    sample, _ = data[0]
    model(sample.unsqueeze(0))  # <-
    for x, y in DataLoader(train_set, batch_size=16, shuffle=True):
        F.cross_entropy(model(x), y)
    for x, y in DataLoader(extra, batch_size=len(extra)):
        F.cross_entropy(model(x), y)
"""

_GROWN_SEQUENTIAL = """
    class GradReverse(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, alpha):
            ctx.alpha = alpha
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            return -ctx.alpha * grad, None


    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, factor):
            return x * factor

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.factor = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None


    head = nn.Sequential()
    head.add_module("fc", nn.Linear(48, 100))
    head.add_module("bn", nn.{norm}(100))
    head.append(nn.ReLU())
    features = Scale.apply(torch.randn(16, 48), 2.0)
    head(GradReverse.apply(features, 0.1))  # <-
"""

_LAYER_SUBCLASSES = """
    class Conv2dSame(nn.Conv2d):
        def __init__(self, in_channels, out_channels, kernel_size, stride=1):
            super().__init__(in_channels, out_channels, kernel_size, stride, 0, 1, 1, True)

        def forward(self, x):
            x = F.pad(x, [1, 1, 1, 1])
            return F.conv2d(x, self.weight, self.bias, self.stride)  # <-


    class Head(nn.Linear):
        pass


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = Conv2dSame(3, 8, 3)
            self.head = Head(8, 2)

        def forward(self, x):
            return self.head(self.conv(x).mean((2, 3)))


    Net().{cast}()(torch.randn(2, 3, 16, 16))
"""

_PROPERTY_DTYPE = """
class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(5, 2)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, x):
        return self.head(x.to(self.dtype))


model = Scorer().to(torch.bfloat16)
rows = [torch.randn(5), None, torch.randn(5)]
table = torch.full((len(rows),), float("nan"), dtype=model.dtype)
kept = torch.tensor([r is not None for r in rows])
with torch.no_grad():
    probs = model(torch.stack([r for r in rows if r is not None])).float().softmax(-1)[:, 1]
table[kept] = probs{cast}  # <-
"""

_COLLATED_LAYOUT = """
reduce = nn.Conv2d(3, 2, 1)
for (images,) in DataLoader(TensorDataset(torch.randn(8, 3, 6, 6)), batch_size=4):
    pairs = F.relu(reduce(images)).permute(0, 2, 3, 1)
    flat = pairs.{flatten}(-1, 2)  # <-
"""

_OPTIONAL_TRANSFORM = """
class Steps:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, img):
        for step in self.steps:
            img = step(img)
        return img


def to_tensor(img):
    return torch.from_numpy(img){layout}.float() / 255.0


class Tiles(Dataset):
    def __init__(self, n, transform=None):
        self.images = np.random.default_rng(0).integers(0, 256, (n, 12, 12, 3), dtype=np.uint8)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.transform is not None:
            img = self.transform(img)
        return img


conv = nn.Conv2d(3, 4, 3)
for images in DataLoader(Tiles(8, transform=Steps([to_tensor])), batch_size=4):
    out = conv(images)  # <-
"""

_UPSAMPLED = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.ReLU(), nn.Conv2d(4, 4, 3, 2, 1))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear"), nn.Conv2d(4, 1, 3, padding=1){more})

    def forward(self, x):
        return torch.sigmoid(self.up(self.down(x)))


masks = Net()(torch.rand(2, 1, 16, 16))
for m in masks:
    grid = m.view(16, 16, 1)  # <-
"""


_FUNCTIONAL_CONV = """
class MaskedConv(nn.Conv2d):
    def forward(self, x):
        return F.conv2d(x, self.weight * 0.5, self.bias, self.stride, self.padding, self.dilation, self.groups)


conv = MaskedConv(3, 8, 3, stride=2, padding=1)
feats = conv(torch.randn(4, 3, 8, 8)).flatten(1)
out = nn.Linear({width}, 2)(feats)  # <-
"""


#: Look-alikes that run in torch: the engine must know what they do, or know it does not know.
SILENT = {
    "sequential_layer_replaced_on_a_branch": """
        import random
        seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        if random.random() < 2:
            seq[0] = nn.Linear(6, 8)
        seq(torch.randn(2, 6))
    """,
    "sequential_layer_replaced_by_name": """
        seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        seq.add_module("0", nn.Linear(6, 8))
        seq(torch.randn(2, 6))
    """,
    "sequential_grown_on_a_branch": """
        import random
        seq = nn.Sequential(nn.Linear(4, 8))
        if random.random() < 2:
            seq.add_module("adapter", nn.Linear(8, 6))
            seq.add_module("1", nn.Linear(6, 8))
        seq(torch.randn(2, 4))
    """,
    "sequential_layer_of_unknown_name": """
        import os
        seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        seq.add_module(os.environ.get("FIRST", "0"), nn.Linear(6, 8))
        seq(torch.randn(2, 6))
    """,
}

#: An image size from a config dict spread into the sample shape: (n, *size, 3) has its items.
_SPREAD_SIZE = """
    cfg = dict(num=4, size={size})
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(cfg["num"], *cfg["size"], 3)).astype(np.float32)
    head = nn.Linear(8 * 8 * 3, 10)
    out = head(torch.from_numpy(images).flatten(1))  # <-
"""


# a collate_fn that is an object with __call__, or a partial of the file's function: it makes the batch
_COLLATOR = """
class Collator:
    def __init__(self, width):
        self.width = width

    def __call__(self, features):
        ids = torch.zeros(len(features), self.width, dtype=torch.long)
        for i, f in enumerate(features):
            ids[i, : len(f["ids"])] = torch.tensor(f["ids"])
        return {{"ids": ids, "labels": torch.Tensor([f["label"] for f in features]){cast}}}


data = [{{"ids": [1, 2, 3], "label": i % 3}} for i in range(12)]
embed, head = nn.Embedding(10, 8), nn.Linear(8, 3)
for batch in DataLoader(data, batch_size=4, collate_fn={collate}):
    logits = head(embed(batch["ids"]).mean(1))
    loss = F.cross_entropy(logits, batch["labels"])  # <-
"""

_PARTIAL_COLLATE = """
import functools


def pad_collate(batch, pad_id):
    ids = torch.zeros(len(batch), 6{dtype}) + pad_id
    return ids, torch.tensor([label for _, label in batch])


data = [([1, 2], i % 2) for i in range(8)]
embed = nn.Embedding(10, 4)
for ids, labels in DataLoader(data, batch_size=4, collate_fn=functools.partial(pad_collate, pad_id=0)):
    out = embed(ids)  # <-
"""

# an attribute set lazily by the first call (`if self.kind is None: self.kind = ...`), read in a
# loop: None or the one value set, so a branch for another value never runs
_LAZY_KIND = """
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head, self.kind = nn.Linear(4, 2), None

    def forward(self, x, labels):
        logits = self.head(x)
        if self.kind is None:
            self.kind = "single" if labels.dtype == torch.long else "multi"
        if self.kind == "single":
            return F.cross_entropy(logits, labels)
        return F.binary_cross_entropy_with_logits(logits, labels)  # <-


model = Classifier()
for step in range(3):
    loss = model(torch.randn(8, 4), torch.randint(0, 2, (8,)){cast})
"""

# a VGG-style cfg of more than six entries builds the network layer by layer; a plain
# nn.Sequential subclass inside an nn.Sequential runs its layers
_VGG_CFG = """
def make_layers(cfg, in_channels=3):
    layers = []
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(in_channels, v, 3, padding=1), nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class ConvBlock(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 1), nn.ReLU())


net = nn.Sequential(make_layers([8, "M", 8, 16, "M", 16, 32, "M", 32]), ConvBlock(32, 1))
out = net(torch.randn(2, 3, 64, 64))
loss = F.mse_loss(out, torch.randn(2, 1, {size}, {size}))  # <-
"""

_APPLIED = """
def to_half(m):
    if isinstance(m, nn.Linear):
        m.half()


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.apply(to_half)
out = model({x})  # <-
"""

_CUT_CHILDREN = """
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)


backbone = nn.Sequential(*list(Classifier().children())[:-{cut}], nn.Flatten())
head = nn.Linear(8, 4)
out = head(backbone(torch.randn(2, 3, 8, 8)))  # <-
"""

_BUILT_NAMES = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.dims = [8, 16, 4]
        for i in range(2):
            setattr(self, {name}, nn.Linear(self.dims[i], self.dims[i + 1]))
        self.head = nn.Linear({width}, 2)

    def forward(self, x):
        return self.head(self.fc1(self.fc0(x)))  # <-


out = Net()(torch.randn(3, 8))
"""

CASES = [
    Case("factory_in_constructor_called_from_main", "TTL401", AsClaimed("RuntimeError"),
         _DEEP_FACTORY.format(cast=""), _DEEP_FACTORY.format(cast=".half() if half else model")),
    Case("helper_method_four_calls_deep", "TTL401", AsClaimed("RuntimeError"),
         _DEEP_HELPER.format(cast=""), _DEEP_HELPER.format(cast=".to(vecs.dtype)")),
    Case("tensor_datasets_one_per_client", "TTL207", AsClaimed("RuntimeError"),
         _CLIENT_DATASETS.format(labels="torch.Tensor(y)"), _CLIENT_DATASETS.format(labels="torch.from_numpy(y)")),
    Case("pipeline_step_decided_by_dtype_test", "TTL202", AsClaimed("RuntimeError"),
         _DTYPE_BRANCH.format(kept="np.int16"), _DTYPE_BRANCH.format(kept="np.float32")),
    Case("grid_from_math_ceil", "TTL509", "is invalid for input of size",
         _CEIL_GRID.format(padding=""), _CEIL_GRID.format(padding=", padding=1")),
    Case("unfold_windows_into_linear", "TTL502", "cannot be multiplied",
         _WINDOWS.format(size=10), _WINDOWS.format(size=12)),
    Case("loader_wrapped_in_a_progress_bar", "TTL401", AsClaimed("RuntimeError"),
         _PROGRESS_BAR.format(cast=""), _PROGRESS_BAR.format(cast=".float()")),
    Case("layers_built_through_functools_partial", "TTL401", AsClaimed("RuntimeError"),
         _PARTIAL.format(cast=".half()").replace("return self.head(self.norm(x))",
                                                 "return self.head(self.norm(x))  # <-"),
         _PARTIAL.format(cast="")),
    Case("datasets_split_and_indexed", "TTL401", AsClaimed("RuntimeError"),
         _SPLITS.format(cast=""), _SPLITS.format(cast=".float()")),
    Case("sequential_grown_and_autograd_function_applied", "TTL524", "expected 4D input",
         _GROWN_SEQUENTIAL.format(norm="BatchNorm2d"), _GROWN_SEQUENTIAL.format(norm="BatchNorm1d")),
    Case("subclasses_of_nn_layers", "TTL401", AsClaimed("RuntimeError"),
         _LAYER_SUBCLASSES.format(cast="double"), _LAYER_SUBCLASSES.format(cast="float")),
    Case("subclass_of_a_layer_without_init", "TTL401", AsClaimed("RuntimeError"),
         "class Head(nn.Linear):\n    pass\n\n\nHead(8, 2).double()(torch.randn(4, 8))  # <-\n",
         "class Head(nn.Linear):\n    pass\n\n\nHead(8, 2).double()(torch.randn(4, 8).double())\n"),
    # a @property read on the instance runs its getter; a comprehension whose condition is
    # known for each item keeps the items it selects
    Case("property_dtype_and_filtered_comprehension", "TTL205", AsClaimed("RuntimeError"),
         _PROPERTY_DTYPE.format(cast=""), _PROPERTY_DTYPE.format(cast=".to(table.dtype)")),
    # `if self.transform is not None:` of a transform the dataset was given: an instance is not None
    Case("optional_transform_given", "TTL501", "expected input",
         _OPTIONAL_TRANSFORM.format(layout=""), _OPTIONAL_TRANSFORM.format(layout=".permute(2, 0, 1)")),
    # padding layers pass the channels through to the convolution after them
    Case("padded_sequential_channels", "TTL501", "expected input",
         "net = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(1, 8, 7), nn.ZeroPad2d((1, 1, 0, 0)))\n"
         "out = net(torch.rand(2, 3, 16, 16))  # <-\n",
         "net = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(3, 8, 7), nn.ZeroPad2d((1, 1, 0, 0)))\n"
         "out = net(torch.rand(2, 3, 16, 16))\n"),
    # nn.Upsample and its fixed-mode forms resample as F.interpolate: floor(size * scale_factor)
    Case("decoder_upsampled_too_few_times", "TTL509", "is invalid for input of size",
         _UPSAMPLED.format(more=""), _UPSAMPLED.format(more=", nn.UpsamplingNearest2d(scale_factor=2)")),
    # F.conv2d with a layer's own weight (out, in, *kernel) and settings (self.stride: a tuple)
    Case("layer_subclass_convolving_functionally", "TTL502", "cannot be multiplied",
         _FUNCTIONAL_CONV.format(width=8 * 8 * 8), _FUNCTIONAL_CONV.format(width=8 * 4 * 4)),
    # default_collate stacks row-major samples into a row-major batch
    Case("permuted_batch_viewed", "TTL526", "view size is not compatible",
         _COLLATED_LAYOUT.format(flatten="view"), _COLLATED_LAYOUT.format(flatten="reshape")),
    # 41 windows in batches of 4: the last batch holds 1 (which broadcasts), the first 4
    Case("first_batch_of_a_loader_with_a_short_last_batch", "TTL515", "must match the size",
         _FIRST_BATCH.format(target="(x,)", iterable="loader", layout=""),
         _FIRST_BATCH.format(target="(x,)", iterable="loader", layout=".transpose(0, 1)")),
    Case("config_size_spread_into_sample_shape", "TTL502", "cannot be multiplied",
         _SPREAD_SIZE.format(size="(8, 16)"), _SPREAD_SIZE.format(size="[8, 8]").replace("  # <-", "")),
    Case("first_batch_through_enumerate", "TTL515", "must match the size",
         _FIRST_BATCH.format(target="step, (x,)", iterable="enumerate(loader)", layout=""),
         _FIRST_BATCH.format(target="step, (x,)", iterable="enumerate(loader)", layout=".transpose(0, 1)")),
    Case("collate_fn_an_object_with_call", "TTL207", AsClaimed("RuntimeError"),
         _COLLATOR.format(cast="", collate="Collator(6)"), _COLLATOR.format(cast=".long()", collate="Collator(6)")),
    Case("collate_fn_a_partial", "TTL209", AsClaimed("RuntimeError"),
         _PARTIAL_COLLATE.format(dtype=""), _PARTIAL_COLLATE.format(dtype=", dtype=torch.long")),
    # a pretrained table whose shape is not known (a FloatTensor of a computed array) still makes
    # an Embedding layer, which takes integer indices only
    Case("embedding_from_a_table_of_unknown_shape", "TTL209", AsClaimed("RuntimeError"),
         "table = torch.FloatTensor(np.vander(np.linspace(0, 1, 9), 4))\n"
         "pos_enc = nn.Embedding.from_pretrained(table, freeze=True)\n"
         "out = pos_enc(torch.arange(1, 6).unsqueeze(0).float())  # <-\n",
         "table = torch.FloatTensor(np.vander(np.linspace(0, 1, 9), 4))\n"
         "pos_enc = nn.Embedding.from_pretrained(table, freeze=True)\n"
         "out = pos_enc(torch.arange(1, 6).unsqueeze(0))\n"),
    Case("vgg_cfg_and_sequential_subclass_inside_a_sequential", "TTL515", "must match the size",
         _VGG_CFG.format(size=64), _VGG_CFG.format(size=8)),
    # seq[-1] = layer replaces that layer (a head swapped for fine-tuning); on a branch it is unknown
    Case("sequential_layer_replaced_by_index", "TTL502", "cannot be multiplied",
         "net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))\n"
         "net[-1] = nn.Linear(16, 2)\n"
         "out = net(torch.randn(2, 3, 16, 16))  # <-\n",
         "net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))\n"
         "net[-1] = nn.Linear(8, 2)\n"
         "out = net(torch.randn(2, 3, 16, 16))\n"),
    # a colour mask made by indexing a palette with a label map is (H, W, 3): not class indices
    Case("palette_indexed_colour_mask_as_target", "TTL512", "only batches of spatial targets supported",
         "palette = np.array([[0, 0, 0], [128, 0, 0], [0, 128, 0]], dtype=np.uint8)\n"
         "labels = np.random.default_rng(0).integers(0, 3, (2, 8, 8))\n"
         "colour = torch.from_numpy(palette[labels]).long()\n"
         "loss = F.cross_entropy(torch.randn(2, 3, 8, 8), colour)  # <-\n",
         "palette = np.array([[0, 0, 0], [128, 0, 0], [0, 128, 0]], dtype=np.uint8)\n"
         "labels = np.random.default_rng(0).integers(0, 3, (2, 8, 8))\n"
         "colour = torch.from_numpy(palette[labels]).long()\n"
         "loss = F.cross_entropy(torch.randn(2, 3, 8, 8), torch.from_numpy(labels))\n"),
    # model.apply(fn) runs fn on every submodule: isinstance(m, nn.Linear) picks the Linear layers
    Case("apply_casts_the_linear_layers", "TTL401", AsClaimed("RuntimeError"),
         _APPLIED.format(x="torch.randn(3, 4)"), _APPLIED.format(x="torch.randn(3, 4).half()")),
    # list(model.children())[:-k] keeps the layers before the head (a Sequential's, a model class's
    # in the order they were set): cutting one too many leaves the features unpooled
    Case("backbone_cut_from_children", "TTL502", "cannot be multiplied",
         _CUT_CHILDREN.format(cut=2), _CUT_CHILDREN.format(cut=1)),
    # setattr(self, "fc" + str(i), ...) / f"fc{i}" in an unrolled loop stores known names: the
    # model's other attributes stay known, and forward's getattr-free reads find each layer
    Case("layers_stored_under_built_names", "TTL502", "cannot be multiplied",
         _BUILT_NAMES.format(name='"fc" + str(i)', width=16), _BUILT_NAMES.format(name='"fc" + str(i)', width=4)),
    Case("layers_stored_under_formatted_names", "TTL502", "cannot be multiplied",
         _BUILT_NAMES.format(name='f"fc{i}"', width=16), _BUILT_NAMES.format(name='f"fc{i}"', width=4)),
    Case("attribute_set_lazily_in_a_loop", "TTL510", "must be the same as input size",
         _LAZY_KIND.format(cast=".float()"), _LAZY_KIND.format(cast="")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_program_reported_on_its_line(case: Case) -> None:
    assert (marked_line(case.bad), case.code) in findings(case.bad)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twin_is_silent(case: Case) -> None:
    assert findings(case.good) == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert findings(SILENT[name]) == []


def test_every_case_is_true_in_torch() -> None:
    programs = {}
    for case in CASES:
        programs[case.name + ":bad"] = _program(case.bad)
        programs[case.name + ":good"] = _program(case.good)
    for name, body in SILENT.items():
        programs[name + ":silent"] = _program(body)
    results = run_in_torch(programs)
    for name in SILENT:
        assert results[name + ":silent"] == "", (name, results[name + ":silent"])
    for case in CASES:
        assert raised_as_said(case.code, case.raises, results[case.name + ":bad"]), (
            case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])


def test_knowledge_values_join_by_their_own_rule() -> None:
    """Two datasets or loaders met at a branch or a loop head: either one's facts, the ones
    they share kept (``join`` of model/ knows no knowledge value; each joins itself)."""
    from torchtype_lint.knowledge.data_pipeline import DataLoaderValue, LastBatch, TensorDatasetValue
    from torchtype_lint.model.values import TOP, SequenceValue, TensorValue, join

    def row(shape):
        return SequenceValue("tuple", TOP, (TensorValue(frozenset({"float32"}), shape), TensorValue(
            frozenset({"int64"}), ())))

    small, large = TensorDatasetValue(row((10,)), None, 12), TensorDatasetValue(row((10,)), None, 16)
    either = join(small, large)
    assert isinstance(either, TensorDatasetValue) and either.length is None and either.item == small.item
    assert join(small, TensorDatasetValue(row((10,)), None, 12)) == small
    other_rows = join(small, TensorDatasetValue(row((3,)), None, 12))
    assert isinstance(other_rows, TensorDatasetValue) and other_rows.item.items[0].shape == (None,)
    a = DataLoaderValue(small.item, 4, None, None, LastBatch(4, 12))
    b = DataLoaderValue(large.item, 8, None, None, LastBatch(8, 16))
    loader = join(a, b)
    assert isinstance(loader, DataLoaderValue) and loader.batch_size is None and loader.last_batch is None
    assert join(a, DataLoaderValue(small.item, 4, None, small.item, None)) is TOP  # a collate_fn's batch


def test_unfold_shape_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    from torchtype_lint.knowledge.shapes import unfold_shape
    for shape in [(55,), (2, 10, 3), (5,), (4, 7), ()]:
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            for size in range(0, 8):
                for step in range(1, 4):
                    try:
                        expected = tuple(torch.zeros(shape).unfold(dim, size, step).shape)
                    except (RuntimeError, IndexError):
                        expected = None
                    got = unfold_shape(shape, dim, size, step)
                    assert got is None or got == expected, (shape, dim, size, step, got, expected)
                    if shape and expected is not None:
                        assert got == expected, (shape, dim, size, step)


def test_dtype_comparisons_match_torch_and_numpy() -> None:
    torch = pytest.importorskip("torch")
    import numpy
    from torchtype_lint.knowledge.dtype_comparisons import dtype_comparison
    from torchtype_lint.knowledge.dtypes import TORCH_DTYPE_ATTRS
    from torchtype_lint.model.values import DTypeValue, SequenceValue, SymbolValue, TOP

    torch_names = [n for n in ("float16", "half", "float32", "float", "float64", "double", "bfloat16", "int64",
                               "long", "int32", "uint8", "bool") if n in TORCH_DTYPE_ATTRS]
    for a in torch_names:
        for b in torch_names:
            left, right = getattr(torch, a), getattr(torch, b)
            va, vb = DTypeValue(TORCH_DTYPE_ATTRS[a]), DTypeValue(TORCH_DTYPE_ATTRS[b])
            for op, truth in (("==", left == right), ("!=", left != right), ("is", left is right),
                              ("is not", left is not right)):
                assert dtype_comparison(va, op, vb) == truth, (a, op, b)
            pair = SequenceValue("tuple", TOP, (vb, DTypeValue("bfloat16")))
            assert dtype_comparison(va, "in", pair) == (left in (right, torch.bfloat16)), (a, b)
    numpy_names = ["uint8", "uint16", "int16", "int32", "int64", "float16", "float32", "float64", "double",
                   "single", "half", "int_", "bool_", "ubyte", "short", "longlong", "intc"]
    for a in numpy_names:
        array_dtype = numpy.zeros(2, dtype=getattr(numpy, a)).dtype
        canonical = SymbolValue(f"numpy.{array_dtype.name}" if array_dtype.name != "bool" else "numpy.bool_")
        for b in numpy_names:
            scalar_type = getattr(numpy, b)
            vb = SymbolValue(f"numpy.{b}")
            assert dtype_comparison(canonical, "==", vb) == bool(array_dtype == scalar_type), (a, b)
            assert dtype_comparison(canonical, "!=", vb) == bool(array_dtype != scalar_type), (a, b)
            pair = SequenceValue("tuple", TOP, (vb, SymbolValue("numpy.int16")))
            assert dtype_comparison(canonical, "in", pair) == (array_dtype in (scalar_type, numpy.int16)), (a, b)
            assert dtype_comparison(canonical, "is", vb) is None  # a dtype is never the scalar type
    # a torch dtype against a numpy one, or anything not a dtype: not answered
    assert dtype_comparison(DTypeValue("float32"), "==", SymbolValue("numpy.float32")) is None
    assert dtype_comparison(DTypeValue("float32"), "==", TOP) is None


def test_python_random_and_math_results_match_python() -> None:
    import math
    import random
    from torchtype_lint.knowledge.python_math import INT_FUNCTIONS, int_function
    from torchtype_lint.knowledge.python_random import FLOAT_DRAWS, INT_DRAWS, random_call
    from torchtype_lint.model.values import CallArgs, ScalarValue, SymbolValue

    arguments = {"random": (), "uniform": (1, 5), "triangular": (), "gauss": (), "normalvariate": (),
                 "lognormvariate": (0, 1), "expovariate": (1.0,), "vonmisesvariate": (0, 1),
                 "gammavariate": (1, 1), "betavariate": (1, 1), "paretovariate": (1,), "weibullvariate": (1, 1),
                 "randint": (1, 5), "randrange": (5,), "getrandbits": (8,)}
    assert set(arguments) == FLOAT_DRAWS | INT_DRAWS
    rnd = random.Random(0)
    for name, args in arguments.items():
        for owner, caller in (("random", random), ("random.Random", rnd)):
            value = random_call(f"{owner}.{name}")
            assert isinstance(value, ScalarValue) and value.pytype == type(getattr(caller, name)(*args)).__name__
    assert random_call("random.Random") == SymbolValue("random.Random")
    assert random_call("random.choice") is None
    for qualname, fn in INT_FUNCTIONS.items():
        assert getattr(math, qualname.split(".")[1]) is fn
        for x in (33.5, -2.5, 7, 0.0, True):
            value = int_function(qualname, CallArgs([ScalarValue(type(x).__name__, x)]))
            assert value == ScalarValue("int", fn(x)) and type(fn(x)) is int
        inf = int_function(qualname, CallArgs([ScalarValue("float", math.inf)]))
        assert inf == ScalarValue("int")  # math.ceil(inf) raises: no value claimed


def test_random_split_lengths_match_torch() -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import random_split
    from torchtype_lint.knowledge.data_pipeline import split_lengths

    import warnings

    for size in (0, 1, 7, 10, 41, 100):
        for lengths in ([0.8, 0.2], [0.3, 0.3, 0.4], [0.5, 0.5], [1.0], [0.1] * 10, [size], [size - 3, 3],
                        [0, size], [1, 0], [2, 2], [0.7, 0.2]):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)  # "Length of split at index 1 is 0"
                    expected = tuple(len(part) for part in random_split(range(size), lengths))
            except ValueError:
                expected = None
            got = split_lengths(size, tuple(lengths))
            if all(n >= 0 for n in lengths):
                assert got == expected, (size, lengths)
            else:
                assert got is None  # torch makes empty parts of negative lengths: not claimed


def test_constants_join_into_choices_that_fold_as_python_compares() -> None:
    # None or "multi" (a lazily set attribute): == "single" is False whichever it is; is None is
    # not known; more than MAX_CHOICES constants, ints and two bools keep their old joins
    from torchtype_lint.engine.configuration import folded_comparison
    from torchtype_lint.model.values import (
        MAX_CHOICES, ChoiceValue, NoneValue, ScalarValue, StringValue, TOP, join)

    lazy = join(NoneValue(), StringValue("multi"))
    assert isinstance(lazy, ChoiceValue) and lazy.options == {None, "multi"}
    assert join(lazy, StringValue("multi")) == lazy
    for other, op in (("single", "=="), ("multi", "=="), ("single", "!=")):
        folded = folded_comparison(lazy, op, StringValue(other))
        answers = {(o == other) if op == "==" else (o != other) for o in (None, "multi")}
        assert (folded.const if folded is not None else None) == (answers.pop() if len(answers) == 1 else None)
    assert folded_comparison(lazy, "in", join(StringValue("a"), StringValue("b"))) is None  # not a literal list
    many = StringValue("s0")
    for i in range(1, MAX_CHOICES + 1):
        many = join(many, StringValue(f"s{i}"))
    assert many == StringValue(None)
    assert join(ScalarValue("int", 1), ScalarValue("int", 2)) == ScalarValue("int")
    assert join(ScalarValue("bool", True), ScalarValue("bool", False)) == ScalarValue("bool")
    assert join(NoneValue(), ScalarValue("float", 1.0)) is TOP
